//! Peak of live heap bytes, sampled by the allocator as memory grows.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::counting::live_bytes;

/// A thread that has allocated this many bytes since its last sample takes
/// the next one (256 KiB): the peak a [`PeakSampler`] reports is at most
/// this much per allocating thread below the true one.
pub(crate) const SAMPLE_EVERY_BYTES: u64 = 256 << 10;

/// Samplers that can run at once with allocation-triggered samples; more
/// get only their start, stop and (if asked) periodic samples.
const MAX_SAMPLERS: usize = 8;

/// Running samplers (a fast "anyone listening?" check for the allocator).
static RUNNING: AtomicUsize = AtomicUsize::new(0);
static IN_USE: [AtomicBool; MAX_SAMPLERS] = [const { AtomicBool::new(false) }; MAX_SAMPLERS];
static PEAKS: [AtomicI64; MAX_SAMPLERS] = [const { AtomicI64::new(i64::MIN) }; MAX_SAMPLERS];
static SAMPLES: [AtomicU64; MAX_SAMPLERS] = [const { AtomicU64::new(0) }; MAX_SAMPLERS];

/// Whether any sampler wants allocation-triggered samples.
#[inline]
pub(crate) fn sampling() -> bool {
    RUNNING.load(Ordering::Relaxed) > 0
}

/// Files one sample of the live bytes with every running sampler. Called
/// from inside the allocator: touches atomics only.
pub(crate) fn record(now: i64) {
    for ((used, peak), samples) in IN_USE.iter().zip(&PEAKS).zip(&SAMPLES) {
        if used.load(Ordering::Acquire) {
            peak.fetch_max(now, Ordering::Relaxed);
            samples.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Claims a registry slot for a new sampler, if one is free.
fn claim() -> Option<usize> {
    let i = IN_USE.iter().position(|u| {
        u.compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    })?;
    if let (Some(p), Some(s)) = (PEAKS.get(i), SAMPLES.get(i)) {
        p.store(i64::MIN, Ordering::Relaxed);
        s.store(0, Ordering::Relaxed);
    }
    RUNNING.fetch_add(1, Ordering::AcqRel);
    Some(i)
}

/// The peak the allocator has filed in slot `i` so far.
fn slot_peak(i: usize) -> i64 {
    PEAKS.get(i).map_or(i64::MIN, |p| p.load(Ordering::Relaxed))
}

/// Releases slot `i`; returns its (peak, samples).
fn release(i: usize) -> (i64, u64) {
    RUNNING.fetch_sub(1, Ordering::AcqRel);
    let peak = slot_peak(i);
    let samples = SAMPLES.get(i).map_or(0, |s| s.load(Ordering::Relaxed));
    if let Some(u) = IN_USE.get(i) {
        u.store(false, Ordering::Release);
    }
    (peak, samples)
}

/// What a [`PeakSampler`] observed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PeakReport {
    /// Highest sum of live bytes seen (absolute, clamped at 0): the start and
    /// stop samples plus every one taken in between.
    pub peak_live_bytes: u64,
    /// Live bytes at [`PeakSampler::start`]; `peak_live_bytes - start_live_bytes`
    /// is the growth over the baseline.
    pub start_live_bytes: i64,
    /// Live bytes at stop.
    pub end_live_bytes: i64,
    /// Number of samples taken, including the start and stop samples.
    pub samples: u64,
}

struct Shared {
    stop: AtomicBool,
    peak: AtomicI64,
    samples: AtomicU64,
}

impl Shared {
    fn sample(&self) -> i64 {
        let now = live_bytes();
        self.peak.fetch_max(now, Ordering::Relaxed);
        self.samples.fetch_add(1, Ordering::Relaxed);
        now
    }
}

/// Tracks the peak of live heap bytes by **sampling** as memory grows.
///
/// An exact high-water mark would need a shared atomic updated on every
/// allocation; instead each thread, while a sampler runs, sums every
/// claimed slot's live bytes once it has allocated 256 KiB since its last
/// sum (so a large allocation is sampled at once), and the sampler keeps
/// the maximum. Samples are also taken at start and at stop. Consequences:
///
/// * the result is a lower bound of the true peak, by at most 256 KiB per
///   allocating thread (plus whatever a non-atomic cut across threads
///   misses);
/// * nothing runs between allocations: a background thread waking every
///   millisecond (the previous design) took ~6 % of a two-core machine
///   from the threads being measured;
/// * up to 8 samplers can run at once; a ninth sees only its start, stop
///   and periodic samples;
/// * the numbers only move while counting is [`enable`](crate::enable)d and
///   [`CountingAlloc`](crate::CountingAlloc) is the global allocator.
///
/// [`start`](Self::start) with a non-zero interval also samples from a
/// background thread at that interval (catches growth from allocations
/// made while counting was off elsewhere, at the cost above). Dropping a
/// sampler without calling [`stop`](Self::stop) stops it.
pub struct PeakSampler {
    shared: Arc<Shared>,
    start_live: i64,
    slot: Option<usize>,
    handle: Option<JoinHandle<()>>,
}

impl PeakSampler {
    /// Takes a first sample and samples as memory grows; with a non-zero
    /// `interval`, also from a background thread every `interval`
    /// (`Duration::ZERO`: no thread). If the thread cannot be spawned, the
    /// sampler still works without it.
    pub fn start(interval: Duration) -> Self {
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            peak: AtomicI64::new(i64::MIN),
            samples: AtomicU64::new(0),
        });
        let slot = claim();
        let start_live = shared.sample();
        let handle = if interval.is_zero() {
            None
        } else {
            let worker = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("ream-alloc-peak".into())
                .spawn(move || {
                    while !worker.stop.load(Ordering::Acquire) {
                        std::thread::park_timeout(interval);
                        worker.sample();
                    }
                })
                .ok()
        };
        Self {
            shared,
            start_live,
            slot,
            handle,
        }
    }

    /// Samples as memory grows, no background thread (`start(Duration::ZERO)`).
    pub fn start_default() -> Self {
        Self::start(Duration::ZERO)
    }

    /// Peak observed so far (absolute live bytes, clamped at 0), without
    /// stopping; takes one extra sample.
    pub fn peak_so_far(&self) -> u64 {
        self.shared.sample();
        let own = self.shared.peak.load(Ordering::Relaxed);
        let triggered = self.slot.map_or(i64::MIN, slot_peak);
        clamp(own.max(triggered))
    }

    /// Stops sampling, takes a final sample and returns the peak live
    /// heap bytes observed since [`start`](Self::start) (absolute, not
    /// relative to the start; clamped at 0).
    pub fn stop(self) -> u64 {
        self.stop_report().peak_live_bytes
    }

    /// Like [`stop`](Self::stop) but also returns the baseline, the final
    /// value and the sample count.
    pub fn stop_report(mut self) -> PeakReport {
        self.halt();
        let end = self.shared.sample();
        let (triggered, more) = self.slot.take().map_or((i64::MIN, 0), release);
        PeakReport {
            peak_live_bytes: clamp(self.shared.peak.load(Ordering::Relaxed).max(triggered)),
            start_live_bytes: self.start_live,
            end_live_bytes: end,
            samples: self.shared.samples.load(Ordering::Relaxed) + more,
        }
    }

    fn halt(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(h) = self.handle.take() {
            h.thread().unpark();
            // The sampler thread cannot panic in practice; ignore if it did.
            let _ = h.join();
        }
    }
}

impl Drop for PeakSampler {
    fn drop(&mut self) {
        self.halt();
        if let Some(i) = self.slot.take() {
            release(i);
        }
    }
}

impl std::fmt::Debug for PeakSampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PeakSampler")
            .field("start_live_bytes", &self.start_live)
            .field("peak_live_bytes", &self.shared.peak.load(Ordering::Relaxed))
            .field("slot", &self.slot)
            .field("thread", &self.handle.is_some())
            .finish()
    }
}

fn clamp(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}
