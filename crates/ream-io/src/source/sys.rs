//! Small OS helpers: positioned reads and the page size.

use super::counters::{Counters, add};
use std::fs::File;

/// Reads up to `buf.len()` bytes at `offset`, retrying short reads until
/// the buffer is full or the file ends; returns the bytes read. Counts one
/// syscall and one read per underlying call.
pub(crate) fn pread_full(
    file: &File,
    mut offset: u64,
    buf: &mut [u8],
    c: &Counters,
) -> std::io::Result<usize> {
    let mut done = 0;
    while let Some(rest) = buf.get_mut(done..) {
        if rest.is_empty() {
            break;
        }
        add(&c.syscalls, 1);
        add(&c.reads, 1);
        let n = match read_at(file, rest, offset) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            break;
        }
        done += n;
        offset += n as u64;
    }
    add(&c.bytes_copied, done as u64);
    Ok(done)
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// The granularity a view offset must be aligned to: the page size on
/// Unix (4 KiB on most machines), 64 KiB elsewhere (Windows' allocation
/// granularity).
pub(crate) fn map_granularity() -> u64 {
    #[cfg(unix)]
    {
        // SAFETY: sysconf has no preconditions and only reads a constant.
        #[allow(unsafe_code)]
        let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if p > 0 { p as u64 } else { 4096 }
    }
    #[cfg(not(unix))]
    {
        65536
    }
}
