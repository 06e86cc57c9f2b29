//! Random-access byte sources behind one trait, each counting its I/O.
//!
//! A [`ByteSource`] hands out borrowed slices of a file through a callback
//! ([`ByteSource::read_with`]): the slice lives only while the callback runs,
//! which lets the sliding window remap safely afterwards (no slice can
//! outlive the view it points into). Four implementations:
//!
//! * [`MapSource`] — the whole file mapped once (or an in-memory buffer).
//! * [`WindowSource`] — the sliding-window mapping: one live view (default
//!   64 MiB) aligned down to the page size, a fast path for reads inside it,
//!   the single view grown for a read that straddles its end, clamped at EOF,
//!   never two views at once.
//! * [`BufferedSource`] — a read-ahead buffer (default 256 KiB) filled with
//!   one positioned read; for network shares and files that may shrink.
//! * [`PreadSource`] — one positioned read per request: the measured baseline.
//!
//! # Files that shrink while open (SIGBUS policy)
//!
//! Touching a mapped page beyond the current end of a file raises SIGBUS,
//! which would kill the process. [`WindowSource`] re-checks the file length
//! (one `fstat`) before every remap and refuses to map past it, so a file
//! truncated while open gives an [`std::io::ErrorKind::UnexpectedEof`] error
//! at the next remap; bytes inside the view that is already live are not
//! re-checked. [`MapSource`] maps once and cannot detect truncation at all.
//! [`BufferedSource`] and [`PreadSource`] never map: a short read is an
//! error. Use one of those two for files that another process may shrink.
//!
//! The maps are read-only and shared (`MAP_SHARED`, through memmap2), not
//! private copies: bytes another process writes to the file while it is
//! mapped are seen by later reads, which may then give wrong results or
//! errors (never an access outside the mapping). The two reading sources
//! see such changes too, at their next read.

mod buffered;
mod counters;
mod map;
mod pread;
mod sys;
mod window;

pub use buffered::BufferedSource;
pub use counters::IoCounters;
pub use map::MapSource;
pub use pread::PreadSource;
pub use window::WindowSource;

use std::path::Path;
use std::sync::Arc;

/// Random access to the bytes of one input, with I/O counters.
///
/// Implementations are `Send + Sync`; concurrent readers are allowed (the
/// window and buffered sources serialise them on an internal lock).
pub trait ByteSource: Send + Sync + std::fmt::Debug {
    /// Length of the input in bytes, as seen when it was opened.
    fn len(&self) -> u64;

    /// True when the input is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `f` once with the bytes `offset..offset + len`, clamped at the
    /// end of the input (so `f` may see fewer than `len` bytes, or none at
    /// exactly the end). `offset` past the end, or a file that shrank below
    /// the requested range, is an error and `f` is not called.
    ///
    /// The slice is valid only during the call. `f` must not call back into
    /// the same source (the window and buffered sources hold a lock).
    fn read_with(&self, offset: u64, len: usize, f: &mut dyn FnMut(&[u8])) -> std::io::Result<()>;

    /// A snapshot of the I/O this source has done so far.
    fn counters(&self) -> IoCounters;

    /// Which implementation this is.
    fn kind(&self) -> SourceKind;
}

/// Convenience over [`ByteSource::read_with`] returning the callback's value.
pub trait ByteSourceExt: ByteSource {
    /// Runs `f` on the bytes `offset..offset + len` (clamped at EOF) and
    /// returns its result.
    fn with<R>(&self, offset: u64, len: usize, f: impl FnOnce(&[u8]) -> R) -> std::io::Result<R> {
        let mut f = Some(f);
        let mut out = None;
        self.read_with(offset, len, &mut |b| {
            if let Some(f) = f.take() {
                out = Some(f(b));
            }
        })?;
        out.ok_or_else(|| std::io::Error::other("byte source did not call back"))
    }

    /// Copies the bytes `offset..offset + len` (clamped at EOF) into a vector.
    fn read_vec(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        self.with(offset, len, <[u8]>::to_vec)
    }
}

impl<T: ByteSource + ?Sized> ByteSourceExt for T {}

/// Files of at least this many bytes (256 MiB) are read through the
/// sliding window by [`SourceKind::Auto`]; smaller ones are mapped whole.
///
/// Measured with `ream-bench pdf` (verified page walk, see BENCHMARKS.md):
/// on a 97 MB file the whole map is faster (0.015 s against 0.024 s) and
/// costs little more memory (87 MB against 62 MB peak RSS); on a 312 MB file
/// both take the same time but the map peaks at 250 MB against 71 MB; on a
/// 1.5 GB file at 1,266 MB against 97 MB.
pub const AUTO_WINDOW_FROM: u64 = 256 << 20;

/// Which [`ByteSource`] implementation to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum SourceKind {
    /// Chosen by the file's size when it is opened: the sliding window
    /// ([`WindowSource`]) from [`AUTO_WINDOW_FROM`] bytes up, the whole map
    /// ([`MapSource`]) below. The default. A source never reports this
    /// kind: [`ByteSource::kind`] names the one that was opened.
    #[default]
    Auto,
    /// The whole file mapped at once ([`MapSource`]).
    Mmap,
    /// The sliding-window mapping ([`WindowSource`]).
    Window,
    /// The read-ahead buffer ([`BufferedSource`]).
    Buffered,
    /// One positioned read per request ([`PreadSource`]).
    Pread,
}

impl SourceKind {
    /// Every concrete kind (all but [`SourceKind::Auto`]), in a stable order.
    pub const ALL: [SourceKind; 4] = [
        SourceKind::Mmap,
        SourceKind::Window,
        SourceKind::Buffered,
        SourceKind::Pread,
    ];

    /// The lower-case name (`auto`, `mmap`, `window`, `buffered`, `pread`).
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Auto => "auto",
            SourceKind::Mmap => "mmap",
            SourceKind::Window => "window",
            SourceKind::Buffered => "buffered",
            SourceKind::Pread => "pread",
        }
    }
}

impl std::fmt::Display for SourceKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for SourceKind {
    type Err = String;
    fn from_str(s: &str) -> Result<SourceKind, String> {
        std::iter::once(SourceKind::Auto)
            .chain(SourceKind::ALL)
            .find(|k| k.as_str() == s)
            .ok_or_else(|| format!("unknown source {s:?} (auto, mmap, window, buffered, pread)"))
    }
}

/// How [`open_source`] opens a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceOptions {
    /// The implementation. Default [`SourceKind::Auto`].
    pub kind: SourceKind,
    /// View size of the sliding window. Default 64 MiB; rounded up to the
    /// page size, at least one page.
    pub window_size: usize,
    /// Read-ahead buffer size. Default 256 KiB; at least 1 byte.
    pub buffer_size: usize,
}

impl Default for SourceOptions {
    fn default() -> SourceOptions {
        SourceOptions {
            kind: SourceKind::Auto,
            window_size: WindowSource::DEFAULT_WINDOW,
            buffer_size: BufferedSource::DEFAULT_BUFFER,
        }
    }
}

impl SourceOptions {
    /// Options for `kind` with the other settings at their defaults.
    pub fn kind(kind: SourceKind) -> SourceOptions {
        SourceOptions {
            kind,
            ..SourceOptions::default()
        }
    }
}

/// Opens `path` as the source that `opts` asks for ([`SourceKind::Auto`]
/// looks at the file's size first).
pub fn open_source(
    path: impl AsRef<Path>,
    opts: &SourceOptions,
) -> std::io::Result<Arc<dyn ByteSource>> {
    let path = path.as_ref();
    let kind = match opts.kind {
        SourceKind::Auto if std::fs::metadata(path)?.len() >= AUTO_WINDOW_FROM => {
            SourceKind::Window
        }
        SourceKind::Auto => SourceKind::Mmap,
        kind => kind,
    };
    Ok(match kind {
        SourceKind::Auto | SourceKind::Mmap => Arc::new(MapSource::open(path)?),
        SourceKind::Window => Arc::new(WindowSource::open(path, opts.window_size)?),
        SourceKind::Buffered => Arc::new(BufferedSource::open(path, opts.buffer_size)?),
        SourceKind::Pread => Arc::new(PreadSource::open(path)?),
    })
}

/// The error for a request that starts past the end of the input.
pub(crate) fn past_end(offset: u64, len: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        format!("read at {offset} is past the end of the input ({len} bytes)"),
    )
}

/// The error for a file that became shorter than the range asked for.
pub(crate) fn shrank(end: u64, now: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        format!("file shrank while open: {now} bytes now, read needs {end}"),
    )
}

#[cfg(test)]
mod tests;
