//! What a read produces before any row is built: the header's names, the
//! selected columns, their types (inferred or asked) and the schema.

use crate::Error;
use crate::infer::ColStats;
use crate::options::{ColumnSel, DType, ReadOptions};
use crate::source::RowSource;
use crate::text::push_text;
use crate::warning::Warning;
use arrow_schema::{Field, Schema, SchemaRef};
use ream::ColumnNamer;
use ream::sheet::{Value, Workbook, cell_name};
use std::sync::Arc;

/// Marks a sheet column that is not selected in [`Plan::by_col`].
pub(crate) const UNSELECTED: u32 = u32::MAX;

/// How the types are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inference {
    /// From every data row, or the first [`ReadOptions::infer_rows`].
    Rows,
    /// Not at all when the asked types cover every selected column and
    /// the columns are known without reading data rows; else as `Rows`.
    SkipIfCovered,
}

/// One output column.
#[derive(Debug, Clone)]
pub(crate) struct OutCol {
    /// Its unique name.
    pub(crate) name: String,
    /// Its type.
    pub(crate) dtype: DType,
    /// True when the type was asked in `dtypes` (bad values follow `on_error`).
    pub(crate) asked: bool,
}

/// Everything a read needs to build its rows.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// The sheet's name, for errors and warnings.
    pub(crate) sheet_name: String,
    /// First data row (0-based sheet row).
    pub(crate) data_first: u32,
    /// Output columns in output order.
    pub(crate) cols: Vec<OutCol>,
    /// Sheet column -> output column index, or [`UNSELECTED`]; as long
    /// as the columns found.
    pub(crate) by_col: Vec<u32>,
    /// True when a selection was given: cells of other columns, even past
    /// the columns found, are ignored.
    pub(crate) selected: bool,
    /// Where the types came from, for errors: `None` every row, else the
    /// number of rows sampled (0: the header only).
    pub(crate) sampled: Option<u64>,
    /// Data rows seen by inference (a capacity hint).
    pub(crate) rows_seen: usize,
    /// The Arrow schema.
    pub(crate) schema: SchemaRef,
    /// Mixed-type warnings.
    pub(crate) warnings: Vec<Warning>,
}

/// The header row's texts by column (`None` for a missing or empty cell).
fn header_texts(wb: &Workbook, sheet: usize, row: u32) -> Result<Vec<Option<String>>, Error> {
    let mut texts: Vec<Option<String>> = Vec::new();
    let mut src = RowSource::open(wb, sheet, row, Some(1))?;
    src.next_row(|c| {
        let col = c.col as usize;
        if texts.len() <= col {
            texts.resize(col + 1, None);
        }
        let mut s = String::new();
        push_text(&mut s, &c.value);
        if let Some(slot) = texts.get_mut(col) {
            *slot = (!s.is_empty()).then_some(s);
        }
        Ok(())
    })?;
    Ok(texts)
}

/// Column names for columns `0..width` (see [`ReadOptions::header_row`]).
fn column_names(header: Option<&[Option<String>]>, width: usize) -> Vec<String> {
    let mut namer = ColumnNamer::new();
    (0..width)
        .map(|c| match header {
            Some(h) => namer.name(c, h.get(c).and_then(|t| t.as_deref())),
            None => namer.name(c, Some(&format!("column_{c}"))),
        })
        .collect()
}

/// The sheet columns selected, in output order.
fn resolve_selection(
    sel: Option<&[ColumnSel]>,
    names: &[String],
    sheet: &str,
) -> Result<Vec<usize>, Error> {
    let Some(sel) = sel else {
        return Ok((0..names.len()).collect());
    };
    let mut out = Vec::with_capacity(sel.len());
    for s in sel {
        let col = match s {
            ColumnSel::Index(i) => *i,
            ColumnSel::Name(n) => names.iter().position(|x| x == n).ok_or_else(|| {
                Error::usage(format!(
                    "no column named '{n}' in sheet '{sheet}' (columns: {})",
                    preview(names)
                ))
            })?,
        };
        if out.contains(&col) {
            return Err(Error::usage(format!(
                "column {} of sheet '{sheet}' is selected twice",
                ream::sheet::col_name(col as u32)
            )));
        }
        out.push(col);
    }
    Ok(out)
}

/// The first names of a list, for messages.
fn preview(names: &[String]) -> String {
    let mut s = names
        .iter()
        .take(10)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > 10 {
        s.push_str(&format!(", ... ({} in all)", names.len()));
    }
    s
}

/// Highest selected index plus one (0 without a selection by index).
fn selection_width(sel: Option<&[ColumnSel]>) -> Result<usize, Error> {
    let mut w = 0;
    for s in sel.unwrap_or_default() {
        if let ColumnSel::Index(i) = s {
            if *i > crate::MAX_COL {
                return Err(Error::usage(format!(
                    "column index {i} is past the last column a sheet can have ({})",
                    crate::MAX_COL
                )));
            }
            w = w.max(i + 1);
        }
    }
    Ok(w)
}

/// What a read knows before looking at data rows: the sheet, its header,
/// where data starts and whether inference can be skipped.
#[derive(Debug, Clone)]
pub(crate) struct Prelude {
    /// The sheet's name.
    pub(crate) sheet_name: String,
    /// The header row's texts, when there is a header.
    header: Option<Vec<Option<String>>>,
    /// First data row (0-based sheet row).
    pub(crate) data_first: u32,
    /// Columns known without data rows (header and selection).
    known_width: usize,
    /// True when the asked types cover every selected column and
    /// inference is skipped ([`Inference::SkipIfCovered`]).
    pub(crate) covered: bool,
}

/// Reads the header and decides whether types must be inferred.
pub(crate) fn prelude(
    wb: &Workbook,
    sheet: usize,
    opts: &ReadOptions,
    mode: Inference,
) -> Result<Prelude, Error> {
    let sheet_name = wb
        .sheet(sheet)
        .map(|s| s.name().to_string())
        .ok_or_else(|| {
            Error::usage(format!(
                "no sheet {sheet} (the workbook has {})",
                wb.sheets().len()
            ))
        })?;
    let header = match opts.header_row {
        Some(h) => Some(header_texts(wb, sheet, h)?),
        None => None,
    };
    let data_first = opts
        .header_row
        .map_or(0, |h| h.saturating_add(1))
        .saturating_add(opts.skip_rows);
    let sel = opts.columns.as_deref();
    let known_width = header
        .as_ref()
        .map_or(0, Vec::len)
        .max(selection_width(sel)?);
    let covered = mode == Inference::SkipIfCovered
        && opts.infer_rows.is_none()
        && !opts.dtypes.is_empty()
        && (header.is_some() || sel.is_some())
        && {
            let names = column_names(header.as_deref(), known_width);
            let chosen = resolve_selection(sel, &names, &sheet_name)?;
            !chosen.is_empty()
                && chosen.iter().all(|c| {
                    names
                        .get(*c)
                        .is_some_and(|n| opts.dtypes.iter().any(|(d, _)| d == n))
                })
        };
    Ok(Prelude {
        sheet_name,
        header,
        data_first,
        known_width,
        covered,
    })
}

/// What inference found: per-column statistics (indexed by sheet column)
/// and the data rows seen.
#[derive(Debug, Clone, Default)]
pub(crate) struct Inferred {
    /// Per sheet column.
    pub(crate) stats: Vec<ColStats>,
    /// Data rows up to the last one with a cell.
    pub(crate) rows_seen: usize,
}

impl Inferred {
    /// Takes a cell's value into account.
    #[inline]
    pub(crate) fn add(&mut self, c: &ream::sheet::Cell<'_>, opts: &ReadOptions, d1904: bool) {
        let col = c.col as usize;
        if self.stats.len() <= col {
            self.stats.resize(col + 1, ColStats::default());
        }
        if let Some(s) = self.stats.get_mut(col) {
            s.add(c.row, &c.value, opts.errors_as, d1904);
        }
    }
    /// Appends what a later run of rows found.
    pub(crate) fn merge(&mut self, later: Inferred) {
        if self.stats.len() < later.stats.len() {
            self.stats.resize(later.stats.len(), ColStats::default());
        }
        for (a, b) in self.stats.iter_mut().zip(later.stats) {
            a.merge(b);
        }
        self.rows_seen = self.rows_seen.max(later.rows_seen);
    }
}

/// Infers the types over the rows of `src` (the data rows of the window).
fn infer_rows(
    wb: &Workbook,
    sheet: usize,
    opts: &ReadOptions,
    pre: &Prelude,
) -> Result<Inferred, Error> {
    let n = match (opts.n_rows, opts.infer_rows) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let mut src = RowSource::open(wb, sheet, pre.data_first, n)?;
    let mut found = Inferred::default();
    let d1904 = wb.is_1904();
    let mut rows_seen = 0;
    while let Some(row) = src.next_row(|c| {
        found.add(&c, opts, d1904);
        Ok(())
    })? {
        rows_seen = row.saturating_sub(pre.data_first) as usize + 1;
    }
    found.rows_seen = rows_seen;
    Ok(found)
}

/// Reads the header, infers (or skips inferring) the types and builds the plan.
pub(crate) fn plan(
    wb: &Workbook,
    sheet: usize,
    opts: &ReadOptions,
    mode: Inference,
) -> Result<Plan, Error> {
    let pre = prelude(wb, sheet, opts, mode)?;
    let found = if pre.covered {
        Inferred::default()
    } else {
        infer_rows(wb, sheet, opts, &pre)?
    };
    finish(pre, found, opts)
}

/// The plan from the prelude and what inference found (nothing when the
/// prelude is covered).
pub(crate) fn finish(pre: Prelude, found: Inferred, opts: &ReadOptions) -> Result<Plan, Error> {
    let sampled = if pre.covered {
        Some(0)
    } else {
        opts.infer_rows
    };
    let Prelude {
        sheet_name,
        header,
        data_first,
        known_width,
        ..
    } = pre;
    let Inferred { stats, rows_seen } = found;
    let sel = opts.columns.as_deref();
    let width = known_width.max(stats.len());
    let names = column_names(header.as_deref(), width);
    let chosen = resolve_selection(sel, &names, &sheet_name)?;
    for (name, _) in &opts.dtypes {
        if !names.contains(name) {
            return Err(Error::usage(format!(
                "dtypes names column '{name}', which sheet '{sheet_name}' does not have (columns: {})",
                preview(&names)
            )));
        }
    }
    let mut by_col = vec![UNSELECTED; width];
    let mut cols = Vec::with_capacity(chosen.len());
    let mut warnings = Vec::new();
    for (i, &c) in chosen.iter().enumerate() {
        if let Some(slot) = by_col.get_mut(c) {
            *slot = i as u32;
        }
        let name = names.get(c).cloned().unwrap_or_default();
        let st = stats.get(c).copied().unwrap_or_default();
        let asked = opts
            .dtypes
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t);
        if asked.is_none()
            && let Some((row, found)) = st.other
        {
            warnings.push(Warning::MixedTypes {
                sheet: sheet_name.clone(),
                column: name.clone(),
                cell: cell_name(row, c as u32),
                found,
                kind: st.first_kind(),
            });
        }
        cols.push(OutCol {
            name,
            dtype: asked.unwrap_or_else(|| st.dtype()),
            asked: asked.is_some(),
        });
    }
    let fields: Vec<Field> = cols
        .iter()
        .map(|c| Field::new(c.name.clone(), c.dtype.arrow_type(), true))
        .collect();
    Ok(Plan {
        sheet_name,
        data_first,
        cols,
        by_col,
        selected: sel.is_some(),
        sampled,
        rows_seen,
        schema: Arc::new(Schema::new(fields)),
        warnings,
    })
}

/// A value as the plan's error messages quote it (at most 40 characters).
pub(crate) fn quote(v: &Value<'_>) -> String {
    let mut s = String::new();
    push_text(&mut s, v);
    if s.chars().count() > 40 {
        s = s.chars().take(40).collect::<String>() + "...";
    }
    format!("{} '{s}'", v.type_name())
}
