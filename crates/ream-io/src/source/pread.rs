//! One positioned read per request: the measured baseline.

use super::counters::{Counters, add};
use super::sys::pread_full;
use super::{ByteSource, IoCounters, SourceKind, past_end, shrank};
use std::fs::File;
use std::path::Path;

/// Reads every request with its own `pread` into a fresh buffer: no
/// mapping, no caching. Kept as the baseline the other sources are measured
/// against. A file that shrinks gives an error, never a crash.
#[derive(Debug)]
pub struct PreadSource {
    file: File,
    len: u64,
    counters: Counters,
}

impl PreadSource {
    /// Opens `path` for positioned reads.
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<PreadSource> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(PreadSource {
            file,
            len,
            counters: Counters::default(),
        })
    }
}

impl ByteSource for PreadSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_with(&self, offset: u64, len: usize, f: &mut dyn FnMut(&[u8])) -> std::io::Result<()> {
        add(&self.counters.requests, 1);
        if offset > self.len {
            return Err(past_end(offset, self.len));
        }
        let n = (self.len - offset).min(len as u64) as usize;
        let mut buf = vec![0u8; n];
        let got = pread_full(&self.file, offset, &mut buf, &self.counters)?;
        if got < n {
            return Err(shrank(offset + n as u64, offset + got as u64));
        }
        f(&buf);
        Ok(())
    }

    fn counters(&self) -> IoCounters {
        self.counters.snapshot()
    }

    fn kind(&self) -> SourceKind {
        SourceKind::Pread
    }
}
