//! Progress reporting: a sink the collector thread calls once per record.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Receives progress from the collector thread (never from a worker).
pub trait Progress {
    /// The batch is about to start: `files` files of `bytes` bytes in all;
    /// `resumed` more were skipped as already in the report.
    fn start(&mut self, files: u64, bytes: u64, resumed: u64) {
        let _ = (files, bytes, resumed);
    }
    /// One file was recorded; `failed` unless its outcome is `ok`.
    fn record(&mut self, bytes: u64, failed: bool) {
        let _ = (bytes, failed);
    }
    /// The batch ended.
    fn finish(&mut self) {}
}

/// Reports nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// How often the bar's text is rebuilt.
const REDRAW: Duration = Duration::from_millis(100);

/// An indicatif bar on standard error: files done/total, bytes, rate, ETA,
/// failures.
#[derive(Debug)]
pub struct TerminalProgress {
    bar: ProgressBar,
    bytes: u64,
    total_bytes: u64,
    failed: u64,
    last: Instant,
}

impl TerminalProgress {
    /// A bar when standard error is a terminal, `None` otherwise (quiet).
    pub fn if_terminal() -> Option<TerminalProgress> {
        std::io::stderr()
            .is_terminal()
            .then(|| TerminalProgress::new(ProgressDrawTarget::stderr()))
    }

    fn new(target: ProgressDrawTarget) -> TerminalProgress {
        let bar = ProgressBar::with_draw_target(Some(0), target);
        let style =
            ProgressStyle::with_template("{bar:30} {pos}/{len} files {msg} {per_sec} ETA {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        TerminalProgress {
            bar,
            bytes: 0,
            total_bytes: 0,
            failed: 0,
            last: Instant::now(),
        }
    }

    fn message(&self) -> String {
        format!(
            "| {:.1}/{:.1} MiB | {} failed |",
            self.bytes as f64 / 1048576.0,
            self.total_bytes as f64 / 1048576.0,
            self.failed
        )
    }
}

impl Progress for TerminalProgress {
    fn start(&mut self, files: u64, bytes: u64, _resumed: u64) {
        self.total_bytes = bytes;
        self.bar.set_length(files);
        self.bar.set_message(self.message());
    }
    fn record(&mut self, bytes: u64, failed: bool) {
        self.bytes += bytes;
        self.failed += u64::from(failed);
        self.bar.inc(1);
        if self.last.elapsed() >= REDRAW {
            self.last = Instant::now();
            self.bar.set_message(self.message());
        }
    }
    fn finish(&mut self) {
        self.bar.set_message(self.message());
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_bar_counts() {
        let mut p = TerminalProgress::new(ProgressDrawTarget::hidden());
        p.start(3, 300, 0);
        p.record(100, false);
        p.record(100, true);
        assert_eq!(p.bar.position(), 2);
        assert!(p.message().contains("1 failed"), "{}", p.message());
        p.finish();
        NoProgress.record(1, true);
    }
}
