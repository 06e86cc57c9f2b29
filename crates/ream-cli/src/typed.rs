//! Typed table output, `--format arrow` (Arrow IPC stream) and
//! `--format parquet`, for `ream cat` and `ream agg`.
//!
//! The columns come from `ream-arrow`, the conversion the Python package
//! uses too: sheets with inferred types that keep every value (a column
//! mixing types becomes text, with a warning), aggregates with exact
//! decimals. Parquet is written with Snappy compression, one row group per
//! 1,048,576 rows (the parquet crate's default).

use anyhow::Result;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use std::io::Write;
use std::path::PathBuf;

/// A typed table format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// Arrow IPC streaming format (`.arrows`).
    Arrow,
    /// Apache Parquet.
    Parquet,
}

/// Writes `batches` (all of `schema`) to `out` in `format`; returns the
/// number of rows written.
pub fn write(
    out: Option<&PathBuf>,
    format: TableFormat,
    schema: SchemaRef,
    batches: impl Iterator<Item = Result<RecordBatch>>,
) -> Result<u64> {
    let w = crate::input::open_output(out)?;
    let mut rows = 0u64;
    match format {
        TableFormat::Arrow => {
            let mut ipc = arrow_ipc::writer::StreamWriter::try_new(w, &schema)?;
            for b in batches {
                let b = b?;
                rows += b.num_rows() as u64;
                ipc.write(&b)?;
            }
            ipc.finish()?;
            ipc.into_inner()?.flush()?;
        }
        TableFormat::Parquet => {
            let props = WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .build();
            let mut pq = ArrowWriter::try_new(w, schema, Some(props))?;
            for b in batches {
                let b = b?;
                rows += b.num_rows() as u64;
                pq.write(&b)?;
            }
            pq.into_inner()?.flush()?;
        }
    }
    Ok(rows)
}
