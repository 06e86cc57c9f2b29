//! Parallel parsing inside one big sheet.
//!
//! The worker that takes a big sheet becomes its *chunker*: it inflates the
//! part incrementally, reads the head, and cuts the rows into chunks of
//! `OpenOptions::tune_chunk_bytes` (4 MiB) at `</row>` boundaries. Chunks
//! go onto a board shared by all workers of the open; any worker without a
//! sheet of its own parses them (a fresh parser per chunk, rows numbered
//! relative to the chunk until an explicit row number appears). The
//! chunker joins the results in order as they arrive, so the chunk outputs
//! never pile up: relative rows get the previous chunk's next row added,
//! string and formula offsets move to the joined arena, and shared-formula
//! children whose master sat in an earlier chunk are expanded from the
//! masters exported so far. A worker that takes the chunk next in order
//! while nobody is joining parses it straight onto the joined rows instead
//! (no copy; see `Board::join_in_place`).
//!
//! Back-pressure: the chunker never has more than `2 x threads` chunks in
//! flight; when it would, it parses one itself. The board's lock is taken
//! once per chunk, never per cell.
//!
//! A cut that fell inside a comment or CDATA that happened to contain
//! `</row>` makes a chunk fail as truncated; the sheet is then parsed again
//! sequentially, so the result is the same either way. Any other malformed
//! chunk falls back the same way, so a broken sheet gives the sequential
//! parse's cells or error, never one that depends on where it was cut.

use crate::error::{Error, Result};
use crate::formula::shift_formula;
use crate::open::Package;
use crate::store::{AUX_FORMULA, CellStore, FormulaRec, RawCell, T_EMPTY, T_INLINE};
use crate::worksheet::{ChunkOut, JoinedSoFar, ParsedSheet, SheetCtx, SheetParser, last_row_end};
use ream_zip::Entry;
use std::collections::{HashMap, VecDeque};
use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, TryLockError};
use std::time::{Duration, Instant};

/// Sheets of at least this many chunks are parsed in chunks when more than
/// one thread is available.
pub(crate) const MIN_CHUNKS: u64 = 4;

/// One chunk waiting to be parsed.
pub(crate) struct ChunkTask<'a> {
    sheet: usize,
    seq: usize,
    bytes: ChunkBuf,
    offset: u64,
    last: bool,
    ctx: SheetCtx<'a>,
    /// The sheet's joiner: whoever parses the chunk next in order joins.
    join: Arc<JoinShared>,
}

/// A big sheet's join state, shared by its chunker and the workers.
///
/// Joining (copying a chunk's cells into the sheet's store, which faults in
/// that store's pages) is done by the worker that finishes the chunk next
/// in order, not by the chunker: the chunker is the thread that also
/// inflates, and joining there keeps it busy ~100 % while a helper idles
/// ~50 % (`mixed`, perf, 2 threads). The inflater only inflates unless
/// back-pressure makes it parse.
struct JoinShared {
    state: Mutex<JoinState>,
    /// Chunks joined so far (mirrors `JoinState::joined`, read lock-free).
    joined: AtomicUsize,
    /// A join failed (mirrors `JoinState::failed.is_some()`).
    failed: AtomicBool,
}

struct JoinState {
    joiner: Joiner,
    joined: usize,
    failed: Option<Error>,
}

struct BoardState<'a> {
    tasks: VecDeque<ChunkTask<'a>>,
    /// Chunkers still producing.
    chunkers: usize,
    /// Per sheet: chunks pushed but not finished.
    in_flight: HashMap<usize, usize>,
    /// Per sheet: finished chunk results by sequence number.
    done: HashMap<usize, HashMap<usize, Result<ChunkOut>>>,
}

/// The work shared by the workers of one open.
pub(crate) struct Board<'a> {
    state: Mutex<BoardState<'a>>,
    cv: Condvar,
    /// Nanoseconds spent parsing chunks, all workers.
    pub parse_ns: AtomicU64,
    /// Chunks parsed.
    pub chunks: AtomicU64,
    /// Sheets that fell back to the sequential parse.
    pub fallbacks: AtomicU64,
    /// Buffers of joined chunks, reused by the next chunk parsers.
    spare: Mutex<Vec<Spare>>,
    /// Inflated-XML buffers of parsed chunks, reused by the chunkers.
    spare_xml: Mutex<Vec<ChunkBuf>>,
}

/// Inflated XML of one chunk. The vector stays fully initialised (its
/// length only grows), `filled` says how much of it is XML: a recycled
/// buffer is neither zeroed again nor faulted in again, which kept ~100 k
/// page faults and a 400 MB memset per giant sheet off the inflating thread.
#[derive(Default)]
struct ChunkBuf {
    data: Vec<u8>,
    filled: usize,
}

impl ChunkBuf {
    fn xml(&self) -> &[u8] {
        self.data.get(..self.filled).unwrap_or_default()
    }
}

/// A chunk's cell vector and text arena, emptied, for reuse.
type Spare = (Vec<RawCell>, Vec<u8>);

impl<'a> Board<'a> {
    /// A board expecting `chunkers` big sheets to be chunked.
    pub(crate) fn new(chunkers: usize) -> Board<'a> {
        Board {
            state: Mutex::new(BoardState {
                tasks: VecDeque::new(),
                chunkers,
                in_flight: HashMap::new(),
                done: HashMap::new(),
            }),
            cv: Condvar::new(),
            parse_ns: AtomicU64::new(0),
            chunks: AtomicU64::new(0),
            fallbacks: AtomicU64::new(0),
            spare: Mutex::new(Vec::new()),
            spare_xml: Mutex::new(Vec::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BoardState<'a>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn push(&self, task: ChunkTask<'a>) {
        let mut st = self.lock();
        *st.in_flight.entry(task.sheet).or_insert(0) += 1;
        st.tasks.push_back(task);
        drop(st);
        self.cv.notify_one();
    }

    fn pop(&self) -> Option<ChunkTask<'a>> {
        self.lock().tasks.pop_front()
    }

    /// Parses one chunk and files its result; the chunk next in order is
    /// parsed straight into the sheet's joined rows when it can be
    /// ([`join_in_place`](Self::join_in_place)).
    fn run(&self, task: ChunkTask<'a>) {
        let t = Instant::now();
        let res = if self.join_in_place(&task) {
            None
        } else {
            Some(self.parse_alone(&task))
        };
        self.give_back_xml(task.bytes);
        self.parse_ns
            .fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
        self.chunks.fetch_add(1, Ordering::Relaxed);
        let mut st = self.lock();
        if let Some(n) = st.in_flight.get_mut(&task.sheet) {
            *n = n.saturating_sub(1);
        }
        if let Some(res) = res {
            st.done.entry(task.sheet).or_default().insert(task.seq, res);
        }
        drop(st);
        self.cv.notify_all();
        self.try_join(task.sheet, &task.join);
    }

    /// Parses a chunk into buffers of its own, joined later.
    fn parse_alone(&self, task: &ChunkTask<'a>) -> Result<ChunkOut> {
        check_cut(task.bytes.xml())?;
        let (cells, arena) = self.take_spare();
        let mut p = SheetParser::for_chunk(task.ctx)
            .starting_at(task.offset)
            .with_buffers(cells, arena)
            .reserve_for(task.bytes.filled as u64);
        p.feed(task.bytes.xml(), true)?;
        p.finish_chunk(task.last)
    }

    /// When `task` is the next chunk of its sheet in order and no thread
    /// is joining that sheet, parses it straight into the joined rows and
    /// returns true: its cells are never copied (the copy at the join and
    /// the page faults of the chunk's own buffers cost ~4 % of a
    /// two-thread open of `mixed`, perf). Only while no shared-formula
    /// master has been joined: a continuing parser does not know them.
    /// The join lock is held while parsing; a thread finishing a later
    /// chunk meanwhile files it, and it is joined right after.
    fn join_in_place(&self, task: &ChunkTask<'a>) -> bool {
        let Ok(mut g) = task.join.state.try_lock() else {
            return false;
        };
        if g.joined != task.seq || g.failed.is_some() || !g.joiner.masters.is_empty() {
            return false;
        }
        match g
            .joiner
            .parse_next(task.ctx, task.offset, task.bytes.xml(), task.last)
        {
            Ok(()) => g.joined += 1,
            Err(e) => g.failed = Some(e),
        }
        task.join.joined.store(g.joined, Ordering::Release);
        task.join
            .failed
            .store(g.failed.is_some(), Ordering::Release);
        true
    }

    /// Joins every finished chunk of `sheet` that is next in order, unless
    /// another thread is joining that sheet right now (it re-checks for
    /// newly finished chunks after letting go, so none is left behind).
    fn try_join(&self, sheet: usize, join: &JoinShared) {
        loop {
            let mut g = match join.state.try_lock() {
                Ok(g) => g,
                Err(TryLockError::Poisoned(p)) => p.into_inner(),
                Err(TryLockError::WouldBlock) => return,
            };
            let before = g.joined;
            while g.failed.is_none() {
                let Some(res) = self.take_done(sheet, g.joined) else {
                    break;
                };
                match res.and_then(|c| g.joiner.add(c)) {
                    Ok(spare) => {
                        self.give_back(spare);
                        g.joined += 1;
                    }
                    Err(e) => g.failed = Some(e),
                }
            }
            let (next, failed) = (g.joined, g.failed.is_some());
            join.joined.store(next, Ordering::Release);
            join.failed.store(failed, Ordering::Release);
            drop(g);
            if next != before || failed {
                // Taking the board lock orders this update before any
                // waiter's check, so the notification is not lost.
                drop(self.lock());
                self.cv.notify_all();
            }
            if failed || !self.has_done(sheet, next) {
                return;
            }
        }
    }

    fn has_done(&self, sheet: usize, seq: usize) -> bool {
        self.lock()
            .done
            .get(&sheet)
            .is_some_and(|d| d.contains_key(&seq))
    }

    /// Cell and text buffers of a joined chunk, kept for the next chunk
    /// parser so their pages are not faulted in again (at most 8 kept).
    fn give_back(&self, spare: Spare) {
        let mut pool = self.spare.lock().unwrap_or_else(|p| p.into_inner());
        if pool.len() < 8 {
            pool.push(spare);
        }
    }

    /// Keeps a parsed chunk's XML buffer for the chunker (at most 16).
    fn give_back_xml(&self, buf: ChunkBuf) {
        let mut pool = self.spare_xml.lock().unwrap_or_else(|p| p.into_inner());
        if pool.len() < 16 {
            pool.push(buf);
        }
    }

    fn take_xml(&self) -> ChunkBuf {
        self.spare_xml
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop()
            .unwrap_or_default()
    }

    fn take_spare(&self) -> Spare {
        self.spare
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop()
            .unwrap_or_default()
    }

    /// For a worker with no sheet left: parses a chunk if one is waiting.
    /// Returns false when there is nothing left to do at all.
    pub(crate) fn help(&self, failed: &std::sync::atomic::AtomicBool) -> bool {
        let mut st = self.lock();
        loop {
            if failed.load(Ordering::Relaxed) {
                return false;
            }
            if let Some(task) = st.tasks.pop_front() {
                drop(st);
                self.run(task);
                return true;
            }
            if st.chunkers == 0 {
                return false;
            }
            st = self
                .cv
                .wait_timeout(st, Duration::from_millis(50))
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    fn in_flight(&self, sheet: usize) -> usize {
        self.lock().in_flight.get(&sheet).copied().unwrap_or(0)
    }

    fn take_done(&self, sheet: usize, seq: usize) -> Option<Result<ChunkOut>> {
        self.lock().done.get_mut(&sheet)?.remove(&seq)
    }
}

/// Joins chunk outputs in order into one sheet.
#[derive(Default)]
struct Joiner {
    store: CellStore,
    hidden_rows: Vec<u32>,
    next_row: u32,
    last_key: u64,
    unsorted: bool,
    masters: HashMap<u32, (u32, u32, Vec<u8>)>,
    tail: Vec<u8>,
    warnings: Vec<Error>,
    scratch: Vec<u8>,
    /// Formula text joined so far (each chunk's own, plus the shared
    /// formulas expanded here), against `max_formula_bytes`.
    formula_bytes: u64,
    max_formula_bytes: u64,
    /// `max_cells_per_sheet`: each chunk's parser counts only its own.
    max_cells: u64,
}

impl Joiner {
    /// Counts `n` more bytes of formula text. Each chunk's parser counts
    /// only its own formulas from zero, and expansions made here are
    /// counted by nobody else, so the sheet's total is checked here.
    /// Every formula pushed counts (the sequential parse also subtracts
    /// duplicates it replaces, so this total is never below its count):
    /// past the limit the sheet is parsed again sequentially, which gives
    /// the exact error (cell and offset) or, when duplicates bring it
    /// back under, the cells.
    fn count_formula(&mut self, n: u64) -> Result<()> {
        self.formula_bytes = self.formula_bytes.saturating_add(n);
        if self.formula_bytes > self.max_formula_bytes {
            // Malformed: the chunker falls back to the sequential parse.
            return Err(Error::malformed(
                "formula text over max_formula_bytes once chunks are joined",
            ));
        }
        Ok(())
    }

    /// Appends a chunk's cells that all carry their own row numbers and
    /// come in order (the usual case): one copy, then the text offsets
    /// moved, instead of the per-cell shift of `add` (which costs 2.5 % of
    /// a two-thread open of `mixed`). Same result as that loop: the order is
    /// checked at the seam and the grid on the last row.
    fn append_sorted(&mut self, cells: &[RawCell], arena_base: u64) -> Result<()> {
        let key = |c: &RawCell| ((u64::from(c.row) << 16) | u64::from(c.col)) + 1;
        let (Some(first), Some(last)) = (cells.first(), cells.last()) else {
            return Ok(());
        };
        if last.row > crate::refs::MAX_ROW {
            return Err(Error::malformed(format!(
                "row {} lies beyond Excel's grid",
                u64::from(last.row) + 1
            )));
        }
        self.unsorted |= key(first) <= self.last_key;
        self.last_key = key(last);
        let from = self.store.cells.len();
        self.store.cells.extend_from_slice(cells);
        if arena_base > 0 {
            for cell in self.store.cells.get_mut(from..).unwrap_or_default() {
                if cell.tag == T_INLINE {
                    cell.bits += arena_base << 32;
                }
            }
        }
        Ok(())
    }

    /// Keeps a joined chunk's tail (what followed `</sheetData>`, on the
    /// last chunk) and its warning.
    fn keep(&mut self, tail: Vec<u8>, warning: Option<Error>) {
        if !tail.is_empty() {
            self.tail = tail;
        }
        self.warnings.extend(warning);
    }

    /// Parses the chunk next in order straight onto the rows joined so far
    /// (see `Board::join_in_place`); same result as parsing it alone and
    /// joining it with [`add`](Self::add).
    fn parse_next(&mut self, ctx: SheetCtx<'_>, offset: u64, xml: &[u8], last: bool) -> Result<()> {
        check_cut(xml)?;
        let so_far = JoinedSoFar {
            store: std::mem::take(&mut self.store),
            hidden_rows: std::mem::take(&mut self.hidden_rows),
            next_row: self.next_row,
            last_key: self.last_key,
            unsorted: self.unsorted,
            formula_bytes: self.formula_bytes,
        };
        let mut p = SheetParser::continuing(ctx, so_far).starting_at(offset);
        p.feed(xml, true)?;
        let c = p.finish_chunk(last)?;
        self.store = c.store;
        self.hidden_rows = c.hidden_rows;
        self.next_row = c.next_row;
        self.last_key = c.last_key;
        self.unsorted = c.unsorted;
        self.formula_bytes = c.formula_bytes;
        for m in c.masters {
            self.masters.insert(m.si, (m.row, m.col, m.text));
        }
        self.keep(c.tail, c.warning);
        Ok(())
    }

    /// Appends one chunk; hands back its cell and text buffers for reuse.
    fn add(&mut self, mut c: ChunkOut) -> Result<Spare> {
        let base = self.next_row;
        let arena_base = self.store.arena.len() as u64;
        if arena_base + c.store.arena.len() as u64 > u64::from(u32::MAX) {
            return Err(Error::limit("cell text of one sheet exceeds 4 GiB"));
        }
        // Relative rows past the grid: the sequential parse errors at the
        // first cell there even when it holds no value (fuzz finding, test
        // `fuzz_regressions::relative_rows_past_the_grid_in_a_later_chunk`);
        // a malformed join falls back to it.
        if u64::from(base) + u64::from(c.rel_rows) > u64::from(crate::refs::MAX_ROW) + 1 {
            return Err(Error::malformed("relative rows run past Excel's grid"));
        }
        let first_cell = self.store.cells.len();
        if (first_cell + c.store.cells.len()) as u64 > self.max_cells {
            // The sequential parse (the fallback) names the cell.
            return Err(Error::limit(
                "cells of the joined chunks over max_cells_per_sheet",
            ));
        }
        let shift = |row: u32, rel: bool| -> Result<u32> {
            let r = if rel { row.saturating_add(base) } else { row };
            if r > crate::refs::MAX_ROW {
                return Err(Error::malformed(format!(
                    "row {} lies beyond Excel's grid",
                    u64::from(r) + 1
                )));
            }
            Ok(r)
        };
        if c.rel_cells == 0 && !c.unsorted {
            self.append_sorted(&c.store.cells, arena_base)?;
        } else {
            for (i, cell) in c.store.cells.iter().enumerate() {
                let mut cell = *cell;
                cell.row = shift(cell.row, i < c.rel_cells)?;
                if cell.tag == T_INLINE {
                    cell.bits += arena_base << 32;
                }
                let key = ((u64::from(cell.row) << 16) | u64::from(cell.col)) + 1;
                self.unsorted |= key <= self.last_key;
                self.last_key = key;
                self.store.cells.push(cell);
            }
        }
        self.unsorted |= c.unsorted;
        self.store.arena.extend_from_slice(&c.store.arena);
        let first_formula = self.store.formulas.len();
        let own: u64 = c.store.formulas.iter().map(|f| u64::from(f.len)).sum();
        self.count_formula(own)?;
        for (i, f) in c.store.formulas.iter().enumerate() {
            self.store.formulas.push(FormulaRec {
                row: shift(f.row, i < c.rel_formulas)?,
                off: f.off + arena_base as u32,
                ..*f
            });
        }
        for (i, &h) in c.hidden_rows.iter().enumerate() {
            self.hidden_rows.push(shift(h, i < c.rel_hidden)?);
        }
        // Children whose master came earlier: each names its cell (already
        // flagged) and its empty formula record (row already shifted), so
        // another copy of the cell at the same place is never touched and
        // the expansion keeps its place among the chunk's formulas, as in
        // the sequential parse (test
        // `fuzz_regressions::duplicate_cells_around_a_pending_shared_child`;
        // a search by position flagged the wrong copy, and missed the
        // child in an unsorted chunk: test
        // `fuzz_regressions::shared_formula_child_in_an_unsorted_row_of_a_later_chunk`).
        // Without a master the sequential parse records nothing: the record
        // goes and the cell loses its flag, or, when the formula was all
        // it had (`T_EMPTY`), the cell goes too.
        let mut orphans: Vec<usize> = Vec::new();
        let mut orphan_cells: Vec<usize> = Vec::new();
        for p in &c.pending {
            let at = first_formula + p.formula;
            let Some(rec) = self.store.formulas.get(at).copied() else {
                continue;
            };
            let Some((mrow, mcol, text)) = self.masters.get(&p.si) else {
                orphans.push(at);
                if let Some(cell) = self.store.cells.get_mut(first_cell + p.cell) {
                    cell.aux &= !AUX_FORMULA;
                    if cell.tag == T_EMPTY {
                        orphan_cells.push(first_cell + p.cell);
                    }
                }
                continue;
            };
            self.scratch.clear();
            let (drow, dcol) = (
                i64::from(rec.row) - i64::from(*mrow),
                i64::from(rec.col) - i64::from(*mcol),
            );
            shift_formula(text, drow, dcol, &mut self.scratch);
            self.count_formula(self.scratch.len() as u64)?;
            if (self.store.arena.len() + self.scratch.len()) as u64 > u64::from(u32::MAX) {
                return Err(Error::limit("cell text of one sheet exceeds 4 GiB"));
            }
            let off = self.store.arena.len() as u32;
            self.store.arena.extend_from_slice(&self.scratch);
            if let Some(f) = self.store.formulas.get_mut(at) {
                f.off = off;
                f.len = self.scratch.len() as u32;
            }
        }
        // Pending records (and their cells) come in order; only this
        // chunk's are walked.
        drop_indices(&mut self.store.formulas, first_formula, &orphans);
        drop_indices(&mut self.store.cells, first_cell, &orphan_cells);
        for m in c.masters {
            let row = shift(m.row, m.rel)?;
            self.masters.insert(m.si, (row, m.col, m.text));
        }
        self.next_row = if c.abs_seen {
            c.next_row
        } else {
            base.saturating_add(c.next_row)
        };
        self.keep(c.tail, c.warning);
        Ok((
            std::mem::take(&mut c.store.cells),
            std::mem::take(&mut c.store.arena),
        ))
    }
}

/// Removes the items at `drop` (ascending indices, all at or past
/// `from`) from `v`, keeping the order of the rest.
fn drop_indices<T>(v: &mut Vec<T>, from: usize, drop: &[usize]) {
    if drop.is_empty() {
        return;
    }
    let mut next = drop.iter().copied().peekable();
    let tail = v.split_off(from.min(v.len()));
    for (i, item) in tail.into_iter().enumerate() {
        if next.next_if_eq(&(from + i)).is_none() {
            v.push(item);
        }
    }
}

/// A truncated error unless `xml`, a chunk, starts at a row boundary
/// ([`starts_at_row_boundary`]): the sheet is then parsed sequentially.
fn check_cut(xml: &[u8]) -> Result<()> {
    if starts_at_row_boundary(xml) {
        return Ok(());
    }
    let mut e = Error::malformed("a chunk boundary fell inside markup");
    e.truncated = true;
    Err(e)
}

/// True when `xml`, a chunk, starts where `<sheetData>` allows: at a
/// `<row`, at `</sheetData>`, a comment or a processing instruction (after
/// whitespace), or is empty. Anything else means the cut `</row>` was text
/// inside broken markup, where the sequential parse reads on differently
/// (fuzz finding, test
/// `fuzz_regressions::chunked_open_agrees_with_serial_on_a_row_end_inside_a_row_tag`):
/// the sheet is then parsed sequentially.
fn starts_at_row_boundary(xml: &[u8]) -> bool {
    let Some(lt) = xml.iter().position(|b| !b.is_ascii_whitespace()) else {
        return true;
    };
    let rest = xml.get(lt..).unwrap_or_default();
    if rest.starts_with(b"<!--") || rest.starts_with(b"<?") {
        return true;
    }
    let (end, name_at) = match rest {
        [b'<', b'/', ..] => (true, 2),
        [b'<', ..] => (false, 1),
        _ => return false,
    };
    let name = rest.get(name_at..).unwrap_or_default();
    let len = name
        .iter()
        .position(|&b| matches!(b, b'>' | b'/') || b.is_ascii_whitespace())
        .unwrap_or(name.len());
    let name = name.get(..len).unwrap_or_default();
    let local = name.rsplit(|&b| b == b':').next().unwrap_or_default();
    local == if end { &b"sheetData"[..] } else { b"row" }
}

/// Parses a big sheet in chunks on the board. Returns `Ok(None)` when a
/// chunk boundary fell inside markup (the caller then parses sequentially).
pub(crate) fn parse_chunked<'a>(
    pkg: &'a Package,
    entry: &Entry,
    ctx: SheetCtx<'a>,
    sheet: usize,
    board: &Board<'a>,
    max_in_flight: usize,
    chunk: usize,
) -> (Result<Option<ParsedSheet>>, f64) {
    let out = chunk_and_join(pkg, entry, ctx, sheet, board, max_in_flight, chunk);
    {
        let mut st = board.lock();
        st.chunkers = st.chunkers.saturating_sub(1);
        st.done.remove(&sheet);
    }
    board.cv.notify_all();
    out
}

fn chunk_and_join<'a>(
    pkg: &'a Package,
    entry: &Entry,
    ctx: SheetCtx<'a>,
    sheet: usize,
    board: &Board<'a>,
    max_in_flight: usize,
    chunk: usize,
) -> (Result<Option<ParsedSheet>>, f64) {
    let mut inflate_s = 0.0;
    let step = chunk.min(1 << 20);
    let mut reader = match pkg.archive.stream(entry) {
        Ok(r) => r,
        Err(e) => return (Err(e.into()), 0.0),
    };
    let finder = memchr::memmem::FinderRev::new(b"row>");
    let mut head = SheetParser::new(ctx).stop_after_head();
    let mut acc = ChunkBuf::default();
    let mut offset = 0u64;
    let mut eof = false;
    // Head pass.
    while !head.head_done() && !eof {
        let (n, t) = read_more(&mut reader, &mut acc, step);
        inflate_s += t;
        let n = match n {
            Ok(n) => n,
            Err(e) => return (Err(e), inflate_s),
        };
        eof = n == 0;
        if offset == 0 && crate::encoding::is_utf16(acc.xml()) {
            // UTF-16 (legal, rare): the sequential path transcodes the part
            // whole; chunks cut raw UTF-16 would be misread (fuzz finding,
            // test `fuzz_regressions::utf16_sheet_reads_the_same_every_way`).
            board.fallbacks.fetch_add(1, Ordering::Relaxed);
            return (Ok(None), inflate_s);
        }
        match head.feed(acc.xml(), eof) {
            Ok(used) => {
                acc.data.copy_within(used..acc.filled, 0);
                acc.filled -= used.min(acc.filled);
                offset += used as u64;
            }
            Err(e) => return (Err(e), inflate_s),
        }
    }
    let (head_bytes, dimension, has_data) = head.take_head();
    let mut joiner = Joiner {
        store: CellStore {
            date_1904: ctx.date_1904,
            ..CellStore::default()
        },
        hidden_rows: Vec::new(),
        next_row: 0,
        last_key: 0,
        unsorted: false,
        masters: HashMap::new(),
        tail: Vec::new(),
        warnings: Vec::new(),
        scratch: Vec::new(),
        formula_bytes: 0,
        max_formula_bytes: ctx.limits.max_formula_bytes,
        max_cells: ctx.limits.max_cells_per_sheet,
    };
    if !has_data {
        // An empty sheet (or `<sheetData/>`): let the sequential parser
        // handle the rest, including the tail checks.
        return (Ok(None), inflate_s);
    }
    let want = (entry.uncompressed_size / 24).min(1 << 26);
    let _ = joiner
        .store
        .cells
        .try_reserve(usize::try_from(want).unwrap_or(0));
    ream_io::advise_huge_pages(&joiner.store.cells);
    let join = Arc::new(JoinShared {
        state: Mutex::new(JoinState {
            joiner,
            joined: 0,
            failed: None,
        }),
        joined: AtomicUsize::new(0),
        failed: AtomicBool::new(false),
    });
    let mut seq = 0usize;
    loop {
        // Fill to a chunk.
        while acc.filled < chunk && !eof {
            let (n, t) = read_more(&mut reader, &mut acc, step);
            inflate_s += t;
            match n {
                Ok(n) => eof = n == 0,
                Err(e) => return (Err(e), inflate_s),
            }
            pkg.archive.release(entry, reader.consumed());
        }
        let cut = if eof {
            Some(acc.filled)
        } else {
            last_row_end(&finder, acc.xml())
        };
        let Some(cut) = cut else {
            // No row end yet in a full chunk: read more into it.
            let (n, t) = read_more(&mut reader, &mut acc, step);
            inflate_s += t;
            match n {
                Ok(n) => eof = n == 0,
                Err(e) => return (Err(e), inflate_s),
            }
            continue;
        };
        // The chunk keeps the big buffer; the carried partial row moves to a
        // fresh buffer sized for the next chunk (no regrowth copies).
        let mut rest = board.take_xml();
        let carry = acc.xml().get(cut..).unwrap_or_default();
        if rest.data.len() < carry.len() {
            rest.data.resize(carry.len(), 0);
        }
        if let Some(dst) = rest.data.get_mut(..carry.len()) {
            dst.copy_from_slice(carry);
        }
        rest.filled = carry.len();
        acc.filled = cut;
        let bytes = std::mem::replace(&mut acc, rest);
        let len = bytes.filled as u64;
        board.push(ChunkTask {
            sheet,
            seq,
            bytes,
            offset,
            last: eof,
            ctx,
            join: Arc::clone(&join),
        });
        offset += len;
        seq += 1;
        // Back-pressure: parse chunks ourselves while too many are queued.
        while board.in_flight(sheet) >= max_in_flight {
            match board.pop() {
                Some(t) => board.run(t),
                None => break,
            }
        }
        if eof || join.failed.load(Ordering::Acquire) {
            break;
        }
    }
    // Help until every chunk of this sheet is parsed and joined.
    loop {
        board.try_join(sheet, &join);
        if join.failed.load(Ordering::Acquire) || join.joined.load(Ordering::Acquire) >= seq {
            break;
        }
        if let Some(t) = board.pop() {
            board.run(t);
        } else {
            let st = board.lock();
            let joined = join.joined.load(Ordering::Acquire);
            let ready = st.done.get(&sheet).is_some_and(|d| d.contains_key(&joined));
            if !ready && !join.failed.load(Ordering::Acquire) && joined < seq {
                let _ = board.cv.wait_timeout(st, Duration::from_millis(20));
            }
        }
    }
    // Let queued chunks of this sheet drain before leaving (after a failure
    // some may still be queued or parsing).
    while board.in_flight(sheet) > 0 {
        match board.pop() {
            Some(t) => board.run(t),
            None => std::thread::yield_now(),
        }
    }
    let state = {
        let mut g = join.state.lock().unwrap_or_else(|p| p.into_inner());
        std::mem::replace(
            &mut *g,
            JoinState {
                joiner: Joiner::default(),
                joined: 0,
                failed: None,
            },
        )
    };
    if let Some(e) = state.failed {
        // Malformed markup falls back too: a `</row>` inside a broken tag
        // cuts a chunk where the sequential parse would not, and the
        // result (cells or error) must not depend on chunking (fuzz
        // finding, test `fuzz_regressions::chunked_open_agrees_with_serial_on_a_row_end_inside_a_tag`).
        // A limit a chunk hit on its own counts from that chunk's start
        // (formula bytes) and may sit later than where the sequential
        // parse stops: that one falls back as well, for the exact error.
        if e.truncated
            || matches!(
                e.kind(),
                crate::error::ErrorKind::Malformed | crate::error::ErrorKind::LimitExceeded
            )
        {
            board.fallbacks.fetch_add(1, Ordering::Relaxed);
            return (Ok(None), inflate_s);
        }
        return (Err(e), inflate_s);
    }
    let joiner = state.joiner;
    let mut store = joiner.store;
    store.normalize(!joiner.unsorted);
    let mut hidden_rows = joiner.hidden_rows;
    hidden_rows.sort_unstable();
    hidden_rows.dedup();
    (
        Ok(Some(ParsedSheet {
            store,
            hidden_rows,
            dimension,
            head: head_bytes,
            tail: joiner.tail,
            warnings: joiner.warnings,
        })),
        inflate_s,
    )
}

/// Appends up to `step` inflated bytes to `acc`; returns (bytes read,
/// seconds spent). The buffer grows (zeroed) only the first time.
fn read_more(
    reader: &mut ream_zip::EntryReader<'_>,
    acc: &mut ChunkBuf,
    step: usize,
) -> (Result<usize>, f64) {
    let t = Instant::now();
    let start = acc.filled;
    if acc.data.len() < start + step {
        acc.data.resize(start + step, 0);
    }
    let res = match acc
        .data
        .get_mut(start..start + step)
        .map(|b| reader.read(b))
    {
        Some(Ok(n)) => Ok(n),
        Some(Err(e)) => Err(ream_zip::Error::from_io(e).into()),
        None => Ok(0),
    };
    acc.filled = start + *res.as_ref().unwrap_or(&0);
    (res, t.elapsed().as_secs_f64())
}

#[cfg(test)]
#[path = "chunked_tests.rs"]
mod tests;
