//! Errors that stop a whole batch (a single file's failure never does: it is
//! recorded as that file's outcome).

use std::path::PathBuf;

/// Why [`run_batch`](crate::run_batch) gave up.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// Bad options: an invalid glob, `resume` without a report file, no
    /// worker command for `isolate`, ...
    #[error("{0}")]
    Usage(String),
    /// The report (or a list file) could not be opened, read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file concerned (`-` for standard input or output).
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A complete line of the report being resumed is not a record.
    #[error("{}: line {line} (byte {offset}) is not a batch record ({message}); fix or remove that line to resume", path.display())]
    CorruptReport {
        /// The report file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// Byte offset of the line's start.
        offset: u64,
        /// What the JSON parser said.
        message: String,
    },
    /// A worker thread could not be started.
    #[error("cannot start worker thread {slot}: {source}")]
    Thread {
        /// The slot index.
        slot: usize,
        /// What the operating system said.
        source: std::io::Error,
    },
}

impl BatchError {
    /// An [`BatchError::Io`] for `path`.
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> BatchError {
        BatchError::Io {
            path: path.into(),
            source,
        }
    }
}

/// Result alias for this crate.
pub type Result<T, E = BatchError> = std::result::Result<T, E>;
