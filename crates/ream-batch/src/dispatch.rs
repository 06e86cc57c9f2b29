//! The dispatcher: N slots, one collector.
//!
//! Each slot is a thread that loops: take the next job index from one
//! atomic counter, run the job, send the raw, owned result over its own
//! channel, take the next job at once. The only state slots share is that
//! counter and the thread budget's counter (both lock-free); each result
//! channel is shared by one slot and the collector only, so no worker ever
//! waits on another on its way back. Normalising, interning and writing
//! happen on the collector (the calling thread), which polls all the
//! channels (see [`collect`] for why it does not block on them).

use crate::analyze::{Analyzer, guarded};
use crate::budget::ThreadBudget;
use crate::error::{BatchError, Result};
use crate::inputs::Job;
use crate::intern::Interner;
use crate::raw::Analysis;
use crate::record::{Done, Entry, normalise};
use crossbeam_channel::{Receiver, Select, Sender};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// First sleep of an idle collector.
const NAP_MIN: Duration = Duration::from_micros(50);
/// Longest sleep of an idle collector (bounds how late a record is
/// written and how long the batch's end goes unnoticed).
const NAP_MAX: Duration = Duration::from_millis(2);

/// Runs jobs for one slot (in-process, or in the slot's worker process).
pub(crate) trait Executor {
    /// Analyses `job` with up to `threads` engine threads.
    fn run(&mut self, job: &Job, threads: usize) -> Analysis;
    /// The slot has no more work.
    fn shutdown(&mut self) {}
}

/// Runs the analyzer on the slot's own thread.
pub(crate) struct InProcess<'a>(pub &'a dyn Analyzer);

impl Executor for InProcess<'_> {
    fn run(&mut self, job: &Job, threads: usize) -> Analysis {
        guarded(self.0, &job.path, threads)
    }
}

/// What a slot sends to the collector.
#[derive(Debug)]
pub(crate) enum Msg {
    /// The raw result (normal mode): the collector normalises it.
    Raw(Done),
    /// Already normalised on the worker under the global lock (the
    /// benchmark's `intern_on_worker` mode).
    Prepared {
        /// The slot.
        slot: usize,
        /// Job start.
        started: Instant,
        /// Job end (before the worker took the lock).
        ended: Instant,
        /// The report line.
        line: Vec<u8>,
        /// The catalog entry.
        entry: Entry,
    },
}

/// Receives results on the collector thread.
pub(crate) trait Sink {
    /// One result; `depth` results (this one included) were waiting.
    fn take(&mut self, msg: Msg, depth: usize) -> Result<()>;
    /// Nothing is waiting right now (a good moment to write).
    fn idle(&mut self) -> Result<()>;
}

/// Everything the slots share, read-only or atomic (plus, only in the
/// benchmark's mistake mode, the global interner lock).
pub(crate) struct Shared<'a> {
    pub jobs: &'a [Job],
    pub next: AtomicUsize,
    pub budget: ThreadBudget,
    pub global_interner: Option<Mutex<Interner>>,
}

/// Runs every job on `slots` threads, each with an executor from `make`,
/// feeding `sink` on the calling thread. Returns when all slots are done
/// (or the sink failed: slots then stop at their next result).
pub(crate) fn dispatch<'a>(
    shared: &Shared<'a>,
    slots: usize,
    make: &(dyn Fn(usize) -> Box<dyn Executor + 'a> + Sync),
    sink: &mut dyn Sink,
) -> Result<()> {
    std::thread::scope(|s| {
        let mut rxs: Vec<Receiver<Msg>> = Vec::with_capacity(slots);
        for slot in 0..slots {
            let (tx, rx) = crossbeam_channel::unbounded();
            rxs.push(rx);
            std::thread::Builder::new()
                .name(format!("ream-batch-slot-{slot}"))
                .spawn_scoped(s, move || slot_loop(slot, shared, make, &tx))
                .map_err(|source| BatchError::Thread { slot, source })?;
        }
        collect(&rxs, sink)
    })
}

fn slot_loop<'a>(
    slot: usize,
    shared: &Shared<'a>,
    make: &(dyn Fn(usize) -> Box<dyn Executor + 'a> + Sync),
    tx: &Sender<Msg>,
) {
    let mut exec = make(slot);
    loop {
        let i = shared.next.fetch_add(1, Ordering::Relaxed);
        let Some(job) = shared.jobs.get(i) else { break };
        let threads = shared.budget.acquire(job.size);
        let started = Instant::now();
        let analysis = exec.run(job, threads);
        let ended = Instant::now();
        shared.budget.release(threads);
        let done = Done {
            job: i,
            slot,
            analysis,
            started,
            ended,
            threads,
        };
        let msg = match &shared.global_interner {
            None => Msg::Raw(done),
            Some(lock) => prepare_under_lock(lock, job, done),
        };
        if tx.send(msg).is_err() {
            break; // the collector gave up
        }
    }
    shared.budget.retire_slot();
    exec.shutdown();
}

/// The design the dispatcher avoids, kept for the benchmark: intern and
/// normalise on the worker while holding one global lock, before the slot
/// is free again.
fn prepare_under_lock(lock: &Mutex<Interner>, job: &Job, done: Done) -> Msg {
    let mut interner = lock
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut line = Vec::new();
    let entry = normalise(job, &done, &mut interner, &mut line);
    drop(interner);
    Msg::Prepared {
        slot: done.slot,
        started: done.started,
        ended: done.ended,
        line,
        entry,
    }
}

/// Polls every slot's channel until all are closed.
///
/// The collector never blocks on the channels: when nothing is ready it
/// writes what it has, then sleeps (50 us, doubling up to 2 ms while
/// still idle). A blocked receiver would make every send that finds it
/// asleep a futex wake-up, and the woken collector often preempted the
/// very slot that woke it, between its job's end and its next start; with
/// polling a send is only an atomic push and a slot goes straight on.
fn collect(rxs: &[Receiver<Msg>], sink: &mut dyn Sink) -> Result<()> {
    let mut sel = Select::new();
    for rx in rxs {
        sel.recv(rx);
    }
    let mut open = rxs.len();
    let mut nap = NAP_MIN;
    while open > 0 {
        let oper = match sel.try_select() {
            Ok(op) => {
                nap = NAP_MIN;
                op
            }
            Err(_) => {
                sink.idle()?;
                std::thread::sleep(nap);
                nap = (nap * 2).min(NAP_MAX);
                continue;
            }
        };
        let idx = oper.index();
        let Some(rx) = rxs.get(idx) else {
            // Select only returns indices it was given.
            return Err(BatchError::Usage(format!("internal: no channel {idx}")));
        };
        match oper.recv(rx) {
            Ok(msg) => {
                let depth = 1 + rxs.iter().map(Receiver::len).sum::<usize>();
                sink.take(msg, depth)?;
            }
            Err(_) => {
                sel.remove(idx);
                open -= 1;
            }
        }
    }
    sink.idle()
}
