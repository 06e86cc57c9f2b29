//! Integration tests: the counting allocator installed as this test binary's
//! global allocator.
//!
//! The counters are process-global and the harness runs tests on parallel
//! threads, so every test that enables counting holds `SERIAL`. Assertions
//! compare deltas with `>=` to tolerate the harness's own allocations.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::hint::black_box;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use ream_alloc::{CountingAlloc, PeakSampler, Snapshot};

#[global_allocator]
static A: CountingAlloc = CountingAlloc;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` with counting on and returns the counter delta.
fn counted<R>(f: impl FnOnce() -> R) -> (R, Snapshot) {
    let before = ream_alloc::snapshot();
    ream_alloc::enable();
    let r = f();
    ream_alloc::disable();
    (r, ream_alloc::snapshot().since(&before))
}

#[test]
fn disabled_counts_do_not_move() {
    let _g = serial();
    ream_alloc::disable();
    assert!(!ream_alloc::is_enabled());
    let before = ream_alloc::snapshot();
    let v: Vec<Box<u64>> = (0..1000).map(Box::new).collect();
    black_box(&v);
    drop(v);
    let big = vec![0u8; 1 << 20];
    black_box(&big);
    drop(big);
    assert_eq!(ream_alloc::snapshot(), before);
}

#[test]
fn small_boxes_land_in_le32_bucket() {
    let _g = serial();
    // Pre-size the holder so the loop itself only allocates boxes.
    let mut holder: Vec<Box<u64>> = Vec::with_capacity(1000);
    let ((), d) = counted(|| {
        for i in 0..1000u64 {
            holder.push(Box::new(black_box(i)));
        }
    });
    assert!(d.allocs >= 1000, "{d:?}");
    assert!(d.allocs_le32 >= 1000, "{d:?}");
    assert!(d.bytes_allocated >= 8000, "{d:?}");
    assert!(!ream_alloc::is_enabled());
    drop(holder);
}

#[test]
fn kib_vec_is_above_32() {
    let _g = serial();
    let (v, d) = counted(|| black_box(vec![1u8; 1024]));
    assert!(d.allocs >= 1, "{d:?}");
    assert!(d.allocs_gt32() >= 1, "{d:?}");
    assert!(d.bytes_allocated >= 1024, "{d:?}");
    drop(v);
}

#[test]
fn zeroed_and_realloc_are_counted() {
    let _g = serial();
    let (v, d) = counted(|| {
        let mut v: Vec<u8> = black_box(vec![0u8; 4096]); // alloc_zeroed
        v.reserve_exact(64 * 1024); // realloc
        black_box(v)
    });
    assert!(d.allocs >= 2, "{d:?}");
    assert!(d.reallocs >= 1, "{d:?}");
    assert!(d.live_bytes >= 64 * 1024, "{d:?}");
    drop(v);
}

#[test]
fn worker_thread_counts_are_included() {
    let _g = serial();
    const THREADS: u64 = 4;
    const PER_THREAD: u64 = 500;
    let ((), d) = counted(|| {
        std::thread::scope(|s| {
            for t in 0..THREADS {
                s.spawn(move || {
                    let v: Vec<Box<u64>> = (0..PER_THREAD).map(|i| Box::new(t * i)).collect();
                    black_box(&v);
                });
            }
        });
    });
    assert!(d.allocs >= THREADS * PER_THREAD, "{d:?}");
    assert!(d.allocs_le32 >= THREADS * PER_THREAD, "{d:?}");
    assert!(d.frees >= THREADS * PER_THREAD, "{d:?}");
}

#[test]
fn live_bytes_return_after_free() {
    let _g = serial();
    let ((), d) = counted(|| {
        let big = black_box(vec![7u8; 4 << 20]);
        let small: Vec<Box<[u8; 24]>> = (0..1000).map(|_| Box::new([0u8; 24])).collect();
        black_box(&small);
        drop(small);
        drop(big);
    });
    assert!(d.bytes_allocated >= (4 << 20) + 24 * 1000, "{d:?}");
    // Allow for unrelated allocations by the harness while counting was on.
    assert!(d.live_bytes.abs() < 256 * 1024, "{d:?}");
}

/// Slack for unrelated allocations by the harness while counting is on.
const SLACK: i64 = 256 * 1024;

#[test]
fn peak_sampler_sees_held_allocation() {
    let _g = serial();
    const BIG: usize = 64 << 20;
    ream_alloc::enable();
    let sampler = PeakSampler::start(Duration::from_millis(1));
    let v = black_box(vec![1u8; BIG]);
    std::thread::sleep(Duration::from_millis(20));
    drop(v);
    let report = sampler.stop_report();
    ream_alloc::disable();
    // The baseline may be negative (memory allocated while counting was off
    // and freed while on), so check the growth over it.
    let growth = report.peak_live_bytes as i64 - report.start_live_bytes;
    assert!(growth >= BIG as i64 - SLACK, "{report:?}");
    assert!(report.samples >= 2, "{report:?}");
    assert!(
        (report.end_live_bytes - report.start_live_bytes).abs() < SLACK,
        "{report:?}"
    );
}

#[test]
fn peak_sampler_takes_a_stop_sample() {
    let _g = serial();
    ream_alloc::enable();
    // An interval far longer than the test: only the start and stop samples
    // can see anything, and stop must not wait for the interval.
    let sampler = PeakSampler::start(Duration::from_secs(3600));
    let v = black_box(vec![1u8; 1 << 20]);
    let report = sampler.stop_report();
    drop(v);
    ream_alloc::disable();
    let growth = report.peak_live_bytes as i64 - report.start_live_bytes;
    assert!(growth >= (1 << 20) - SLACK, "{report:?}");
}

#[test]
fn peak_sampler_without_a_thread_sees_a_freed_spike() {
    let _g = serial();
    const BIG: usize = 64 << 20;
    ream_alloc::enable();
    let sampler = PeakSampler::start_default();
    // Allocated and freed between start and stop: only a sample taken by
    // the allocator itself can see it.
    drop(black_box(vec![1u8; BIG]));
    let report = sampler.stop_report();
    ream_alloc::disable();
    let growth = report.peak_live_bytes as i64 - report.start_live_bytes;
    assert!(growth >= BIG as i64 - SLACK, "{report:?}");
    assert!(report.samples >= 3, "{report:?}");
}

#[test]
fn peak_sampler_sees_many_small_allocations_within_the_sampling_step() {
    let _g = serial();
    ream_alloc::enable();
    let sampler = PeakSampler::start_default();
    // 8 MiB in 1 KiB pieces, then all freed: the peak is missed by less
    // than one sampling step (256 KiB) plus the harness's slack.
    let pieces: Vec<Box<[u8; 1024]>> = (0..8192).map(|_| Box::new([7u8; 1024])).collect();
    drop(black_box(pieces));
    let report = sampler.stop_report();
    ream_alloc::disable();
    let growth = report.peak_live_bytes as i64 - report.start_live_bytes;
    assert!(growth >= (8 << 20) - (256 << 10) - SLACK, "{report:?}");
}

#[test]
fn peak_samplers_beyond_eight_still_report_and_free_their_slots() {
    let _g = serial();
    ream_alloc::enable();
    let mut samplers: Vec<PeakSampler> = (0..10).map(|_| PeakSampler::start_default()).collect();
    drop(black_box(vec![1u8; 16 << 20]));
    let reports: Vec<_> = samplers.drain(..).map(PeakSampler::stop_report).collect();
    // The first eight had registry slots and saw the spike; the last two
    // see only their start and stop samples, which is a valid lower bound.
    for r in reports.iter().take(8) {
        assert!(
            r.peak_live_bytes as i64 - r.start_live_bytes >= (16 << 20) - SLACK,
            "{r:?}"
        );
    }
    for r in &reports {
        assert!(r.peak_live_bytes as i64 >= r.end_live_bytes, "{r:?}");
    }
    // Slots were given back: a new sampler sees a spike again.
    let s = PeakSampler::start_default();
    drop(black_box(vec![1u8; 16 << 20]));
    let r = s.stop_report();
    ream_alloc::disable();
    assert!(
        r.peak_live_bytes as i64 - r.start_live_bytes >= (16 << 20) - SLACK,
        "{r:?}"
    );
}
