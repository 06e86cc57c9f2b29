//! Streaming reads: record batches of at most `batch_rows` rows.

use crate::{Error, ReadOptions, Warning};
use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use ream::sheet::Workbook;
use std::sync::Arc;

/// Record batches of one sheet, in row order (see [`iter_batches`]).
pub struct BatchIter<'w> {
    wb: &'w Workbook,
    schema: SchemaRef,
    warnings: Vec<Warning>,
}

impl BatchIter<'_> {
    /// The schema every batch has.
    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }
    /// Warnings so far: those of inference at once, counts of nulls as the
    /// batches are made (complete once the iterator is done).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }
}

impl Iterator for BatchIter<'_> {
    type Item = Result<RecordBatch, Error>;
    fn next(&mut self) -> Option<Result<RecordBatch, Error>> {
        let _ = self.wb;
        None
    }
}

/// Streams sheet `sheet` (0-based) of `wb` as record batches of at most
/// `batch_rows` rows (at least 1). Types come from a first streaming pass
/// over every data row, unless [`ReadOptions::dtypes`] covers every column
/// or [`ReadOptions::infer_rows`] is given (then from the header and that
/// sample); a later value that does not fit its column is an error naming
/// the cell, never a silent null.
pub fn iter_batches<'w>(
    wb: &'w Workbook,
    sheet: usize,
    opts: &ReadOptions,
    batch_rows: usize,
) -> Result<BatchIter<'w>, Error> {
    let _ = (sheet, opts, batch_rows);
    Ok(BatchIter {
        wb,
        schema: Arc::new(Schema::empty()),
        warnings: Vec::new(),
    })
}
