//! ream: read big documents fast.
//!
//! This facade re-exports every engine, one crate each:
//!
//! * [`sheet`]: XLSX, XLSM and ODS workbooks, loaded on every core or
//!   streamed row by row ([`Workbook`], [`OpenOptions`]).
//! * [`pdf`]: PDFs by random access (lazy objects, pages, metadata,
//!   repair, append-only updates and rewrites).
//! * [`agg`]: min/mean/max per key of huge delimited text files (the One
//!   Billion Row Challenge engine).
//! * [`batch`]: many files at once, each sniffed and given to the right
//!   engine, with bounded slots, process isolation and a resumable JSON
//!   Lines report.
//! * [`io`]: byte sources (memory maps, buffers, sliding windows) and the
//!   error kinds every engine shares.
//! * [`zip`]: the ZIP container (central directory, entries, inflate with
//!   limits).
//! * [`write`]: XLSX workbooks written row by row in constant memory,
//!   several sheets deflated at once ([`write::WorkbookWriter`]).
//!
//! It also tells formats apart from their bytes ([`sniff`], [`Format`]:
//! XLSX, XLSM and ODS are read; XLS, XLSB and encrypted packages are
//! recognised and refused), reads a worksheet's declared dimension without
//! parsing it ([`declared_dimension`]), and names columns from a header
//! row ([`column_names`]).

mod dimension;
mod names;

pub use ream_agg as agg;
pub use ream_batch as batch;
pub use ream_io as io;
pub use ream_pdf as pdf;
pub use ream_sheet as sheet;
pub use ream_write as write;
pub use ream_zip as zip;

pub use dimension::declared_dimension;
pub use names::{ColumnNamer, column_names};
pub use ream_sheet::{OpenOptions, Workbook};
pub use ream_sniff::{Format, sniff, sniff_bytes, sniff_path};
