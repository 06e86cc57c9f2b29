//! Sequential output through one large aligned buffer, optionally
//! unbuffered (`O_DIRECT`), for the full rewrite.

use ream_io::fs::{self as rfs, AlignedBuf};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes a file front to back in blocks of the buffer's size.
///
/// With `O_DIRECT` every write is a whole aligned block; the final partial
/// block is zero-padded and the file truncated to its real length after.
/// A filesystem that refuses `O_DIRECT` (at open or at the first write)
/// gets a buffered file instead, with a warning.
pub(crate) struct SeqWriter {
    file: File,
    path: PathBuf,
    buf: AlignedBuf,
    /// Bytes accepted so far (the logical position).
    pos: u64,
    /// Bytes on disk (always a multiple of the buffer size until `finish`).
    flushed: u64,
    direct: bool,
    pub warnings: Vec<String>,
    pub writes: u64,
}

impl SeqWriter {
    /// Creates `path` with a buffer of `buffer` bytes (rounded up to 4 KiB).
    pub fn create(path: &Path, buffer: usize, direct: bool) -> std::io::Result<SeqWriter> {
        let (file, got_direct) = rfs::create_for_write(path, direct)?;
        let mut warnings = Vec::new();
        if direct && !got_direct {
            warnings.push(
                "unbuffered I/O (O_DIRECT) refused by the filesystem; wrote through the page cache"
                    .to_string(),
            );
        }
        Ok(SeqWriter {
            file,
            path: path.to_path_buf(),
            buf: AlignedBuf::new(buffer),
            pos: 0,
            flushed: 0,
            direct: got_direct,
            warnings,
            writes: 0,
        })
    }

    /// Bytes written so far (the offset of the next byte).
    pub fn pos(&self) -> u64 {
        self.pos
    }

    /// Appends `b`.
    pub fn put(&mut self, mut b: &[u8]) -> std::io::Result<()> {
        while !b.is_empty() {
            let n = self.buf.push(b);
            self.pos += n as u64;
            b = b.get(n..).unwrap_or_default();
            if self.buf.room() == 0 {
                self.flush_block(false)?;
            }
        }
        Ok(())
    }

    fn flush_block(&mut self, last: bool) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let len = self.buf.len() as u64;
        let r = if self.direct && last {
            self.file.write_all(self.buf.padded())
        } else {
            self.file.write_all(self.buf.as_slice())
        };
        self.writes += 1;
        match r {
            Ok(()) => {}
            Err(e) if self.direct && e.raw_os_error() == Some(22) => {
                // EINVAL: the filesystem accepted O_DIRECT at open but not
                // the write. Continue buffered from what is on disk.
                self.file = rfs::reopen_buffered(&self.path, self.flushed)?;
                self.direct = false;
                self.warnings.push(
                    "unbuffered writes (O_DIRECT) refused by the filesystem; continued through the page cache"
                        .to_string(),
                );
                self.file.write_all(self.buf.as_slice())?;
            }
            Err(e) => return Err(e),
        }
        self.flushed += len;
        self.buf.clear();
        Ok(())
    }

    /// Writes what is left, cuts the padding, fsyncs when `sync`; returns
    /// the length, warnings, write calls and whether O_DIRECT held.
    pub fn finish(mut self, sync: bool) -> std::io::Result<(u64, Vec<String>, u64, bool)> {
        self.flush_block(true)?;
        if self.direct {
            self.file.set_len(self.pos)?;
        }
        if sync {
            self.file.sync_all()?;
        }
        Ok((self.pos, self.warnings, self.writes, self.direct))
    }
}
