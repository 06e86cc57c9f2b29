//! [`AggError`]: what went wrong, on which line, at which byte.

pub use ream_io::ErrorKind;

/// The specific problem behind an [`AggError`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// A line has no delimiter (an empty line included).
    MissingDelimiter,
    /// A line has fewer fields than `key_col`/`value_col` need.
    MissingField {
        /// The 0-based field that is missing.
        col: usize,
        /// The fields the line has.
        found: usize,
    },
    /// The key field is empty.
    EmptyKey,
    /// The key is longer than `max_key_bytes`.
    KeyTooLong {
        /// The limit in force.
        max: usize,
    },
    /// The key is not valid UTF-8 (and `allow_invalid_utf8` is off); the
    /// offset points at the first bad byte.
    InvalidUtf8,
    /// The value is not a decimal number (or, with `strict_values`, not in
    /// the 1BRC form `-?d?d.d`).
    BadValue,
    /// The value is a number too large for `f64` (infinite).
    ValueOutOfRange,
    /// More distinct keys than `max_keys`; the offset is the row that
    /// introduces the first key over the limit.
    TooManyKeys {
        /// The limit in force.
        max: usize,
    },
    /// A streamed line is longer than the stream buffer limit.
    LineTooLong {
        /// The limit in force.
        max: usize,
    },
    /// Reading the input failed.
    Io,
    /// The options make no sense (see the message).
    Usage,
}

impl Problem {
    /// The shared error classification.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Problem::Io => ErrorKind::Io,
            Problem::Usage => ErrorKind::Usage,
            Problem::KeyTooLong { .. }
            | Problem::TooManyKeys { .. }
            | Problem::LineTooLong { .. } => ErrorKind::LimitExceeded,
            _ => ErrorKind::Malformed,
        }
    }
}

/// An aggregation error: the problem, the 1-based line and the 0-based byte
/// offset from the start of the input (BOM included) where it was found.
/// For [`Problem::Io`] and [`Problem::Usage`] the position is 0.
#[derive(Debug)]
pub struct AggError {
    problem: Problem,
    line: u64,
    offset: u64,
    detail: String,
    source: Option<std::io::Error>,
}

impl AggError {
    pub(crate) fn at(problem: Problem, line: u64, offset: u64, detail: String) -> AggError {
        AggError {
            problem,
            line,
            offset,
            detail,
            source: None,
        }
    }

    pub(crate) fn usage(detail: String) -> AggError {
        AggError::at(Problem::Usage, 0, 0, detail)
    }

    pub(crate) fn io(detail: String, source: std::io::Error) -> AggError {
        AggError {
            problem: Problem::Io,
            line: 0,
            offset: 0,
            detail,
            source: Some(source),
        }
    }

    /// The specific problem.
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// The shared error classification (for exit codes).
    pub fn kind(&self) -> ErrorKind {
        self.problem.kind()
    }

    /// 1-based line number (0 for I/O and usage errors).
    pub fn line(&self) -> u64 {
        self.line
    }

    /// 0-based byte offset from the start of the input.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Moves a position found in a block of a stream to the whole stream.
    pub(crate) fn shifted(mut self, lines: u64, bytes: u64) -> AggError {
        if !matches!(self.problem, Problem::Io | Problem::Usage) {
            self.line += lines;
            self.offset += bytes;
        }
        self
    }
}

impl std::fmt::Display for AggError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.problem {
            Problem::Io | Problem::Usage => f.write_str(&self.detail),
            _ => write!(
                f,
                "line {}, byte {}: {}",
                self.line, self.offset, self.detail
            ),
        }
    }
}

impl std::error::Error for AggError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// A problem found by a worker, before its line number is known.
#[derive(Debug, Clone)]
pub(crate) struct Fault {
    pub problem: Problem,
    /// Offset in the slice the worker reads.
    pub offset: usize,
    pub detail: String,
}

impl Fault {
    pub fn new(problem: Problem, offset: usize, detail: String) -> Fault {
        Fault {
            problem,
            offset,
            detail,
        }
    }

    pub fn too_many_keys(offset: usize, max: usize) -> Fault {
        Fault::new(
            Problem::TooManyKeys { max },
            offset,
            format!("more than {max} distinct keys (raise max_keys)"),
        )
    }

    /// The error, with the line counted from the newlines in `data` before
    /// the offset (the error path only).
    pub fn locate(self, data: &[u8]) -> AggError {
        let before = data.get(..self.offset).unwrap_or(data);
        let line = memchr::memchr_iter(b'\n', before).count() as u64 + 1;
        AggError::at(self.problem, line, self.offset as u64, self.detail)
    }
}
