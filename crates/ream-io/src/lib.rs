//! Byte sources shared by every ream engine.
//!
//! Inputs are read as one contiguous `&[u8]`: either a read-only memory map
//! of a file or an owned buffer. [`Bytes`] is a cheap, clonable handle
//! (`Arc` inside) so that workers on many threads can borrow slices of the
//! same input without copying. This is the one crate that may use `unsafe`
//! (memory maps, [`FillBuf`], fallible zeroed allocation, `madvise`
//! hints); every such block carries a `// SAFETY:` comment.
//!
//! For random access to files too big to map whole (gigabyte PDFs), the
//! [`source`] module offers four [`ByteSource`]s behind one trait: whole
//! mapping, a sliding-window mapping, a read-ahead buffer and plain
//! positioned reads, each counting its syscalls and maps ([`IoCounters`]).
//!
//! [`FillBuf`] lets one thread fill a big buffer (a decompressor) while
//! others already read the filled part (parsers), without locks per read.
//!
//! For writers, [`fs`] wraps exclusive locks, kernel-side copies
//! (`copy_file_range`), unbuffered output and aligned buffers.

#![deny(unsafe_code)]

mod bytes;
mod error;
mod fill;
pub mod fs;
mod mem;
pub mod source;

pub use bytes::{Bytes, MapMode};
pub use error::ErrorKind;
pub use fill::{FillBuf, FillWriter};
pub use mem::{advise_huge_pages, populate_write, try_zeroed_vec};
pub use source::{
    AUTO_WINDOW_FROM, BufferedSource, ByteSource, ByteSourceExt, IoCounters, MapSource,
    PreadSource, SourceKind, SourceOptions, WindowSource, open_source,
};
