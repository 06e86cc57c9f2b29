//! Sampled peak of live heap bytes.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::counting::live_bytes;

/// What a [`PeakSampler`] observed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PeakReport {
    /// Highest sum of live bytes seen (absolute, clamped at 0): the start and
    /// stop samples plus every periodic one.
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

/// Background thread that tracks the peak of live heap bytes by **sampling**.
///
/// An exact high-water mark would need a shared atomic updated on every
/// allocation; instead a thread sums every slot's live bytes each `interval`
/// (default [`PeakSampler::DEFAULT_INTERVAL`], 1 ms) and keeps the maximum.
/// Samples are also taken at start and at stop. Consequences:
///
/// * spikes shorter than the interval can be missed (the result is a lower
///   bound of the true peak);
/// * each sample reads ~32 KiB of counters, so very short intervals cost a
///   noticeable share of one core;
/// * the numbers only move while counting is [`enable`](crate::enable)d and
///   [`CountingAlloc`](crate::CountingAlloc) is the global allocator.
///
/// Dropping a sampler without calling [`stop`](Self::stop) stops and joins
/// its thread.
pub struct PeakSampler {
    shared: Arc<Shared>,
    start_live: i64,
    handle: Option<JoinHandle<()>>,
}

impl PeakSampler {
    /// Default sampling interval: 1 ms.
    pub const DEFAULT_INTERVAL: Duration = Duration::from_millis(1);

    /// Takes a first sample and starts sampling every `interval`
    /// (`Duration::ZERO` means [`DEFAULT_INTERVAL`](Self::DEFAULT_INTERVAL)).
    /// If the sampling thread cannot be spawned, the sampler still works but
    /// only the start and stop samples are taken.
    pub fn start(interval: Duration) -> Self {
        let interval = if interval.is_zero() {
            Self::DEFAULT_INTERVAL
        } else {
            interval
        };
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            peak: AtomicI64::new(i64::MIN),
            samples: AtomicU64::new(0),
        });
        let start_live = shared.sample();
        let worker = Arc::clone(&shared);
        let handle = std::thread::Builder::new()
            .name("ream-alloc-peak".into())
            .spawn(move || {
                while !worker.stop.load(Ordering::Acquire) {
                    std::thread::park_timeout(interval);
                    worker.sample();
                }
            })
            .ok();
        Self {
            shared,
            start_live,
            handle,
        }
    }

    /// [`start`](Self::start) with the default 1 ms interval.
    pub fn start_default() -> Self {
        Self::start(Self::DEFAULT_INTERVAL)
    }

    /// Peak observed so far (absolute live bytes, clamped at 0), without
    /// stopping; takes one extra sample.
    pub fn peak_so_far(&self) -> u64 {
        self.shared.sample();
        clamp(self.shared.peak.load(Ordering::Relaxed))
    }

    /// Stops the thread, takes a final sample and returns the peak live
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
        PeakReport {
            peak_live_bytes: clamp(self.shared.peak.load(Ordering::Relaxed)),
            start_live_bytes: self.start_live,
            end_live_bytes: end,
            samples: self.shared.samples.load(Ordering::Relaxed),
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
    }
}

impl std::fmt::Debug for PeakSampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PeakSampler")
            .field("start_live_bytes", &self.start_live)
            .field("peak_live_bytes", &self.shared.peak.load(Ordering::Relaxed))
            .field("running", &self.handle.is_some())
            .finish()
    }
}

fn clamp(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}
