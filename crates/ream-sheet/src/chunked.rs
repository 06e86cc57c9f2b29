//! Parallel parsing inside one big sheet.
//!
//! The worker that takes a big sheet becomes its *chunker*: it inflates the
//! part incrementally, reads the head, and cuts the rows into chunks of
//! `OpenOptions::chunk_bytes` (4 MiB) at `</row>` boundaries. Chunks go onto a board shared by all
//! workers of the open; any worker without a sheet of its own parses them
//! (a fresh parser per chunk, rows numbered relative to the chunk until an
//! explicit row number appears). The chunker joins the results in order as
//! they arrive, so the chunk outputs never pile up: relative rows get the
//! previous chunk's next row added, string and formula offsets move to the
//! joined arena, and shared-formula children whose master sat in an earlier
//! chunk are expanded from the masters exported so far.
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
use crate::store::{AUX_FORMULA, CellStore, FormulaRec, RawCell, T_INLINE};
use crate::worksheet::{ChunkOut, ParsedSheet, SheetCtx, SheetParser, last_row_end};
use ream_zip::Entry;
use std::collections::{HashMap, VecDeque};
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
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

    /// Parses one chunk and files its result.
    fn run(&self, task: ChunkTask<'a>) {
        let t = Instant::now();
        let (cells, arena) = self.take_spare();
        let mut p = SheetParser::for_chunk(task.ctx)
            .starting_at(task.offset)
            .with_buffers(cells, arena)
            .reserve_for(task.bytes.filled as u64);
        let res = if starts_at_row_boundary(task.bytes.xml()) {
            p.feed(task.bytes.xml(), true)
                .and_then(|_| p.finish_chunk(task.last))
        } else {
            let mut e = Error::malformed("a chunk boundary fell inside markup");
            e.truncated = true;
            Err(e)
        };
        self.give_back_xml(task.bytes);
        self.parse_ns
            .fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
        self.chunks.fetch_add(1, Ordering::Relaxed);
        let mut st = self.lock();
        if let Some(n) = st.in_flight.get_mut(&task.sheet) {
            *n = n.saturating_sub(1);
        }
        st.done.entry(task.sheet).or_default().insert(task.seq, res);
        drop(st);
        self.cv.notify_all();
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
struct Joiner {
    store: CellStore,
    hidden_rows: Vec<u32>,
    next_row: u32,
    last_key: u64,
    unsorted: bool,
    masters: HashMap<u32, (u32, u32, Vec<u8>)>,
    formulas_unsorted: bool,
    tail: Vec<u8>,
    warnings: Vec<Error>,
    scratch: Vec<u8>,
}

impl Joiner {
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
        // This chunk's cells strictly in (row, col) order: then a pending
        // child is found by binary search, else by a scan for its last copy.
        let mut chunk_sorted = true;
        let mut chunk_key = 0u64;
        for (i, cell) in c.store.cells.iter().enumerate() {
            let mut cell = *cell;
            cell.row = shift(cell.row, i < c.rel_cells)?;
            if cell.tag == T_INLINE {
                cell.bits += arena_base << 32;
            }
            let key = ((u64::from(cell.row) << 16) | u64::from(cell.col)) + 1;
            chunk_sorted &= key > chunk_key;
            chunk_key = key;
            self.unsorted |= key <= self.last_key;
            self.last_key = key;
            self.store.cells.push(cell);
        }
        self.unsorted |= c.unsorted;
        self.store.arena.extend_from_slice(&c.store.arena);
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
        // Children whose master came earlier: expand and flag the cell.
        for p in &c.pending {
            let row = shift(p.row, p.rel)?;
            let Some((mrow, mcol, text)) = self.masters.get(&p.si) else {
                continue;
            };
            self.scratch.clear();
            let (drow, dcol) = (
                i64::from(row) - i64::from(*mrow),
                i64::from(p.col) - i64::from(*mcol),
            );
            shift_formula(text, drow, dcol, &mut self.scratch);
            let cells = self.store.cells.get_mut(first_cell..).unwrap_or_default();
            // Cells written out of order (O2 before B2) are not sorted yet
            // here: a binary search missed the child and dropped its
            // formula (fuzz finding, test
            // `fuzz_regressions::shared_formula_child_in_an_unsorted_row_of_a_later_chunk`).
            let at = |c: &RawCell| (c.row, u32::from(c.col)) == (row, p.col);
            let found = if chunk_sorted {
                cells
                    .binary_search_by_key(&(row, p.col), |c| (c.row, u32::from(c.col)))
                    .ok()
            } else {
                cells.iter().rposition(at)
            };
            if let Some(k) = found
                && let Some(cell) = cells.get_mut(k)
            {
                cell.aux |= AUX_FORMULA;
                let off = self.store.arena.len() as u32;
                self.store.arena.extend_from_slice(&self.scratch);
                self.store.formulas.push(FormulaRec {
                    row,
                    col: p.col,
                    off,
                    len: self.scratch.len() as u32,
                });
                self.formulas_unsorted = true;
            }
        }
        for m in c.masters {
            let row = shift(m.row, m.rel)?;
            self.masters.insert(m.si, (row, m.col, m.text));
        }
        self.next_row = if c.abs_seen {
            c.next_row
        } else {
            base.saturating_add(c.next_row)
        };
        if !c.tail.is_empty() {
            self.tail = c.tail;
        }
        if let Some(w) = c.warning {
            self.warnings.push(w);
        }
        Ok((
            std::mem::take(&mut c.store.cells),
            std::mem::take(&mut c.store.arena),
        ))
    }
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
        formulas_unsorted: false,
        tail: Vec::new(),
        warnings: Vec::new(),
        scratch: Vec::new(),
    };
    let want = (entry.uncompressed_size / 24).min(1 << 26);
    let _ = joiner
        .store
        .cells
        .try_reserve(usize::try_from(want).unwrap_or(0));
    ream_io::advise_huge_pages(&joiner.store.cells);
    if !has_data {
        // An empty sheet (or `<sheetData/>`): let the sequential parser
        // handle the rest, including the tail checks.
        return (Ok(None), inflate_s);
    }
    let mut seq = 0usize;
    let mut joined = 0usize;
    let mut failed: Option<Error> = None;
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
        if let Err(e) = join_ready(board, sheet, &mut joined, &mut joiner) {
            failed = Some(e);
            break;
        }
        if eof {
            break;
        }
    }
    // Help until every chunk of this sheet is parsed, joining as we go.
    while failed.is_none() && joined < seq {
        if let Some(t) = board.pop() {
            board.run(t);
        } else {
            let st = board.lock();
            let ready = st.done.get(&sheet).is_some_and(|d| d.contains_key(&joined));
            if !ready {
                let _ = board.cv.wait_timeout(st, Duration::from_millis(20));
            }
        }
        if let Err(e) = join_ready(board, sheet, &mut joined, &mut joiner) {
            failed = Some(e);
        }
    }
    if let Some(e) = failed {
        // Let queued chunks of this sheet drain before leaving.
        while board.in_flight(sheet) > 0 {
            if let Some(t) = board.pop() {
                board.run(t);
            }
        }
        // Malformed markup falls back too: a `</row>` inside a broken tag
        // cuts a chunk where the sequential parse would not, and the
        // result (cells or error) must not depend on chunking (fuzz
        // finding, test `fuzz_regressions::chunked_open_agrees_with_serial_on_a_row_end_inside_a_tag`).
        if e.truncated || e.kind() == crate::error::ErrorKind::Malformed {
            board.fallbacks.fetch_add(1, Ordering::Relaxed);
            return (Ok(None), inflate_s);
        }
        return (Err(e), inflate_s);
    }
    let mut store = joiner.store;
    if joiner.formulas_unsorted {
        store.formulas.sort_by_key(|f| (f.row, f.col));
    }
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

/// Joins every finished chunk that is next in order.
fn join_ready(
    board: &Board<'_>,
    sheet: usize,
    joined: &mut usize,
    joiner: &mut Joiner,
) -> Result<()> {
    while let Some(res) = board.take_done(sheet, *joined) {
        let spare = joiner.add(res?)?;
        board.give_back(spare);
        *joined += 1;
    }
    Ok(())
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
