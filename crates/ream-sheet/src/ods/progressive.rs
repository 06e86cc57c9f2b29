//! Phases A and B overlapped, for a big `content.xml` on several threads.
//!
//! The serial plan inflates the whole part first (one shot) and only then
//! cuts it into jobs, so on ODS giant (1.16 GB of XML from 83 MB) the
//! parsers waited ~1 s for the inflater. Here the calling thread inflates
//! into one [`FillBuf`] in 1 MiB steps while the other workers parse the
//! filled prefix: a planner, shared under a lock, turns newly filled bytes
//! into jobs as soon as they are complete (the prelude, each `<table:table`
//! candidate, row chunks of about [`OpenOptions::tune_chunk_bytes`] (4 MiB, some
//! 35 k cells of LibreOffice's markup) cut at
//! `<table:table-row` starts), and the inflater joins the parsers when it
//! is done.
//!
//! Every job is a chunk job (`table::parse_chunk`), so a table is always
//! stitched in phase C, which checks the chunks against the real limits
//! and falls back to the serial parse of that table whenever they do not
//! form it exactly (a cut inside a row group, a nested table, any error):
//! the workbook is the one the serial plan gives. The chunks here run with
//! the strictest repeat budget (`tables` = [`MAX_TABLES`]) because the
//! table count is not known yet; a table that repeats more is simply
//! parsed again serially with its real budget.
//!
//! Nothing here decides an error: when anything is off (UTF-16, a prelude
//! that does not parse, too many tables) the planner stops making jobs and
//! the caller runs the serial plan on the finished buffer.

use super::chunks::Stitcher;
use super::table::{TableCfg, parse_chunk};
use super::xml::ends_name;
use super::{Done, Job, MAX_TABLES, split};
use crate::error::{Error, Result};
use crate::options::OpenOptions;
use memchr::memmem;
use ream_io::FillBuf;
use ream_zip::{Archive, Entry};
use std::collections::VecDeque;
use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Parts of at least this many [`OpenOptions::tune_chunk_bytes`] are read
/// progressively (when threads allow): 8 MiB by default.
pub(super) const MIN_CHUNKS: u64 = 2;
/// Bytes inflated per step before the parsers are told.
const STEP: usize = 1 << 20;
/// Bytes faulted in at a time ahead of the inflater.
const PREFAULT: usize = 8 << 20;
const TABLE: &[u8] = super::starts::NEEDLE;
const ROW: &[u8] = b"<table:table-row";

/// The planner's candidate table starts, and per candidate one job with
/// its outcome: the table stitched from its chunks (an error when they do
/// not stitch, so that phase C parses it serially).
pub(super) type Planned = (Vec<usize>, Vec<Job>, Vec<Option<Done>>);

/// What the overlapped read produced.
pub(super) struct Progressive {
    /// The whole inflated part.
    pub buf: FillBuf,
    /// The planner's candidate tables and jobs, with each job's outcome;
    /// `None` when the planner gave up (the caller plans serially).
    pub planned: Option<Planned>,
    /// Seconds the inflater spent inflating.
    pub inflate_s: f64,
    /// Wall seconds until the inflater finished (the rest of the pool's
    /// time is the parse tail).
    pub inflate_wall_s: f64,
    /// Summed seconds the workers spent parsing and stitching.
    pub parse_s: f64,
    /// Row chunks parsed.
    pub chunks: u64,
    /// Threads used.
    pub threads: usize,
}

/// Turns filled bytes into jobs.
struct Planner {
    /// Nesting depth of the spreadsheet's children, once the prelude is read.
    depth: Option<u32>,
    /// Filled length at the last prelude attempt.
    prelude_tried_at: usize,
    /// Table candidates found so far, with their shared cell budgets.
    starts: Vec<usize>,
    budgets: Vec<Arc<AtomicU64>>,
    /// Per candidate, its chunks joined as they finish.
    stitchers: Vec<Arc<Mutex<Stitcher>>>,
    /// Per candidate, the chunks planned so far.
    parts: Vec<usize>,
    /// Per job, its sequence number within its candidate.
    seqs: Vec<usize>,
    /// Where the candidate search resumes.
    scan: usize,
    /// The current candidate's last cut and where the row search resumes.
    last_cut: usize,
    row_scan: usize,
    jobs: Vec<Job>,
    queue: VecDeque<usize>,
    /// Bytes of XML per row chunk.
    target: usize,
    /// All bytes planned (the inflater finished and the last table closed).
    complete: bool,
    /// No more jobs will be made (complete, or gave up).
    stopped: bool,
    gave_up: bool,
}

impl Planner {
    fn give_up(&mut self) {
        self.gave_up = true;
        self.stopped = true;
        self.queue.clear();
    }

    /// Plans what `buf` (the filled prefix; all of it when `eof`) allows.
    fn advance(&mut self, buf: &[u8], eof: bool, max_depth: u32) {
        if self.stopped {
            return;
        }
        let w = buf.len();
        if self.depth.is_none() {
            if !eof && (w < self.prelude_tried_at.saturating_mul(2).max(1 << 16)) {
                return;
            }
            self.prelude_tried_at = w;
            if crate::encoding::is_utf16(buf) {
                return self.give_up();
            }
            match split::read_prelude(buf, max_depth) {
                Ok(p) => {
                    self.depth = Some(p.depth);
                    self.scan = p.body;
                }
                Err(_) if eof => return self.give_up(),
                Err(_) => return,
            }
        }
        // New candidates: a match is taken once the byte after it is
        // filled; the search resumes where a match could still straddle.
        let from = self.scan.min(w);
        let hay = buf.get(from..w.min(buf.len())).unwrap_or_default();
        let mut found = Vec::new();
        super::starts::each_table_start(hay, |i| found.push(from + i));
        self.scan = if eof {
            w
        } else {
            w.saturating_sub(TABLE.len()).max(from)
        };
        for at in found {
            if !self.starts.is_empty() {
                self.cut_rows(buf, at);
                self.close(at);
            }
            if self.starts.len() >= MAX_TABLES {
                return self.give_up();
            }
            self.starts.push(at);
            self.budgets.push(Arc::new(AtomicU64::new(0)));
            self.stitchers
                .push(Arc::new(Mutex::new(Stitcher::default())));
            self.parts.push(0);
            self.last_cut = at;
            self.row_scan = at;
        }
        if !self.starts.is_empty() {
            self.cut_rows(buf, w);
            if eof {
                self.close(w);
            }
        }
        if eof {
            self.complete = true;
            self.stopped = true;
        }
    }

    /// Cuts the current candidate at row starts, every `target` bytes,
    /// within `..end`.
    fn cut_rows(&mut self, buf: &[u8], end: usize) {
        let finder = memmem::Finder::new(ROW);
        loop {
            let from = self.row_scan.max(self.last_cut.saturating_add(self.target));
            if from >= end {
                return;
            }
            let hay = buf.get(from..end).unwrap_or_default();
            let mut next = None;
            let mut resume = end.saturating_sub(ROW.len()).max(from);
            let mut at = 0;
            while let Some(i) = finder.find(hay.get(at..).unwrap_or_default()) {
                let p = from + at + i;
                if p + ROW.len() >= end {
                    resume = p;
                    break;
                }
                if ends_name(buf.get(p + ROW.len())) {
                    next = Some(p);
                    break;
                }
                at = at + i + ROW.len();
            }
            let Some(p) = next else {
                self.row_scan = resume;
                return;
            };
            self.push_job(p);
            self.last_cut = p;
            self.row_scan = p;
        }
    }

    /// Ends the current candidate's last chunk at `end`.
    fn close(&mut self, end: usize) {
        self.push_job(end);
    }

    fn push_job(&mut self, limit: usize) {
        let cand = self.starts.len().saturating_sub(1);
        let start = self.last_cut;
        let first = self.starts.last() == Some(&start);
        let seq = self.parts.last().copied().unwrap_or(0);
        if let Some(n) = self.parts.last_mut() {
            *n += 1;
        }
        self.seqs.push(seq);
        self.queue.push_back(self.jobs.len());
        self.jobs.push(Job {
            cand,
            start,
            limit,
            chunk: Some(first),
        });
    }
}

/// Shared by the inflater and the workers.
struct Shared<'o> {
    buf: &'o FillBuf,
    plan: Mutex<Planner>,
    cv: Condvar,
    eof: AtomicBool,
    stop: AtomicBool,
    opts: &'o OpenOptions,
}

impl Shared<'_> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Planner> {
        self.plan.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Parses jobs until the planner is done, each chunk handed to its
    /// table's stitcher; returns the seconds spent.
    fn work(&self) -> f64 {
        let max_depth = self.opts.limits.max_xml_depth;
        let mut secs = 0.0;
        loop {
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            let mut pl = self.lock();
            let eof = self.eof.load(Ordering::Acquire);
            pl.advance(self.buf.filled(), eof, max_depth);
            let Some(k) = pl.queue.pop_front() else {
                if pl.stopped {
                    break;
                }
                let _ = self.cv.wait_timeout(pl, Duration::from_millis(2));
                continue;
            };
            let (Some(job), Some(depth)) = (pl.jobs.get(k), pl.depth) else {
                break;
            };
            let (cand, start, limit, first) =
                (job.cand, job.start, job.limit, job.chunk.unwrap_or(true));
            let (Some(budget), Some(stitcher), Some(&seq)) = (
                pl.budgets.get(cand).cloned(),
                pl.stitchers.get(cand).cloned(),
                pl.seqs.get(k),
            ) else {
                break;
            };
            drop(pl);
            let t = Instant::now();
            let cfg = TableCfg {
                limits: &self.opts.limits,
                depth_left: max_depth.saturating_sub(depth.saturating_add(1)),
                tables: MAX_TABLES as u64,
            };
            let filled = self.buf.filled();
            let part = filled.get(..limit).unwrap_or(filled);
            let res = parse_chunk(part, start, cfg, first, &budget);
            stitcher
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .add(seq, res);
            secs += t.elapsed().as_secs_f64();
        }
        secs
    }
}

/// Inflates `entry` into a [`FillBuf`] while `threads - 1` workers (and
/// then the inflater) parse what is filled. An error only when the part
/// cannot be inflated (the same errors as a one-shot read) or a worker
/// panicked.
pub(super) fn read(
    archive: &Archive,
    entry: &Entry,
    opts: &OpenOptions,
    threads: usize,
) -> Result<Progressive> {
    let cap = usize::try_from(entry.uncompressed_size)
        .map_err(|_| Error::limit("content.xml does not fit in memory"))?;
    let mut reader = archive.stream(entry)?;
    let buf = FillBuf::new(cap).ok_or_else(|| {
        Error::limit(format!(
            "content.xml declares {cap} bytes, more memory than could be allocated"
        ))
    })?;
    let shared = Shared {
        buf: &buf,
        plan: Mutex::new(Planner {
            depth: None,
            prelude_tried_at: 0,
            starts: Vec::new(),
            budgets: Vec::new(),
            stitchers: Vec::new(),
            parts: Vec::new(),
            seqs: Vec::new(),
            scan: 0,
            last_cut: 0,
            row_scan: 0,
            jobs: Vec::new(),
            queue: VecDeque::new(),
            target: opts.chunk_bytes.max(1),
            complete: false,
            stopped: false,
            gave_up: false,
        }),
        cv: Condvar::new(),
        eof: AtomicBool::new(false),
        stop: AtomicBool::new(false),
        opts,
    };
    let started = Instant::now();
    let (inflated, outs) = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads.max(2))
            .map(|_| scope.spawn(|| shared.work()))
            .collect();
        let inflated = inflate(&shared, &mut reader, archive, entry, started);
        let mut outs = vec![Ok(shared.work())];
        for h in handles {
            outs.push(h.join().map_err(|_| {
                shared.stop.store(true, Ordering::Relaxed);
            }));
        }
        (inflated, outs)
    });
    let (inflate_s, inflate_wall_s) = inflated?;
    let mut parse_s = 0.0;
    for out in outs {
        parse_s += out.map_err(|()| panicked())?;
    }
    let planner = shared.plan.into_inner().unwrap_or_else(|p| p.into_inner());
    let chunks = planner.jobs.len() as u64;
    let planned = (planner.complete && !planner.gave_up).then(|| {
        let mut jobs = Vec::with_capacity(planner.starts.len());
        let mut results = Vec::with_capacity(planner.starts.len());
        for (cand, ((&start, stitcher), &parts)) in planner
            .starts
            .iter()
            .zip(planner.stitchers)
            .zip(&planner.parts)
            .enumerate()
        {
            let stitcher = Arc::into_inner(stitcher)
                .map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
                .unwrap_or_default();
            let whole = stitcher.finish(parts).ok_or_else(|| {
                Error::malformed("the chunks do not form the table; parsed serially")
            });
            jobs.push(Job {
                cand,
                start,
                limit: start,
                chunk: Some(true),
            });
            results.push(Some(Done::Chunk(whole)));
        }
        (planner.starts, jobs, results)
    });
    Ok(Progressive {
        buf,
        planned,
        inflate_s,
        inflate_wall_s,
        parse_s,
        chunks,
        threads: threads.max(2),
    })
}

fn panicked() -> Error {
    Error::malformed("a worker thread panicked")
}

/// The inflater's loop: 1 MiB steps into the buffer, the workers woken
/// after each. Returns (seconds inflating, wall seconds since `started`);
/// on failure the workers are stopped.
fn inflate(
    shared: &Shared<'_>,
    reader: &mut ream_zip::EntryReader<'_>,
    archive: &Archive,
    entry: &Entry,
    started: Instant,
) -> Result<(f64, f64)> {
    let mut secs = 0.0;
    let res = (|| -> Result<()> {
        let Some(mut w) = shared.buf.writer() else {
            return Err(Error::malformed("content.xml buffer already written"));
        };
        let mut prefaulted = 0usize;
        loop {
            let t = Instant::now();
            // Fault the buffer in 8 MiB at a time ahead of the writes: one
            // call instead of 2,048 page faults (ODS giant on 2 threads:
            // 1.28-1.32 s against 1.40-1.41 s, CPU -0.23 s).
            if w.len() + STEP > prefaulted {
                w.prefault(PREFAULT);
                prefaulted = w.len() + PREFAULT;
            }
            let spare = w.spare();
            let room = spare.len().min(STEP);
            let n = if room == 0 {
                // Full: the reader checks that the stream ends here (size
                // and CRC-32) with a probe read.
                let mut probe = [0u8; 1];
                reader.read(&mut probe).map_err(ream_zip::Error::from_io)?
            } else {
                let dst = spare.get_mut(..room).unwrap_or_default();
                reader.read(dst).map_err(ream_zip::Error::from_io)?
            };
            secs += t.elapsed().as_secs_f64();
            // The entry reader reports a wrong declared size or CRC-32
            // itself (test `ods::overlapped_read_refuses_a_damaged_part`);
            // these two checks only guard the buffer's bounds.
            if n == 0 {
                if w.len() != shared.buf.capacity() {
                    return Err(Error::malformed(format!(
                        "content.xml inflates to {} bytes, not the {} its header declares",
                        w.len(),
                        shared.buf.capacity()
                    )));
                }
                return Ok(());
            }
            if room == 0 {
                return Err(Error::malformed(format!(
                    "content.xml inflates to more than the {} bytes its header declares",
                    shared.buf.capacity()
                )));
            }
            w.commit(n);
            archive.release(entry, reader.consumed());
            shared.cv.notify_all();
        }
    })();
    let wall = started.elapsed().as_secs_f64();
    if res.is_err() {
        shared.stop.store(true, Ordering::Relaxed);
    }
    shared.eof.store(true, Ordering::Release);
    drop(shared.lock());
    shared.cv.notify_all();
    res.map(|()| (secs, wall))
}
