//! ream: read big documents fast.
//!
//! This facade re-exports the engines: [`sheet`] for XLSX/XLSM and ODS
//! workbooks, [`io`] for byte sources, [`zip`] for the ZIP container; it
//! tells formats apart with [`sniff`], reads a worksheet's declared
//! dimension without parsing it ([`declared_dimension`]), and names columns
//! from a header row ([`column_names`]).

mod dimension;
mod names;
mod sniff;

pub use ream_io as io;
pub use ream_sheet as sheet;
pub use ream_zip as zip;

pub use dimension::declared_dimension;
pub use names::{ColumnNamer, column_names};
pub use ream_sheet::{OpenOptions, Workbook};
pub use sniff::{Format, sniff, sniff_bytes, sniff_path};
