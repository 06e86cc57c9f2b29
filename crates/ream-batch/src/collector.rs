//! The collector: the one thread that normalises results, interns their
//! repeated strings, tallies them and writes the report.

use crate::dispatch::{Msg, Sink};
use crate::error::Result;
use crate::inputs::Job;
use crate::intern::Interner;
use crate::progress::Progress;
use crate::raw::OutcomeKind;
use crate::record::{Entry, normalise};
use crate::report::Report;
use crate::stats::StatsBuilder;
use crate::summary::BatchSummary;

/// Pending report bytes written at once even while results keep coming.
const WRITE_AT: usize = 64 << 10;

/// State of the collector thread.
pub(crate) struct Collector<'a> {
    jobs: &'a [Job],
    report: Report,
    pending: Vec<u8>,
    interner: Interner,
    stats: StatsBuilder,
    summary: BatchSummary,
    progress: &'a mut dyn Progress,
}

impl<'a> Collector<'a> {
    /// A collector writing to `report`.
    pub(crate) fn new(
        jobs: &'a [Job],
        report: Report,
        stats: StatsBuilder,
        summary: BatchSummary,
        progress: &'a mut dyn Progress,
    ) -> Collector<'a> {
        Collector {
            jobs,
            report,
            pending: Vec::with_capacity(WRITE_AT),
            interner: Interner::new(),
            stats,
            summary,
            progress,
        }
    }

    fn record(&mut self, entry: Entry) {
        self.summary
            .per_format
            .entry(entry.format)
            .or_default()
            .add(&entry);
        self.progress
            .record(entry.size, entry.outcome != OutcomeKind::Ok);
        self.summary.entries.push(entry);
    }

    /// Ends the batch: tells the progress sink and returns the stats
    /// builder, the summary and the number of strings interned here.
    pub(crate) fn finish(self) -> (StatsBuilder, BatchSummary, usize) {
        self.progress.finish();
        (self.stats, self.summary, self.interner.len())
    }
}

impl Sink for Collector<'_> {
    fn take(&mut self, msg: Msg, depth: usize) -> Result<()> {
        match msg {
            Msg::Raw(done) => {
                self.stats.job(done.slot, done.started, done.ended, depth);
                if let Some(job) = self.jobs.get(done.job) {
                    let entry = normalise(job, &done, &mut self.interner, &mut self.pending);
                    self.record(entry);
                }
            }
            Msg::Prepared {
                slot,
                started,
                ended,
                line,
                entry,
            } => {
                self.stats.job(slot, started, ended, depth);
                self.pending.extend_from_slice(&line);
                self.record(entry);
            }
        }
        if self.pending.len() >= WRITE_AT {
            self.idle()?;
        }
        Ok(())
    }

    fn idle(&mut self) -> Result<()> {
        self.report.write(&self.pending)?;
        self.pending.clear();
        Ok(())
    }
}
