//! The loaded ODS open: `content.xml` read in one pass over the
//! pipeline's sliding window (`crate::pipeline`) at every thread count.
//!
//! This thread inflates and walks the outline. A table of [`SEND_MIN`]
//! bytes or more whose successor already starts in the window goes to the
//! pool whole; a longer one is cut at `<table:table-row` starts into row
//! chunks of `chunk_bytes` (4 MiB by default), joined in order
//! (`chunks::Stitcher`); the rest is parsed here, block by block
//! (`table::parse_block_into`; blocks of 512 KiB, 4 MiB once a table is
//! cut). With one parser every table is parsed here.
//!
//! The result must be the whole-part read's (`mod.rs`), so this read gives
//! up on anything unusual (any error, a unit longer than [`MAX_SPAN`],
//! more than `MAX_TABLES` candidates) and the caller reads the part whole.
//! Where chunks cannot stand alone (a cut in a row group or nested table,
//! more than white space after a table sent whole) the part is read again
//! with every table parsed here. Tables are walked with the repeat budget
//! of the `<table:table` candidates counted so far (more permissive) and
//! checked against the final count when finished.

use super::chunks::Stitcher;
use super::names::RawName;
use super::split::{Outline, outline_step, window_prelude};
use super::starts::{NEEDLE, each_table_start};
use super::stream::Cutter;
use super::table::{
    Carry, ParsedTable, Partial, TableCfg, finish_table, parse_block_into, parse_chunk,
};
use super::{MAX_TABLES, PART};
use crate::error::Result;
use crate::model::OpenStats;
use crate::options::{Limits, OpenOptions};
use crate::pipeline::pool::{self, Pool};
use crate::pipeline::window::Window;
use ream_zip::{Archive, Entry};
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

/// Most bytes the window may hold from the current position: a longer
/// unit sends the open to the whole-part read (no rescans without bound).
const MAX_SPAN: usize = 64 << 20;

/// Smallest table sent whole to the pool.
const SEND_MIN: usize = 64 << 10;

/// What a loaded read produced (over the window, or whole in `mod.rs`).
pub(super) struct Windowed {
    /// The top-level tables, finished (hidden rows, limits checked).
    pub tables: Vec<ParsedTable>,
    /// Named expressions outside tables.
    pub names: Vec<RawName>,
    /// Automatic styles that hide a table.
    pub hidden_styles: Vec<String>,
    /// Phase A (the prelude), inflating, bytes, threads and units so far.
    pub stats: OpenStats,
}

/// A unit handed to the pool: one chunk of a table's rows, or a whole
/// table, copied out of the window.
pub(super) struct Job<'l> {
    /// The table's position among the tables read.
    table: usize,
    /// Position of the chunk in its table (0 starts at the start tag).
    seq: usize,
    /// The unit's bytes: from the table's start tag or a row start, to the
    /// next chunk's row start (or the next table's start).
    bytes: Vec<u8>,
    /// The parse settings with the tables counted when it was cut.
    cfg: TableCfg<'l>,
    /// The cell budget shared by the chunks of one table.
    budget: Arc<AtomicU64>,
}

/// A parsed unit: its table and position, result and buffer (for reuse).
type Done = (usize, usize, Result<Partial>, Vec<u8>);

/// The pool's parse function.
fn parse_job(job: Job<'_>) -> Done {
    let res = parse_chunk(&job.bytes, 0, job.cfg, job.seq == 0, &job.budget);
    (job.table, job.seq, res, job.bytes)
}

/// The pipeline's pool for ODS units.
type Units<'s, 'e, 'l> = Pool<'s, 'e, Job<'l>, Done>;

/// Spent unit buffers kept for reuse.
const SPARE: usize = 8;

/// The window, the table-candidate count and the pool.
struct Reader<'s, 'e, 'l> {
    w: Window,
    /// `<table:table` candidates after the prelude, counted so far.
    count: u64,
    /// Absolute offset up to which candidates were counted.
    scanned: u64,
    cutter: Cutter,
    /// The parsers (`None`: every table parsed here, in place), and the
    /// chunk size.
    pool: Option<(Units<'s, 'e, 'l>, usize)>,
    /// Spent unit buffers.
    spare: Vec<Vec<u8>>,
    /// Row chunks handed to the pool.
    chunks: u64,
    /// With a pool: table starts counted and not yet passed (absolute).
    starts: VecDeque<u64>,
    /// Tables read so far (the key of the next one).
    tables_read: usize,
    /// Tables sent whole to the pool.
    sent: u64,
    /// Tables sent whole that came back while another was read (`None`:
    /// not as they should, see [`whole_table`]).
    whole_done: Vec<(usize, Option<Partial>)>,
}

impl<'l> Reader<'_, '_, 'l> {
    /// Counts the candidates in the bytes read since the last call; a
    /// match too close to the window's end to be judged waits for more.
    fn scan(&mut self) {
        let data = self.w.data();
        let base = self.w.base;
        let from = usize::try_from(self.scanned.saturating_sub(base))
            .unwrap_or(usize::MAX)
            .min(data.len());
        let limit = if self.w.eof {
            data.len()
        } else {
            data.len().saturating_sub(NEEDLE.len())
        };
        if limit <= from {
            return;
        }
        let hay = data.get(from..).unwrap_or_default();
        let keep = self.pool.is_some();
        each_table_start(hay, |i| {
            let at = from + i;
            if at < limit {
                self.count += 1;
                if keep {
                    self.starts.push_back(base + at as u64);
                }
            }
        });
        self.scanned = base + limit as u64;
    }

    /// Drops the bytes before `*pos` (those already counted) and reads
    /// one more block; `None` at the end of the part, on an error, past
    /// [`MAX_SPAN`] or `MAX_TABLES`.
    fn advance(&mut self, pos: &mut usize) -> Option<()> {
        if self.w.eof {
            return None;
        }
        let counted = usize::try_from(self.scanned.saturating_sub(self.w.base)).unwrap_or(0);
        let keep = (*pos).min(counted);
        if self.w.data().len().saturating_sub(keep) > MAX_SPAN {
            return None;
        }
        self.w.advance(keep).ok()?;
        *pos -= keep;
        self.scan();
        (self.count <= MAX_TABLES as u64).then_some(())
    }

    /// Parses the table whose start tag is at `start` in the window on this
    /// thread, block by block, with the repeat budget of the tables counted
    /// so far. Returns it unfinished and the position past its end tag.
    fn table_serial(&mut self, start: usize, cfg: &dyn Fn(u64) -> TableCfg<'l>) -> Option<Got> {
        let mut pos = start;
        let mut carry = Carry::default();
        let mut out = ParsedTable::default();
        loop {
            let c = cfg(self.count);
            let (data, eof) = (self.w.data(), self.w.eof);
            let parse = |part: &[u8], from, more| {
                parse_block_into(part, from, c, &mut carry, &mut out, more)
            };
            self.cutter.next_rows(data, eof, &mut pos, parse).ok()?;
            if carry.closed {
                let p = Partial {
                    table: out,
                    walk: carry,
                };
                return Some(Got::Done(Box::new(p), pos));
            }
            self.advance(&mut pos)?;
        }
    }
}

impl<'l> Reader<'_, '_, 'l> {
    /// [`table_serial`](Self::table_serial) with other parsers: the rows are cut into
    /// owned chunks of about `target` bytes at row starts and parsed by
    /// the pool (or here, under back-pressure) while this thread inflates
    /// on; the rest of the table is parsed here, on the window, once its
    /// end may be in view, and the chunks are stitched in order.
    ///
    /// The end may be in view when `cut` saw `</table:table>` after the
    /// last row start, or when another table starts after `start` in the
    /// window: a row start past this table's end belongs to a later
    /// table, whose start tag comes first. A table whose next table
    /// already starts in the window before any chunk went out is sent
    /// whole (up to that start) and the outline goes on from there; the
    /// result must then close the table with only white space after it
    /// (checked in [`collect`](Self::collect)). Any chunk that fails,
    /// ends off table level or closes the table early, and a rest that
    /// does not close it (a nested table), give `None`; the caller then
    /// reads the part again on the window alone.
    fn table_in_chunks(
        &mut self,
        start: usize,
        cfg: &dyn Fn(u64) -> TableCfg<'l>,
        pool: Units<'_, '_, 'l>,
        target: usize,
    ) -> Option<Got> {
        let budget = Arc::new(AtomicU64::new(0));
        let mut stitcher = Stitcher::default();
        let mut pos = start;
        let mut seq = 0usize;
        let own_start = self.w.base + start as u64;
        let key = self.tables_read;
        self.tables_read += 1;
        // Tables sent earlier that are back: filed now, so that their
        // buffers are reused.
        let back = pool.take_done();
        self.file(back, key, &mut stitcher);
        loop {
            let next_table = self.table_after(own_start);
            let base = self.w.base;
            let cut_at = self.block_end(pos);
            let data = self.w.data();
            let end_near = |e: usize| e == data.len() || next_table.is_some();
            // Nothing went out yet, so `pos` is still the table's start.
            let whole_to = match next_table {
                Some(next) if seq == 0 => Some(usize::try_from(next.checked_sub(base)?).ok()?),
                _ => None,
            };
            match (cut_at, whole_to) {
                // Small tables are not worth a hand-over (65,537 empty
                // tables took 2.4 s sent one by one), and while a table
                // already waits for a parser this thread parses the next
                // one itself, from the window (no copy).
                (_, Some(upto)) if upto.saturating_sub(pos) < SEND_MIN || pool.queued() > 0 => {
                    return self.table_serial(pos, cfg);
                }
                (_, Some(upto)) => {
                    self.send(pool, cfg(self.count), (key, 0), pos..upto, budget)?;
                    self.sent += 1;
                    return Some(Got::Sent(upto));
                }
                (Some(e), _) if end_near(e) => {
                    let last = parse_chunk(data, pos, cfg(self.count), seq == 0, &budget);
                    let end_at = match &last {
                        Ok(p) if p.walk.closed => p.table.end,
                        _ => return None,
                    };
                    stitcher.add(seq, last);
                    let n = seq + 1;
                    while !stitcher.has(n) {
                        let done = pool.wait_until(|d| d.iter().any(|d| d.0 == key));
                        if done.is_empty() || self.file(done, key, &mut stitcher) {
                            return None;
                        }
                    }
                    return Some(Got::Done(Box::new(stitcher.finish(n)?), end_at));
                }
                (Some(e), _) if e.saturating_sub(pos) >= target => {
                    let c = cfg(self.count);
                    self.send(pool, c, (key, seq), pos..e, Arc::clone(&budget))?;
                    self.w.full_sized();
                    seq += 1;
                    self.chunks += 1;
                    pos = e;
                    if self.file(pool.take_done(), key, &mut stitcher) {
                        return None;
                    }
                }
                _ => {}
            }
            self.advance(&mut pos)?;
        }
    }

    /// Files finished chunks of table `key` into `st`, and tables sent
    /// whole into [`whole_done`](Reader::whole_done) (buffers kept for
    /// reuse); true when a chunk of `key` failed.
    fn file(&mut self, done: Vec<Done>, key: usize, st: &mut Stitcher) -> bool {
        let mut bad = false;
        for (table, k, res, bytes) in done {
            if table == key {
                bad |= res.is_err();
                st.add(k, res);
            } else {
                self.whole_done.push((table, whole_table(res, &bytes)));
            }
            if self.spare.len() < SPARE {
                self.spare.push(bytes);
            }
        }
        bad
    }

    /// Waits for the tables sent whole and puts them in their slots.
    /// `None` when one did not close as it should (see [`whole_table`]).
    fn collect(&mut self, slots: &mut [Option<Partial>]) -> Option<()> {
        let (pool, _) = self.pool?;
        let mut done = std::mem::take(&mut self.whole_done);
        for (table, _, res, bytes) in pool.finish() {
            done.push((table, whole_table(res, &bytes)));
        }
        for (table, p) in done {
            *slots.get_mut(table)? = Some(p?);
        }
        Some(())
    }

    /// Where the block from `pos` may end (see [`Cutter::end`]).
    fn block_end(&self, pos: usize) -> Option<usize> {
        self.cutter.end(self.w.data(), pos, self.w.eof)
    }

    /// Copies `range` of the window into a unit (table key and position;
    /// position 0 starts at the table's start tag) and queues it on
    /// `pool`, parsed with `cfg`.
    fn send(
        &mut self,
        pool: Units<'_, '_, 'l>,
        cfg: TableCfg<'l>,
        (table, seq): (usize, usize),
        range: std::ops::Range<usize>,
        budget: Arc<AtomicU64>,
    ) -> Option<()> {
        let mut bytes = self.spare.pop().unwrap_or_default();
        bytes.clear();
        bytes.extend_from_slice(self.w.data().get(range)?);
        pool.submit(Job {
            table,
            seq,
            bytes,
            cfg,
            budget,
        });
        Some(())
    }

    /// The first table start counted after absolute offset `after`.
    fn table_after(&mut self, after: u64) -> Option<u64> {
        while self.starts.front().is_some_and(|&s| s <= after) {
            self.starts.pop_front();
        }
        self.starts.front().copied()
    }
}

/// The result of a table sent whole, when it is one: it closed, and only
/// white space follows up to the next table's start, where the outline
/// went on (anything else there, like named expressions, would have been
/// skipped).
fn whole_table(res: crate::error::Result<Partial>, bytes: &[u8]) -> Option<Partial> {
    let p = res.ok()?;
    let rest = bytes.get(p.table.end..)?;
    (p.walk.closed && rest.iter().all(u8::is_ascii_whitespace)).then_some(p)
}

/// A table read over the window.
enum Got {
    /// Parsed (stitched); the outline goes on from this position.
    Done(Box<Partial>, usize),
    /// Sent whole to the pool; the outline goes on from this position
    /// (the next table's start), checked when the result comes.
    Sent(usize),
}

/// Reads `content.xml` of `archive` (entry `entry`) over a window with
/// `opts.effective_threads` parsers (at most one per core); `None` when the caller must read it
/// whole instead (see the module doc). The archive's inflate budget is
/// charged once either way.
pub(super) fn read(archive: &Archive, entry: &Entry, opts: &OpenOptions) -> Option<Windowed> {
    let t0 = Instant::now();
    let limits = &opts.limits;
    let first_block = opts.stream_block;
    // Parsers beyond the cores add switching, not speed: the thread count
    // is capped at the available parallelism, this thread being one.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = opts.effective_threads(cores).saturating_sub(1);
    if workers > 0 {
        let w = Window::new(archive, entry, PART, first_block, false).ok()?;
        let chunk = opts.chunk_bytes.max(1);
        let (res, threads) = pool::run(workers, parse_job, |pool| {
            read_from(w, limits, t0, Some((pool, chunk)))
        });
        if let Some(mut res) = res {
            res.stats.threads = threads;
            return Some(res);
        }
        // A chunk cut where rows are grouped or tables nested, or an
        // error: again with every table parsed here, on the window (the
        // inflater running ahead on a thread of its own), which gives up
        // only where the whole-part read fails.
        archive.refund(entry);
    }
    let w = Window::new(archive, entry, PART, first_block, workers > 0).ok()?;
    let mut res = read_from(w, limits, t0, None);
    match res.as_mut() {
        Some(r) => r.stats.chunk_fallbacks = u64::from(workers > 0),
        None => archive.refund(entry),
    }
    res
}

fn read_from<'l>(
    mut w: Window,
    limits: &'l Limits,
    t0: Instant,
    pool: Option<(Units<'_, '_, 'l>, usize)>,
) -> Option<Windowed> {
    let max_depth = limits.max_xml_depth;
    let prelude = window_prelude(&mut w, max_depth, MAX_SPAN).ok()?;
    let prelude_s = t0.elapsed().as_secs_f64();
    let mut r = Reader {
        w,
        count: 0,
        scanned: prelude.body as u64,
        cutter: Cutter::default(),
        pool,
        spare: Vec::new(),
        chunks: 0,
        starts: VecDeque::new(),
        tables_read: 0,
        sent: 0,
        whole_done: Vec::new(),
    };
    r.scan();
    let depth = prelude.depth;
    let cfg = move |tables: u64| TableCfg {
        limits,
        depth_left: max_depth.saturating_sub(depth.saturating_add(1)),
        tables: tables.max(1),
    };
    let child_left = max_depth.saturating_sub(depth);
    let mut pos = prelude.body;
    let mut partials = Vec::new();
    let mut names = Vec::new();
    let mut scratch = Vec::new();
    loop {
        let step = outline_step(r.w.data(), pos, child_left, &mut names, &mut scratch);
        match step {
            Ok(Outline::At(p)) => pos = p,
            Ok(Outline::Table(tag)) => {
                let got = match r.pool {
                    Some((pool, target)) => r.table_in_chunks(tag.start, &cfg, pool, target),
                    None => r.table_serial(tag.start, &cfg),
                };
                let (p, next) = match got? {
                    Got::Done(p, end) => (Some(*p), end),
                    Got::Sent(next) => (None, next),
                };
                partials.push(p);
                pos = next;
            }
            Ok(Outline::End) => break,
            Err(e) if e.truncated => r.advance(&mut pos)?,
            Err(_) => return None,
        }
    }
    // The rest of the part: candidates after the spreadsheet count too,
    // and the size and CRC are checked at its end.
    while !r.w.eof {
        let mut all = r.w.data().len();
        r.advance(&mut all)?;
    }
    r.scan();
    if r.count > MAX_TABLES as u64 {
        return None;
    }
    if r.pool.is_some() {
        r.collect(&mut partials)?;
    }
    let inflated = r.w.base + r.w.data().len() as u64;
    let inflate_s = r.w.inflate_s;
    drop(r.w);
    let last = cfg(r.count);
    let mut tables = Vec::with_capacity(partials.len());
    for p in partials {
        let p = p?;
        if p.walk.expanded > last.expand_max() || p.walk.used > limits.max_cells_per_sheet {
            return None;
        }
        tables.push(finish_table(p, last).ok()?);
    }
    Some(Windowed {
        tables,
        names,
        hidden_styles: prelude.hidden_styles,
        stats: OpenStats {
            phase_a_s: prelude_s,
            inflate_s,
            threads: 1,
            inflated_bytes: inflated,
            chunks: r.chunks + r.sent,
            windowed: true,
            ..OpenStats::default()
        },
    })
}
