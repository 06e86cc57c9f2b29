//! [`AggError`]: what went wrong, on which line, at which byte.

pub use ream_io::ErrorKind;

/// The specific problem behind an [`AggError`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// A line has no delimiter (an empty line is skipped, not an error).
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
    /// The value is empty or not a decimal number (or, with
    /// `strict_values`, not in the 1BRC form `-?d?d.d`).
    BadValue,
    /// The value is a decimal number that exact fixed point does not hold:
    /// more than 18 significant digits, more than 18 decimals, or 10^18 or
    /// more in magnitude.
    ValueOutOfRange,
    /// The distinct keys need more than `max_key_memory` bytes; the offset
    /// is the key of the row that brings the total over.
    KeyMemory {
        /// The budget in force, in bytes.
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
            | Problem::KeyMemory { .. }
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

    /// The distinct keys of merged states need more than `max` bytes
    /// (no line or offset: the keys came from many ranges).
    pub(crate) fn key_memory(max: usize) -> AggError {
        AggError::at(
            Problem::KeyMemory { max },
            0,
            0,
            format!(
                "the distinct keys of the merged states need more than the key-table budget \
                 of {} (max_key_memory = {max} bytes; raise it for more keys)",
                show_bytes(max)
            ),
        )
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

    /// The I/O error behind a [`Problem::Io`] (its text is in the message).
    pub fn io_error(&self) -> Option<&std::io::Error> {
        self.source.as_ref()
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
            // Line 0: no position (a limit of merged states).
            _ if self.line == 0 => f.write_str(&self.detail),
            _ => write!(
                f,
                "line {}, byte {}: {}",
                self.line, self.offset, self.detail
            ),
        }
    }
}

/// The message of an I/O error already holds the text of its cause, so
/// `source` is `None` (a chain printer would repeat it); the cause is
/// [`AggError::io_error`].
impl std::error::Error for AggError {}

/// A malformed row that `skip_bad_rows` skipped: the problem, the 1-based
/// line, the byte offset from the start of the input, and the message.
/// Displayed as `line N, byte B: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRow {
    /// The specific problem.
    pub problem: Problem,
    /// 1-based line.
    pub line: u64,
    /// 0-based byte offset from the start of the input.
    pub offset: u64,
    /// What is wrong with the row.
    pub message: String,
}

impl From<AggError> for BadRow {
    fn from(e: AggError) -> BadRow {
        BadRow {
            problem: e.problem,
            line: e.line,
            offset: e.offset,
            message: e.detail,
        }
    }
}

impl std::fmt::Display for BadRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, byte {}: {}",
            self.line, self.offset, self.message
        )
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

    pub fn key_memory(offset: usize, max: usize) -> Fault {
        Fault::new(
            Problem::KeyMemory { max },
            offset,
            format!(
                "the distinct keys need more than the key-table budget of {} \
                 (max_key_memory = {max} bytes; raise it for more keys)",
                show_bytes(max)
            ),
        )
    }

    /// True for a malformed row that `skip_bad_rows` skips.
    pub fn skippable(&self) -> bool {
        self.problem.kind() == ErrorKind::Malformed
    }

    /// The errors of faults sorted by offset, each line counted from the
    /// newlines in `data` before its offset (one pass for all).
    pub fn locate_all(faults: Vec<Fault>, data: &[u8]) -> Vec<AggError> {
        let (mut line, mut at) = (1u64, 0usize);
        faults
            .into_iter()
            .map(|f| {
                let to = f.offset.max(at);
                let part = data.get(at..to).unwrap_or_default();
                line += memchr::memchr_iter(b'\n', part).count() as u64;
                at = to;
                AggError::at(f.problem, line, f.offset as u64, f.detail)
            })
            .collect()
    }

    /// The error, with the line counted from the newlines in `data` before
    /// the offset (the error path only).
    pub fn locate(self, data: &[u8]) -> AggError {
        let before = data.get(..self.offset).unwrap_or(data);
        let line = memchr::memchr_iter(b'\n', before).count() as u64 + 1;
        AggError::at(self.problem, line, self.offset as u64, self.detail)
    }
}

/// A byte count for messages: `512 MiB`, `1.5 GiB`, `1000 bytes`.
pub(crate) fn show_bytes(n: usize) -> String {
    const UNITS: [(usize, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (u, name) in UNITS {
        if n >= u {
            let x = n as f64 / u as f64;
            return if n.is_multiple_of(u) {
                format!("{} {name}", n / u)
            } else {
                format!("{x:.1} {name}")
            };
        }
    }
    format!("{n} bytes")
}
