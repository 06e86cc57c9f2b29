//! The writer's error type.

pub use ream_sheet::ErrorKind;
use std::fmt;

/// An error from writing a workbook: a [`kind`](Error::kind), a message,
/// and where it happened (sheet name and 0-based cell), whichever are
/// known.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    sheet: Option<String>,
    cell: Option<(u32, u32)>,
    source: Option<std::io::Error>,
}

/// Result alias for this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind` with `message` and no location.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            sheet: None,
            cell: None,
            source: None,
        }
    }
    /// Shorthand for [`ErrorKind::LimitExceeded`].
    pub fn limit(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::LimitExceeded, message)
    }
    /// Shorthand for [`ErrorKind::Usage`].
    pub fn usage(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Usage, message)
    }
    /// An I/O failure while doing `what`.
    pub fn io(what: &str, e: std::io::Error) -> Error {
        let mut err = Error::new(ErrorKind::Io, format!("{what}: {e}"));
        err.source = Some(e);
        err
    }
    /// Sets the sheet name (keeps an existing one).
    pub fn in_sheet(mut self, sheet: &str) -> Error {
        if self.sheet.is_none() {
            self.sheet = Some(sheet.to_string());
        }
        self
    }
    /// Sets the 0-based cell (keeps an existing one).
    pub fn at_cell(mut self, row: u32, col: u32) -> Error {
        if self.cell.is_none() {
            self.cell = Some((row, col));
        }
        self
    }
    /// What went wrong, by category.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// The message without the location.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// The sheet being written, when known.
    pub fn sheet(&self) -> Option<&str> {
        self.sheet.as_deref()
    }
    /// The 0-based (row, col) of the cell, when known.
    pub fn cell(&self) -> Option<(u32, u32)> {
        self.cell
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(s) = &self.sheet {
            write!(f, "sheet {s:?}: ")?;
        }
        if let Some((r, c)) = self.cell {
            write!(f, "cell {}: ", ream_sheet::cell_name(r, c))?;
        }
        write!(f, "{} ({})", self.message, self.kind)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
