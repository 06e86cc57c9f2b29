//! ream: read big documents fast.
//!
//! This facade re-exports the engines: [`sheet`] for XLSX/XLSM workbooks,
//! [`io`] for byte sources, [`zip`] for the ZIP container.

pub use ream_io as io;
pub use ream_sheet as sheet;
pub use ream_zip as zip;

pub use ream_sheet::{OpenOptions, Workbook};
