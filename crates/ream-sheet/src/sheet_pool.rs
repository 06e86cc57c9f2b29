//! Phase B of the XLSX open: the worksheets read on the pipeline's pool
//! (`crate::pipeline::pool`), the one orchestration the ODS read uses too.
//!
//! This thread hands every sheet to the pool as one light unit (no bytes
//! held; read whole by `sheet_read`), largest first so that a big one
//! never starts last. A sheet of at least `chunked::MIN_CHUNKS` chunks,
//! when more than one thread may run, is instead inflated here and cut
//! into row chunks, each a unit of the same pool (`chunked`). Parsers take
//! chunks before whole sheets, and whole sheets whenever no chunk waits,
//! so they keep busy while this thread inflates (mixed.xlsx on 2
//! threads: 465 ms, against 479 ms when the whole sheets waited for the
//! big sheet's end); this thread parses the oldest chunk itself when more
//! wait than there are parsers, and parses with the others at the end.
//! With whole sheets only, it hands them over and waits, leaving its core
//! to the workers (`pool::run_with`; seed.xlsx on 2 threads 6.6 ms
//! against 8.1 ms when it parsed beside one worker). With one thread no
//! thread is started.
//!
//! Errors: after a sheet fails no further sheet is started, and the error
//! reported is the first by sheet order, whatever the sizes and threads.

use crate::chunked::{ChunkTask, Shelf};
use crate::error::{Error, Result};
use crate::model::SheetKind;
use crate::open::{Package, SheetJob};
use crate::options::OpenOptions;
use crate::pipeline::pool;
use crate::sheet_read::{empty_parsed, parse_one};
use crate::worksheet::{ParsedSheet, SheetCtx};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// (sheets, threads, inflate s, parse s, bytes inflated, chunks, fallbacks)
pub(crate) type Parsed = (Vec<ParsedSheet>, usize, f64, f64, u64, u64, u64);

/// A unit of the pool.
pub(crate) enum Task<'a> {
    /// Sheet `.1` read whole.
    Sheet(&'a Reading<'a>, usize),
    /// A row chunk of a big sheet.
    Chunk(ChunkTask<'a>),
}

/// A finished unit: a sheet's result, or `None` for a chunk (filed with
/// its sheet's join, see `chunked`).
pub(crate) type Done = Option<SheetOut>;

/// A sheet read: its position among the jobs, the result, seconds
/// inflating and parsing, bytes inflated.
pub(crate) struct SheetOut {
    at: usize,
    res: Result<ParsedSheet>,
    inflate_s: f64,
    parse_s: f64,
    bytes: u64,
}

/// What every unit of one open shares.
pub(crate) struct Reading<'a> {
    pkg: &'a Package,
    jobs: &'a [SheetJob],
    opts: &'a OpenOptions,
    /// A sheet failed: sheets not started yet are skipped.
    failed: AtomicBool,
    /// Inflate buffers of sheets read, for the next sheet.
    bufs: Mutex<Vec<Vec<u8>>>,
    /// Most buffers kept in `bufs`: one per parser.
    keep_bufs: usize,
}

/// The pool's parse function.
fn run_task(task: Task<'_>) -> Done {
    match task {
        Task::Chunk(c) => {
            c.run();
            None
        }
        Task::Sheet(r, at) => Some(r.read(at)),
    }
}

impl Reading<'_> {
    /// Reads sheet `at` whole (an empty result when another sheet failed
    /// before it started; the caller reads it again if it matters).
    fn read(&self, at: usize) -> SheetOut {
        let skipped = |at| SheetOut {
            at,
            res: Err(Error::malformed("not read after another sheet failed")),
            inflate_s: 0.0,
            parse_s: 0.0,
            bytes: 0,
        };
        let Some(job) = self.jobs.get(at) else {
            return skipped(usize::MAX);
        };
        if self.failed.load(Ordering::Relaxed) {
            return skipped(usize::MAX);
        }
        let mut buf = self
            .bufs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop()
            .unwrap_or_default();
        let (res, inflate_s, parse_s, bytes) = parse_one(self.pkg, job, self.opts, &mut buf);
        if res.is_err() {
            self.failed.store(true, Ordering::Relaxed);
        }
        let mut bufs = self.bufs.lock().unwrap_or_else(|p| p.into_inner());
        if bufs.len() < self.keep_bufs {
            bufs.push(buf);
        }
        SheetOut {
            at,
            res,
            inflate_s,
            parse_s,
            bytes,
        }
    }
}

/// [`parse_sheets`] on the jobs marked in `wanted`; the others get an
/// empty sheet (listed, not loaded).
pub(crate) fn parse_wanted(
    pkg: &Package,
    jobs: &[SheetJob],
    wanted: &[bool],
    opts: &OpenOptions,
) -> Result<Parsed> {
    if wanted.iter().all(|w| *w) {
        return parse_sheets(pkg, jobs, opts);
    }
    let chosen: Vec<SheetJob> = jobs
        .iter()
        .zip(wanted)
        .filter(|(_, w)| **w)
        .map(|(j, _)| j.clone())
        .collect();
    let (mut parsed, threads, inflate_s, parse_s, bytes, chunks, fallbacks) =
        parse_sheets(pkg, &chosen, opts)?;
    parsed.reverse();
    let all = wanted
        .iter()
        .map(|w| match w {
            true => parsed.pop().unwrap_or_else(|| empty_parsed(pkg.date_1904)),
            false => empty_parsed(pkg.date_1904),
        })
        .collect();
    Ok((all, threads, inflate_s, parse_s, bytes, chunks, fallbacks))
}

/// Reads every sheet of `jobs` on one pool of `OpenOptions::threads`
/// parsers (see the module doc).
fn parse_sheets(pkg: &Package, jobs: &[SheetJob], opts: &OpenOptions) -> Result<Parsed> {
    // Largest parts first, so that a big sheet never starts last.
    let mut order: Vec<(usize, u64)> = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| {
            (
                i,
                pkg.archive.find(&j.part).map_or(0, |e| e.uncompressed_size),
            )
        })
        .collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    // Big sheets are cut into chunks that every parser helps parse; then
    // all cores are used even for a single sheet.
    let all_threads = opts.effective_threads(usize::MAX);
    let is_big = |i: usize, size: u64| {
        all_threads > 1
            && size >= crate::chunked::MIN_CHUNKS * opts.chunk_bytes as u64
            && jobs.get(i).is_some_and(|j| j.kind != SheetKind::Chartsheet)
    };
    let any_big = order.iter().any(|&(i, size)| is_big(i, size));
    let total: u64 = order.iter().map(|&(_, size)| size).sum();
    let threads = if any_big {
        all_threads
    } else {
        opts.effective_threads_for(jobs.len(), total)
    };
    let reading = Reading {
        pkg,
        jobs,
        opts,
        failed: AtomicBool::new(false),
        bufs: Mutex::new(Vec::new()),
        keep_bufs: threads.max(1),
    };
    let shelf = Shelf::default();
    // Without a big sheet the units are whole sheets, read by the
    // workers: this thread hands them over and waits.
    let caller_parses = any_big || threads <= 1;
    let workers = threads - usize::from(caller_parses);
    let ((mut outs, big_inflate_s), threads) =
        pool::run_with(workers, caller_parses, run_task, |pool| {
            let mut done = Vec::new();
            let mut outs = Vec::with_capacity(jobs.len());
            let mut inflate_s = 0.0;
            // Whole sheets first, as light units: the parsers take them
            // whenever no chunk of a big sheet waits.
            let (big, whole): (Vec<_>, Vec<_>) = order.iter().partition(|&&(i, s)| is_big(i, s));
            for &(i, _) in &whole {
                pool.submit_light(Task::Sheet(&reading, i));
            }
            for &(i, size) in &big {
                if reading.failed.load(Ordering::Relaxed) {
                    break;
                }
                let chunked = match jobs.get(i) {
                    Some(job) => {
                        let (res, inf) = read_big(&reading, job, &shelf, pool, &mut done);
                        inflate_s += inf;
                        res
                    }
                    _ => None,
                };
                match chunked {
                    Some(res) => {
                        if res.is_err() {
                            reading.failed.store(true, Ordering::Relaxed);
                        }
                        outs.push(SheetOut {
                            at: i,
                            res,
                            inflate_s: 0.0,
                            parse_s: 0.0,
                            bytes: size,
                        });
                    }
                    None => pool.submit_light(Task::Sheet(&reading, i)),
                }
            }
            done.extend(pool.finish());
            outs.extend(done.into_iter().flatten());
            (outs, inflate_s)
        });
    outs.sort_by_key(|o| o.at);
    let mut slots: Vec<Option<ParsedSheet>> = (0..jobs.len()).map(|_| None).collect();
    let mut first_err: Option<(usize, Error)> = None;
    let (mut inflate_s, mut parse_s, mut bytes) = (big_inflate_s, 0.0, 0u64);
    for o in outs {
        inflate_s += o.inflate_s;
        parse_s += o.parse_s;
        bytes += o.bytes;
        match o.res {
            Ok(p) => {
                if let Some(slot) = slots.get_mut(o.at) {
                    *slot = Some(p);
                }
            }
            Err(e) if o.at < jobs.len() && first_err.is_none() => first_err = Some((o.at, e)),
            Err(_) => {}
        }
    }
    if let Some((at, e)) = first_err {
        // Sheets are taken largest first and nobody starts one after a
        // failure, so sheets before the failing one may not have been
        // read: read them now, so that the error is always the first by
        // sheet order, whatever the sizes and threads (fuzz finding: one
        // thread reported the second sheet's error, two the first's).
        for (i, job) in jobs.iter().enumerate().take(at) {
            if slots.get(i).is_some_and(Option::is_none) {
                let (res, ..) = parse_one(pkg, job, opts, &mut Vec::new());
                res?;
            }
        }
        return Err(e);
    }
    let mut parsed = Vec::with_capacity(jobs.len());
    for slot in slots {
        parsed.push(slot.ok_or_else(|| Error::malformed("a sheet was not parsed"))?);
    }
    let parse_s = parse_s + shelf.parse_ns.load(Ordering::Relaxed) as f64 / 1e9;
    Ok((
        parsed,
        threads,
        inflate_s,
        parse_s,
        bytes,
        shelf.chunks.load(Ordering::Relaxed),
        shelf.fallbacks.load(Ordering::Relaxed),
    ))
}

/// Reads a big sheet in chunks on the pool. `None` when it must be read
/// whole instead (a unit like any other sheet); the seconds spent
/// inflating here either way.
fn read_big<'a>(
    r: &'a Reading<'a>,
    job: &SheetJob,
    shelf: &'a Shelf,
    pool: crate::chunked::Units<'_, '_, 'a>,
    done: &mut Vec<Done>,
) -> (Option<Result<ParsedSheet>>, f64) {
    let Some(entry) = r.pkg.archive.find(&job.part) else {
        return (None, 0.0);
    };
    let ctx = SheetCtx {
        sst_len: r.pkg.sst.len(),
        styles: &r.pkg.styles,
        limits: &r.opts.limits,
        date_1904: r.pkg.date_1904,
    };
    let chunk = r.opts.chunk_bytes;
    let (res, inf) = crate::chunked::parse_chunked(r.pkg, entry, ctx, shelf, pool, chunk, done);
    let named = |e: Error| e.in_part(job.part.clone()).in_sheet(job.name.clone());
    (res.map_err(named).transpose(), inf)
}
