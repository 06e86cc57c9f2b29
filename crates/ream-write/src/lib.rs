//! ream-write: a streaming, parallel XLSX writer.
//!
//! Rows go in as they come and are turned into worksheet XML in a small
//! buffer that is deflated straight away, so a sheet takes constant memory
//! however many rows it has: its compressed bytes stay in memory up to
//! [`WriteOptions::spill_threshold`] (4 MiB) and then move to a temporary
//! file. Each sheet has its own writer ([`SheetWriter`], `Send`), so
//! several sheets are written and deflated at once on different threads
//! ([`write_parallel`]); [`WorkbookWriter::save`] then assembles the ZIP
//! package (Zip64 past 4 GiB) on any `Write`, sequentially.
//!
//! Cells: numbers (shortest round-trip text), text (a shared string table
//! by default, inline text with [`Strings::Inline`] for constant memory
//! on unique texts), booleans, errors, date/time serials with a date
//! style, and formulas with their cached result. Sheets: column widths
//! (explicit or autofit), a frozen header, an autofilter, visibility;
//! workbook defined names and the 1904 date system. Custom number formats
//! ([`WorkbookWriter::number_format`], [`Cell::with_format`],
//! [`SheetWriter::set_column_format`]).
//!
//! Templates ([`WorkbookWriter::with_template`]): every sheet starts as a
//! copy of one sheet of an existing workbook ([`Template`]) with its
//! rows above [`TemplateOptions::start_row`], widths, views, merged
//! cells and conditional formats, and the workbook carries the
//! template's styles and theme; new cells take their column's template
//! format.
//!
//! Limits are Excel's ([`limits`]): a cell outside 1,048,576 rows x
//! 16,384 columns, text over 32,767 characters, a formula over 8,192, a
//! non-finite number, rows or columns out of order are refused with an
//! [`Error`] naming the sheet and cell; nothing of the offending row is
//! written.
//!
//! ```
//! use ream_write::{Cell, Value, WorkbookWriter, WriteOptions};
//! let mut wb = WorkbookWriter::new(WriteOptions::default());
//! let mut s = wb.add_sheet("Data")?;
//! s.append_row(&[Value::String("name"), Value::String("n")])?;
//! s.write_row(1, &[Cell::new(0, Value::String("x")), Cell::new(1, Value::Number(1.5))])?;
//! s.freeze_rows(1)?;
//! s.finish()?;
//! let mut bytes = Vec::new();
//! wb.save(&mut bytes)?;
//! # Ok::<(), ream_write::Error>(())
//! ```

mod deflate;
mod error;
mod escape;
pub mod limits;
mod options;
mod parts;
mod pipe;
mod sheet;
mod spool;
mod sst;
mod styles;
mod template;
mod value;
mod workbook;
mod xml;
mod zip;

pub use error::{Error, ErrorKind, Result};
pub use options::{Strings, WriteOptions};
pub use ream_sheet::{CellError, CellRange, Visibility};
pub use sheet::SheetWriter;
pub use styles::NumberFormat;
pub use template::{Template, TemplateOptions, TemplateSheet};
pub use value::{Cell, DateStyle, Value};
pub use workbook::{WorkbookWriter, write_parallel};
