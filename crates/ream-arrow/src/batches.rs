//! Streaming reads: record batches of at most `batch_rows` rows.

use crate::columns::{ColumnBuild, Pushed};
use crate::options::{DType, OnError};
use crate::plan::{Inference, Plan, UNSELECTED, plan, quote};
use crate::source::RowSource;
use crate::{Error, ReadOptions, Warning};
use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::SchemaRef;
use ream::sheet::{OwnedCell, OwnedValue, Value, Workbook, cell_name};
use std::sync::Arc;

/// Record batches of one sheet, in row order (see [`iter_batches`]).
/// After an error it yields nothing more.
pub struct BatchIter<'w> {
    plan: Plan,
    source: RowSource<'w>,
    cols: Vec<ColumnBuild>,
    /// Per output column: error cells made null, bad values made null.
    counts: Vec<(u64, u64)>,
    on_error: OnError,
    batch_rows: u64,
    /// Sheet row of the current batch's first row.
    batch_start: u64,
    /// One past the last sheet row with a cell in the current batch.
    filled_end: u64,
    /// A row read past the current batch, held for the next one.
    pending: Pending,
    done: bool,
    warnings: Vec<Warning>,
}

impl BatchIter<'_> {
    /// The schema every batch has.
    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.plan.schema)
    }
    /// Warnings so far: mixed types at once, counts of nulls once the
    /// iterator has ended.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }
}

impl Iterator for BatchIter<'_> {
    type Item = Result<RecordBatch, Error>;
    fn next(&mut self) -> Option<Result<RecordBatch, Error>> {
        if self.done {
            return None;
        }
        match self.step() {
            Ok(Some(b)) => Some(Ok(b)),
            Ok(None) => {
                self.done = true;
                self.count_warnings();
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// Borrows an owned value.
fn borrowed(v: &OwnedValue) -> Value<'_> {
    match v {
        OwnedValue::Number(n) => Value::Number(*n),
        OwnedValue::String(s) => Value::String(s),
        OwnedValue::Bool(b) => Value::Bool(*b),
        OwnedValue::Error(e) => Value::Error(*e),
        OwnedValue::DateTime(d) => Value::DateTime(*d),
        OwnedValue::Empty => Value::Empty,
    }
}

/// Where a cell goes: the columns of the batch being built.
pub(crate) struct Sink<'a> {
    pub(crate) plan: &'a Plan,
    pub(crate) cols: &'a mut [ColumnBuild],
    /// Per output column: error cells made null, bad values made null.
    pub(crate) counts: &'a mut [(u64, u64)],
    pub(crate) on_error: OnError,
    /// Sheet row of the batch's first row.
    pub(crate) batch_start: u64,
}

impl Sink<'_> {
    /// Puts the value of cell (`row`, `col`) into its column, if selected.
    #[inline]
    pub(crate) fn take(&mut self, row: u32, col: u32, v: &Value<'_>) -> Result<(), Error> {
        let plan = self.plan;
        let out = match plan.by_col.get(col as usize) {
            Some(&UNSELECTED) => return Ok(()),
            Some(&o) => o as usize,
            None if plan.selected => return Ok(()),
            None => {
                return Err(Error::bad_value(
                    &plan.sheet_name,
                    row,
                    col,
                    format!(
                        "{} at {} is past the last column ({}){}",
                        quote(v),
                        cell_name(row, col),
                        plan.by_col.len(),
                        sample_note(plan)
                    ),
                ));
            }
        };
        let (Some(c), Some(count)) = (self.cols.get_mut(out), self.counts.get_mut(out)) else {
            return Ok(());
        };
        let at = (u64::from(row) - self.batch_start) as usize;
        match c.push(at, v) {
            Pushed::Ok => Ok(()),
            Pushed::ErrorNull => {
                count.0 += 1;
                Ok(())
            }
            Pushed::Bad => {
                let oc = plan.cols.get(out);
                if oc.is_some_and(|o| o.asked) && self.on_error == OnError::Null {
                    c.push_null();
                    count.1 += 1;
                    return Ok(());
                }
                let (name, dtype) =
                    oc.map_or(("", crate::DType::Null), |o| (o.name.as_str(), o.dtype));
                let why = if oc.is_some_and(|o| o.asked) {
                    " as asked in dtypes".to_string()
                } else {
                    sample_note(plan)
                };
                Err(Error::bad_value(
                    &plan.sheet_name,
                    row,
                    col,
                    format!(
                        "{} at {} cannot become {dtype} (column '{name}'{why})",
                        quote(v),
                        cell_name(row, col)
                    ),
                ))
            }
        }
    }
}

/// Where inferred types came from, for errors.
fn sample_note(plan: &Plan) -> String {
    match plan.sampled {
        None => String::new(),
        Some(0) => ", types from the header and dtypes".to_string(),
        Some(n) => format!(", types inferred from the first {n} data rows"),
    }
}

/// A row held for the next batch: its index and cells.
type Pending = Option<(u32, Vec<OwnedCell>)>;

impl<'w> BatchIter<'w> {
    /// Splits the iterator into where cells go, where rows come from and
    /// the held row.
    fn sink(&mut self) -> (Sink<'_>, &mut RowSource<'w>, &mut Pending) {
        (
            Sink {
                plan: &self.plan,
                cols: &mut self.cols,
                counts: &mut self.counts,
                on_error: self.on_error,
                batch_start: self.batch_start,
            },
            &mut self.source,
            &mut self.pending,
        )
    }

    /// The next batch, or `None` at the end.
    fn step(&mut self) -> Result<Option<RecordBatch>, Error> {
        let batch_end = self.batch_start.saturating_add(self.batch_rows);
        if let Some((row, cells)) = self.pending.take() {
            if u64::from(row) >= batch_end {
                self.pending = Some((row, cells));
                return self.finish(self.batch_rows).map(Some);
            }
            let (mut sink, _, _) = self.sink();
            for c in &cells {
                sink.take(c.row, c.col, &borrowed(&c.value))?;
            }
            self.filled_end = u64::from(row) + 1;
        }
        loop {
            let (mut sink, source, pending) = self.sink();
            let row = source.next_row(|c| {
                if u64::from(c.row) >= batch_end {
                    let p = pending.get_or_insert_with(|| (c.row, Vec::new()));
                    p.1.push(OwnedCell::from(&c));
                    Ok(())
                } else {
                    sink.take(c.row, c.col, &c.value)
                }
            })?;
            match row {
                Some(r) if u64::from(r) >= batch_end => {
                    return self.finish(self.batch_rows).map(Some);
                }
                Some(r) => self.filled_end = u64::from(r) + 1,
                None if self.filled_end > self.batch_start => {
                    let rows = self.filled_end - self.batch_start;
                    return self.finish(rows).map(Some);
                }
                None => return Ok(None),
            }
        }
    }

    /// Ends the current batch at `rows` rows and starts the next.
    fn finish(&mut self, rows: u64) -> Result<RecordBatch, Error> {
        let n = rows as usize;
        let arrays = self.cols.iter_mut().map(|c| c.finish(n)).collect();
        self.batch_start = self.batch_start.saturating_add(rows);
        self.filled_end = self.batch_start;
        let opts = RecordBatchOptions::new().with_row_count(Some(n));
        Ok(RecordBatch::try_new_with_options(
            self.schema(),
            arrays,
            &opts,
        )?)
    }

    /// Adds the null-count warnings, in column order.
    fn count_warnings(&mut self) {
        let w = count_warnings(&self.plan, &self.counts);
        self.warnings.extend(w);
    }
}

/// The null-count warnings of `counts` (per output column: error cells
/// made null, bad values made null), in column order.
pub(crate) fn count_warnings(plan: &Plan, counts: &[(u64, u64)]) -> Vec<Warning> {
    let mut out = Vec::new();
    for (c, (errors, bad)) in plan.cols.iter().zip(counts) {
        let (sheet, column) = (plan.sheet_name.clone(), c.name.clone());
        if *errors > 0 {
            out.push(Warning::NullsFromErrors {
                sheet: sheet.clone(),
                column: column.clone(),
                count: *errors,
            });
        }
        if *bad > 0 {
            out.push(Warning::NullsFromBadValues {
                sheet,
                column,
                count: *bad,
            });
        }
    }
    out
}

/// A batch iterator over `plan`, with builders sized for `capacity` rows.
pub(crate) fn start<'w>(
    wb: &'w Workbook,
    sheet: usize,
    opts: &ReadOptions,
    plan: Plan,
    batch_rows: usize,
    capacity: usize,
) -> Result<BatchIter<'w>, Error> {
    let source = RowSource::open(wb, sheet, plan.data_first, opts.n_rows)?;
    let cols = plan
        .cols
        .iter()
        .map(|c| ColumnBuild::new(c.dtype, capacity, opts.errors_as, wb.is_1904()))
        .collect();
    Ok(BatchIter {
        counts: vec![(0, 0); plan.cols.len()],
        warnings: plan.warnings.clone(),
        batch_start: u64::from(plan.data_first),
        filled_end: u64::from(plan.data_first),
        source,
        cols,
        on_error: opts.on_error,
        batch_rows: batch_rows.max(1) as u64,
        pending: None,
        done: false,
        plan,
    })
}

/// Output columns as (name, type), in output order.
pub type Columns = Vec<(String, DType)>;

/// The columns (name, type) a read of sheet `sheet` (0-based) of `wb` with
/// `opts` gives, and the warnings its planning found (mixed-type columns), without
/// building any row: the types come from one pass over the data rows, as
/// [`iter_batches`] finds them (no pass when [`ReadOptions::dtypes`] covers
/// every column the header or selection names). The pass streams a sheet
/// not loaded at open, in the memory of the reader's blocks.
pub fn sheet_schema(
    wb: &Workbook,
    sheet: usize,
    opts: &ReadOptions,
) -> Result<(Columns, Vec<Warning>), Error> {
    let plan = plan(wb, sheet, opts, Inference::SkipIfCovered)?;
    let cols = plan.cols.into_iter().map(|c| (c.name, c.dtype)).collect();
    Ok((cols, plan.warnings))
}

/// Streams sheet `sheet` (0-based) of `wb` as record batches of at most
/// `batch_rows` rows (at least 1). Types come from a first pass over every
/// data row, unless [`ReadOptions::infer_rows`] is given (the first N data
/// rows) or [`ReadOptions::dtypes`] covers every selected column and the
/// columns are known from the header or the selection (no pass). A later
/// value that does not fit its column, or a cell past the columns found,
/// is an error naming the cell, never a silent null. A sheet not loaded at
/// open is streamed: memory is one batch plus the reader's blocks.
pub fn iter_batches<'w>(
    wb: &'w Workbook,
    sheet: usize,
    opts: &ReadOptions,
    batch_rows: usize,
) -> Result<BatchIter<'w>, Error> {
    let plan = plan(wb, sheet, opts, Inference::SkipIfCovered)?;
    let capacity = plan.rows_seen.min(batch_rows).min(1 << 16);
    start(wb, sheet, opts, plan, batch_rows, capacity)
}
