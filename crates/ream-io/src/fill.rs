//! A fixed-size byte buffer filled front to back by one writer while any
//! number of readers use the part already filled.
//!
//! This lets a decompressor and parsers overlap on one contiguous buffer
//! (ODS `content.xml`: the parsers start on the first tables while the
//! rest is still being inflated) without copying and without a lock per
//! read. The writer sees only the unfilled suffix, readers only the filled
//! prefix, and the boundary only moves forward, so the two never overlap.
//! The tests below (a concurrent reader included) pass under Miri:
//! `rustup component add --toolchain nightly miri rust-src`, then
//! `cargo +nightly miri test -p ream-io --lib fill`.

use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// A buffer of `capacity` bytes, zero-initialised lazily (a fresh
/// allocation: big ones are untouched zero pages until written). One
/// [`FillWriter`] appends; [`FillBuf::filled`] gives the prefix written so
/// far to any thread.
pub struct FillBuf {
    /// Start of the boxed slice (owned; freed in `Drop`).
    ptr: NonNull<u8>,
    cap: usize,
    filled: AtomicUsize,
    writer_taken: AtomicBool,
    _owns: PhantomData<Box<[u8]>>,
}

// SAFETY: the buffer is plain bytes owned by the value. Shared access is
// split by `filled`: readers form `&[u8]` over `0..filled` (loaded with
// Acquire, so the bytes are visible), the single writer (enforced by
// `writer_taken`) forms `&mut [u8]` over `filled..cap` only, and `filled`
// never decreases, so no byte is ever both shared and uniquely borrowed.
#[allow(unsafe_code)]
unsafe impl Send for FillBuf {}
// SAFETY: as above.
#[allow(unsafe_code)]
unsafe impl Sync for FillBuf {}

impl FillBuf {
    /// A buffer of `capacity` bytes, none filled. No huge-page advice:
    /// on ODS giant (1.16 GB) `MADV_HUGEPAGE` made the median faster
    /// (1.34 s against 1.49 s on 2 threads) but some opens took 3.1-3.5 s
    /// in synchronous page clearing, so plain pages are used.
    /// `None` when the allocator refuses that much memory.
    pub fn new(capacity: usize) -> Option<FillBuf> {
        let v = crate::mem::try_zeroed_vec(capacity)?;
        let boxed: Box<[u8]> = v.into_boxed_slice();
        let cap = boxed.len();
        let raw: *mut [u8] = Box::into_raw(boxed);
        let ptr = NonNull::new(raw.cast::<u8>()).unwrap_or(NonNull::dangling());
        Some(FillBuf {
            ptr,
            cap,
            filled: AtomicUsize::new(0),
            writer_taken: AtomicBool::new(false),
            _owns: PhantomData,
        })
    }

    /// Total size in bytes.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// The bytes written so far (a snapshot: more may follow).
    pub fn filled(&self) -> &[u8] {
        let len = self.filled.load(Ordering::Acquire).min(self.cap);
        // SAFETY: `0..len` lies inside the allocation, every byte of it was
        // initialised (zeroed at allocation, then written by the writer
        // before the Release store that published `len`), and the writer
        // never touches bytes below `filled` again (see `FillWriter`).
        #[allow(unsafe_code)]
        unsafe {
            std::slice::from_raw_parts(self.ptr.as_ptr(), len)
        }
    }

    /// The writer; `None` after the first call (there is only one).
    pub fn writer(&self) -> Option<FillWriter<'_>> {
        if self.writer_taken.swap(true, Ordering::AcqRel) {
            return None;
        }
        Some(FillWriter { buf: self })
    }
}

impl Drop for FillBuf {
    fn drop(&mut self) {
        let raw = std::ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.cap);
        // SAFETY: `raw` is exactly the pointer `Box::into_raw` gave in
        // `new` (same start, same length), and `&mut self` means no reader
        // or writer borrow is alive.
        #[allow(unsafe_code)]
        drop(unsafe { Box::from_raw(raw) });
    }
}

impl std::fmt::Debug for FillBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FillBuf")
            .field("capacity", &self.cap)
            .field("filled", &self.filled.load(Ordering::Relaxed))
            .finish()
    }
}

/// The single writer of a [`FillBuf`]: write into [`FillWriter::spare`],
/// then publish with [`FillWriter::commit`].
pub struct FillWriter<'a> {
    buf: &'a FillBuf,
}

impl FillWriter<'_> {
    /// The unfilled rest of the buffer (empty when full).
    pub fn spare(&mut self) -> &mut [u8] {
        let at = self.buf.filled.load(Ordering::Relaxed).min(self.buf.cap);
        // SAFETY: `at..cap` lies inside the allocation; readers only ever
        // borrow below the published `filled` (= `at`, only this writer
        // moves it), and `&mut self` keeps this the only mutable borrow.
        #[allow(unsafe_code)]
        unsafe {
            std::slice::from_raw_parts_mut(self.buf.ptr.as_ptr().add(at), self.buf.cap - at)
        }
    }

    /// Faults in the next `n` bytes of [`FillWriter::spare`] in one call
    /// (`MADV_POPULATE_WRITE`, Linux 5.14+; nothing elsewhere or on error)
    /// instead of one page fault per 4 KiB while writing.
    pub fn prefault(&mut self, n: usize) {
        let spare = self.spare();
        let n = n.min(spare.len());
        crate::mem::populate_write(spare.get_mut(..n).unwrap_or_default());
    }

    /// Publishes the next `n` bytes of [`FillWriter::spare`] to readers
    /// (clamped to the capacity).
    pub fn commit(&mut self, n: usize) {
        let at = self.buf.filled.load(Ordering::Relaxed);
        let to = at.saturating_add(n).min(self.buf.cap);
        self.buf.filled.store(to, Ordering::Release);
    }

    /// Bytes published so far.
    pub fn len(&self) -> usize {
        self.buf.filled.load(Ordering::Relaxed)
    }

    /// True when nothing is published yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_see_the_prefix_while_the_writer_fills() {
        let buf = FillBuf::new(1 << 16).unwrap();
        let total: usize = std::thread::scope(|s| {
            let reader = s.spawn(|| {
                let mut seen = 0;
                while seen < buf.capacity() {
                    let f = buf.filled();
                    for (i, &b) in f.iter().enumerate().skip(seen) {
                        assert_eq!(b, (i % 251) as u8);
                    }
                    seen = f.len();
                }
                seen
            });
            let mut w = buf.writer().unwrap();
            assert!(buf.writer().is_none(), "only one writer");
            let mut k = 0;
            while !w.spare().is_empty() {
                let spare = w.spare();
                let n = spare.len().min(1000);
                for (j, b) in spare[..n].iter_mut().enumerate() {
                    *b = ((k + j) % 251) as u8;
                }
                w.commit(n);
                k += n;
            }
            assert_eq!(w.len(), 1 << 16);
            reader.join().unwrap()
        });
        assert_eq!(total, 1 << 16);
        assert_eq!(buf.filled().len(), 1 << 16);
    }

    #[test]
    fn commit_is_clamped_and_empty_buffers_work() {
        let buf = FillBuf::new(10).unwrap();
        let mut w = buf.writer().unwrap();
        assert!(w.is_empty());
        w.spare()[..3].copy_from_slice(b"abc");
        w.commit(3);
        w.commit(100);
        assert_eq!(buf.filled().len(), 10);
        assert_eq!(&buf.filled()[..3], b"abc");
        let empty = FillBuf::new(0).unwrap();
        // Miri stops at an allocation it cannot make instead of failing it.
        #[cfg(not(miri))]
        {
            let huge = std::hint::black_box(FillBuf::new(std::hint::black_box(usize::MAX / 2)));
            assert!(huge.is_none(), "refused, not aborted");
        }
        assert!(empty.filled().is_empty());
        assert!(empty.writer().unwrap().spare().is_empty());
    }
}
