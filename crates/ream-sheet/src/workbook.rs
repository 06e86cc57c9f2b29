//! The [`Workbook`] and [`Sheet`] types and the three-phase open.

use crate::error::{Error, ErrorKind, Result};
use crate::model::*;
use crate::options::OpenOptions;
use crate::store::{CellStore, RawCell};
use ream_io::Bytes;
use std::path::Path;

/// One sheet of a workbook with all its cells and small parts.
#[derive(Debug)]
pub struct Sheet {
    pub(crate) name: String,
    pub(crate) index: usize,
    pub(crate) kind: SheetKind,
    pub(crate) visibility: Visibility,
    pub(crate) part: String,
    pub(crate) dimension: Option<CellRange>,
    pub(crate) store: CellStore,
    pub(crate) merged: Vec<CellRange>,
    pub(crate) comments: Vec<Comment>,
    pub(crate) tables: Vec<Table>,
    pub(crate) hyperlinks: Vec<Hyperlink>,
    pub(crate) hidden_rows: Vec<u32>,
    pub(crate) hidden_cols: Vec<u32>,
    pub(crate) drawings: Vec<Drawing>,
    /// False when the workbook was opened without loading cells.
    pub(crate) loaded: bool,
}

impl Sheet {
    /// The sheet's name as shown on its tab.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// 0-based position in the workbook.
    pub fn index(&self) -> usize {
        self.index
    }
    /// Worksheet, chartsheet, ...
    pub fn kind(&self) -> SheetKind {
        self.kind
    }
    /// Visible, hidden or very hidden.
    pub fn visibility(&self) -> Visibility {
        self.visibility
    }
    /// The ZIP part holding the sheet XML (e.g. `xl/worksheets/sheet1.xml`).
    pub fn part(&self) -> &str {
        &self.part
    }
    /// The `<dimension>` the file declares, if any (not trusted for storage).
    pub fn declared_dimension(&self) -> Option<CellRange> {
        self.dimension
    }
    /// Number of cells stored (those with a value or a formula).
    pub fn cell_count(&self) -> usize {
        self.store.cells.len()
    }
    /// All stored cells (with a value or a formula) in row-major order.
    pub fn cells(&self) -> Cells<'_> {
        Cells {
            store: &self.store,
            inner: self.store.cells.iter(),
            next_formula: 0,
        }
    }
    /// The cells split into `parts` iterators over consecutive runs of about
    /// equal length (row-major order is kept within and across the parts),
    /// for consumers that visit one big sheet on several threads. Fewer
    /// parts come back when the sheet has fewer cells; `parts` 0 is 1.
    pub fn cells_split(&self, parts: usize) -> Vec<Cells<'_>> {
        let cells = self.store.cells.as_slice();
        let per = cells.len().div_ceil(parts.max(1)).max(1);
        cells.chunks(per).map(|run| self.run(run)).collect()
    }
    /// The stored cells of rows `first .. end` (`end` exclusive) split
    /// into at most `parts` runs of whole rows with about equal numbers of
    /// cells, in row-major order. Empty when no cell is in those rows;
    /// `parts` 0 is 1. Finding the rows is a binary search.
    pub fn cells_in_rows(&self, first: u32, end: u64, parts: usize) -> Vec<Cells<'_>> {
        let cells = self.store.cells.as_slice();
        let lo = cells.partition_point(|c| c.row < first);
        let hi = cells.partition_point(|c| u64::from(c.row) < end);
        let window = cells.get(lo..hi).unwrap_or_default();
        let per = window.len().div_ceil(parts.max(1)).max(1);
        let mut out = Vec::new();
        let mut rest = window;
        while !rest.is_empty() {
            let cut = per.min(rest.len());
            let row = rest.get(cut - 1).map_or(0, |c| c.row);
            let whole = cut
                + rest
                    .get(cut..)
                    .unwrap_or_default()
                    .partition_point(|c| c.row == row);
            let (run, tail) = rest.split_at(whole.min(rest.len()));
            out.push(self.run(run));
            rest = tail;
        }
        out
    }
    /// The cells of `run`, a sub-slice of the store's cells.
    fn run<'s>(&'s self, run: &'s [RawCell]) -> Cells<'s> {
        let next_formula = run.first().map_or(0, |c| {
            let key = (c.row, u32::from(c.col));
            self.store
                .formulas
                .partition_point(|f| (f.row, f.col) < key)
        });
        Cells {
            store: &self.store,
            inner: run.iter(),
            next_formula,
        }
    }
    /// The cell at 0-based (row, col), if stored (it has a value or a
    /// formula).
    pub fn get(&self, row: u32, col: u32) -> Option<Cell<'_>> {
        self.store.get(row, col)
    }
    /// The smallest range covering every stored cell, `None` when empty.
    pub fn bounds(&self) -> Option<CellRange> {
        let first = self.store.cells.first()?;
        let last = self.store.cells.last()?;
        let (mut c0, mut c1) = (first.col, first.col);
        for c in &self.store.cells {
            c0 = c0.min(c.col);
            c1 = c1.max(c.col);
        }
        Some(CellRange {
            first_row: first.row,
            first_col: u32::from(c0),
            last_row: last.row,
            last_col: u32::from(c1),
        })
    }
    /// Merged cell ranges.
    pub fn merged(&self) -> &[CellRange] {
        &self.merged
    }
    /// Cell comments.
    pub fn comments(&self) -> &[Comment] {
        &self.comments
    }
    /// Tables (ListObjects) on this sheet.
    pub fn tables(&self) -> &[Table] {
        &self.tables
    }
    /// Hyperlinks on this sheet.
    pub fn hyperlinks(&self) -> &[Hyperlink] {
        &self.hyperlinks
    }
    /// 0-based indices of hidden rows, ascending.
    pub fn hidden_rows(&self) -> &[u32] {
        &self.hidden_rows
    }
    /// 0-based indices of hidden columns, ascending.
    pub fn hidden_cols(&self) -> &[u32] {
        &self.hidden_cols
    }
    /// Images and charts placed on this sheet.
    pub fn drawings(&self) -> &[Drawing] {
        &self.drawings
    }
    /// True when this sheet's cells were parsed at open (see
    /// [`OpenOptions::load_cells`](crate::OpenOptions::load_cells)); when
    /// false, [`cells`](Self::cells) is empty and
    /// [`Workbook::rows`](crate::Workbook::rows) streams them.
    pub fn is_loaded(&self) -> bool {
        self.loaded
    }
    /// Heap bytes held by the cell storage of this sheet.
    pub fn heap_bytes(&self) -> usize {
        self.store.heap_bytes()
    }
}

/// Iterator over a sheet's stored cells in row-major order.
#[derive(Clone)]
pub struct Cells<'a> {
    store: &'a CellStore,
    inner: std::slice::Iter<'a, RawCell>,
    /// Cursor into the formula table, which is sorted like the cells: each
    /// formula is found by walking forward, not by a search per cell.
    next_formula: usize,
}

impl<'a> Cells<'a> {
    /// The rows of the first and the last remaining cell, without walking
    /// them; `None` when none remain.
    pub fn row_span(&self) -> Option<(u32, u32)> {
        let rest = self.inner.as_slice();
        Some((rest.first()?.row, rest.last()?.row))
    }
    /// Calls `f` on every remaining cell in order, stopping at the first
    /// error. The same as a `for` loop over the iterator, in one inlined
    /// loop: the hot path of consumers that visit millions of cells.
    #[inline]
    pub fn try_each<E>(mut self, mut f: impl FnMut(Cell<'a>) -> Result<(), E>) -> Result<(), E> {
        while let Some(c) = self.inner.next() {
            let cell = if c.aux & crate::store::AUX_FORMULA == 0 {
                self.store.view_with(c, None)
            } else {
                self.with_formula(c)
            };
            f(cell)?;
        }
        Ok(())
    }
    /// The cell `c`, which has a formula: walks the formula cursor to it.
    #[inline]
    fn with_formula(&mut self, c: &RawCell) -> Cell<'a> {
        let key = (c.row, u32::from(c.col));
        let mut formula = None;
        while let Some((row, col, text)) = self.store.formula_at(self.next_formula) {
            if (row, col) > key {
                break;
            }
            self.next_formula += 1;
            if (row, col) == key {
                formula = Some(text);
                break;
            }
        }
        self.store.view_with(c, formula)
    }
}

impl<'a> Iterator for Cells<'a> {
    type Item = Cell<'a>;
    #[inline]
    fn next(&mut self) -> Option<Cell<'a>> {
        let c = self.inner.next()?;
        if c.aux & crate::store::AUX_FORMULA == 0 {
            return Some(self.store.view_with(c, None));
        }
        Some(self.with_formula(c))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl ExactSizeIterator for Cells<'_> {}

/// An opened XLSX/XLSM workbook. `Send + Sync`; every accessor takes `&self`.
#[derive(Debug)]
pub struct Workbook {
    pub(crate) sheets: Vec<Sheet>,
    pub(crate) names: Vec<DefinedName>,
    pub(crate) date_1904: bool,
    pub(crate) stats: OpenStats,
    pub(crate) shared_strings: usize,
    pub(crate) warnings: Vec<Error>,
    pub(crate) limits: crate::options::Limits,
    /// First block size of streaming reads ([`OpenOptions::tune_stream_block`]).
    pub(crate) stream_block: usize,
    /// Streaming reads of big parts may inflate on a helper thread (the
    /// open allowed more than one thread).
    pub(crate) stream_piped: bool,
    /// The XLSX package, kept for streaming rows (`None` for ODS).
    pub(crate) package: Option<std::sync::Arc<crate::open::Package>>,
    /// An ODS package opened without cells, kept for streaming rows.
    pub(crate) ods: Option<Box<crate::ods::Layout>>,
    /// An XLS/XLSB workbook opened without cells, kept for streaming rows.
    pub(crate) legacy: Option<Box<crate::legacy_rows::Legacy>>,
}

impl Workbook {
    /// Opens the workbook at `path` and parses every sheet (see the crate
    /// docs for the three phases).
    pub fn open(path: impl AsRef<Path>, opts: &OpenOptions) -> Result<Workbook> {
        let path = path.as_ref();
        let bytes = Bytes::open(path, opts.map_mode)
            .map_err(|e| Error::new(ErrorKind::Io, format!("{}: {e}", path.display())))?;
        Workbook::from_source(bytes, opts)
    }
    /// Opens a workbook held in memory.
    pub fn from_bytes(data: Vec<u8>, opts: &OpenOptions) -> Result<Workbook> {
        Workbook::from_source(Bytes::from_vec(data), opts)
    }
    /// Opens a workbook from a shared byte source (map or buffer).
    pub fn from_source(src: Bytes, opts: &OpenOptions) -> Result<Workbook> {
        crate::open::open(src, opts)
    }
    /// All sheets in workbook order.
    pub fn sheets(&self) -> &[Sheet] {
        &self.sheets
    }
    /// Sheet `index` (0-based).
    pub fn sheet(&self, index: usize) -> Option<&Sheet> {
        self.sheets.get(index)
    }
    /// The sheet called `name` (exact match first, then case-insensitive).
    pub fn sheet_by_name(&self, name: &str) -> Option<&Sheet> {
        self.sheets.iter().find(|s| s.name == name).or_else(|| {
            self.sheets
                .iter()
                .find(|s| s.name.eq_ignore_ascii_case(name))
        })
    }
    /// Defined names, workbook- and sheet-scoped.
    pub fn defined_names(&self) -> &[DefinedName] {
        &self.names
    }
    /// True when dates use the 1904 system.
    pub fn is_1904(&self) -> bool {
        self.date_1904
    }
    /// Timings and counts from opening.
    pub fn stats(&self) -> &OpenStats {
        &self.stats
    }
    /// Problems that did not stop the open: a broken small part (comments,
    /// table, drawing, relationships of a sheet) is skipped and reported
    /// here, so the cells already read are never lost.
    pub fn warnings(&self) -> &[Error] {
        &self.warnings
    }
    /// Number of entries in the shared-string table.
    pub fn shared_string_count(&self) -> usize {
        self.shared_strings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workbook_is_send_sync() {
        fn check<T: Send + Sync>() {}
        check::<Workbook>();
        check::<Sheet>();
    }
}
