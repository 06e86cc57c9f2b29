//! The three-phase open (in progress).

use crate::error::{Error, ErrorKind, Result};
use crate::options::OpenOptions;
use crate::workbook::Workbook;
use ream_io::Bytes;

pub(crate) fn open(src: Bytes, opts: &OpenOptions) -> Result<Workbook> {
    let _ = (src, opts);
    Err(Error::new(ErrorKind::Unsupported, "not implemented yet"))
}
