//! Big heap buffers: fallible zeroed allocation and memory hints.

/// Buffers below this size are left alone: huge pages only pay off when a
/// buffer spans several 2 MiB pages.
const MIN_HUGE_BYTES: usize = 8 << 20;

/// Asks the kernel to back the reserved capacity of `v` with transparent
/// huge pages (`madvise(MADV_HUGEPAGE)`), so filling a big cell vector
/// faults 2 MiB at a time instead of 4 KiB (~40 k fewer page faults on the
/// 10 M-cell giant sheet), but only where such a fault does not stall:
/// when the kernel's THP `defrag` mode is `defer` or `never`, or when
/// `/proc/buddyinfo` shows free blocks of 2 MiB or more for at least
/// twice the vector's capacity. Under `always`, `madvise` (the usual
/// default) and `defer+madvise`, an advised fault compacts memory on the
/// spot when no huge page is free; after another program has fragmented
/// memory (a calamine run) that makes a one-thread open of giant.xlsx take
/// 1.02 s against 0.72 s with plain pages (medians of six,
/// BENCHMARKS.md). With huge pages free, the advice makes a two-thread
/// open of mixed.xlsx take 1.04 s instead of 1.19 s (medians of four, 50 k
/// faults against 88 k). A hint only: it changes no content, does nothing for
/// vectors under 8 MiB, off Linux, or where THP is disabled, and ignores
/// errors.
pub fn advise_huge_pages<T>(v: &Vec<T>) {
    let bytes = v.capacity().saturating_mul(size_of::<T>());
    if bytes < MIN_HUGE_BYTES
        || !(huge_pages_never_stall()
            || free_huge_bytes().is_some_and(|free| free / 2 >= bytes as u64))
    {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = v.as_ptr() as usize;
        let first = start.div_ceil(PAGE) * PAGE;
        let last = start.saturating_add(bytes) / PAGE * PAGE;
        if last <= first {
            return;
        }
        // SAFETY: the range lies inside the vector's own allocation
        // (page-aligned inward) and MADV_HUGEPAGE only changes how the
        // kernel backs those pages, never their contents, so no Rust
        // reference is invalidated. Errors (e.g. EINVAL without THP) are
        // ignored on purpose.
        #[allow(unsafe_code)]
        let _ = unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                last - first,
                libc::MADV_HUGEPAGE,
            )
        };
    }
}

/// Whether a huge-page fault in an advised region takes a free huge page
/// or falls back to small pages without compacting memory first: the
/// selected THP `defrag` mode is `defer` or `never` (read once).
fn huge_pages_never_stall() -> bool {
    static NEVER_STALL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *NEVER_STALL.get_or_init(|| {
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/defrag")
            .is_ok_and(|modes| defrag_never_stalls(&modes))
    })
}

/// Free memory in blocks of 2 MiB or more (all zones), from
/// `/proc/buddyinfo`; `None` where it cannot be read. A huge-page fault
/// takes such a block without compacting memory.
fn free_huge_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/buddyinfo").ok()?;
    #[cfg(target_os = "linux")]
    // SAFETY: `sysconf` only reads a configuration value.
    #[allow(unsafe_code)]
    let page = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
    #[cfg(not(target_os = "linux"))]
    let page = 4096u64;
    let page = page.clamp(1 << 12, 2 << 20).next_power_of_two();
    Some(buddy_free_bytes(
        &info,
        (2u64 << 20).trailing_zeros() - page.trailing_zeros(),
        page,
    ))
}

/// Bytes in free blocks of `min_order` or larger in a `/proc/buddyinfo`
/// text (per line: node, zone, then free block counts for order 0, 1, ..).
fn buddy_free_bytes(info: &str, min_order: u32, page: u64) -> u64 {
    info.lines()
        .filter_map(|line| line.split_once("zone"))
        .flat_map(|(_, rest)| {
            rest.split_whitespace()
                .skip(1)
                .enumerate()
                .filter_map(|(order, n)| Some((u32::try_from(order).ok()?, n.parse::<u64>().ok()?)))
        })
        .filter(|&(order, _)| order >= min_order && order < 40)
        .fold(0u64, |sum, (order, n)| {
            sum.saturating_add(n.saturating_mul(page << order))
        })
}

/// Reads the selected mode (the one in brackets) of a THP `defrag` file.
fn defrag_never_stalls(modes: &str) -> bool {
    modes
        .split_whitespace()
        .find_map(|m| m.strip_prefix('[')?.strip_suffix(']'))
        .is_some_and(|m| m == "defer" || m == "never")
}

/// Faults in the pages of `buf` for writing in one `madvise` call
/// (`MADV_POPULATE_WRITE`): cheaper than taking one page fault per 4 KiB
/// while filling a fresh buffer. A hint only: contents are unchanged, and
/// errors (old kernels, non-Linux) are ignored.
pub fn populate_write(buf: &mut [u8]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = buf.as_ptr() as usize;
        let first = start / PAGE * PAGE;
        let end = start.saturating_add(buf.len());
        if end <= first || buf.is_empty() {
            return;
        }
        // SAFETY: the pages touched are those overlapping `buf`, which we
        // borrow mutably; MADV_POPULATE_WRITE only faults them in (as a
        // write to each would, without changing any byte), so no Rust
        // reference is invalidated. Errors are ignored on purpose.
        #[allow(unsafe_code)]
        let _ = unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                end - first,
                libc::MADV_POPULATE_WRITE,
            )
        };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}

/// A zeroed `Vec<u8>` of length `n`, or `None` when the allocator refuses
/// (where `vec![0; n]` would abort the process: a hostile archive may
/// declare gigabytes). Large buffers come from `alloc_zeroed`, i.e. fresh
/// zero pages that cost nothing until written.
pub fn try_zeroed_vec(n: usize) -> Option<Vec<u8>> {
    if n == 0 {
        return Some(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u8>(n).ok()?;
    // SAFETY: `layout` has a non-zero size (n > 0).
    #[allow(unsafe_code)]
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout
    // of `[u8; n]`, which is what `Vec<u8>` with capacity `n` uses; all `n`
    // bytes are initialised (zeroed), so length `n` is valid.
    #[allow(unsafe_code)]
    Some(unsafe { Vec::from_raw_parts(ptr, n, n) })
}

#[cfg(test)]
mod tests {
    use super::{buddy_free_bytes, defrag_never_stalls};

    #[test]
    fn free_huge_blocks_are_summed_over_zones_from_order_nine() {
        let info = "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 \n\
                    Node 0, zone   Normal  26716   7509   2042   1850   1726   4368   2560   1286    600    291   3375 \n";
        let mib = |n: u64| n << 20;
        // DMA: one 2 MiB and three 4 MiB blocks; Normal: 291 x 2 MiB and
        // 3375 x 4 MiB. Order 8 (1 MiB) does not count.
        assert_eq!(buddy_free_bytes(info, 9, 4096), mib(2 + 12 + 582 + 13_500));
        assert_eq!(buddy_free_bytes("", 9, 4096), 0);
        assert_eq!(buddy_free_bytes("Node 0, zone Normal x y\n", 9, 4096), 0);
    }

    #[test]
    fn only_non_stalling_defrag_modes_allow_the_advice() {
        let file = |sel: &str| {
            ["always", "defer", "defer+madvise", "madvise", "never"]
                .map(|m| {
                    if m == sel {
                        format!("[{m}]")
                    } else {
                        m.to_string()
                    }
                })
                .join(" ")
        };
        assert!(!defrag_never_stalls(&file("always")));
        assert!(defrag_never_stalls(&file("defer")));
        assert!(!defrag_never_stalls(&file("defer+madvise")));
        assert!(!defrag_never_stalls(&file("madvise")));
        assert!(defrag_never_stalls(&file("never")));
        assert!(!defrag_never_stalls(""));
        assert!(!defrag_never_stalls("garbage\n"));
    }
}
