//! A read-ahead buffer filled by one positioned read.

use super::counters::{Counters, add};
use super::sys::pread_full;
use super::{ByteSource, IoCounters, SourceKind, past_end, shrank};
use std::fs::File;
use std::path::Path;
use std::sync::Mutex;

/// Serves reads from one buffer (default 256 KiB) that is refilled with a
/// single `pread` starting at the requested offset whenever a request falls
/// outside it. Requests larger than the buffer are read on their own.
///
/// Never maps, so a file that shrinks gives an error, never a crash: the
/// source to use on network shares and for files that may change.
#[derive(Debug)]
pub struct BufferedSource {
    file: File,
    len: u64,
    capacity: usize,
    buf: Mutex<Buffer>,
    counters: Counters,
}

#[derive(Debug, Default)]
struct Buffer {
    start: u64,
    data: Vec<u8>,
}

impl BufferedSource {
    /// The default read-ahead size, 256 KiB.
    pub const DEFAULT_BUFFER: usize = 256 << 10;

    /// Opens `path` with a `capacity`-byte read-ahead buffer (at least 1).
    pub fn open(path: impl AsRef<Path>, capacity: usize) -> std::io::Result<BufferedSource> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(BufferedSource {
            file,
            len,
            capacity: capacity.max(1),
            buf: Mutex::new(Buffer::default()),
            counters: Counters::default(),
        })
    }

    /// Reads `want` bytes at `offset` into `into`; fewer is fine (the file
    /// shrank) as long as the `need` bytes asked for arrived.
    fn fill(
        &self,
        offset: u64,
        want: usize,
        need: usize,
        into: &mut Vec<u8>,
    ) -> std::io::Result<()> {
        into.clear();
        into.resize(want, 0);
        let got = pread_full(&self.file, offset, into, &self.counters)?;
        into.truncate(got);
        if got < need {
            into.clear();
            return Err(shrank(offset + need as u64, offset + got as u64));
        }
        Ok(())
    }
}

impl ByteSource for BufferedSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_with(&self, offset: u64, len: usize, f: &mut dyn FnMut(&[u8])) -> std::io::Result<()> {
        add(&self.counters.requests, 1);
        if offset > self.len {
            return Err(past_end(offset, self.len));
        }
        let n = (self.len - offset).min(len as u64) as usize;
        if n > self.capacity {
            let mut tmp = Vec::new();
            self.fill(offset, n, n, &mut tmp)?;
            f(&tmp);
            return Ok(());
        }
        let mut b = self.buf.lock().unwrap_or_else(|e| e.into_inner());
        let end = offset + n as u64;
        let inside = offset >= b.start && end <= b.start + b.data.len() as u64;
        if !inside {
            let want = (self.len - offset).min(self.capacity as u64) as usize;
            let mut data = std::mem::take(&mut b.data);
            let filled = self.fill(offset, want.max(n), n, &mut data);
            b.start = offset;
            b.data = data;
            filled?;
        }
        let from = (offset - b.start) as usize;
        f(b.data.get(from..from + n).unwrap_or_default());
        Ok(())
    }

    fn counters(&self) -> IoCounters {
        self.counters.snapshot()
    }

    fn kind(&self) -> SourceKind {
        SourceKind::Buffered
    }
}
