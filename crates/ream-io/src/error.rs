//! The error classification shared by all ream crates.

/// What went wrong, independent of the engine that reports it.
///
/// Every crate's `Error` exposes `kind()` returning one of these, so callers
/// (and the CLI's exit codes) can react without matching engine-specific
/// types.
///
/// New kinds may be added (the enum is `#[non_exhaustive]`): a `match`
/// outside this crate needs a `_` arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The operating system refused a read, open or map.
    Io,
    /// The input breaks its format's rules (truncated, corrupt, inconsistent).
    Malformed,
    /// The input is valid but uses a feature ream does not implement.
    Unsupported,
    /// A configured limit (size, ratio, count, depth) was exceeded.
    LimitExceeded,
    /// The input is encrypted or password-protected.
    Encrypted,
    /// The caller asked for something that does not exist or makes no sense.
    Usage,
}

impl ErrorKind {
    /// A short lower-case name, stable for JSON output (`"malformed"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Io => "io",
            ErrorKind::Malformed => "malformed",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::LimitExceeded => "limit_exceeded",
            ErrorKind::Encrypted => "encrypted",
            ErrorKind::Usage => "usage",
        }
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
