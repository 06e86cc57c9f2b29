//! What a batch returns: counts per format, the catalog of entries, the
//! dispatcher's measurements.

use crate::raw::{DocFormat, OutcomeKind};
use crate::record::Entry;
use crate::stats::DispatchStats;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

/// Counts for one format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FormatTally {
    /// Files recorded.
    pub files: u64,
    /// Outcome `ok`.
    pub ok: u64,
    /// Outcome error.
    pub errors: u64,
    /// Outcome `timeout`.
    pub timeouts: u64,
    /// Outcome crashed.
    pub crashed: u64,
    /// Bytes in all.
    pub bytes: u64,
    /// Slot time in all.
    pub busy: Duration,
}

impl FormatTally {
    /// Adds one entry.
    pub(crate) fn add(&mut self, e: &Entry) {
        self.files += 1;
        match e.outcome {
            OutcomeKind::Ok => self.ok += 1,
            OutcomeKind::Error => self.errors += 1,
            OutcomeKind::Timeout => self.timeouts += 1,
            OutcomeKind::Crashed => self.crashed += 1,
        }
        self.bytes += e.size;
        self.busy += e.elapsed;
    }
    /// Files whose outcome is not `ok`.
    pub fn failed(&self) -> u64 {
        self.files - self.ok
    }
}

/// The result of [`run_batch`](crate::run_batch).
#[derive(Debug, Clone, Default)]
pub struct BatchSummary {
    /// Files skipped because the report already held them (`resume`).
    pub resumed: u64,
    /// Files analysed again whose old record was removed from the report
    /// (`resume`: changed since, or failed with `retry_failed`). Each is
    /// counted once, by its new record.
    pub replaced: u64,
    /// Counts per sniffed format.
    pub per_format: BTreeMap<DocFormat, FormatTally>,
    /// One entry per file recorded in this run, in report order; repeated
    /// strings (directories, sheet names, messages) are shared.
    pub entries: Vec<Entry>,
    /// Slot utilisation, gaps, queue depth.
    pub stats: DispatchStats,
    /// Paths that could not be listed or read while collecting inputs, and
    /// "no files matched" when the inputs held no file to analyse.
    pub warnings: Vec<String>,
    /// Distinct strings interned.
    pub distinct_strings: usize,
}

impl BatchSummary {
    /// All formats together.
    pub fn total(&self) -> FormatTally {
        let mut t = FormatTally::default();
        for f in self.per_format.values() {
            t.files += f.files;
            t.ok += f.ok;
            t.errors += f.errors;
            t.timeouts += f.timeouts;
            t.crashed += f.crashed;
            t.bytes += f.bytes;
            t.busy += f.busy;
        }
        t
    }

    /// The `n` most frequent failure messages with their counts (the
    /// interned messages are counted by identity).
    pub fn top_failures(&self, n: usize) -> Vec<(Arc<str>, u64)> {
        let mut counts: HashMap<*const u8, (Arc<str>, u64)> = HashMap::new();
        for e in &self.entries {
            let msg = match (&e.message, e.outcome) {
                (Some(m), _) => Arc::clone(m),
                (None, OutcomeKind::Timeout) => Arc::from("timeout"),
                _ => continue,
            };
            counts
                .entry(msg.as_ptr())
                .or_insert_with(|| (Arc::clone(&msg), 0))
                .1 += 1;
        }
        let mut v: Vec<(Arc<str>, u64)> = counts.into_values().collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }

    /// The per-format table printed at the end of `ream batch`.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<16} {:>8} {:>8} {:>8} {:>8} {:>8} {:>12} {:>10}",
            "format", "files", "ok", "errors", "timeout", "crashed", "MiB", "slot s"
        );
        let mut row = |name: &str, t: &FormatTally| {
            let _ = writeln!(
                s,
                "{:<16} {:>8} {:>8} {:>8} {:>8} {:>8} {:>12.1} {:>10.3}",
                name,
                t.files,
                t.ok,
                t.errors,
                t.timeouts,
                t.crashed,
                t.bytes as f64 / 1048576.0,
                t.busy.as_secs_f64()
            );
        };
        for (f, t) in &self.per_format {
            row(f.as_str(), t);
        }
        row("total", &self.total());
        if self.resumed > 0 {
            let _ = writeln!(s, "{} files skipped: already in the report", self.resumed);
        }
        if self.replaced > 0 {
            let _ = writeln!(
                s,
                "{} records replaced: the file changed since, or failed before and was retried",
                self.replaced
            );
        }
        s
    }
}
