//! ream: read big documents fast.
//!
//! This facade re-exports the engines: [`sheet`] for XLSX/XLSM workbooks,
//! [`io`] for byte sources, [`zip`] for the ZIP container; and it tells
//! formats apart with [`sniff`].

mod sniff;

pub use ream_io as io;
pub use ream_sheet as sheet;
pub use ream_zip as zip;

pub use ream_sheet::{OpenOptions, Workbook};
pub use sniff::{Format, sniff, sniff_bytes, sniff_path};
