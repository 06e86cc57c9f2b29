//! Dispatcher measurements: slot utilisation, the gaps between a job's end
//! and its slot's next start, the collector's queue depth.

use std::time::{Duration, Instant};

/// Percentiles of the gaps between a job's end and the next start on the
/// same slot (the time a slot sat idle with work left).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Gaps {
    /// Gaps measured (jobs minus slots used).
    pub count: usize,
    /// Median.
    pub p50: Duration,
    /// 99th percentile.
    pub p99: Duration,
    /// Largest.
    pub max: Duration,
}

/// How well the slots were kept busy.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DispatchStats {
    /// Slots (worker threads).
    pub slots: usize,
    /// Jobs finished.
    pub jobs: u64,
    /// From the first slot starting to the collector's last record.
    pub wall: Duration,
    /// Time slots spent inside jobs, all slots together.
    pub busy: Duration,
    /// `busy / (slots x wall)`, 0 to 1.
    pub utilisation: f64,
    /// Idle time between jobs on one slot.
    pub gaps: Gaps,
    /// Most results waiting for the collector at once.
    pub queue_max: usize,
    /// Mean results waiting when the collector took one.
    pub queue_mean: f64,
}

impl std::fmt::Display for DispatchStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} jobs on {} slots in {:.3} s: utilisation {:.3} (busy {:.3} s); gaps between jobs p50 {:.1} us, p99 {:.1} us, max {:.1} us ({} gaps); collector queue max {}, mean {:.2}",
            self.jobs,
            self.slots,
            self.wall.as_secs_f64(),
            self.utilisation,
            self.busy.as_secs_f64(),
            micros(self.gaps.p50),
            micros(self.gaps.p99),
            micros(self.gaps.max),
            self.gaps.count,
            self.queue_max,
            self.queue_mean
        )
    }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// Collects the measurements on the collector thread.
#[derive(Debug)]
pub(crate) struct StatsBuilder {
    start: Instant,
    last_end: Vec<Option<Instant>>,
    gaps: Vec<Duration>,
    busy: Duration,
    jobs: u64,
    depth_sum: u64,
    depth_max: usize,
}

impl StatsBuilder {
    /// Starts measuring `slots` slots now.
    pub(crate) fn new(slots: usize, start: Instant) -> StatsBuilder {
        StatsBuilder {
            start,
            last_end: vec![None; slots],
            gaps: Vec::new(),
            busy: Duration::ZERO,
            jobs: 0,
            depth_sum: 0,
            depth_max: 0,
        }
    }

    /// One finished job of `slot`; `depth` results (this one included)
    /// were waiting when the collector took it.
    pub(crate) fn job(&mut self, slot: usize, started: Instant, ended: Instant, depth: usize) {
        self.jobs += 1;
        self.busy += ended.saturating_duration_since(started);
        if let Some(last) = self.last_end.get_mut(slot) {
            if let Some(prev) = *last {
                self.gaps.push(started.saturating_duration_since(prev));
            }
            *last = Some(ended);
        }
        self.depth_sum += depth as u64;
        self.depth_max = self.depth_max.max(depth);
    }

    /// The final figures, `end` being when the last record was written.
    pub(crate) fn finish(mut self, end: Instant) -> DispatchStats {
        let slots = self.last_end.len();
        let wall = end.saturating_duration_since(self.start);
        let cap = wall.as_secs_f64() * slots as f64;
        self.gaps.sort_unstable();
        let pick = |q: f64| -> Duration {
            if self.gaps.is_empty() {
                return Duration::ZERO;
            }
            let i = ((self.gaps.len() - 1) as f64 * q).round() as usize;
            self.gaps.get(i).copied().unwrap_or_default()
        };
        DispatchStats {
            slots,
            jobs: self.jobs,
            wall,
            busy: self.busy,
            utilisation: if cap > 0.0 {
                (self.busy.as_secs_f64() / cap).min(1.0)
            } else {
                0.0
            },
            gaps: Gaps {
                count: self.gaps.len(),
                p50: pick(0.50),
                p99: pick(0.99),
                max: self.gaps.last().copied().unwrap_or_default(),
            },
            queue_max: self.depth_max,
            queue_mean: if self.jobs > 0 {
                self.depth_sum as f64 / self.jobs as f64
            } else {
                0.0
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utilisation_and_gaps() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut b = StatsBuilder::new(2, t0);
        b.job(0, t0, t0 + ms(40), 1);
        b.job(0, t0 + ms(50), t0 + ms(100), 3);
        b.job(1, t0, t0 + ms(100), 2);
        let s = b.finish(t0 + ms(100));
        assert_eq!(s.jobs, 3);
        assert_eq!(s.busy, ms(190));
        assert!((s.utilisation - 0.95).abs() < 1e-9);
        assert_eq!(s.gaps.count, 1);
        assert_eq!(s.gaps.p50, ms(10));
        assert_eq!(s.gaps.max, ms(10));
        assert_eq!(s.queue_max, 3);
        assert!((s.queue_mean - 2.0).abs() < 1e-9);
        assert!(s.to_string().contains("utilisation 0.950"));
    }

    #[test]
    fn empty_run() {
        let t0 = Instant::now();
        let s = StatsBuilder::new(4, t0).finish(t0);
        assert_eq!(s.utilisation, 0.0);
        assert_eq!(s.gaps, Gaps::default());
    }
}
