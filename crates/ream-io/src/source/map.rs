//! The whole input mapped (or held in memory) at once.

use super::counters::{Counters, add};
use super::{ByteSource, IoCounters, SourceKind, past_end};
use crate::{Bytes, MapMode};
use std::path::Path;

/// The whole file mapped once: every read is a slice of the map, no copy,
/// no syscall. Also wraps in-memory buffers ([`MapSource::from_bytes`]).
///
/// Cannot detect a file that shrinks while mapped (see the module's SIGBUS
/// policy); use [`BufferedSource`](super::BufferedSource) for such files.
#[derive(Debug)]
pub struct MapSource {
    bytes: Bytes,
    counters: Counters,
}

impl MapSource {
    /// Maps `path` read-only (an empty file becomes an empty buffer).
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<MapSource> {
        let bytes = Bytes::open(path, MapMode::Map)?;
        let counters = Counters::default();
        if bytes.is_mapped() {
            add(&counters.maps, 1);
            add(&counters.syscalls, 1);
            add(&counters.bytes_mapped, bytes.len() as u64);
        }
        Ok(MapSource { bytes, counters })
    }

    /// Serves reads from `bytes` (a map or a buffer) without copying.
    pub fn from_bytes(bytes: Bytes) -> MapSource {
        MapSource {
            bytes,
            counters: Counters::default(),
        }
    }

    /// The underlying bytes.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }
}

impl ByteSource for MapSource {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_with(&self, offset: u64, len: usize, f: &mut dyn FnMut(&[u8])) -> std::io::Result<()> {
        add(&self.counters.requests, 1);
        let total = self.bytes.len() as u64;
        if offset > total {
            return Err(past_end(offset, total));
        }
        let start = offset as usize;
        let end = start.saturating_add(len).min(self.bytes.len());
        f(self.bytes.get(start..end).unwrap_or_default());
        Ok(())
    }

    fn counters(&self) -> IoCounters {
        self.counters.snapshot()
    }

    fn kind(&self) -> SourceKind {
        SourceKind::Mmap
    }
}
