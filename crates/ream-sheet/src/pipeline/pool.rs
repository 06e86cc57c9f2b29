//! The parsers of the pipeline: a bounded queue of units between the
//! reading thread and up to `workers` scoped worker threads.
//!
//! A worker starts when a unit is handed over and no started worker is
//! idle, so a part that never hands anything over runs on one thread.
//! Back-pressure: when more than `workers + 1` units wait, the reading
//! thread parses the oldest itself, so memory stays at a few units per
//! parser and no core idles while another has work. Units that hold no
//! bytes (a whole part that its parser reads, [`Pool::submit_light`]) wait
//! in a second queue, outside the back-pressure, taken when no other unit
//! waits: they fill the gaps while the reading thread inflates. Results
//! are collected in any order; the caller joins them (`join.rs`).

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::Scope;

struct State<J, D> {
    queue: VecDeque<J>,
    /// Units without bytes, taken after `queue`'s.
    light: VecDeque<J>,
    done: Vec<D>,
    /// Units being parsed (by a worker or the reading thread).
    running: usize,
    /// Workers started, and those waiting for a unit.
    workers: usize,
    idle: usize,
    closed: bool,
}

/// What the reading thread and the workers share.
pub(crate) struct Shared<J, D> {
    state: Mutex<State<J, D>>,
    /// Signals a new unit or the end, to the workers.
    work: Condvar,
    /// Signals a finished unit, to the reading thread.
    finished: Condvar,
    parse: fn(J) -> D,
    max_workers: usize,
    /// The reading thread parses too (back-pressure, waits); see [`run`].
    caller_parses: bool,
}

/// A handle on the pool inside its scope (cheap to copy).
pub(crate) struct Pool<'s, 'e, J, D> {
    shared: &'e Shared<J, D>,
    scope: &'s Scope<'s, 'e>,
}

impl<J, D> Clone for Pool<'_, '_, J, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<J, D> Copy for Pool<'_, '_, J, D> {}

/// Runs `body` with a pool of at most `workers` threads parsing units with
/// `parse`; waits for the workers when `body` returns. Returns `body`'s
/// result and the threads that parsed (the reading thread included).
pub(crate) fn run<J: Send, D: Send, R>(
    workers: usize,
    parse: fn(J) -> D,
    body: impl FnOnce(Pool<'_, '_, J, D>) -> R,
) -> (R, usize) {
    run_with(workers, true, parse, body)
}

/// [`run`], or with `caller_parses` false one where the reading thread
/// only hands units over and waits: for units that hold no bytes (whole
/// parts read by the parser), which need no back-pressure. The blocked
/// reading thread leaves its core to the workers: a worker started beside
/// a busy reading thread shared its core with it for milliseconds while
/// the other core idled (`perf sched timehist`, 2 cores).
pub(crate) fn run_with<J: Send, D: Send, R>(
    workers: usize,
    caller_parses: bool,
    parse: fn(J) -> D,
    body: impl FnOnce(Pool<'_, '_, J, D>) -> R,
) -> (R, usize) {
    let shared = Shared {
        state: Mutex::new(State {
            queue: VecDeque::new(),
            light: VecDeque::new(),
            done: Vec::new(),
            running: 0,
            workers: 0,
            idle: 0,
            closed: false,
        }),
        work: Condvar::new(),
        finished: Condvar::new(),
        parse,
        max_workers: workers,
        caller_parses,
    };
    let r = std::thread::scope(|scope| {
        let r = body(Pool {
            shared: &shared,
            scope,
        });
        shared.lock().closed = true;
        shared.work.notify_all();
        r
    });
    let started = shared.lock().workers;
    (r, started + usize::from(caller_parses))
}

impl<J, D> State<J, D> {
    /// Units queued, light ones included.
    fn waiting(&self) -> usize {
        self.queue.len() + self.light.len()
    }
}

impl<J, D> Shared<J, D> {
    fn lock(&self) -> MutexGuard<'_, State<J, D>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Parses the oldest queued unit on this thread (a light one when no
    /// other waits); false when none waits.
    fn run_queued(&self) -> bool {
        let job = {
            let mut st = self.lock();
            let j = st.queue.pop_front().or_else(|| st.light.pop_front());
            st.running += usize::from(j.is_some());
            j
        };
        let Some(job) = job else {
            return false;
        };
        let done = (self.parse)(job);
        let mut st = self.lock();
        st.running -= 1;
        st.done.push(done);
        drop(st);
        self.finished.notify_all();
        true
    }

    /// A worker's loop: parses queued units until the pool closes.
    fn serve(&self) {
        loop {
            if self.run_queued() {
                continue;
            }
            let mut st = self.lock();
            if st.waiting() > 0 {
                continue;
            }
            if st.closed {
                return;
            }
            st.idle += 1;
            st = self.work.wait(st).unwrap_or_else(|p| p.into_inner());
            st.idle -= 1;
        }
    }
}

impl<'s, 'e, J: Send + 'e, D: Send + 'e> Pool<'s, 'e, J, D> {
    /// Queues a unit (starting a worker when none is idle and one more may
    /// run); when too many wait, parses the oldest on this thread first.
    pub(crate) fn submit(&self, job: J) {
        self.queue(job, false);
    }

    /// Queues a unit that holds no bytes (see the module doc): no
    /// back-pressure, taken when no other unit waits.
    pub(crate) fn submit_light(&self, job: J) {
        self.queue(job, true);
    }

    fn queue(&self, job: J, light: bool) {
        let sh = self.shared;
        let (spawn, full) = {
            let mut st = sh.lock();
            match light {
                true => st.light.push_back(job),
                false => st.queue.push_back(job),
            }
            let spawn = st.idle == 0 && st.workers < sh.max_workers;
            if spawn {
                st.workers += 1;
            }
            (spawn, !light && st.queue.len() > sh.max_workers + 1)
        };
        if spawn {
            let started = std::thread::Builder::new()
                .name("ream-parse".into())
                .spawn_scoped(self.scope, move || sh.serve());
            if started.is_err() {
                // No thread to be had: the reading thread parses.
                sh.lock().workers -= 1;
            }
        } else {
            sh.work.notify_one();
        }
        if full && sh.caller_parses {
            sh.run_queued();
        }
    }

    /// True when a unit handed over now would wait: every parser the pool
    /// may run has a unit (running or queued).
    pub(crate) fn busy(&self) -> bool {
        let st = self.shared.lock();
        st.queue.len() + st.running >= self.shared.max_workers
    }

    /// The results finished so far.
    pub(crate) fn take_done(&self) -> Vec<D> {
        std::mem::take(&mut self.shared.lock().done)
    }

    /// Parses queued units here and waits for running ones until `enough`
    /// holds of the finished results or nothing is left; returns them.
    pub(crate) fn wait_until(&self, enough: impl Fn(&[D]) -> bool) -> Vec<D> {
        let sh = self.shared;
        loop {
            if sh.caller_parses && sh.run_queued() {
                continue;
            }
            let mut st = sh.lock();
            let waits = |st: &State<J, D>| {
                !enough(&st.done)
                    && st.running + st.waiting() > 0
                    && (st.waiting() == 0 || !sh.caller_parses)
            };
            while waits(&st) {
                st = sh.finished.wait(st).unwrap_or_else(|p| p.into_inner());
            }
            if enough(&st.done) || st.waiting() == 0 {
                return std::mem::take(&mut st.done);
            }
        }
    }

    /// Waits until every unit handed over has finished; returns the
    /// results not taken yet.
    pub(crate) fn finish(&self) -> Vec<D> {
        self.wait_until(|_| false)
    }
}

#[cfg(test)]
mod tests {
    use super::{run, run_with};

    fn square(x: u64) -> u64 {
        x * x
    }

    #[test]
    fn every_unit_is_parsed_once_on_any_number_of_workers() {
        for workers in 0..=8 {
            let (mut got, threads) = run(workers, square, |pool| {
                for x in 0..100 {
                    pool.submit(x);
                }
                pool.finish()
            });
            got.sort_unstable();
            let want: Vec<u64> = (0..100).map(square).collect();
            assert_eq!(got, want, "workers {workers}");
            assert!(threads <= workers + 1);
        }
        let (_, threads) = run(4, square, |_pool| ());
        assert_eq!(threads, 1, "no unit, no worker");
    }

    /// Light units wait outside the back-pressure and are taken after
    /// the others; every unit is still parsed once.
    #[test]
    fn light_units_are_taken_after_the_others() {
        let (got, _) = run(0, square, |pool| {
            pool.submit_light(1);
            pool.submit_light(2);
            pool.submit(3);
            pool.finish()
        });
        assert_eq!(got, vec![9, 1, 4]);
        for workers in 1..=4 {
            let (mut got, _) = run(workers, square, |pool| {
                for x in 0..50 {
                    match x % 3 {
                        0 => pool.submit_light(x),
                        _ => pool.submit(x),
                    }
                }
                pool.finish()
            });
            got.sort_unstable();
            assert_eq!(got, (0..50).map(square).collect::<Vec<_>>());
        }
    }

    /// With a reading thread that only hands over and waits, every unit
    /// is still parsed once, by the workers, and `wait_until` returns as
    /// soon as its condition holds.
    #[test]
    fn a_waiting_reader_leaves_every_unit_to_the_workers() {
        for workers in 1..=8 {
            let (mut got, threads) = run_with(workers, false, square, |pool| {
                for x in 0..100 {
                    pool.submit(x);
                }
                let mut got = pool.wait_until(|d| !d.is_empty());
                assert!(!got.is_empty());
                got.extend(pool.finish());
                got
            });
            got.sort_unstable();
            let want: Vec<u64> = (0..100).map(square).collect();
            assert_eq!(got, want, "workers {workers}");
            assert!(
                (1..=workers).contains(&threads),
                "workers {workers}: {threads}"
            );
        }
    }
}
