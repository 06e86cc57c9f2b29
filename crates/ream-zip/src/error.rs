//! The ZIP reader's error type.

use ream_io::ErrorKind;
use std::fmt;

/// A ZIP error: kind, message, entry name and byte offset when known.
#[derive(Debug, Clone)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    entry: Option<String>,
    offset: Option<u64>,
}

/// Result alias for this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            entry: None,
            offset: None,
        }
    }
    /// Attaches the entry name.
    pub fn entry_name(mut self, name: impl Into<String>) -> Error {
        self.entry = Some(name.into());
        self
    }
    /// Attaches a byte offset in the archive.
    pub fn at(mut self, offset: u64) -> Error {
        self.offset = Some(offset);
        self
    }
    /// The classification.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// The message without location.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// The entry concerned, if any.
    pub fn entry(&self) -> Option<&str> {
        self.entry.as_deref()
    }
    /// Byte offset in the archive, if known.
    pub fn offset(&self) -> Option<u64> {
        self.offset
    }
    /// Recovers an [`Error`] carried inside an I/O error from
    /// [`EntryReader`](crate::EntryReader), or wraps the I/O error.
    pub fn from_io(e: std::io::Error) -> Error {
        match e.get_ref().and_then(|i| i.downcast_ref::<Error>()) {
            Some(inner) => inner.clone(),
            None => Error::new(ErrorKind::Io, e.to_string()),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if let Some(e) = &self.entry {
            write!(f, " in zip entry {e}")?;
        }
        if let Some(o) = self.offset {
            write!(f, " (byte {o})")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for Error {}
