//! I/O counters shared by the byte sources.

use std::sync::atomic::{AtomicU64, Ordering};

/// A snapshot of what a [`ByteSource`](super::ByteSource) has done.
///
/// `syscalls` counts every system call the source made for data or
/// mapping (reads, `fstat` re-checks, `mmap`, `munmap`), not the `open`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IoCounters {
    /// Requests served (`read_with` calls).
    pub requests: u64,
    /// System calls made.
    pub syscalls: u64,
    /// Positioned reads (`pread`) issued.
    pub reads: u64,
    /// Views mapped.
    pub maps: u64,
    /// Views unmapped.
    pub unmaps: u64,
    /// Mappings replaced by another (the sliding window moved or grew).
    pub remaps: u64,
    /// Bytes copied from the kernel into user buffers.
    pub bytes_copied: u64,
    /// Bytes covered by the views mapped, summed over all maps.
    pub bytes_mapped: u64,
}

impl IoCounters {
    /// Bytes brought in by any means (copied plus mapped).
    pub fn bytes_touched(&self) -> u64 {
        self.bytes_copied.saturating_add(self.bytes_mapped)
    }
}

/// The live counters behind [`IoCounters`].
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub requests: AtomicU64,
    pub syscalls: AtomicU64,
    pub reads: AtomicU64,
    pub maps: AtomicU64,
    pub unmaps: AtomicU64,
    pub remaps: AtomicU64,
    pub bytes_copied: AtomicU64,
    pub bytes_mapped: AtomicU64,
}

/// Adds `n` to a counter.
pub(crate) fn add(c: &AtomicU64, n: u64) {
    c.fetch_add(n, Ordering::Relaxed);
}

impl Counters {
    /// Takes a snapshot.
    pub fn snapshot(&self) -> IoCounters {
        let g = |c: &AtomicU64| c.load(Ordering::Relaxed);
        IoCounters {
            requests: g(&self.requests),
            syscalls: g(&self.syscalls),
            reads: g(&self.reads),
            maps: g(&self.maps),
            unmaps: g(&self.unmaps),
            remaps: g(&self.remaps),
            bytes_copied: g(&self.bytes_copied),
            bytes_mapped: g(&self.bytes_mapped),
        }
    }
}
