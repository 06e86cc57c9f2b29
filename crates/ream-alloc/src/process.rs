//! Process-level memory and CPU figures (Linux `/proc`, `getrusage`).

use std::time::Duration;

/// Reads a `kB` field such as `VmHWM:` from `/proc/self/status`, in bytes.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn proc_status_kb(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    text.lines().find_map(|line| {
        let rest = line.strip_prefix(field)?;
        let kb: u64 = rest.trim().strip_suffix("kB")?.trim().parse().ok()?;
        kb.checked_mul(1024)
    })
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn proc_status_kb(_field: &str) -> Option<u64> {
    None
}

/// Peak resident set size of the process in bytes (`VmHWM` from
/// `/proc/self/status`, kB granularity). Exact high-water mark of physical
/// memory, including non-heap memory such as mapped files that were touched.
/// `None` on non-Linux systems or if `/proc` is unavailable. Reset with
/// [`reset_peak_rss`].
pub fn peak_rss_bytes() -> Option<u64> {
    proc_status_kb("VmHWM:")
}

/// Current resident set size of the process in bytes (`VmRSS` from
/// `/proc/self/status`). `None` on non-Linux systems or without `/proc`.
pub fn current_rss_bytes() -> Option<u64> {
    proc_status_kb("VmRSS:")
}

/// Resets the peak RSS ([`peak_rss_bytes`]) to the current RSS by writing
/// `5` to `/proc/self/clear_refs` (Linux 4.0+). Returns whether the write
/// succeeded; always `false` on other systems.
pub fn reset_peak_rss() -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        std::fs::write("/proc/self/clear_refs", b"5").is_ok()
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        false
    }
}

/// User + system CPU time consumed by the whole process (all threads, live
/// and exited) so far, via `getrusage(RUSAGE_SELF)` with microsecond
/// resolution. Divide by wall time for the effective parallelism. `None` on
/// non-Unix systems or if the call fails.
pub fn cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: `ru` points to writable memory of the right size and type;
        // `getrusage` only writes to it and reports failure via its result.
        let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, ru.as_mut_ptr()) };
        if rc != 0 {
            return None;
        }
        // SAFETY: `getrusage` returned 0, so it filled in the struct (which
        // was zero-initialised anyway, a valid bit pattern for `rusage`).
        let ru = unsafe { ru.assume_init() };
        Some(timeval(ru.ru_utime)? + timeval(ru.ru_stime)?)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// CPU time the hypervisor ran other guests on this machine's virtual CPUs
/// ("steal"), summed over all CPUs since boot: the eighth number of the
/// `cpu` line of `/proc/stat`, in clock ticks (usually 10 ms). System-wide,
/// not this process's; take two readings around a region. `None` off Linux
/// or when `/proc/stat` cannot be read.
pub fn steal_time() -> Option<Duration> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let ticks = parse_steal_ticks(&stat)?;
        // SAFETY: `sysconf` only reads a configuration value.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        let hz = u64::try_from(hz).ok().filter(|&h| h > 0)?;
        Some(
            Duration::from_secs(ticks / hz) + Duration::from_nanos(ticks % hz * 1_000_000_000 / hz),
        )
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        None
    }
}

/// The steal ticks of `/proc/stat`'s aggregate `cpu` line (0 on kernels
/// that print fewer than eight numbers).
#[cfg_attr(not(any(target_os = "linux", target_os = "android")), allow(dead_code))]
fn parse_steal_ticks(stat: &str) -> Option<u64> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let mut fields = line.split_ascii_whitespace().skip(1);
    match fields.nth(7) {
        Some(v) => v.parse().ok(),
        None => Some(0),
    }
}

#[cfg(unix)]
fn timeval(tv: libc::timeval) -> Option<Duration> {
    let secs = u64::try_from(tv.tv_sec).ok()?;
    let micros = u64::try_from(tv.tv_usec).ok()?;
    Some(Duration::from_secs(secs) + Duration::from_micros(micros))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_moves() {
        let Some(a) = cpu_time() else { return };
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        std::hint::black_box(x);
        let b = cpu_time();
        assert!(b.is_some_and(|b| b >= a));
    }

    #[test]
    fn steal_ticks_come_from_the_aggregate_cpu_line() {
        let stat = "cpu  10 0 5 900 3 0 1 42 0 0\ncpu0 5 0 2 450 1 0 0 21 0 0\n";
        assert_eq!(parse_steal_ticks(stat), Some(42));
        assert_eq!(parse_steal_ticks("cpu  1 2 3 4\n"), Some(0));
        assert_eq!(parse_steal_ticks("intr 5\n"), None);
        assert_eq!(parse_steal_ticks("cpu  1 2 3 4 5 6 7 x\n"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn steal_time_is_readable_on_linux() {
        let a = steal_time();
        assert!(a.is_some());
        assert!(steal_time() >= a);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn rss_is_readable_on_linux() {
        let cur = current_rss_bytes();
        let peak = peak_rss_bytes();
        assert!(cur.is_some_and(|c| c > 0));
        assert!(peak.is_some_and(|p| p > 0));
        // clear_refs may be unavailable in some sandboxes; just exercise it.
        let _ = reset_peak_rss();
        assert!(peak_rss_bytes().is_some());
    }
}
