//! The error type: ream's sheet error, which names the sheet and cell.

use ream::sheet::ErrorKind;

/// An error from reading a sheet into Arrow: a read error of the workbook,
/// a usage error (unknown column, bad option), or a value that cannot
/// become its column's type (kind [`ErrorKind::Usage`], naming the sheet
/// and the cell). `Display` gives kind, sheet, cell and message.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{inner}")]
pub struct Error {
    inner: ream::sheet::Error,
}

impl Error {
    /// A usage error with `message` and no location.
    pub fn usage(message: impl Into<String>) -> Error {
        Error::from(ream::sheet::Error::new(ErrorKind::Usage, message))
    }
    /// A value at (`row`, `col`) of `sheet` that does not fit its column.
    pub(crate) fn bad_value(sheet: &str, row: u32, col: u32, message: impl Into<String>) -> Error {
        Error::from(
            ream::sheet::Error::new(ErrorKind::Usage, message)
                .in_sheet(sheet)
                .at_cell(row, col),
        )
    }
    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind()
    }
    /// The message without location.
    pub fn message(&self) -> &str {
        self.inner.message()
    }
    /// The sheet's name, when known.
    pub fn sheet(&self) -> Option<&str> {
        self.inner.sheet()
    }
    /// The cell (0-based row, col), when known.
    pub fn cell(&self) -> Option<(u32, u32)> {
        self.inner.cell()
    }
    /// The package part, when known.
    pub fn part(&self) -> Option<&str> {
        self.inner.part()
    }
    /// The byte offset in the part (or file), when known.
    pub fn offset(&self) -> Option<u64> {
        self.inner.offset()
    }
    /// The underlying sheet error.
    pub fn as_sheet_error(&self) -> &ream::sheet::Error {
        &self.inner
    }
}

impl From<ream::sheet::Error> for Error {
    fn from(inner: ream::sheet::Error) -> Error {
        Error { inner }
    }
}

impl From<arrow_schema::ArrowError> for Error {
    fn from(e: arrow_schema::ArrowError) -> Error {
        Error::from(ream::sheet::Error::new(
            ErrorKind::Malformed,
            format!("building Arrow arrays: {e}"),
        ))
    }
}
