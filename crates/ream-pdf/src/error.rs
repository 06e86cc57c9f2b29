//! The PDF reader's error type.

use crate::object::ObjRef;
use ream_io::ErrorKind;
use std::fmt;

/// A PDF error: kind, message, and where (absolute byte offset, object).
#[derive(Debug, Clone)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    offset: Option<u64>,
    object: Option<ObjRef>,
    /// The input ended inside a token or object (the caller may retry with
    /// more bytes when the slice was not the end of the file).
    eof: bool,
}

/// Result alias for this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            offset: None,
            object: None,
            eof: false,
        }
    }

    /// A malformed-input error at absolute byte `offset`.
    pub fn malformed(offset: u64, message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Malformed, message).at(offset)
    }

    /// A limit error naming the limit.
    pub fn limit(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::LimitExceeded, message)
    }

    /// The input ended at `offset` inside a token or object.
    pub(crate) fn eof(offset: u64) -> Error {
        let mut e = Error::malformed(offset, "unexpected end of data");
        e.eof = true;
        e
    }

    /// True when this error only says the bytes ran out (see [`Error::eof`]).
    pub(crate) fn is_eof(&self) -> bool {
        self.eof
    }

    /// Attaches an absolute byte offset (keeps an existing one).
    pub fn at(mut self, offset: u64) -> Error {
        self.offset.get_or_insert(offset);
        self
    }

    /// Attaches the object concerned (keeps an existing one).
    pub fn in_object(mut self, r: ObjRef) -> Error {
        self.object.get_or_insert(r);
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

    /// Absolute byte offset in the file, when known.
    pub fn offset(&self) -> Option<u64> {
        self.offset
    }

    /// The object concerned, when known.
    pub fn object(&self) -> Option<ObjRef> {
        self.object
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::new(ErrorKind::Io, e.to_string())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if let Some(r) = self.object {
            write!(f, " in object {r}")?;
        }
        if let Some(o) = self.offset {
            write!(f, " (byte {o})")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for Error {}

/// A problem the reader recovered from (repair, lenient parse, lie found).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// What happened and what was done about it.
    pub message: String,
    /// Absolute byte offset, when known.
    pub offset: Option<u64>,
    /// The object concerned, when known.
    pub object: Option<ObjRef>,
}

impl Warning {
    /// A warning with a message only.
    pub fn new(message: impl Into<String>) -> Warning {
        Warning {
            message: message.into(),
            offset: None,
            object: None,
        }
    }

    /// Builds a warning from an error that was recovered from.
    pub fn from_error(context: &str, e: &Error) -> Warning {
        Warning {
            message: format!("{context}: {}", e.message()),
            offset: e.offset(),
            object: e.object(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(r) = self.object {
            write!(f, "object {r}: ")?;
        }
        if let Some(o) = self.offset {
            write!(f, "byte {o}: ")?;
        }
        f.write_str(&self.message)
    }
}
