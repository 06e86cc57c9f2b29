//! Big heap buffers: fallible zeroed allocation and memory hints.

/// Buffers below this size are left alone: huge pages only pay off when a
/// buffer spans several 2 MiB pages.
const MIN_HUGE_BYTES: usize = 8 << 20;

/// Asks the kernel to back the reserved capacity of `v` with transparent
/// huge pages (`madvise(MADV_HUGEPAGE)`), so filling a big cell vector
/// faults 2 MiB at a time instead of 4 KiB (~40 k fewer page faults on the
/// 10 M-cell giant sheet), but only where such a fault never stalls: when
/// the kernel's THP `defrag` mode is `defer` or `never`. Under `always`,
/// `madvise` (the usual default) and `defer+madvise`, an advised fault
/// compacts memory on the spot when no huge page is free; after another
/// program had fragmented memory (a calamine run) that made a one-thread
/// open of giant.xlsx take 1.02 s against 0.72 s with plain pages (medians
/// of six, BENCHMARKS.md). A hint only: it changes no content, does
/// nothing for vectors under 8 MiB, off Linux, or where THP is disabled,
/// and ignores errors.
pub fn advise_huge_pages<T>(v: &Vec<T>) {
    let bytes = v.capacity().saturating_mul(size_of::<T>());
    if bytes < MIN_HUGE_BYTES || !huge_pages_never_stall() {
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
    use super::defrag_never_stalls;

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
