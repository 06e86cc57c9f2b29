//! File helpers for writers: exclusive locks, kernel-side copies, unbuffered
//! (`O_DIRECT`) output with aligned buffers, directory fsync.
//!
//! Thin safe wrappers over the few OS calls the PDF writers need. Every
//! `unsafe` block is a single libc call on a descriptor the caller owns.
//! On systems without these calls the wrappers fall back: no lock (an
//! `Unsupported` error), `std::io::copy`, buffered output.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

/// How [`copy_prefix`] copied the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyMethod {
    /// `copy_file_range(2)`: the kernel copied (or reflinked) the range.
    CopyFileRange,
    /// A user-space copy through `std::io::copy`.
    UserSpace,
}

impl CopyMethod {
    /// `copy_file_range` or `copy`.
    pub fn as_str(self) -> &'static str {
        match self {
            CopyMethod::CopyFileRange => "copy_file_range",
            CopyMethod::UserSpace => "copy",
        }
    }
}

/// Takes an exclusive advisory lock (`flock(LOCK_EX | LOCK_NB)`) on `file`
/// without waiting: a file locked by another process gives
/// [`std::io::ErrorKind::WouldBlock`]. The lock is released by [`unlock`] or
/// when the file is closed.
pub fn lock_exclusive(file: &File) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        loop {
            // SAFETY: flock on a descriptor owned by `file`, which outlives
            // the call; no memory is passed.
            #[allow(unsafe_code)]
            let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if r == 0 {
                return Ok(());
            }
            let e = std::io::Error::last_os_error();
            match e.kind() {
                std::io::ErrorKind::Interrupted => continue,
                std::io::ErrorKind::WouldBlock => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::WouldBlock,
                        "the file is locked by another process",
                    ));
                }
                _ => return Err(e),
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "file locking is not implemented on this platform",
        ))
    }
}

/// Releases a lock taken by [`lock_exclusive`].
pub fn unlock(file: &File) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor owned by `file`; no memory passed.
        #[allow(unsafe_code)]
        let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_UN) };
        if r == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        Ok(())
    }
}

/// Copies the first `len` bytes of `src` to the start of `dst` (which
/// should be empty), leaving `dst`'s file position at `len`. Tries
/// `copy_file_range(2)` on Linux (a reflink on filesystems that share
/// extents) and falls back to a user-space copy when the kernel or the
/// filesystem refuses. A `src` shorter than `len` is an `UnexpectedEof`
/// error.
pub fn copy_prefix(src: &File, dst: &mut File, len: u64) -> std::io::Result<CopyMethod> {
    use std::io::{Seek, SeekFrom};
    #[cfg(target_os = "linux")]
    {
        match copy_file_range_all(src, dst, len) {
            Ok(()) => {
                dst.seek(SeekFrom::Start(len))?;
                return Ok(CopyMethod::CopyFileRange);
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Err(e),
            Err(_) => {
                // Unsupported here (old kernel, cross-device, special
                // file): start over in user space.
                dst.set_len(0)?;
            }
        }
    }
    dst.seek(SeekFrom::Start(0))?;
    // `&File` reads from the shared file position: start at 0.
    let mut s = src;
    s.seek(SeekFrom::Start(0))?;
    let n = std::io::copy(&mut Read::take(s, len), dst)?;
    if n < len {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!("source has {n} bytes, {len} expected"),
        ));
    }
    Ok(CopyMethod::UserSpace)
}

#[cfg(target_os = "linux")]
fn copy_file_range_all(src: &File, dst: &File, len: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let mut off_in: libc::loff_t = 0;
    let mut off_out: libc::loff_t = 0;
    let mut left = len;
    while left > 0 {
        let chunk = usize::try_from(left.min(1 << 30)).unwrap_or(1 << 30);
        // SAFETY: both descriptors are owned by live `File`s; the offset
        // pointers point at locals that outlive the call; the kernel
        // writes only through them.
        #[allow(unsafe_code)]
        let n = unsafe {
            libc::copy_file_range(
                src.as_raw_fd(),
                &mut off_in,
                dst.as_raw_fd(),
                &mut off_out,
                chunk,
                0,
            )
        };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("source ended after {} of {len} bytes", len - left),
            ));
        }
        left = left.saturating_sub(n as u64);
    }
    Ok(())
}

/// Fsyncs the directory holding `path` so that a rename into it is durable.
/// A no-op where directories cannot be opened (non-Unix).
pub fn sync_parent_dir(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}

/// The alignment unbuffered (`O_DIRECT`) I/O needs for offsets, lengths and
/// buffer addresses on common filesystems and devices.
pub const DIRECT_ALIGN: usize = 4096;

/// Creates (truncating) `path` for writing, asking for unbuffered I/O
/// (`O_DIRECT`) when `direct` is true. Returns the file and whether the
/// flag was accepted: a filesystem that refuses it at open (tmpfs gives
/// `EINVAL`) gets a buffered file instead.
pub fn create_for_write(path: &Path, direct: bool) -> std::io::Result<(File, bool)> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create(true).truncate(true);
    #[cfg(target_os = "linux")]
    if direct {
        use std::os::unix::fs::OpenOptionsExt;
        let mut od = o.clone();
        od.custom_flags(libc::O_DIRECT);
        match od.open(path) {
            Ok(f) => return Ok((f, true)),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {}
            Err(e) => return Err(e),
        }
    }
    let _ = direct;
    Ok((o.open(path)?, false))
}

/// Reopens `path` for writing without `O_DIRECT`, keeping its contents,
/// positioned at `pos` (the fallback when unbuffered writes are refused
/// after the open succeeded).
pub fn reopen_buffered(path: &Path, pos: u64) -> std::io::Result<File> {
    use std::io::{Seek, SeekFrom};
    let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
    f.set_len(pos)?;
    f.seek(SeekFrom::Start(pos))?;
    Ok(f)
}

/// A byte buffer whose start is aligned to [`DIRECT_ALIGN`] and whose
/// capacity is a multiple of it, built without `unsafe` (an over-allocated
/// vector and an offset).
#[derive(Debug)]
pub struct AlignedBuf {
    raw: Vec<u8>,
    start: usize,
    cap: usize,
    len: usize,
}

impl AlignedBuf {
    /// A buffer of `capacity` bytes rounded up to a multiple of the
    /// alignment (at least one block).
    pub fn new(capacity: usize) -> AlignedBuf {
        let cap = capacity.max(1).div_ceil(DIRECT_ALIGN) * DIRECT_ALIGN;
        let raw = vec![0u8; cap + DIRECT_ALIGN];
        let start = raw.as_ptr().align_offset(DIRECT_ALIGN).min(DIRECT_ALIGN);
        AlignedBuf {
            raw,
            start,
            cap,
            len: 0,
        }
    }

    /// Capacity in bytes.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// Bytes held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Free room.
    pub fn room(&self) -> usize {
        self.cap - self.len
    }

    /// Appends as much of `b` as fits; returns the count taken.
    pub fn push(&mut self, b: &[u8]) -> usize {
        let n = b.len().min(self.room());
        let at = self.start + self.len;
        if let (Some(dst), Some(src)) = (self.raw.get_mut(at..at + n), b.get(..n)) {
            dst.copy_from_slice(src);
            self.len += n;
            n
        } else {
            0
        }
    }

    /// The bytes held, from the aligned start.
    pub fn as_slice(&self) -> &[u8] {
        self.raw
            .get(self.start..self.start + self.len)
            .unwrap_or_default()
    }

    /// The bytes held zero-padded up to the next multiple of the alignment
    /// (what an unbuffered write of a final partial block needs). Returns
    /// the padded slice.
    pub fn padded(&mut self) -> &[u8] {
        let padded = self.len.div_ceil(DIRECT_ALIGN) * DIRECT_ALIGN;
        if let Some(tail) = self.raw.get_mut(self.start + self.len..self.start + padded) {
            tail.fill(0);
        }
        self.raw
            .get(self.start..self.start + padded)
            .unwrap_or_default()
    }

    /// Empties the buffer.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Writes the held bytes to `w` (all of them) and empties the buffer.
    pub fn flush_to(&mut self, w: &mut dyn Write) -> std::io::Result<()> {
        w.write_all(self.as_slice())?;
        self.len = 0;
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use std::io::{Read, Seek};

    fn dir() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("ream-io-fs-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn aligned_buffer() {
        let mut b = AlignedBuf::new(5000);
        assert_eq!(b.capacity(), 8192);
        assert_eq!(b.as_slice().as_ptr() as usize % DIRECT_ALIGN, 0);
        assert_eq!(b.push(&[1; 3]), 3);
        assert_eq!(b.padded().len(), 4096);
        assert_eq!(b.as_slice(), &[1, 1, 1]);
        assert_eq!(b.push(&[2; 9000]), 8189);
        assert_eq!(b.room(), 0);
        let mut v = Vec::new();
        b.flush_to(&mut v).unwrap();
        assert_eq!(v.len(), 8192);
        assert!(b.is_empty());
    }

    #[test]
    fn copy_lock_and_direct() {
        let d = dir();
        let src = d.join("src.bin");
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&src, &data).unwrap();
        let s = File::open(&src).unwrap();
        let dst = d.join("dst.bin");
        let mut o = File::create(&dst).unwrap();
        copy_prefix(&s, &mut o, 60_000).unwrap();
        o.write_all(b"tail").unwrap();
        drop(o);
        let got = std::fs::read(&dst).unwrap();
        assert_eq!(&got[..60_000], &data[..60_000]);
        assert_eq!(&got[60_000..], b"tail");
        let mut o = File::create(&dst).unwrap();
        assert!(copy_prefix(&s, &mut o, 200_000).is_err());

        let f = std::fs::OpenOptions::new().write(true).open(&src).unwrap();
        lock_exclusive(&f).unwrap();
        let g = File::open(&src).unwrap();
        assert_eq!(
            lock_exclusive(&g).unwrap_err().kind(),
            std::io::ErrorKind::WouldBlock
        );
        unlock(&f).unwrap();
        lock_exclusive(&g).unwrap();

        let p = d.join("direct.bin");
        let (mut f, _direct) = create_for_write(&p, true).unwrap();
        let mut b = AlignedBuf::new(4096);
        b.push(b"hello");
        let w = f.write_all(b.padded());
        if w.is_err() {
            f = reopen_buffered(&p, 0).unwrap();
            f.write_all(b.padded()).unwrap();
        }
        f.set_len(5).unwrap();
        drop(f);
        let mut s = String::new();
        let mut f = File::open(&p).unwrap();
        f.rewind().unwrap();
        f.read_to_string(&mut s).unwrap();
        assert_eq!(s, "hello");
        sync_parent_dir(&p).unwrap();
    }
}
