//! The parallel driver over one slice: chunks cut at newlines, handed out
//! by an atomic counter, one [`Scanner`] (with its own table) per thread.
//!
//! Errors: a worker that fails records its fault and lowers a shared
//! "lowest error offset"; workers stop taking chunks that start past it.
//! Chunks are handed out in order, so every chunk before the first error is
//! finished by someone, and the lowest fault is the one a serial run finds.
//!
//! When fields are quoted (any delimiter but `;`), a chunk holding a quote
//! byte stops everyone: a quoted field may hold line breaks, which newline
//! chunking cannot see, so the caller reads the input with the `csv` crate
//! instead ([`SliceRun::quoted`]).

use crate::error::{Fault, Problem};
use crate::options::AggOptions;
use crate::scan::Scanner;
use crate::skip::Skipped;
use crate::table::Table;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// What the workers of one run leave behind.
pub(crate) struct SliceRun {
    pub tables: Vec<Table>,
    pub skipped: Skipped,
    pub fault: Option<Fault>,
    /// A quote byte was seen with quoting on: the tables are incomplete and
    /// the input must be read by the quoting parser.
    pub quoted: bool,
}

/// The first line start at or after `x` (`x` itself when a line starts
/// there), with `start` the first line start of the body.
pub(crate) fn line_start_at(data: &[u8], start: usize, x: usize) -> usize {
    if x <= start {
        return start;
    }
    if x >= data.len() {
        return data.len();
    }
    let from = x - 1;
    match data.get(from..).and_then(|s| memchr::memchr(b'\n', s)) {
        Some(i) => from + i + 1,
        None => data.len(),
    }
}

/// Aggregates the lines of `data[start..]` on `opts.threads` threads.
/// `map`, when given, is the mapping `data` comes from: each chunk's pages
/// are released once it is done.
pub(crate) fn run_slice(
    data: &[u8],
    start: usize,
    opts: &AggOptions,
    map: Option<&ream_io::Bytes>,
) -> SliceRun {
    run_lines(data, start, start, opts, map)
}

/// [`run_slice`] over the lines of `data[start..]`, where the bytes before
/// `head` (at most `start`) are the BOM and header line of the input,
/// checked for a quote byte, and those from `head` to `start` are lines
/// of other ranges.
pub(crate) fn run_lines(
    data: &[u8],
    head: usize,
    start: usize,
    opts: &AggOptions,
    map: Option<&ream_io::Bytes>,
) -> SliceRun {
    let body = data.len().saturating_sub(start);
    let cb = opts.chunk_bytes.max(1);
    let chunks = body.div_ceil(cb);
    let threads = opts.effective_threads().clamp(1, chunks.max(1));
    let next = AtomicUsize::new(0);
    let quoting = opts.quoting();
    // A quote in the header line (before `head`) may open a field that
    // runs past that line: then no chunk is read, and the whole input goes
    // to the quoting reader.
    let quoted_head =
        quoting && memchr::memchr(b'"', data.get(..head.min(start)).unwrap_or_default()).is_some();
    let lowest = AtomicUsize::new(if quoted_head { 0 } else { usize::MAX });
    let quoted = AtomicBool::new(quoted_head);
    let work = || {
        let mut sc = Scanner::new(data, opts);
        let mut fault = None;
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= chunks {
                break;
            }
            let a = start.saturating_add(i.saturating_mul(cb));
            let s = line_start_at(data, start, a);
            if s >= lowest.load(Ordering::Relaxed) || quoted.load(Ordering::Relaxed) {
                break;
            }
            let e = line_start_at(data, start, a.saturating_add(cb));
            if quoting && memchr::memchr(b'"', data.get(s..e).unwrap_or_default()).is_some() {
                quoted.store(true, Ordering::Relaxed);
                lowest.store(0, Ordering::Relaxed);
                break;
            }
            let done = sc.run(s, e);
            if let Some(m) = map {
                m.release(s, e);
            }
            if let Err(f) = done {
                // A full table stops everyone: the exact pass takes over.
                let stop = match f.problem {
                    Problem::KeyMemory { .. } => 0,
                    _ => f.offset,
                };
                lowest.fetch_min(stop, Ordering::Relaxed);
                fault = Some(f);
                break;
            }
        }
        (sc.table, sc.skipped, fault)
    };
    let results: Vec<(Table, Skipped, Option<Fault>)> = if threads == 1 {
        vec![work()]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
            let mut out = vec![work()];
            for h in handles {
                match h.join() {
                    Ok(r) => out.push(r),
                    // A worker cannot panic on input; re-raise a bug as is.
                    Err(p) => std::panic::resume_unwind(p),
                }
            }
            out
        })
    };
    let mut tables = Vec::with_capacity(results.len());
    let mut skipped = Skipped::default();
    let mut fault: Option<Fault> = None;
    for (t, k, f) in results {
        tables.push(t);
        skipped.merge(k);
        if let Some(f) = f.filter(|f| fault.as_ref().is_none_or(|g| f.offset < g.offset)) {
            fault = Some(f);
        }
    }
    SliceRun {
        tables,
        skipped,
        fault,
        quoted: quoted.into_inner(),
    }
}
