//! One helper thread parsing row chunks for the windowed read on two
//! threads (`windowed.rs`): the calling thread inflates, walks the
//! outline and cuts a big table's rows into owned chunks; the helper
//! parses them (`table::parse_chunk`, rows relative to the chunk) and the
//! caller stitches the results in order (`chunks::Stitcher`).
//!
//! Back-pressure: at most [`MAX_QUEUED`] chunks wait; when one more would,
//! the caller parses the oldest itself, so memory stays at a few chunks
//! and neither core idles while the other has work. Chunk buffers come
//! back with their results and are reused.

use super::table::{Partial, TableCfg, parse_chunk};
use crate::error::Result;
use crate::options::Limits;
use std::collections::VecDeque;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Chunks waiting for a parser before the caller parses one itself.
const MAX_QUEUED: usize = 2;

/// One chunk of a table's rows, or a whole table.
pub(super) struct Job {
    /// The table's position among the tables read.
    pub table: usize,
    /// Position of the chunk in its table.
    pub seq: usize,
    /// The chunk's bytes: from the table's start tag (`first`) or a row
    /// start, to the next chunk's row start.
    pub bytes: Vec<u8>,
    pub first: bool,
    /// Table elements counted so far (the repeat budget; see `windowed.rs`).
    pub tables: u64,
    /// Nesting allowed below the table element.
    pub depth_left: u32,
    /// The cell budget shared by the chunks of one table.
    pub budget: Arc<AtomicU64>,
}

/// A parsed chunk: its table and position, result and buffer (for reuse).
pub(super) type Done = (usize, usize, Result<Partial>, Vec<u8>);

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    done: Vec<Done>,
    /// Jobs handed out and not yet done.
    running: usize,
    closed: bool,
}

/// The queue between the caller and the helper.
pub(super) struct Pool<'l> {
    state: Mutex<State>,
    /// Signals a new job or the end, to the helper.
    work: Condvar,
    /// Signals a finished chunk, to the caller.
    finished: Condvar,
    limits: &'l Limits,
    spare: Mutex<Vec<Vec<u8>>>,
}

impl<'l> Pool<'l> {
    /// A pool for chunks parsed with `limits`.
    pub fn new(limits: &'l Limits) -> Pool<'l> {
        Pool {
            state: Mutex::new(State::default()),
            work: Condvar::new(),
            finished: Condvar::new(),
            limits,
            spare: Mutex::new(Vec::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A buffer for the next chunk (a spent one when there is one).
    pub fn buffer(&self) -> Vec<u8> {
        let mut b = self
            .spare
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop()
            .unwrap_or_default();
        b.clear();
        b
    }

    /// Keeps a chunk's buffer for reuse (a few at most).
    pub fn recycle(&self, b: Vec<u8>) {
        let mut spare = self.spare.lock().unwrap_or_else(|p| p.into_inner());
        if spare.len() < MAX_QUEUED + 2 {
            spare.push(b);
        }
    }

    fn parse(&self, job: Job) -> Done {
        let cfg = TableCfg {
            limits: self.limits,
            depth_left: job.depth_left,
            tables: job.tables.max(1),
        };
        let res = parse_chunk(&job.bytes, 0, cfg, job.first, &job.budget);
        (job.table, job.seq, res, job.bytes)
    }

    /// Parses the oldest queued job on this thread; false when none waits.
    fn run_queued(&self) -> bool {
        let job = {
            let mut st = self.lock();
            let j = st.queue.pop_front();
            st.running += usize::from(j.is_some());
            j
        };
        let Some(job) = job else {
            return false;
        };
        let done = self.parse(job);
        let mut st = self.lock();
        st.running -= 1;
        st.done.push(done);
        drop(st);
        self.finished.notify_all();
        true
    }

    /// Queues a chunk; when [`MAX_QUEUED`] already wait, parses the oldest
    /// on this thread first.
    pub fn submit(&self, job: Job) {
        let full = {
            let mut st = self.lock();
            st.queue.push_back(job);
            st.queue.len() > MAX_QUEUED
        };
        self.work.notify_one();
        if full {
            self.run_queued();
        }
    }

    /// Jobs waiting for a parser.
    pub fn queued(&self) -> usize {
        self.lock().queue.len()
    }

    /// The chunks finished so far.
    pub fn take_done(&self) -> Vec<Done> {
        std::mem::take(&mut self.lock().done)
    }

    /// Waits until a job of table `table` has finished, or none is left
    /// (parsing queued jobs here rather than waiting for them), then
    /// returns everything finished so far.
    pub fn wait_for(&self, table: usize) -> Vec<Done> {
        self.wait_until(|st| st.done.iter().any(|d| d.0 == table))
    }

    /// Waits until every job submitted has finished (parsing queued ones
    /// here), then returns those not taken yet.
    pub fn finish(&self) -> Vec<Done> {
        self.wait_until(|_| false)
    }

    /// Runs queued jobs here and waits for running ones until `enough`
    /// holds or nothing is left; returns the finished jobs.
    fn wait_until(&self, enough: impl Fn(&State) -> bool) -> Vec<Done> {
        loop {
            if self.run_queued() {
                continue;
            }
            let mut st = self.lock();
            while !enough(&st) && st.queue.is_empty() && st.running > 0 {
                st = self.finished.wait(st).unwrap_or_else(|p| p.into_inner());
            }
            if enough(&st) || st.queue.is_empty() {
                return std::mem::take(&mut st.done);
            }
        }
    }

    /// The helper's loop: parses queued chunks until [`close`](Self::close).
    pub fn serve(&self) {
        loop {
            if self.run_queued() {
                continue;
            }
            let st = self.lock();
            if !st.queue.is_empty() {
                continue;
            }
            if st.closed {
                return;
            }
            drop(self.work.wait(st).unwrap_or_else(|p| p.into_inner()));
        }
    }

    /// Ends the helper's loop once the queue is empty.
    pub fn close(&self) {
        self.lock().closed = true;
        self.work.notify_all();
    }
}
