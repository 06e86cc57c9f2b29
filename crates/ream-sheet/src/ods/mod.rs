//! OpenDocument spreadsheets (`.ods`): `content.xml` read into the same
//! [`Workbook`] model as XLSX (in progress).

use crate::error::{Error, ErrorKind, Result};
use crate::options::OpenOptions;
use crate::workbook::Workbook;
use ream_zip::Archive;
use std::time::Instant;

/// Opens an ODS package whose ZIP directory is already read. `started` is
/// when the open began (for phase timings).
pub(crate) fn open(archive: Archive, opts: &OpenOptions, started: Instant) -> Result<Workbook> {
    let _ = (archive, opts, started);
    Err(Error::new(
        ErrorKind::Unsupported,
        "this is an OpenDocument (ODS) package; ODS support is not implemented yet",
    ))
}
