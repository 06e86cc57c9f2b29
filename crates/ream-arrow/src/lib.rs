//! Sheets as Arrow record batches, with typed columns that never drop a value.
//!
//! [`read_sheet`] turns one sheet of an opened [`Workbook`] into a [`Table`]
//! (schema, record batches, warnings); [`iter_batches`] streams it as record
//! batches of at most `batch_rows` rows, in the memory of one batch when the
//! workbook was opened without loading cells.
//!
//! [`aggregate_batch`] and [`pages_batch`] do the same for an aggregation
//! result (`ream agg`) and a PDF's page listing (`ream pdf pages`).
//!
//! Types are inferred over every data row (or the first
//! [`ReadOptions::infer_rows`]):
//! - numbers: `int64` when every number is integral and within ±2^63,
//!   else `float64`;
//! - booleans: `bool`; text: `string`;
//! - date-formatted numbers: `date32` when every one is a whole day,
//!   `timestamp[ms]` otherwise; durations and times of day: `duration[ms]`
//!   (a time of day is the time since midnight);
//! - a column without values: `null`.
//!
//! A column mixing these becomes `string`, each value in its text form
//! (numbers in the shortest form that reads back the same, integral ones
//! below 2^53 as integers; dates in ISO 8601; durations `h:mm:ss`; booleans
//! `TRUE`/`FALSE`; errors as written, `#N/A`), with a
//! [`Warning::MixedTypes`]. Empty cells ([`Value::Empty`](ream::sheet::Value::Empty),
//! and empty text outside string columns) are null and take no part in
//! typing. [`ReadOptions::dtypes`] overrides the inferred type; see
//! [`ReadOptions::dtypes`] for what each type accepts.

mod aggregate;
mod batches;
mod columns;
mod convert;
mod error;
mod infer;
mod options;
mod pdf;
mod plan;
mod read;
mod source;
mod text;
mod warning;

pub use aggregate::aggregate_batch;
pub use batches::{BatchIter, Columns, iter_batches, sheet_schema};
pub use error::Error;
pub use options::{
    ColumnSel, DType, ErrorsAs, MAX_COL, OnError, ReadOptions, col_index, parse_columns,
};
pub use pdf::pages_batch;
pub use read::{read_sheet, read_sheets};
pub use warning::Warning;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

pub use ream::sheet::Workbook;

/// A sheet read into Arrow: one schema, its record batches (one batch
/// from [`read_sheet`]) and the warnings of the read.
#[derive(Debug, Clone)]
pub struct Table {
    /// Column names and types.
    pub schema: SchemaRef,
    /// The rows, in sheet order.
    pub batches: Vec<RecordBatch>,
    /// What the read changed without failing, in column order.
    pub warnings: Vec<Warning>,
}

impl Table {
    /// Total number of rows over every batch.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }
}
