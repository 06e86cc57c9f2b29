//! Streaming rows: a sheet read block by block in constant memory.
//!
//! [`Workbook::rows`] inflates the worksheet part incrementally (zlib-rs
//! through `ream-zip`'s streaming reader), parses only complete rows of each
//! block with the same scanner as the whole-workbook path, and hands out
//! one row at a time, reusing its buffers: memory stays bounded by the block
//! size (at most 4 MiB of XML plus the cells of one block), however many
//! rows the sheet has. Blocks start at 64 KiB
//! ([`OpenOptions::tune_stream_block`](crate::OpenOptions::tune_stream_block)) and
//! double, so a request for the first few rows (`n_rows`) stops after
//! inflating very little; they stop at 512 KiB when this thread inflates
//! (still in its cache when parsed: giant.xlsx streamed on one thread,
//! medians 0.70-0.77 s against 0.74-0.80 s with 4 MiB blocks in four
//! alternating runs), at 4 MiB when a helper thread does.
//!
//! When the open allowed more than one thread, a part of at least
//! [`PIPE_MIN`] (declared size) is inflated ahead on a helper thread while
//! this one parses ([`Inflow`]): memory stays constant (two or three
//! blocks of at most 1 MiB in flight) and the stream costs about the larger
//! of inflate and parse instead of their sum.
//!
//! Rows come in file order; a row that a writer placed out of order within
//! one block is sorted into place, across blocks it is yielded where found.

use crate::error::{Error, Result};
use crate::model::{Cell, CellError, ExcelDateTime, Value};
use crate::open::Package;
use crate::pipeline::inflow::{CACHE_BLOCK, Inflow};
use crate::store::{CellStore, RawCell};
use crate::workbook::Workbook;
use crate::worksheet::{SheetCtx, SheetParser};
use std::sync::Arc;

/// Largest block size.
const MAX_BLOCK: usize = 4 << 20;

/// Smallest declared part size inflated on a helper thread: below it the
/// thread start (tens of microseconds) is not won back.
const PIPE_MIN: u64 = 1 << 20;

/// Which rows a [`RowReader`] yields: rows whose 0-based index is in
/// `skip_rows .. skip_rows + n_rows`. Defaults: from row 0, no end.
/// Reading stops (no more inflating or parsing) at the first row past the
/// window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowOptions {
    /// Rows with an index below this are skipped. Default 0.
    pub skip_rows: u32,
    /// How many row indices (from `skip_rows`) to cover; `None` = all.
    pub n_rows: Option<u64>,
}

/// One row handed out by [`RowReader::next_row`], borrowing its buffers.
#[derive(Debug, Clone, Copy)]
pub struct RowRef<'r> {
    index: u32,
    cells: &'r [RawCell],
    store: &'r CellStore,
}

impl<'r> RowRef<'r> {
    /// 0-based row index.
    pub fn index(&self) -> u32 {
        self.index
    }
    /// Number of cells in the row (those with a value or a formula).
    pub fn len(&self) -> usize {
        self.cells.len()
    }
    /// True when the row has no cells (never yielded, but cheap to ask).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
    /// The row's cells (with a value or a formula), by column.
    pub fn cells(&self) -> impl Iterator<Item = Cell<'r>> + 'r {
        let store = self.store;
        self.cells.iter().map(move |c| store.view(c))
    }
    /// Copies the row out of the reader's buffers.
    pub fn to_owned_row(&self) -> OwnedRow {
        OwnedRow {
            index: self.index,
            cells: self.cells().map(|c| OwnedCell::from(&c)).collect(),
        }
    }
}

/// A value that owns its text (see [`Value`]).
#[derive(Debug, Clone, PartialEq)]
pub enum OwnedValue {
    /// A number.
    Number(f64),
    /// Text.
    String(String),
    /// A boolean.
    Bool(bool),
    /// An error value.
    Error(CellError),
    /// A date, time or duration.
    DateTime(ExcelDateTime),
    /// A cell without a value (see [`Value::Empty`]).
    Empty,
}

/// A cell that owns its text (see [`Cell`]).
#[derive(Debug, Clone, PartialEq)]
pub struct OwnedCell {
    /// 0-based row.
    pub row: u32,
    /// 0-based column.
    pub col: u32,
    /// The value.
    pub value: OwnedValue,
    /// Formula text, when the cell has one.
    pub formula: Option<String>,
}

impl From<&Cell<'_>> for OwnedCell {
    fn from(c: &Cell<'_>) -> OwnedCell {
        OwnedCell {
            row: c.row,
            col: c.col,
            value: match c.value {
                Value::Number(n) => OwnedValue::Number(n),
                Value::String(s) => OwnedValue::String(s.to_string()),
                Value::Bool(b) => OwnedValue::Bool(b),
                Value::Error(e) => OwnedValue::Error(e),
                Value::DateTime(d) => OwnedValue::DateTime(d),
                Value::Empty => OwnedValue::Empty,
            },
            formula: c.formula.map(str::to_string),
        }
    }
}

/// A row that owns its cells, from [`RowReader`]'s iterator.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnedRow {
    /// 0-based row index.
    pub index: u32,
    /// Cells with a value or a formula, by column.
    pub cells: Vec<OwnedCell>,
}

/// Where a reader's cells come from.
enum Source<'w> {
    /// A worksheet part streamed from the package.
    Stream(Box<Streamed<'w>>),
    /// An ODS table streamed from `content.xml`.
    Ods(Box<crate::ods::OdsRows<'w>>),
    /// An XLS sheet streamed from its records.
    Xls(Box<crate::xls::XlsRows<'w>>),
    /// An XLSB sheet streamed from its part.
    Xlsb(Box<crate::xlsb::XlsbRows<'w>>),
    /// Cells already loaded at open (a loaded ODS workbook).
    Loaded(&'w CellStore),
    /// A sheet without cells (chartsheet).
    Empty,
}

struct Streamed<'w> {
    inflow: Inflow,
    parser: SheetParser<'w>,
    buf: Vec<u8>,
    filled: usize,
    block: usize,
    /// Largest block: [`CACHE_BLOCK`] when this thread inflates.
    max_block: usize,
    eof: bool,
    /// The first block has been checked for UTF-16.
    checked: bool,
    part: String,
    sheet: String,
}

/// A lending reader over one sheet's rows: [`next_row`](Self::next_row)
/// reuses its buffers; [`Iterator`] gives [`OwnedRow`]s for convenience.
pub struct RowReader<'w> {
    source: Source<'w>,
    cursor: usize,
    first: u32,
    end: u64,
    done: bool,
}

impl Workbook {
    /// Streams the rows of sheet `index` (see [`RowOptions`]). An XLSX
    /// worksheet is inflated and parsed block by block whether or not it
    /// was loaded at open. An ODS sheet is streamed the same way from
    /// `content.xml` when the workbook was opened with
    /// [`load_cells(false)`](crate::OpenOptions::load_cells) (constant
    /// memory; the part is inflated again up to the sheet on each call);
    /// an XLS or XLSB worksheet opened without cells is walked record by
    /// record in blocks of complete rows (the XLSB part inflated block by
    /// block; other sheets of these formats have no rows); cells
    /// loaded at open are walked in place.
    pub fn rows_with(&self, index: usize, opts: RowOptions) -> Result<RowReader<'_>> {
        let sheet = self
            .sheet(index)
            .ok_or_else(|| Error::new(crate::ErrorKind::Usage, format!("no sheet {index}")))?;
        let end = match opts.n_rows {
            Some(n) => u64::from(opts.skip_rows).saturating_add(n),
            None => u64::MAX,
        };
        let source = match &self.package {
            _ if sheet.kind() == crate::SheetKind::Chartsheet => Source::Empty,
            Some(pkg) => {
                let pkg: &Package = pkg;
                let entry = pkg.archive.find(sheet.part()).cloned().ok_or_else(|| {
                    Error::malformed(format!("part {} is missing from the package", sheet.part()))
                        .in_part(sheet.part())
                        .in_sheet(sheet.name())
                })?;
                let reader = pkg
                    .archive
                    .stream_shared(&entry)
                    .map_err(|e| Error::from(e).in_part(sheet.part()).in_sheet(sheet.name()))?;
                let piped = self.stream_piped && entry.uncompressed_size >= PIPE_MIN;
                let max_block = if piped { MAX_BLOCK } else { CACHE_BLOCK };
                let block = self.stream_block.clamp(1, max_block);
                let ctx = SheetCtx {
                    sst_len: pkg.sst.len(),
                    styles: &pkg.styles,
                    limits: &self.limits,
                    date_1904: pkg.date_1904,
                };
                let mut parser = SheetParser::new(ctx);
                parser.set_shared_strings(Arc::clone(&pkg.sst));
                Source::Stream(Box::new(Streamed {
                    inflow: Inflow::new(reader, piped, block),
                    parser,
                    buf: Vec::new(),
                    filled: 0,
                    block,
                    max_block,
                    eof: false,
                    checked: false,
                    part: sheet.part().to_string(),
                    sheet: sheet.name().to_string(),
                }))
            }
            // Binary workbooks load worksheets only; other sheets stream empty.
            None if !sheet.loaded
                && self.legacy.is_some()
                && sheet.kind() != crate::SheetKind::Worksheet =>
            {
                Source::Empty
            }
            None if !sheet.loaded && self.legacy.is_some() => match self.legacy.as_deref() {
                Some(crate::legacy_rows::Legacy::Xls(src)) => {
                    Source::Xls(Box::new(crate::xls::XlsRows::new(
                        src,
                        index,
                        &self.limits,
                        crate::legacy_rows::block_cells(self.stream_block),
                    )?))
                }
                Some(crate::legacy_rows::Legacy::Xlsb(src)) => {
                    Source::Xlsb(Box::new(crate::xlsb::XlsbRows::new(
                        src,
                        index,
                        &self.limits,
                        self.stream_block,
                        crate::legacy_rows::block_cells(self.stream_block),
                    )?))
                }
                None => Source::Empty,
            },
            None => match &self.ods {
                Some(layout) if !sheet.loaded => Source::Ods(Box::new(crate::ods::OdsRows::new(
                    layout,
                    &self.limits,
                    self.stream_block,
                    index,
                    sheet.name(),
                )?)),
                _ => Source::Loaded(&sheet.store),
            },
        };
        Ok(RowReader {
            source,
            cursor: 0,
            first: opts.skip_rows,
            end,
            done: false,
        })
    }

    /// Streams every row of sheet `index`; see [`rows_with`](Self::rows_with).
    pub fn rows(&self, index: usize) -> Result<RowReader<'_>> {
        self.rows_with(index, RowOptions::default())
    }
}

impl Streamed<'_> {
    /// A UTF-16 part (legal, rare; the parser reads UTF-8 only) is read to
    /// its end and transcoded whole, as a loaded open does, then parsed as
    /// one last block: memory is the part's size for such sheets.
    fn read_whole_utf16(&mut self) -> Result<()> {
        self.inflow.read_rest(&mut self.buf, &mut self.filled)?;
        crate::encoding::ensure_utf8(&mut self.buf)?;
        self.filled = self.buf.len();
        self.eof = true;
        Ok(())
    }

    /// Parses the next block of complete rows into the parser's store.
    /// Returns false at the end of the part.
    fn refill(&mut self) -> Result<bool> {
        self.parser.clear_block();
        let name = |e: Error, s: &Streamed<'_>| e.in_part(s.part.clone()).in_sheet(s.sheet.clone());
        loop {
            if self.eof {
                return Ok(false);
            }
            match self
                .inflow
                .read_more(&mut self.buf, &mut self.filled, self.block)
            {
                Ok(more) => self.eof = !more,
                Err(e) => return Err(name(e, self)),
            }
            if !self.checked {
                self.checked = true;
                if crate::encoding::is_utf16(self.buf.get(..self.filled).unwrap_or_default()) {
                    self.read_whole_utf16().map_err(|e| name(e, self))?;
                }
            }
            let fed = self
                .parser
                .feed(self.buf.get(..self.filled).unwrap_or_default(), self.eof);
            let used = match fed {
                Ok(u) => u,
                Err(e) => return Err(name(e, self)),
            };
            self.buf.copy_within(used..self.filled, 0);
            self.filled -= used;
            self.block = (self.block * 2).min(self.max_block);
            if self.eof
                && let Err(e) = self.parser.end_checks()
            {
                return Err(name(e, self));
            }
            if !self.parser.block().cells.is_empty() {
                self.parser.sort_block();
                return Ok(true);
            }
        }
    }
}

impl RowReader<'_> {
    /// The next row with cells inside the requested window, or `None` at the
    /// end. The row borrows the reader until the next call.
    pub fn next_row(&mut self) -> Result<Option<RowRef<'_>>> {
        loop {
            if self.done {
                return Ok(None);
            }
            let store: &CellStore = match &self.source {
                Source::Stream(s) => s.parser.block(),
                Source::Ods(s) => s.block(),
                Source::Xls(s) => s.block(),
                Source::Xlsb(s) => s.block(),
                Source::Loaded(store) => store,
                Source::Empty => return Ok(None),
            };
            let cells = store.cells.as_slice();
            if let Some(first) = cells.get(self.cursor) {
                let row = first.row;
                let start = self.cursor;
                let len = cells
                    .get(start..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|c| c.row == row)
                    .count();
                self.cursor = start + len;
                if u64::from(row) >= self.end {
                    self.done = true;
                    return Ok(None);
                }
                if row < self.first {
                    continue;
                }
                // Re-borrow for the returned lifetime.
                let store: &CellStore = match &self.source {
                    Source::Stream(s) => s.parser.block(),
                    Source::Ods(s) => s.block(),
                    Source::Xls(s) => s.block(),
                    Source::Xlsb(s) => s.block(),
                    Source::Loaded(store) => store,
                    Source::Empty => return Ok(None),
                };
                return Ok(Some(RowRef {
                    index: row,
                    cells: store.cells.get(start..start + len).unwrap_or_default(),
                    store,
                }));
            }
            match &mut self.source {
                Source::Stream(s) => {
                    self.cursor = 0;
                    if !s.refill()? {
                        self.done = true;
                    }
                }
                Source::Ods(s) => {
                    self.cursor = 0;
                    if !s.refill()? {
                        self.done = true;
                    }
                }
                Source::Xls(s) => {
                    self.cursor = 0;
                    if !s.refill()? {
                        self.done = true;
                    }
                }
                Source::Xlsb(s) => {
                    self.cursor = 0;
                    if !s.refill()? {
                        self.done = true;
                    }
                }
                _ => self.done = true,
            }
        }
    }
}

impl Iterator for RowReader<'_> {
    type Item = Result<OwnedRow>;
    fn next(&mut self) -> Option<Result<OwnedRow>> {
        match self.next_row() {
            Ok(Some(r)) => Some(Ok(r.to_owned_row())),
            Ok(None) => None,
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
