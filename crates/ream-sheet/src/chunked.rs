//! Parallel parsing inside one big sheet, on the open's worker pool
//! (`crate::pipeline::pool`, driven by `sheet_pool`).
//!
//! The reading thread inflates the part incrementally, reads the head,
//! and cuts the rows into chunks of `OpenOptions::tune_chunk_bytes`
//! (4 MiB) at `</row>` boundaries; each chunk is a unit of the pool. A
//! parser of a chunk uses a fresh parser (rows numbered relative to the
//! chunk until an explicit row number appears) and then joins every
//! finished chunk next in order (`chunk_join::Joiner`), so chunk outputs
//! never pile up and the inflating thread only inflates. A parser that
//! takes the chunk next in order while nobody is joining parses it
//! straight onto the joined rows instead (no copy; see
//! [`ChunkTask::join_in_place`]).
//!
//! Back-pressure is the pool's: when more units wait than there are
//! parsers, the reading thread parses the oldest itself.
//!
//! A cut that fell inside a comment or CDATA that happened to contain
//! `</row>` makes a chunk fail as truncated; the sheet is then parsed again
//! sequentially, so the result is the same either way. Any other malformed
//! chunk falls back the same way, so a broken sheet gives the sequential
//! parse's cells or error, never one that depends on where it was cut.

use crate::chunk_join::{Joiner, Spare, check_cut};
use crate::error::{ErrorKind, Result};
use crate::open::Package;
use crate::sheet_pool::{Done, Task};
use crate::worksheet::{ChunkOut, ParsedSheet, SheetCtx, SheetParser, last_row_end};
use ream_zip::Entry;
use std::collections::HashMap;
use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, TryLockError};
use std::time::Instant;

/// Sheets of at least this many chunks are parsed in chunks when more than
/// one thread is available.
pub(crate) const MIN_CHUNKS: u64 = 4;

/// The pool of the open, as the chunker sees it.
pub(crate) type Units<'s, 'e, 'a> = crate::pipeline::pool::Pool<'s, 'e, Task<'a>, Done>;

/// One chunk waiting to be parsed.
pub(crate) struct ChunkTask<'a> {
    seq: usize,
    bytes: ChunkBuf,
    offset: u64,
    last: bool,
    ctx: SheetCtx<'a>,
    /// The sheet's join: whoever parses the chunk next in order joins.
    join: Arc<JoinShared>,
    shelf: &'a Shelf,
}

/// A big sheet's join state, shared by its chunker and the parsers.
///
/// Joining (copying a chunk's cells into the sheet's store, which faults in
/// that store's pages) is done by the parser that finishes the chunk next
/// in order, not by the chunker: the chunker is the thread that also
/// inflates, and joining there keeps it busy ~100 % while a helper idles
/// ~50 % (`mixed`, perf, 2 threads).
struct JoinShared {
    state: Mutex<JoinState>,
    /// Finished chunk results not joined yet, by sequence number.
    done: Mutex<HashMap<usize, Result<ChunkOut>>>,
    /// Chunks handed to the pool and not finished (parse and join).
    in_flight: AtomicUsize,
    /// Chunks joined so far (mirrors `JoinState::joined`, read lock-free).
    joined: AtomicUsize,
    /// A join failed (mirrors `JoinState::failed.is_some()`).
    failed: AtomicBool,
}

struct JoinState {
    joiner: Joiner,
    joined: usize,
    failed: Option<crate::error::Error>,
}

/// What the chunk parsers of one open share: buffers for reuse and
/// counters.
#[derive(Default)]
pub(crate) struct Shelf {
    /// Nanoseconds spent parsing chunks, all parsers.
    pub parse_ns: AtomicU64,
    /// Chunks parsed.
    pub chunks: AtomicU64,
    /// Sheets that fell back to the sequential parse.
    pub fallbacks: AtomicU64,
    /// Buffers of joined chunks, reused by the next chunk parsers.
    spare: Mutex<Vec<Spare>>,
    /// Inflated-XML buffers of parsed chunks, reused by the chunker.
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

impl Shelf {
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
}

impl JoinShared {
    fn has_done(&self, seq: usize) -> bool {
        self.done
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(&seq)
    }

    fn take_done(&self, seq: usize) -> Option<Result<ChunkOut>> {
        self.done
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&seq)
    }

    /// Joins every finished chunk that is next in order, unless another
    /// thread is joining right now (it re-checks for newly finished
    /// chunks after letting go, so none is left behind).
    fn try_join(&self, shelf: &Shelf) {
        loop {
            let mut g = match self.state.try_lock() {
                Ok(g) => g,
                Err(TryLockError::Poisoned(p)) => p.into_inner(),
                Err(TryLockError::WouldBlock) => return,
            };
            while g.failed.is_none() {
                let Some(res) = self.take_done(g.joined) else {
                    break;
                };
                match res.and_then(|c| g.joiner.add(c)) {
                    Ok(spare) => {
                        shelf.give_back(spare);
                        g.joined += 1;
                    }
                    Err(e) => g.failed = Some(e),
                }
            }
            let (next, failed) = (g.joined, g.failed.is_some());
            self.joined.store(next, Ordering::Release);
            self.failed.store(failed, Ordering::Release);
            drop(g);
            if failed || !self.has_done(next) {
                return;
            }
        }
    }
}

impl ChunkTask<'_> {
    /// Parses the chunk and files its result, then joins what is next in
    /// order; the chunk next in order is parsed straight into the sheet's
    /// joined rows when it can be ([`join_in_place`](Self::join_in_place)).
    pub(crate) fn run(self) {
        let shelf = self.shelf;
        let join = Arc::clone(&self.join);
        if !join.failed.load(Ordering::Acquire) {
            let t = Instant::now();
            let res = if self.join_in_place() {
                None
            } else {
                Some(self.parse_alone())
            };
            shelf
                .parse_ns
                .fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
            shelf.chunks.fetch_add(1, Ordering::Relaxed);
            if let Some(res) = res {
                join.done
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(self.seq, res);
            }
            join.try_join(shelf);
        }
        shelf.give_back_xml(self.bytes);
        join.in_flight.fetch_sub(1, Ordering::AcqRel);
    }

    /// Parses the chunk into buffers of its own, joined later.
    fn parse_alone(&self) -> Result<ChunkOut> {
        check_cut(self.bytes.xml())?;
        let (cells, arena) = self.shelf.take_spare();
        let mut p = SheetParser::for_chunk(self.ctx)
            .starting_at(self.offset)
            .with_buffers(cells, arena)
            .reserve_for(self.bytes.filled as u64);
        p.feed(self.bytes.xml(), true)?;
        p.finish_chunk(self.last)
    }

    /// When this is the next chunk of its sheet in order and no thread
    /// is joining that sheet, parses it straight into the joined rows and
    /// returns true: its cells are never copied (the copy at the join and
    /// the page faults of the chunk's own buffers cost ~4 % of a
    /// two-thread open of `mixed`, perf). Only while no shared-formula
    /// master has been joined: a continuing parser does not know them.
    /// The join lock is held while parsing; a thread finishing a later
    /// chunk meanwhile files it, and it is joined right after.
    fn join_in_place(&self) -> bool {
        let Ok(mut g) = self.join.state.try_lock() else {
            return false;
        };
        if g.joined != self.seq || g.failed.is_some() || g.joiner.has_masters() {
            return false;
        }
        match g
            .joiner
            .parse_next(self.ctx, self.offset, self.bytes.xml(), self.last)
        {
            Ok(()) => g.joined += 1,
            Err(e) => g.failed = Some(e),
        }
        self.join.joined.store(g.joined, Ordering::Release);
        self.join
            .failed
            .store(g.failed.is_some(), Ordering::Release);
        true
    }
}

/// A big sheet's chunked read: the sheet (`None` when it must be parsed
/// sequentially instead, see the module doc), and the seconds spent
/// inflating on this thread.
pub(crate) type Chunked = (Result<Option<ParsedSheet>>, f64);

/// Parses a big sheet in chunks of `chunk` bytes on `pool`: this thread
/// inflates and cuts, the pool's parsers (this thread among them) parse
/// and join. Sheet
/// results the pool hands back meanwhile go to `other`.
pub(crate) fn parse_chunked<'a>(
    pkg: &'a Package,
    entry: &Entry,
    ctx: SheetCtx<'a>,
    shelf: &'a Shelf,
    pool: Units<'_, '_, 'a>,
    chunk: usize,
    other: &mut Vec<Done>,
) -> Chunked {
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
            shelf.fallbacks.fetch_add(1, Ordering::Relaxed);
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
    if !has_data {
        // An empty sheet (or `<sheetData/>`): let the sequential parser
        // handle the rest, including the tail checks.
        return (Ok(None), inflate_s);
    }
    let want = (entry.uncompressed_size / 24).min(1 << 26);
    let join = Arc::new(JoinShared {
        state: Mutex::new(JoinState {
            joiner: Joiner::for_sheet(ctx, usize::try_from(want).unwrap_or(0)),
            joined: 0,
            failed: None,
        }),
        done: Mutex::new(HashMap::new()),
        in_flight: AtomicUsize::new(0),
        joined: AtomicUsize::new(0),
        failed: AtomicBool::new(false),
    });
    let mut seq = 0usize;
    let mut read_err = None;
    loop {
        // Fill to a chunk.
        while acc.filled < chunk && !eof {
            let (n, t) = read_more(&mut reader, &mut acc, step);
            inflate_s += t;
            match n {
                Ok(n) => eof = n == 0,
                Err(e) => {
                    read_err = Some(e);
                    break;
                }
            }
            pkg.archive.release(entry, reader.consumed());
        }
        if read_err.is_some() {
            break;
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
                Err(e) => {
                    read_err = Some(e);
                    break;
                }
            }
            continue;
        };
        // The chunk keeps the big buffer; the carried partial row moves to a
        // fresh buffer sized for the next chunk (no regrowth copies).
        let mut rest = shelf.take_xml();
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
        join.in_flight.fetch_add(1, Ordering::AcqRel);
        pool.submit(Task::Chunk(ChunkTask {
            seq,
            bytes,
            offset,
            last: eof,
            ctx,
            join: Arc::clone(&join),
            shelf,
        }));
        offset += len;
        seq += 1;
        if eof || join.failed.load(Ordering::Acquire) {
            break;
        }
    }
    // Parse and join with the pool until every chunk handed over is done
    // (after a failure, those still queued are skipped when taken).
    let all_in = |_: &[Done]| join.in_flight.load(Ordering::Acquire) == 0;
    while !all_in(&[]) {
        other.extend(pool.wait_until(all_in));
    }
    join.try_join(shelf);
    if let Some(e) = read_err {
        return (Err(e), inflate_s);
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
        if e.truncated || matches!(e.kind(), ErrorKind::Malformed | ErrorKind::LimitExceeded) {
            shelf.fallbacks.fetch_add(1, Ordering::Relaxed);
            return (Ok(None), inflate_s);
        }
        return (Err(e), inflate_s);
    }
    if state.joined != seq {
        // Every chunk finished, so every one was joined; a chunk missing
        // here would lose cells: the sequential parse reads the sheet.
        shelf.fallbacks.fetch_add(1, Ordering::Relaxed);
        return (Ok(None), inflate_s);
    }
    (
        Ok(Some(state.joiner.into_parsed(head_bytes, dimension))),
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
