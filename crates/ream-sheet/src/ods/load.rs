//! Every read of `content.xml`: one pass over the pipeline's sliding
//! window (`crate::pipeline`), loaded at every thread count or listed
//! without cells (`list` in `mod.rs`).
//!
//! This thread walks the outline (`split::outline_step`) and parses.
//! From two threads on another one inflates ahead (the window piped); from
//! three on the rest are parsers of the pool ([`Mode::Pool`]): on two
//! cores one inflater and one parser beat one thread doing both beside
//! a parser (giant.ods 0.58 s against 0.68 s, seed.ods 12.3 against 14.7
//! ms). With other parsers a table of [`SEND_MIN`] bytes or more whose
//! end tag is already in the window goes to the pool whole; a longer one
//! is cut at `<table:table-row` starts into row chunks of `chunk_bytes`
//! (4 MiB by default), joined in order (`chunks::Stitcher`); the rest is
//! parsed here, block by block (`table::parse_block_into`; blocks of 512
//! KiB, 4 MiB once a table is cut). The pool read gives up on anything
//! unusual (any error, a unit longer than [`MAX_SPAN`], a cut in a row
//! group or nested table, a table sent whole that does not end at the end
//! tag found for it) and the part is read again with every table parsed
//! here ([`Mode::Serial`]), which gives the errors: the first in document
//! order, naming `content.xml`, the sheet (`#N` when unnamed), the cell
//! and the byte offset.
//!
//! What repeat counts add is counted against one budget for the read
//! ([`TableCfg::repeats`]) and checked again, hidden rows included, as the
//! tables are finished in document order.

use super::chunks::Stitcher;
use super::names::RawName;
use super::split::{Outline, outline_step, window_prelude};
use super::stream::{TABLE_END, block_end, next_rows};
use super::table::name_and_style;
use super::table::{Carry, ParsedTable, Partial, TableCfg, finish_table, parse_chunk};
use super::{MAX_TABLES, PART};
use crate::error::{Error, Result};
use crate::model::OpenStats;
use crate::options::OpenOptions;
use crate::pipeline::pool::{self, Pool};
use crate::pipeline::window::Window;
use memchr::memmem;
use ream_zip::{Archive, Entry};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

/// Most bytes the window may hold from the current position in a pool
/// read: a longer unit sends the open to the serial read.
const MAX_SPAN: usize = 64 << 20;

/// Smallest table sent whole to the pool.
const SEND_MIN: usize = 64 << 10;

/// What a read produced.
pub(super) struct Windowed {
    /// The top-level tables, finished (hidden rows, limits checked).
    pub tables: Vec<ParsedTable>,
    /// Named expressions outside tables.
    pub names: Vec<RawName>,
    /// Automatic styles that hide a table.
    pub hidden_styles: Vec<String>,
    /// Phase A (the prelude), inflating, bytes, threads and units so far.
    pub stats: OpenStats,
    /// Offset of each table's start tag in `content.xml`.
    pub starts: Vec<u64>,
    /// Nesting depth of the spreadsheet's children.
    pub depth: u32,
    /// The window, when a listing stopped at the sheet wanted (it still
    /// holds that sheet's start).
    pub window: Option<Window>,
}

/// How a read treats the tables it meets.
pub(super) enum Mode<'s, 'e, 'l> {
    /// Every table parsed on this thread; errors are exact.
    Serial,
    /// Other parsers in `pool`, row chunks of about the given bytes; any
    /// problem gives up (the caller reads serially).
    Pool(Units<'s, 'e, 'l>, usize),
    /// Listing (`load_cells(false)`): rows skipped, names and starts
    /// kept; stops at the table `stop` says is the last one wanted.
    List(&'l dyn Fn(usize, &str) -> bool),
}

/// The reason a pool read gives up (never reported).
fn give_up() -> Error {
    Error::malformed("the pool read gave up")
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
    /// The read's parse settings.
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

/// The window, the parse settings and the pool.
struct Reader<'s, 'e, 'l> {
    w: Window,
    cfg: TableCfg<'l>,
    /// The parsers (`None`: every table parsed here, in place), and the
    /// chunk size.
    pool: Option<(Units<'s, 'e, 'l>, usize)>,
    /// Spent unit buffers.
    spare: Vec<Vec<u8>>,
    /// Row chunks handed to the pool.
    chunks: u64,
    /// Tables read so far (the key of the next one).
    tables_read: usize,
    /// Tables sent whole to the pool.
    sent: u64,
    /// Tables sent whole that came back while another was read (`None`:
    /// not as they should, see [`whole_table`]).
    whole_done: Vec<(usize, Option<Partial>)>,
}

impl<'l> Reader<'_, '_, 'l> {
    /// Drops the bytes before `*pos` and reads one more block. Fails at
    /// the end of the part (`what` ends early there) and past
    /// [`MAX_SPAN`] with a pool.
    fn advance(&mut self, pos: &mut usize, what: &'static str) -> Result<()> {
        if self.w.eof {
            let at = (self.w.base + self.w.data().len() as u64) as usize;
            return Err(super::xml::truncated(at, what));
        }
        if self.pool.is_some() && self.w.data().len().saturating_sub(*pos) > MAX_SPAN {
            return Err(give_up());
        }
        self.w.advance(*pos)?;
        *pos = 0;
        Ok(())
    }

    /// Parses (or, with `skim`, walks without cells) the table whose start
    /// tag is at `start` in the window on this thread, block by block.
    /// Returns it unfinished and the position past its end tag. Errors
    /// name the sheet (`#N` when unnamed) and their absolute offset.
    fn table_serial(&mut self, start: usize, skim: bool) -> Result<Got> {
        let mut pos = start;
        let mut carry = Carry {
            skim,
            ..Carry::default()
        };
        let mut out = ParsedTable::default();
        let key = self.tables_read;
        let sheet = |out: &ParsedTable| match out.name.is_empty() {
            true => format!("#{}", key + 1),
            false => out.name.clone(),
        };
        loop {
            let (data, eof, base) = (self.w.data(), self.w.eof, self.w.base);
            next_rows(data, eof, &mut pos, self.cfg, &mut carry, &mut out)
                .map_err(|e| e.offset_by(base).in_sheet(sheet(&out)))?;
            if carry.closed {
                let p = Partial {
                    table: out,
                    walk: carry,
                };
                return Ok(Got::Done(Box::new(p), pos));
            }
            self.advance(&mut pos, "content.xml ends inside a table")?;
        }
    }
}

impl<'l> Reader<'_, '_, 'l> {
    /// [`table_serial`](Self::table_serial) with other parsers: while no
    /// `</table:table>` is in view, the rows are cut into owned chunks of
    /// about `target` bytes at row starts for the pool, and this thread
    /// inflates on; once one is, the rest of the table is parsed here, on
    /// the window, and the chunks are stitched in order. A table whose end
    /// tag is in view before any chunk went out is sent whole (up to that
    /// tag) and the outline goes on after it; the result must close the
    /// table there (checked in [`collect`](Self::collect)). Any chunk that
    /// fails, ends off table level or closes the table early, and a rest
    /// that does not close it (a nested table), give `None`; the caller
    /// then reads the part again serially.
    fn table_in_chunks(
        &mut self,
        start: usize,
        pool: Units<'_, '_, 'l>,
        target: usize,
    ) -> Option<Got> {
        let budget = Arc::new(AtomicU64::new(0));
        let mut stitcher = Stitcher::default();
        let (mut pos, mut seq) = (start, 0usize);
        // Absolute offset from which the end tag is looked for.
        let mut looked = self.w.base + start as u64;
        let key = self.tables_read;
        self.tables_read += 1;
        // Tables sent earlier that are back: filed now, so that their
        // buffers are reused.
        let back = pool.take_done();
        self.file(back, key, &mut stitcher);
        loop {
            let (data, base, eof) = (self.w.data(), self.w.base, self.w.eof);
            let from = usize::try_from(looked.checked_sub(base)?).ok()?.max(pos);
            let end_tag = memmem::find(data.get(from..)?, TABLE_END).map(|i| from + i);
            let seen = data.len().saturating_sub(TABLE_END.len() - 1).max(from);
            looked = base + seen as u64;
            match end_tag {
                // Small tables are not worth a hand-over (65,537 empty
                // tables took 2.4 s sent one by one), and while every
                // parser is busy this thread parses the next one itself,
                // from the window (no copy).
                Some(e) if seq == 0 && (e - pos < SEND_MIN || pool.busy()) => {
                    return self.table_serial(pos, false).ok();
                }
                Some(e) if seq == 0 => {
                    let upto = e + TABLE_END.len();
                    self.send(pool, (key, 0), pos..upto, budget)?;
                    self.sent += 1;
                    return Some(Got::Sent(upto));
                }
                Some(_) => {
                    let last = parse_chunk(data, pos, self.cfg, false, &budget);
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
                None => match block_end(data, pos, eof) {
                    Some(e) if e - pos >= target => {
                        self.send(pool, (key, seq), pos..e, Arc::clone(&budget))?;
                        self.w.full_sized();
                        seq += 1;
                        self.chunks += 1;
                        pos = e;
                        if self.file(pool.take_done(), key, &mut stitcher) {
                            return None;
                        }
                    }
                    _ => {}
                },
            }
            self.advance(&mut pos, "").ok()?;
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

    /// Copies `range` of the window into a unit (table key and position;
    /// position 0 starts at the table's start tag) and queues it on
    /// `pool`.
    fn send(
        &mut self,
        pool: Units<'_, '_, 'l>,
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
            cfg: self.cfg,
            budget,
        });
        Some(())
    }
}

/// The result of a table sent whole, when it is one: it closed at the
/// end tag found for it, where the outline went on.
fn whole_table(res: Result<Partial>, bytes: &[u8]) -> Option<Partial> {
    let p = res.ok()?;
    (p.walk.closed && p.table.end == bytes.len()).then_some(p)
}

/// A table read over the window.
enum Got {
    /// Parsed (stitched); the outline goes on from this position.
    Done(Box<Partial>, usize),
    /// Sent whole to the pool; the outline goes on from this position
    /// (past its end tag), checked when the result comes.
    Sent(usize),
}

/// Reads `content.xml` of `archive` (entry `entry`) loaded, on
/// `opts.effective_threads` threads (at most one per core): with two or
/// more, one inflates ahead ([`Window`] piped), this one walks and parses,
/// and the rest are the pool's parsers. The archive's inflate budget is
/// charged once whatever the number of passes.
pub(super) fn read(archive: &Archive, entry: &Entry, opts: &OpenOptions) -> Result<Windowed> {
    let t0 = Instant::now();
    // Threads beyond the cores add switching, not speed (giant.ods on 2
    // cores: 4 threads 1.3x the time of 2).
    let threads = opts.effective_threads(opts.cores());
    let (piped, workers) = (threads > 1, threads.saturating_sub(2));
    if workers > 0 {
        let w = Window::new(archive, entry, PART, opts.stream_block, piped)?;
        let chunk = opts.chunk_bytes.max(1);
        let repeats = AtomicU64::new(0);
        let (res, threads) = pool::run(workers, parse_job, |pool| {
            read_from(w, opts, t0, Mode::Pool(pool, chunk), &repeats)
        });
        if let Ok(mut res) = res {
            res.stats.threads = threads;
            return Ok(res);
        }
        // A chunk cut where rows are grouped or tables nested, or an
        // error: again with every table parsed here (the inflater running
        // ahead on a thread of its own).
        archive.refund(entry);
    }
    let w = Window::new(archive, entry, PART, opts.stream_block, piped)?;
    let mut res = read_from(w, opts, t0, Mode::Serial, &AtomicU64::new(0))?;
    res.stats.chunk_fallbacks = u64::from(workers > 0);
    Ok(res)
}

/// One pass over the window `w` (see the module doc); `repeats` counts
/// what repeat counts add (zero at the start).
pub(super) fn read_from<'l>(
    mut w: Window,
    opts: &'l OpenOptions,
    t0: Instant,
    mode: Mode<'_, '_, 'l>,
    repeats: &'l AtomicU64,
) -> Result<Windowed> {
    let limits = &opts.limits;
    let max_depth = limits.max_xml_depth;
    let (pool, stop) = match mode {
        Mode::Serial => (None, None),
        Mode::Pool(pool, chunk) => (Some((pool, chunk)), None),
        Mode::List(stop) => (None, Some(stop)),
    };
    let max_span = if pool.is_some() { MAX_SPAN } else { usize::MAX };
    let prelude = window_prelude(&mut w, max_depth, max_span).map_err(|e| e.in_part(PART))?;
    let prelude_s = t0.elapsed().as_secs_f64();
    let cfg = TableCfg {
        limits,
        depth_left: max_depth.saturating_sub(prelude.depth.saturating_add(1)),
        repeats,
    };
    let mut r = Reader {
        w,
        cfg,
        pool,
        spare: Vec::new(),
        chunks: 0,
        tables_read: 0,
        sent: 0,
        whole_done: Vec::new(),
    };
    let child_left = max_depth.saturating_sub(prelude.depth);
    let mut pos = prelude.body;
    let (mut partials, mut starts, mut names, mut scratch) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut stopped = false;
    let pass: Result<()> = loop {
        let (base, eof) = (r.w.base, r.w.eof);
        let tag = match outline_step(r.w.data(), pos, child_left, &mut names, &mut scratch) {
            Ok(Outline::At(p)) => {
                pos = p;
                continue;
            }
            Ok(Outline::End) => break Ok(()),
            Ok(Outline::Table(tag)) => tag,
            Err(e) if e.truncated && !eof => match r.advance(&mut pos, "") {
                Ok(()) => continue,
                Err(e) => break Err(e),
            },
            Err(e) => break Err(e.offset_by(base).in_part(PART)),
        };
        if starts.len() == MAX_TABLES {
            let e = Error::limit(format!("content.xml holds more than {MAX_TABLES} tables"));
            break Err(e.at_offset(base + tag.start as u64).in_part(PART));
        }
        starts.push(base + tag.start as u64);
        if let Some(stop) = stop {
            let (name, style) = match name_and_style(&tag, &mut scratch) {
                Ok(ns) => ns,
                Err(e) => break Err(e.offset_by(base).in_part(PART)),
            };
            if stop(partials.len(), &name) {
                let table = ParsedTable {
                    name,
                    style,
                    ..ParsedTable::default()
                };
                let walk = Carry::default();
                partials.push(Some(Partial { table, walk }));
                stopped = true;
                break Ok(());
            }
        }
        let start = tag.start;
        let got = match r.pool {
            Some((pool, target)) => r.table_in_chunks(start, pool, target).ok_or_else(give_up),
            None => r
                .table_serial(start, stop.is_some())
                .inspect(|_| r.tables_read += 1),
        };
        let (p, next) = match got {
            Ok(Got::Done(p, end)) => (Some(*p), end),
            Ok(Got::Sent(next)) => (None, next),
            Err(e) => break Err(e.in_part(PART)),
        };
        partials.push(p);
        pos = next;
    };
    if r.pool.is_some() && pass.is_err() {
        // The serial read gives the error; the rest is not inflated twice.
        return Err(give_up());
    }
    if stop.is_none() {
        // The part's size and CRC are checked at its end.
        while !r.w.eof {
            r.w.advance(r.w.data().len())?;
        }
    }
    if r.pool.is_some() {
        r.collect(&mut partials).ok_or_else(give_up)?;
    }
    let inflated = r.w.base + r.w.data().len() as u64;
    let inflate_s = r.w.inflate_s;
    let mut tables = Vec::with_capacity(partials.len());
    // What repeats added, table by table in document order.
    let mut added = 0;
    for (k, p) in partials.into_iter().enumerate() {
        let p = p.ok_or_else(give_up)?;
        if stop.is_some() {
            tables.push(p.table);
            continue;
        }
        if r.pool.is_some() && p.walk.used > limits.max_cells_per_sheet {
            return Err(give_up());
        }
        let sheet = match p.table.name.is_empty() {
            true => format!("#{}", k + 1),
            false => p.table.name.clone(),
        };
        let t = finish_table(p, limits, &mut added);
        tables.push(t.map_err(|e| e.in_sheet(sheet).in_part(PART))?);
    }
    pass?;
    Ok(Windowed {
        tables,
        names,
        hidden_styles: prelude.hidden_styles,
        stats: OpenStats {
            phase_a_s: prelude_s,
            inflate_s,
            threads: 1,
            inflated_bytes: inflated,
            chunks: r.chunks + r.sent,
            windowed: stop.is_none(),
            ..OpenStats::default()
        },
        starts,
        depth: prelude.depth,
        window: stopped.then_some(r.w),
    })
}
