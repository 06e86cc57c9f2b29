//! The spreadsheet reader's error type.

pub use ream_io::ErrorKind;
use std::fmt;

/// An error from opening or reading a workbook.
///
/// Carries a [`kind`](Error::kind), a message, and where it happened: the
/// ZIP part, the cell (0-based row/col) and the byte offset inside the part
/// (or the file, for container errors), whichever are known.
#[derive(Debug, Clone)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    part: Option<String>,
    sheet: Option<String>,
    cell: Option<(u32, u32)>,
    offset: Option<u64>,
    /// Set when the input ended inside markup: a streaming caller may feed
    /// more bytes and try again.
    pub(crate) truncated: bool,
}

/// Result alias for this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind` with `message` and no location yet.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            part: None,
            sheet: None,
            cell: None,
            offset: None,
            truncated: false,
        }
    }
    /// Shorthand for [`ErrorKind::Malformed`].
    pub fn malformed(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Malformed, message)
    }
    /// Shorthand for [`ErrorKind::LimitExceeded`].
    pub fn limit(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::LimitExceeded, message)
    }
    /// Sets the part name (keeps an existing one).
    pub fn in_part(mut self, part: impl Into<String>) -> Error {
        if self.part.is_none() {
            self.part = Some(part.into());
        }
        self
    }
    /// Sets the sheet name (keeps an existing one).
    pub fn in_sheet(mut self, sheet: impl Into<String>) -> Error {
        if self.sheet.is_none() {
            self.sheet = Some(sheet.into());
        }
        self
    }
    /// Sets the cell (0-based row, col) (keeps an existing one).
    pub fn at_cell(mut self, row: u32, col: u32) -> Error {
        if self.cell.is_none() {
            self.cell = Some((row, col));
        }
        self
    }
    /// Sets the byte offset (keeps an existing one).
    pub fn at_offset(mut self, offset: u64) -> Error {
        if self.offset.is_none() {
            self.offset = Some(offset);
        }
        self
    }
    /// Moves a known byte offset by `base` (an offset found in a window
    /// of a streamed part made absolute).
    pub(crate) fn offset_by(mut self, base: u64) -> Error {
        self.offset = self.offset.map(|o| o.saturating_add(base));
        self
    }
    /// What went wrong, as a shared classification.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// The message without location.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// The ZIP part the error happened in, if known.
    pub fn part(&self) -> Option<&str> {
        self.part.as_deref()
    }
    /// The name of the sheet the error happened in, if known.
    pub fn sheet(&self) -> Option<&str> {
        self.sheet.as_deref()
    }
    /// The cell (0-based row, col), if known.
    pub fn cell(&self) -> Option<(u32, u32)> {
        self.cell
    }
    /// The byte offset inside the part (or the file), if known.
    pub fn offset(&self) -> Option<u64> {
        self.offset
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        match (&self.sheet, &self.part) {
            (Some(s), Some(p)) => write!(f, " in sheet '{s}' ({p})")?,
            (Some(s), None) => write!(f, " in sheet '{s}'")?,
            (None, Some(p)) => write!(f, " in {p}")?,
            (None, None) => {}
        }
        if let Some((r, c)) = self.cell {
            write!(f, " at cell {}", crate::model::cell_name(r, c))?;
        }
        if let Some(o) = self.offset {
            write!(f, " (byte {o})")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for Error {}

impl From<ream_zip::Error> for Error {
    fn from(e: ream_zip::Error) -> Error {
        let mut out = Error::new(e.kind(), e.message().to_string());
        if let Some(n) = e.entry() {
            out = out.in_part(n.to_string());
        }
        if let Some(o) = e.offset() {
            out = out.at_offset(o);
        }
        out
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::new(ErrorKind::Io, e.to_string())
    }
}
