//! A shared, read-only view of an input: a memory map or an owned buffer.

use std::fs::File;
use std::ops::Deref;
use std::path::Path;
use std::sync::Arc;

/// How [`Bytes::open`] reads a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MapMode {
    /// Memory-map files (the default); empty files are read as an empty buffer.
    #[default]
    Map,
    /// Read the whole file into memory (for files that may change while open,
    /// or filesystems where mapping is unwise).
    Read,
}

enum Inner {
    Mapped(memmap2::Mmap),
    Owned(Box<[u8]>),
    Static(&'static [u8]),
}

/// A cheap-to-clone handle on immutable input bytes.
///
/// Cloning shares the underlying map or buffer. Dereferences to `[u8]`.
///
/// A mapped file is mapped read-only and shared (`MAP_SHARED`, through
/// memmap2): the bytes are the file's page cache, not a private copy.
/// While it is mapped, another process that writes to the file changes the
/// bytes this handle shows (a read may then see a mix of old and new
/// content and give wrong results or errors), and one that truncates it
/// makes every access to a page past the new end raise SIGBUS, which kills
/// the process. Callers that cannot rule either out open with
/// [`MapMode::Read`], which copies the file into memory once.
#[derive(Clone)]
pub struct Bytes {
    inner: Arc<Inner>,
}

impl Bytes {
    /// Opens `path` with the given [`MapMode`].
    pub fn open(path: impl AsRef<Path>, mode: MapMode) -> std::io::Result<Bytes> {
        let path = path.as_ref();
        match mode {
            MapMode::Read => Ok(Bytes::from_vec(std::fs::read(path)?)),
            MapMode::Map => {
                let file = File::open(path)?;
                let len = file.metadata()?.len();
                if len == 0 {
                    return Ok(Bytes::from_vec(Vec::new()));
                }
                // SAFETY: memmap2 maps the whole file read-only and shared
                // (PROT_READ, MAP_SHARED); the mapping stays valid memory
                // of this process until the map is dropped, and nothing in
                // this process writes to it (it is never mapped writable,
                // and ream does not write to an input file). What this
                // cannot rule out is another process: bytes it writes to
                // the file show through the map (results may be wrong, but
                // every access stays inside the mapping, whose length does
                // not change), and a truncation turns accesses past
                // the new end into SIGBUS. Both are documented on `Bytes`;
                // MapMode::Read avoids them.
                #[allow(unsafe_code)]
                let map = unsafe { memmap2::Mmap::map(&file)? };
                Ok(Bytes {
                    inner: Arc::new(Inner::Mapped(map)),
                })
            }
        }
    }

    /// Wraps an owned buffer without copying.
    pub fn from_vec(v: Vec<u8>) -> Bytes {
        Bytes {
            inner: Arc::new(Inner::Owned(v.into_boxed_slice())),
        }
    }

    /// Wraps static bytes (test fixtures, embedded samples).
    pub fn from_static(s: &'static [u8]) -> Bytes {
        Bytes {
            inner: Arc::new(Inner::Static(s)),
        }
    }

    /// Tells the OS that `start..end` will not be read again soon, so its
    /// pages may leave this process's resident set (`MADV_DONTNEED` on the
    /// whole pages inside the range). A no-op for buffers. The bytes stay
    /// readable: a later access faults them back in from the file. Streaming
    /// readers call this on what they consumed, so a gigabyte input does not
    /// stay resident while it is parsed.
    pub fn release(&self, start: usize, end: usize) {
        let Inner::Mapped(map) = &*self.inner else {
            return;
        };
        const PAGE: usize = 4096;
        let first = start.div_ceil(PAGE) * PAGE;
        let last = end.min(map.len()) / PAGE * PAGE;
        if last <= first {
            return;
        }
        // SAFETY: the map is a read-only shared file mapping
        // (MAP_SHARED); MADV_DONTNEED only drops this process's page
        // table entries for the range: the mapping stays, so every
        // outstanding `&[u8]` still points at mapped memory, and the next
        // access faults the page back in from the file's page cache. The
        // bytes are then the file's current content: the same unless
        // another process changed the file, the case documented on
        // `Bytes`. The range lies inside the mapping and is page-aligned.
        #[allow(unsafe_code)]
        let _ = unsafe {
            map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, first, last - first)
        };
    }

    /// True when the bytes come from a memory map.
    pub fn is_mapped(&self) -> bool {
        matches!(*self.inner, Inner::Mapped(_))
    }
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &*self.inner {
            Inner::Mapped(m) => m,
            Inner::Owned(b) => b,
            Inner::Static(s) => s,
        }
    }
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bytes")
            .field("len", &self.len())
            .field("mapped", &self.is_mapped())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_map_and_read_agree() {
        let dir = std::env::temp_dir().join(format!("ream-io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.bin");
        std::fs::write(&p, b"hello").unwrap();
        let a = Bytes::open(&p, MapMode::Map).unwrap();
        let b = Bytes::open(&p, MapMode::Read).unwrap();
        assert_eq!(&*a, &*b);
        assert!(a.is_mapped());
        let e = dir.join("empty.bin");
        std::fs::write(&e, b"").unwrap();
        assert_eq!(Bytes::open(&e, MapMode::Map).unwrap().len(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
