//! The allocator, the per-thread counter slots and snapshots.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering::Relaxed};

/// Largest request size, in bytes, counted in the small bucket
/// ([`Snapshot::allocs_le32`]): requests of `0..=32` bytes.
pub const SMALL_ALLOC_MAX: usize = 32;

/// Number of counter slots owned by a single thread each. Threads beyond this
/// many (over the life of the process; slots are never reclaimed) share one
/// overflow slot updated with atomic read-modify-writes.
pub const MAX_OWNED_SLOTS: usize = 256;

/// Global on/off switch; one `Relaxed` load per allocator call.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Next slot index to hand out.
static NEXT_SLOT: AtomicUsize = AtomicUsize::new(0);

/// Marker for "this thread has not claimed a slot yet".
const UNCLAIMED: usize = usize::MAX;

/// Any index `>= MAX_OWNED_SLOTS` means the shared overflow slot.
const OVERFLOW_INDEX: usize = MAX_OWNED_SLOTS;

/// One thread's counters, on its own pair of cache lines.
#[repr(align(128))]
struct Slot {
    allocs: AtomicU64,
    allocs_le32: AtomicU64,
    reallocs: AtomicU64,
    frees: AtomicU64,
    bytes_allocated: AtomicU64,
    /// Signed: a thread freeing memory another thread allocated drives its
    /// own slot negative; only the sum over all slots is meaningful.
    live_bytes: AtomicI64,
    /// Bytes this thread allocated since it last took a peak sample
    /// (see [`crate::peak`]).
    unsampled: AtomicU64,
}

impl Slot {
    const fn new() -> Self {
        Self {
            allocs: AtomicU64::new(0),
            allocs_le32: AtomicU64::new(0),
            reallocs: AtomicU64::new(0),
            frees: AtomicU64::new(0),
            bytes_allocated: AtomicU64::new(0),
            live_bytes: AtomicI64::new(0),
            unsampled: AtomicU64::new(0),
        }
    }
}

static SLOTS: [Slot; MAX_OWNED_SLOTS] = [const { Slot::new() }; MAX_OWNED_SLOTS];
static OVERFLOW: Slot = Slot::new();

thread_local! {
    // `const` initialiser + `Cell<usize>` (no `Drop`): no lazy registration,
    // no destructor, no allocation — safe to touch from inside the allocator.
    static SLOT_INDEX: Cell<usize> = const { Cell::new(UNCLAIMED) };
}

/// The calling thread's slot and whether it is shared (needs RMW updates).
#[inline]
fn current_slot() -> (&'static Slot, bool) {
    let idx = SLOT_INDEX
        .try_with(|c| {
            let i = c.get();
            if i != UNCLAIMED {
                return i;
            }
            let n = NEXT_SLOT.fetch_add(1, Relaxed);
            let n = if n < MAX_OWNED_SLOTS {
                n
            } else {
                // Keep NEXT_SLOT from creeping towards wrap-around.
                NEXT_SLOT.store(MAX_OWNED_SLOTS, Relaxed);
                OVERFLOW_INDEX
            };
            c.set(n);
            n
        })
        .unwrap_or(OVERFLOW_INDEX);
    match SLOTS.get(idx) {
        Some(slot) => (slot, false),
        None => (&OVERFLOW, true),
    }
}

#[inline]
fn add_u(c: &AtomicU64, v: u64, shared: bool) {
    if shared {
        c.fetch_add(v, Relaxed);
    } else {
        // Single writer: a plain load + store cannot lose updates.
        c.store(c.load(Relaxed).wrapping_add(v), Relaxed);
    }
}

#[inline]
fn add_i(c: &AtomicI64, v: i64, shared: bool) {
    if shared {
        c.fetch_add(v, Relaxed);
    } else {
        c.store(c.load(Relaxed).wrapping_add(v), Relaxed);
    }
}

#[inline]
fn as_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cold]
#[inline(never)]
fn record_alloc(size: usize) {
    let (s, shared) = current_slot();
    add_u(&s.allocs, 1, shared);
    if size <= SMALL_ALLOC_MAX {
        add_u(&s.allocs_le32, 1, shared);
    }
    add_u(&s.bytes_allocated, size as u64, shared);
    add_i(&s.live_bytes, as_i64(size), shared);
    note_growth(s, size as u64, shared);
}

#[cold]
#[inline(never)]
fn record_realloc(old_size: usize, new_size: usize) {
    let (s, shared) = current_slot();
    add_u(&s.allocs, 1, shared);
    add_u(&s.reallocs, 1, shared);
    if new_size <= SMALL_ALLOC_MAX {
        add_u(&s.allocs_le32, 1, shared);
    }
    add_u(&s.bytes_allocated, new_size as u64, shared);
    add_i(
        &s.live_bytes,
        as_i64(new_size).wrapping_sub(as_i64(old_size)),
        shared,
    );
    note_growth(s, new_size.saturating_sub(old_size) as u64, shared);
}

/// Counts `grown` bytes towards this thread's next peak sample and takes
/// one (a sum over the claimed slots, into every running [`PeakSampler`])
/// once [`crate::peak::SAMPLE_EVERY_BYTES`] have been allocated since the
/// last, so a large allocation is sampled at once. Only while a sampler
/// runs.
///
/// [`PeakSampler`]: crate::PeakSampler
#[inline]
fn note_growth(s: &Slot, grown: u64, shared: bool) {
    if grown == 0 || !crate::peak::sampling() {
        return;
    }
    add_u(&s.unsampled, grown, shared);
    if s.unsampled.load(Relaxed) >= crate::peak::SAMPLE_EVERY_BYTES {
        s.unsampled.store(0, Relaxed);
        crate::peak::record(live_bytes());
    }
}

#[cold]
#[inline(never)]
fn record_free(size: usize) {
    let (s, shared) = current_slot();
    add_u(&s.frees, 1, shared);
    add_i(&s.live_bytes, as_i64(size).wrapping_neg(), shared);
}

/// Switches counting on for all threads. Off by default. Cheap (one store);
/// may be called any number of times.
pub fn enable() {
    ENABLED.store(true, Relaxed);
}

/// Switches counting off for all threads. Counters keep their values (they
/// are never reset; use [`Snapshot::since`]). Allocations and frees in
/// flight on other threads may still be counted briefly after this returns.
pub fn disable() {
    ENABLED.store(false, Relaxed);
}

/// Whether counting is currently on (default: off).
pub fn is_enabled() -> bool {
    ENABLED.load(Relaxed)
}

/// The counting global allocator: forwards every call to
/// [`std::alloc::System`] and, only while [`enable`]d, counts it in the
/// calling thread's slot. Zero-sized; install it with `#[global_allocator]`.
/// Counting does nothing unless this type is the process's global allocator.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingAlloc;

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged and returns `System`'s result unchanged, so `System`'s guarantees
// carry over. The bookkeeping never allocates, never unwinds and touches only
// atomics and a `const`-initialised, destructor-free thread-local.
unsafe impl GlobalAlloc for CountingAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as our caller's (`layout` valid, non-zero size).
        let p = unsafe { System.alloc(layout) };
        if ENABLED.load(Relaxed) && !p.is_null() {
            record_alloc(layout.size());
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as our caller's.
        let p = unsafe { System.alloc_zeroed(layout) };
        if ENABLED.load(Relaxed) && !p.is_null() {
            record_alloc(layout.size());
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if ENABLED.load(Relaxed) {
            record_free(layout.size());
        }
        // SAFETY: `ptr` was allocated by `System` (through us) with `layout`,
        // as our caller guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr`/`layout` came from `System` through us and `new_size`
        // satisfies the `realloc` contract, as our caller guarantees.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if ENABLED.load(Relaxed) && !p.is_null() {
            record_realloc(layout.size(), new_size);
        }
        p
    }
}

/// Sum of all threads' counters at one moment (see [`snapshot`]). Counters
/// only move while counting is [`enable`]d and are never reset; measure a
/// region as `after.since(&before)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Allocations: `alloc` + `alloc_zeroed` + `realloc` calls that succeeded.
    pub allocs: u64,
    /// Of [`allocs`](Self::allocs), those whose (new) size was
    /// `<= SMALL_ALLOC_MAX` (32) bytes.
    pub allocs_le32: u64,
    /// Of [`allocs`](Self::allocs), those that were `realloc` calls.
    pub reallocs: u64,
    /// `dealloc` calls (a `realloc` is not a free).
    pub frees: u64,
    /// Bytes requested, summed over allocations (a `realloc` adds its full
    /// new size, not the growth).
    pub bytes_allocated: u64,
    /// Bytes allocated minus bytes freed while counting was on. Signed: it is
    /// negative if memory allocated while counting was off is freed while on.
    pub live_bytes: i64,
}

impl Snapshot {
    /// Counter deltas from `earlier` to `self` (wrapping arithmetic, so the
    /// result is exact even if a counter wrapped). `live_bytes` is the change
    /// in live heap bytes and may be negative.
    #[must_use]
    pub fn since(&self, earlier: &Snapshot) -> Snapshot {
        Snapshot {
            allocs: self.allocs.wrapping_sub(earlier.allocs),
            allocs_le32: self.allocs_le32.wrapping_sub(earlier.allocs_le32),
            reallocs: self.reallocs.wrapping_sub(earlier.reallocs),
            frees: self.frees.wrapping_sub(earlier.frees),
            bytes_allocated: self.bytes_allocated.wrapping_sub(earlier.bytes_allocated),
            live_bytes: self.live_bytes.wrapping_sub(earlier.live_bytes),
        }
    }

    /// Allocations larger than 32 bytes (`allocs - allocs_le32`).
    pub fn allocs_gt32(&self) -> u64 {
        self.allocs.saturating_sub(self.allocs_le32)
    }

    /// Allocations per unit of work (e.g. per cell); `None` when `units` is 0.
    pub fn allocs_per(&self, units: u64) -> Option<f64> {
        (units != 0).then(|| self.allocs as f64 / units as f64)
    }
}

/// Current totals summed over all slots. Reads every slot (about 32 KiB of
/// counters); does not allocate and may be called whether or not counting is
/// on. Not an atomic cut across threads that are allocating concurrently.
pub fn snapshot() -> Snapshot {
    let mut s = Snapshot::default();
    for slot in SLOTS.iter().chain(std::iter::once(&OVERFLOW)) {
        s.allocs = s.allocs.wrapping_add(slot.allocs.load(Relaxed));
        s.allocs_le32 = s.allocs_le32.wrapping_add(slot.allocs_le32.load(Relaxed));
        s.reallocs = s.reallocs.wrapping_add(slot.reallocs.load(Relaxed));
        s.frees = s.frees.wrapping_add(slot.frees.load(Relaxed));
        s.bytes_allocated = s
            .bytes_allocated
            .wrapping_add(slot.bytes_allocated.load(Relaxed));
        s.live_bytes = s.live_bytes.wrapping_add(slot.live_bytes.load(Relaxed));
    }
    s
}

/// Sum of live bytes over the slots claimed so far and the overflow slot
/// (cheaper than a full [`snapshot`]). Unclaimed slots are never written,
/// so skipping them changes nothing; the allocating threads call this
/// for their peak samples, so it reads a few cache lines, not 257.
pub(crate) fn live_bytes() -> i64 {
    let claimed = NEXT_SLOT.load(Relaxed).min(MAX_OWNED_SLOTS);
    SLOTS
        .get(..claimed)
        .unwrap_or_default()
        .iter()
        .chain(std::iter::once(&OVERFLOW))
        .fold(0i64, |acc, s| acc.wrapping_add(s.live_bytes.load(Relaxed)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_is_cache_line_aligned() {
        assert_eq!(std::mem::align_of::<Slot>(), 128);
        assert_eq!(std::mem::size_of::<Slot>(), 128);
    }

    #[test]
    fn since_is_a_delta() {
        let a = Snapshot {
            allocs: 10,
            allocs_le32: 4,
            reallocs: 1,
            frees: 3,
            bytes_allocated: 100,
            live_bytes: 50,
        };
        let b = Snapshot {
            allocs: 15,
            allocs_le32: 5,
            reallocs: 2,
            frees: 9,
            bytes_allocated: 130,
            live_bytes: 20,
        };
        let d = b.since(&a);
        assert_eq!(d.allocs, 5);
        assert_eq!(d.allocs_le32, 1);
        assert_eq!(d.allocs_gt32(), 4);
        assert_eq!(d.reallocs, 1);
        assert_eq!(d.frees, 6);
        assert_eq!(d.bytes_allocated, 30);
        assert_eq!(d.live_bytes, -30);
        assert_eq!(d.allocs_per(0), None);
        assert_eq!(d.allocs_per(2), Some(2.5));
    }
}
