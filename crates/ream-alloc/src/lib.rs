//! Opt-in counting global allocator for allocation diagnostics.
//!
//! Install [`CountingAlloc`] once in a binary:
//!
//! ```
//! #[global_allocator]
//! static A: ream_alloc::CountingAlloc = ream_alloc::CountingAlloc;
//!
//! fn main() {
//!     ream_alloc::enable();
//!     let before = ream_alloc::snapshot();
//!     let cells: Vec<Box<u64>> = (0..100).map(Box::new).collect();
//!     let d = ream_alloc::snapshot().since(&before);
//!     ream_alloc::disable();
//!     assert!(d.allocs >= 100 && d.allocs_le32 >= 100);
//!     println!("{:.1} allocs/cell", d.allocs_per(cells.len() as u64).unwrap_or(0.0));
//! }
//! ```
//!
//! Counting is **off** at start-up; [`enable`] switches it on at run time and
//! [`disable`] switches it off again.
//!
//! # Design and cost
//!
//! * **Off:** every allocator call forwards to [`std::alloc::System`] and then
//!   does exactly one `Relaxed` load of a global `AtomicBool` and one
//!   well-predicted branch. Nothing else.
//! * **On:** each thread owns one of [`MAX_OWNED_SLOTS`] (256) cache-line
//!   aligned (128-byte) counter slots, claimed with a single `fetch_add` on a
//!   global counter the first time the thread allocates while counting is on.
//!   The slot index lives in a `const`-initialised `thread_local!` `Cell`, which
//!   has no destructor and never allocates. Because a slot has exactly one
//!   writer, updates are a `Relaxed` load plus a `Relaxed` store — no shared
//!   read-modify-write and no cache line shared between threads on the hot path.
//!   Slots are never released: once 256 threads have claimed one, later threads
//!   share one overflow slot that is updated with `fetch_add` (correct but
//!   slower and contended).
//! * [`snapshot`] sums all slots; subtract two snapshots with
//!   [`Snapshot::since`] to measure a region. The sum is not an atomic
//!   cross-thread cut: counts from threads still running are read as they are
//!   at that instant.
//! * Peak heap bytes are **sampled** by [`PeakSampler`] (while one runs, a
//!   thread that has allocated 256 KiB since its last sample sums the
//!   claimed slots' live bytes) rather than tracked exactly, because an
//!   exact high-water mark needs a shared atomic on every allocation. The
//!   peak can be missed by up to 256 KiB per allocating thread; use
//!   [`peak_rss_bytes`] for an exact (but page-granular, process-wide) bound.
//!
//! What is counted: `alloc`, `alloc_zeroed` and `realloc` each count as one
//! allocation, bucketed by the (new) requested size: `<= 32` bytes
//! ([`SMALL_ALLOC_MAX`]) or larger. `dealloc` counts as one free. Failed
//! allocations (null returns) are not counted. Frees of memory allocated while
//! counting was off are still subtracted from live bytes while counting is on,
//! so [`Snapshot::live_bytes`] is only meaningful as a difference over a window
//! in which counting stays on.
//!
//! Process-level helpers — [`peak_rss_bytes`], [`current_rss_bytes`],
//! [`reset_peak_rss`], [`cpu_time`] and [`steal_time`] — complement the counters for `--stats`.

// This crate has to implement `GlobalAlloc` (an `unsafe` trait whose methods
// are `unsafe fn`) and call `libc::getrusage`; both need `unsafe`. Every unsafe
// block and impl carries a `// SAFETY:` comment.
#![allow(unsafe_code)]

mod counting;
mod peak;
mod process;

pub use counting::{
    CountingAlloc, MAX_OWNED_SLOTS, SMALL_ALLOC_MAX, Snapshot, disable, enable, is_enabled,
    snapshot,
};
pub use peak::{PeakReport, PeakSampler};
pub use process::{cpu_time, current_rss_bytes, peak_rss_bytes, reset_peak_rss, steal_time};
