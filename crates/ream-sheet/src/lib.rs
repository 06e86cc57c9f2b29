//! Parallel XLSX, XLSM, XLSB, ODS and XLS reader.
//!
//! [`Workbook::open`] reads a whole XLSX or XLSM workbook in three phases:
//!
//! * **A** — map the file, read the ZIP central directory, parse the
//!   workbook-level parts once (workbook, relationships, shared strings into
//!   one arena, styles/number formats). They are shared read-only afterwards.
//! * **B** — inflate and parse every worksheet on a pool of
//!   `min(sheets, threads)` scoped threads taking jobs (largest first) from a
//!   shared atomic counter; a plain serial loop for 0 or 1 job. The first
//!   worker error is returned, naming the sheet part and cell. Workers share
//!   nothing mutable and take no lock.
//! * **C** — the small parts: comments, tables, merged ranges, hyperlinks,
//!   hidden rows/columns, drawings (images, charts).
//!
//! An OpenDocument spreadsheet (`.ods`) keeps every sheet in one part,
//! `content.xml`; the `ods` module inflates and parses it into the same
//! model (the same [`Workbook`], [`Sheet`] and cells). Either format
//! streams a sheet row by row in constant memory ([`Workbook::rows`]).
//!
//! A legacy Excel workbook (`.xls`: BIFF8, and BIFF5/7) is found by its
//! content (a CFB container, or a bare BIFF stream); the `xls` module reads
//! its globals once and its worksheets in parallel into the same model
//! (cached values of formulas with their text decompiled from the formula
//! tokens); opened without cells, [`Workbook::rows`] walks a sheet's
//! records in blocks of complete rows.
//!
//! An Excel binary workbook (`.xlsb`: BIFF12 records in the same ZIP
//! package) is found by its workbook part, `xl/workbook.bin`; the `xlsb`
//! module reads the workbook, styles and shared strings once and the
//! worksheets in parallel into the same model (cached values of formulas
//! with their decompiled text); opened without cells, [`Workbook::rows`]
//! inflates and parses a worksheet part block by block.
//!
//! The per-cell path allocates nothing: a purpose-built scanner
//! ([`ream_xml`]) walks the XML and writes 16-byte cells and string bytes
//! into vectors that grow geometrically.

mod cell_scan;
mod cell_text;
mod chunk_join;
mod chunked;
mod dates;
mod encoding;
mod error;
mod escapes;
mod formula;
mod legacy_rows;
mod model;
mod ods;
mod open;
mod options;
mod parts;
mod pipeline;
mod ptg;
mod refs;
mod rows;
mod sheet_pool;
mod sheet_read;
mod small_parts;
mod sst;
mod store;
mod styles_view;
mod workbook;
mod worksheet;
#[cfg(test)]
mod worksheet_props;
mod xls;
mod xlsb;

pub use error::{Error, ErrorKind, Result};
pub use model::*;
pub use options::{AUTO_BYTES_PER_THREAD, Limits, MapMode, OpenOptions, SheetPick};
pub use rows::{OwnedCell, OwnedRow, OwnedValue, RowOptions, RowReader, RowRef};
pub use workbook::{Cells, Sheet, Workbook};
