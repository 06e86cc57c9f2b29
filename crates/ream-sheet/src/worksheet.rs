//! The worksheet scanner: worksheet XML in, 16-byte cells out.
//!
//! Fed whole (one-shot inflate) or in blocks (streaming inflate). In block
//! mode the data phase only ever parses up to the last complete `</row>`,
//! so a row split across blocks is simply parsed with the next block. The
//! per-cell path allocates nothing: names and attributes are matched as
//! bytes, text is decoded straight into the sheet's arena.

use crate::cell_scan::{
    CellHead, CellTagPos, FastCell, fast_cell, find_lt, parse_cell_start, parse_number, parse_u32,
    type_code,
};
use crate::cell_text::{attr, collect_runs, finish_text, span_bits, text_span};
use crate::error::{Error, Result};
use crate::formula::shift_formula;
use crate::model::{CellError, CellRange, DateKind};
use crate::options::Limits;
use crate::parts::styles::Styles;
use crate::refs::parse_a1;
use crate::store::*;
use crate::styles_view::StyleView;
use memchr::memmem;
use ream_xml::{Tag, TagKind, XmlError, next_tag, skip_element};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Head,
    Data,
    Tail,
}

#[derive(Debug, Clone, Copy)]
struct SharedMaster {
    row: u32,
    col: u32,
    off: u32,
    len: u32,
    /// Recorded before the chunk's first absolute row (chunk mode).
    rel: bool,
}

/// A shared-formula child whose master was not in its chunk: resolved when
/// the chunks are joined. It names its own cell and its place in the
/// formula table (an empty record holding the child's row and column), so
/// the joiner neither searches by position (another copy of the cell at
/// the same place must not get the formula) nor appends the expansion
/// after formulas that the sequential parse records later.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pending {
    pub si: u32,
    /// Index of the child's cell in the chunk's `store.cells`.
    pub cell: usize,
    /// Index of its placeholder record in the chunk's `store.formulas`.
    pub formula: usize,
}

/// A shared-formula master exported by a chunk for later chunks.
#[derive(Debug, Clone)]
pub(crate) struct ExportedMaster {
    pub si: u32,
    pub row: u32,
    pub col: u32,
    pub text: Vec<u8>,
    pub rel: bool,
}

/// What one chunk of a sheet's rows parsed to (chunk mode). Rows of the
/// first `rel_*` cells, formulas and hidden rows (those before the chunk's
/// first explicit row number) are relative to the chunk start.
#[derive(Debug)]
pub(crate) struct ChunkOut {
    pub store: CellStore,
    pub hidden_rows: Vec<u32>,
    pub abs_seen: bool,
    pub rel_cells: usize,
    pub rel_formulas: usize,
    pub rel_hidden: usize,
    /// Rows numbered relative to the chunk start (the joiner checks them
    /// against the grid).
    pub rel_rows: u32,
    pub next_row: u32,
    pub pending: Vec<Pending>,
    pub masters: Vec<ExportedMaster>,
    pub unsorted: bool,
    /// Key of the last cell (see `SheetParser::last_key`).
    pub last_key: u64,
    /// Formula text counted against `max_formula_bytes`, this chunk's own
    /// (or, for a continuing parser, the sheet's so far).
    pub formula_bytes: u64,
    pub tail: Vec<u8>,
    pub warning: Option<Error>,
}

/// The rows of a chunked sheet joined so far, handed to a parser that goes
/// on from them ([`SheetParser::continuing`]).
pub(crate) struct JoinedSoFar {
    pub store: CellStore,
    pub hidden_rows: Vec<u32>,
    pub next_row: u32,
    pub last_key: u64,
    pub unsorted: bool,
    pub formula_bytes: u64,
}

/// Most bytes a block parse reads on past the last good row end to see
/// whether a malformed error came from where the block was cut.
const RETRY_WINDOW: usize = 64 << 20;

/// Largest shared-formula index accepted (`si`); masters are kept in a
/// vector indexed by it.
const MAX_SHARED_SI: usize = 1 << 20;

/// Everything a worksheet parser reads but does not own.
#[derive(Clone, Copy)]
pub(crate) struct SheetCtx<'a> {
    pub sst_len: usize,
    pub styles: &'a Styles,
    pub limits: &'a Limits,
    pub date_1904: bool,
}

/// Output of a finished worksheet parse.
pub(crate) struct ParsedSheet {
    pub store: CellStore,
    pub hidden_rows: Vec<u32>,
    pub dimension: Option<CellRange>,
    pub head: Vec<u8>,
    pub tail: Vec<u8>,
    /// Problems that left cells empty without failing the sheet.
    pub warnings: Vec<Error>,
}

/// Incremental worksheet parser; see the module docs.
pub(crate) struct SheetParser<'a> {
    ctx: SheetCtx<'a>,
    phase: Phase,
    /// Bytes of the part consumed before the current buffer (for offsets).
    base: u64,
    head: Vec<u8>,
    tail: Vec<u8>,
    store: CellStore,
    hidden_rows: Vec<u32>,
    dimension: Option<CellRange>,
    /// Current row (0-based) and the next implicit row/column.
    row: u32,
    next_row: u32,
    next_col: u32,
    /// Shared-formula masters indexed by `si` (O(1) lookup).
    shared: Vec<Option<SharedMaster>>,
    /// Bytes of formula text written for this sheet.
    formula_bytes: u64,
    /// Reused buffer for shared-formula expansion.
    scratch: Vec<u8>,
    /// Text of the shared-formula masters.
    shared_text: Vec<u8>,
    row_end: memmem::FinderRev<'static>,
    /// State after the last complete row (block mode rolls back to it when
    /// a block ends inside markup that merely looked like a row end).
    checkpoint: Checkpoint,
    /// The rare state as it was at the checkpoint, once it changed since.
    rare_saved: Option<RareState>,
    /// Shared-formula slots overwritten since the checkpoint, with their
    /// earlier values (a rollback restores them).
    shared_undo: Vec<(usize, Option<SharedMaster>)>,
    /// Where to resume searching for a row end in a buffer that has not
    /// been consumed yet (keeps block mode linear).
    scan_from: usize,
    /// Element depth in the head, and whether the root element was closed.
    head_depth: u32,
    root_closed: bool,
    /// Chunk mode: rows before the first explicit row number are relative.
    chunk_mode: bool,
    abs_seen: bool,
    /// Lengths of (cells, formulas, hidden rows) when `abs_seen` turned on.
    rel_marks: (usize, usize, usize),
    /// `next_row` when `abs_seen` turned on: the relative rows' extent.
    rel_rows: u32,
    pending: Vec<Pending>,
    /// Stop `feed` as soon as `<sheetData>` starts (the chunker's head pass).
    stop_after_head: bool,
    /// Cells naming a shared string past the table: (count, first (row,
    /// col, index)).
    missing_sst: (u64, (u32, u32, u32)),
    /// Key of the last cell pushed, and whether any cell came out of order.
    last_key: u64,
    unsorted: bool,
}

/// Lengths of everything a row appends to, taken at a row end.
#[derive(Debug, Clone, Copy, Default)]
struct Checkpoint {
    pos: usize,
    cells: usize,
    arena: usize,
    formulas: usize,
    hidden: usize,
    formula_bytes: u64,
    last_key: u64,
    row: u32,
    next_row: u32,
    next_col: u32,
    unsorted: bool,
}

/// Parser state that changes rarely (shared formulas, pending children,
/// missing shared strings, the first absolute row): saved on its first
/// change after a checkpoint, not copied at every row.
#[derive(Debug, Clone, Copy)]
struct RareState {
    /// The shared-formula table and master text only grow; slots
    /// overwritten are undone from `SheetParser::shared_undo`.
    shared: usize,
    shared_text: usize,
    pending: usize,
    missing_sst: (u64, (u32, u32, u32)),
    abs_seen: bool,
    rel_rows: u32,
    rel_marks: (usize, usize, usize),
}

fn xml_err(e: XmlError, base: u64) -> Error {
    let kind_msg = if e.truncated {
        format!("{} (the part ends early)", e.message)
    } else {
        e.message.to_string()
    };
    let mut err = Error::malformed(kind_msg).at_offset(base + e.offset as u64);
    if e.message.starts_with("XML nesting") {
        err = Error::limit(e.message).at_offset(base + e.offset as u64);
    }
    err.truncated = e.truncated;
    err
}

impl<'a> SheetParser<'a> {
    pub fn new(ctx: SheetCtx<'a>) -> SheetParser<'a> {
        SheetParser {
            ctx,
            phase: Phase::Head,
            base: 0,
            head: Vec::new(),
            tail: Vec::new(),
            store: CellStore {
                date_1904: ctx.date_1904,
                ..CellStore::default()
            },
            hidden_rows: Vec::new(),
            dimension: None,
            row: 0,
            next_row: 0,
            next_col: 0,
            shared: Vec::new(),
            formula_bytes: 0,
            scratch: Vec::new(),
            shared_text: Vec::new(),
            row_end: memmem::FinderRev::new(b"row>"),
            checkpoint: Checkpoint::default(),
            rare_saved: None,
            shared_undo: Vec::new(),
            scan_from: 0,
            head_depth: 0,
            root_closed: false,
            missing_sst: (0, (0, 0, 0)),
            last_key: 0,
            unsorted: false,
            chunk_mode: false,
            abs_seen: true,
            rel_marks: (0, 0, 0),
            rel_rows: 0,
            pending: Vec::new(),
            stop_after_head: false,
        }
    }

    /// Reserves cell storage for a part of `xml_len` bytes (about one cell
    /// per 24 bytes of XML, at most 64 M cells, never more than the cell
    /// limit), so the cell vector is not copied while it grows. Only
    /// touched pages become resident; a failed reservation is ignored.
    pub fn reserve_for(mut self, xml_len: u64) -> SheetParser<'a> {
        let want = (xml_len / 24)
            .min(self.ctx.limits.max_cells_per_sheet)
            .min(1 << 26);
        let _ = self
            .store
            .cells
            .try_reserve(usize::try_from(want).unwrap_or(0));
        ream_io::advise_huge_pages(&self.store.cells);
        self
    }

    /// Parses a whole part at once.
    pub fn parse_all(mut self, xml: &[u8]) -> Result<ParsedSheet> {
        self.feed(xml, true)?;
        self.finish()
    }

    /// A parser for one chunk of `<row>` elements cut out of `<sheetData>`
    /// (see `chunked`): starts in the data phase with rows numbered from 0
    /// relative to the chunk until an explicit row number appears.
    pub fn for_chunk(ctx: SheetCtx<'a>) -> SheetParser<'a> {
        let mut p = SheetParser::new(ctx);
        p.phase = Phase::Data;
        p.chunk_mode = true;
        p.abs_seen = false;
        p
    }

    /// A parser for the chunk that comes next after every chunk joined so
    /// far (see `chunked`): it appends to the joined rows exactly as the
    /// sequential parse would go on from there (absolute row numbers, its
    /// own shared-formula table, so the caller uses it only while no
    /// master has been joined), and hands them back from
    /// [`finish_chunk`](Self::finish_chunk).
    pub fn continuing(ctx: SheetCtx<'a>, so_far: JoinedSoFar) -> SheetParser<'a> {
        let mut p = SheetParser::new(ctx);
        p.phase = Phase::Data;
        p.store = so_far.store;
        p.hidden_rows = so_far.hidden_rows;
        p.next_row = so_far.next_row;
        p.last_key = so_far.last_key;
        p.unsorted = so_far.unsorted;
        p.formula_bytes = so_far.formula_bytes;
        p
    }

    /// Parses into these (emptied) buffers instead of fresh ones.
    pub fn with_buffers(mut self, mut cells: Vec<RawCell>, mut arena: Vec<u8>) -> SheetParser<'a> {
        cells.clear();
        arena.clear();
        self.store.cells = cells;
        self.store.arena = arena;
        self
    }

    /// Sets the byte offset of the first byte fed (for error positions).
    pub fn starting_at(mut self, offset: u64) -> SheetParser<'a> {
        self.base = offset;
        self
    }

    /// Makes [`feed`](Self::feed) return as soon as `<sheetData>` starts.
    pub fn stop_after_head(mut self) -> SheetParser<'a> {
        self.stop_after_head = true;
        self
    }

    /// True once the head (everything before `<sheetData>`) is consumed.
    pub fn head_done(&self) -> bool {
        self.phase != Phase::Head
    }

    /// The head pass result: (head bytes, declared dimension), and whether
    /// the sheet has a `<sheetData>` at all (false: empty sheet, all read).
    pub fn take_head(&mut self) -> (Vec<u8>, Option<CellRange>, bool) {
        (
            std::mem::take(&mut self.head),
            self.dimension,
            self.phase == Phase::Data,
        )
    }

    /// Records that an explicit row number was seen (chunk mode).
    #[inline]
    fn mark_abs(&mut self) {
        if !self.abs_seen {
            self.save_rare();
            self.abs_seen = true;
            self.rel_rows = self.next_row;
            self.rel_marks = (
                self.store.cells.len(),
                self.store.formulas.len(),
                self.hidden_rows.len(),
            );
        }
    }

    /// Ends a chunk: `last` says whether it held the end of `<sheetData>`.
    pub fn finish_chunk(mut self, last: bool) -> Result<ChunkOut> {
        if last {
            self.end_checks()?;
        } else if self.phase != Phase::Data {
            // `</row>` text after `</sheetData>`: the cut is unusable.
            let mut e = Error::malformed("a chunk boundary fell after </sheetData>");
            e.truncated = true;
            return Err(e);
        }
        if !self.abs_seen {
            self.rel_rows = self.next_row;
            self.rel_marks = (
                self.store.cells.len(),
                self.store.formulas.len(),
                self.hidden_rows.len(),
            );
        }
        let warning = self.missing_sst_warning();
        let masters = self
            .shared
            .iter()
            .enumerate()
            .filter_map(|(si, m)| {
                let m = (*m)?;
                let text = self
                    .shared_text
                    .get(m.off as usize..(m.off + m.len) as usize)?
                    .to_vec();
                Some(ExportedMaster {
                    si: si as u32,
                    row: m.row,
                    col: m.col,
                    text,
                    rel: m.rel,
                })
            })
            .collect();
        Ok(ChunkOut {
            store: self.store,
            hidden_rows: self.hidden_rows,
            abs_seen: self.abs_seen,
            rel_cells: self.rel_marks.0,
            rel_formulas: self.rel_marks.1,
            rel_hidden: self.rel_marks.2,
            rel_rows: self.rel_rows,
            next_row: self.next_row,
            pending: self.pending,
            masters,
            unsorted: self.unsorted,
            last_key: self.last_key,
            formula_bytes: self.formula_bytes,
            tail: self.tail,
            warning,
        })
    }

    /// Feeds bytes; returns how many were consumed. The caller keeps the
    /// rest, appends more and calls again. With `eof`, all bytes are consumed
    /// or an error is returned.
    pub fn feed(&mut self, buf: &[u8], eof: bool) -> Result<usize> {
        let mut pos = 0;
        loop {
            let rest = buf.get(pos..).unwrap_or_default();
            let used = match self.phase {
                Phase::Head => self.feed_head(rest, eof)?,
                Phase::Data => self.feed_data(rest, eof)?,
                Phase::Tail => {
                    self.tail.extend_from_slice(rest);
                    rest.len()
                }
            };
            pos += used;
            self.base += used as u64;
            if self.stop_after_head && self.phase != Phase::Head {
                return Ok(pos);
            }
            if pos >= buf.len() || (used == 0 && !eof) {
                return Ok(pos);
            }
            if used == 0 && eof {
                // A phase made no progress on final input.
                return Err(Error::malformed("worksheet XML ends early").at_offset(self.base));
            }
        }
    }

    /// Ends parsing and returns the sheet.
    pub fn finish(mut self) -> Result<ParsedSheet> {
        self.end_checks()?;
        let mut warnings = Vec::new();
        if let Some(w) = self.missing_sst_warning() {
            warnings.push(w);
        }
        self.store.normalize(!self.unsorted);
        self.hidden_rows.sort_unstable();
        self.hidden_rows.dedup();
        Ok(ParsedSheet {
            store: self.store,
            hidden_rows: self.hidden_rows,
            dimension: self.dimension,
            head: self.head,
            tail: self.tail,
            warnings,
        })
    }

    /// The warning about cells naming missing shared strings, if any.
    pub fn missing_sst_warning(&self) -> Option<Error> {
        if self.missing_sst.0 == 0 {
            return None;
        }
        let (row, col, idx) = self.missing_sst.1;
        Some(
            Error::malformed(format!(
                "{} cells refer to shared strings missing from the table of {} (first: index {idx}); they were left empty",
                self.missing_sst.0, self.ctx.sst_len
            ))
            .at_cell(row, col),
        )
    }

    /// Checks, after the last byte was fed, that the part was complete.
    pub fn end_checks(&self) -> Result<()> {
        if self.phase == Phase::Head {
            // No <sheetData>: an empty sheet, if the root element closed.
            if !self.root_closed {
                return Err(Error::malformed(
                    "the worksheet ends before its root element is closed (the part ends early)",
                )
                .at_offset(self.base));
            }
        } else if self.phase == Phase::Tail && !ends_with_end_tag(&self.tail) {
            return Err(Error::malformed(
                "the worksheet ends after <sheetData> without closing its root element (the part ends early)",
            )
            .at_offset(self.base));
        } else if self.phase == Phase::Data {
            return Err(
                Error::malformed("<sheetData> is not closed (the part ends early)")
                    .at_offset(self.base),
            );
        }
        Ok(())
    }

    /// Streaming: the cells parsed since the last [`clear_block`](Self::clear_block).
    pub fn block(&self) -> &CellStore {
        &self.store
    }

    /// Streaming: sorts the current block if its cells came out of order.
    /// Its text is then sealed (validated once), like a loaded sheet's.
    pub fn sort_block(&mut self) {
        self.store.normalize(!self.unsorted);
        self.unsorted = false;
        self.store.seal_text();
    }

    /// Streaming: forgets the cells handed out, keeping the buffers.
    pub fn clear_block(&mut self) {
        self.store.cells.clear();
        if self.store.arena.is_empty() {
            // Take the sealed text's buffer back (no copy).
            self.store.arena = std::mem::take(&mut self.store.text).into_bytes();
        }
        self.store.text.clear();
        self.store.arena.clear();
        self.store.formulas.clear();
        self.hidden_rows.clear();
    }

    /// Streaming: shares the workbook's strings with the block store so
    /// that shared-string cells resolve.
    pub fn set_shared_strings(&mut self, sst: std::sync::Arc<crate::sst::SharedStrings>) {
        self.store.sst = sst;
    }

    fn feed_head(&mut self, buf: &[u8], eof: bool) -> Result<usize> {
        let mut pos = 0;
        loop {
            let tag = match next_tag(buf, pos) {
                Ok(Some(t)) => t,
                Ok(None) => {
                    self.head.extend_from_slice(buf);
                    return Ok(buf.len());
                }
                Err(e) if e.truncated && !eof => {
                    self.head
                        .extend_from_slice(buf.get(..pos).unwrap_or_default());
                    return Ok(pos);
                }
                Err(e) => return Err(xml_err(e, self.base)),
            };
            match tag.kind {
                TagKind::Start => {
                    self.head_depth += 1;
                    if self.head_depth > self.ctx.limits.max_xml_depth {
                        return Err(Error::limit(format!(
                            "XML nesting deeper than {} levels",
                            self.ctx.limits.max_xml_depth
                        ))
                        .at_offset(self.base + tag.start as u64));
                    }
                }
                TagKind::End => {
                    self.head_depth = self.head_depth.saturating_sub(1);
                    if self.head_depth == 0 {
                        self.root_closed = true;
                    }
                }
                TagKind::Empty if self.head_depth == 0 => self.root_closed = true,
                _ => {}
            }
            if tag.name == b"dimension" {
                self.dimension = attr(&tag, b"ref")
                    .and_then(|r| std::str::from_utf8(r).ok().and_then(CellRange::parse));
            }
            if tag.name == b"sheetData" && matches!(tag.kind, TagKind::Start | TagKind::Empty) {
                self.head
                    .extend_from_slice(buf.get(..tag.start).unwrap_or_default());
                self.phase = if tag.kind == TagKind::Empty {
                    Phase::Tail
                } else {
                    Phase::Data
                };
                return Ok(tag.end);
            }
            pos = tag.end;
        }
    }

    /// End of the last complete `</row>` (or `</x:row>`) in `buf`.
    fn last_row_end(&self, buf: &[u8]) -> Option<usize> {
        last_row_end(&self.row_end, buf)
    }

    fn feed_data(&mut self, buf: &[u8], eof: bool) -> Result<usize> {
        let limit = if eof {
            buf.len()
        } else {
            let from = self.scan_from.saturating_sub(16).min(buf.len());
            match self.last_row_end(buf.get(from..).unwrap_or_default()) {
                Some(end) => from + end,
                None => {
                    self.scan_from = buf.len();
                    return Ok(0);
                }
            }
        };
        self.scan_from = 0;
        self.set_checkpoint(0);
        let slice = buf.get(..limit).unwrap_or_default();
        match self.data_rows(slice, limit) {
            Err(e) if !eof && (e.truncated || self.may_be_the_cut(&e, buf.len())) => {
                // The cut fell inside a comment or CDATA that merely
                // contained `</row>`, or inside broken markup holding one
                // (where the whole-part parse reads on leniently): roll back
                // to the last real row end and wait for more bytes; the cut
                // then moves past it, and at the end of the part the rest is
                // parsed whole, as the whole-part parse does.
                let cp = self.checkpoint;
                self.rollback(cp);
                if cp.pos == 0 {
                    self.scan_from = buf.len();
                }
                Ok(cp.pos)
            }
            other => other,
        }
    }

    /// A malformed error may come from a cut inside broken markup: worth
    /// reading on for while less than [`RETRY_WINDOW`] bytes wait past the
    /// last good row end (beyond that the error is reported as it is, so
    /// memory stays bounded on a broken part).
    fn may_be_the_cut(&self, e: &Error, buffered: usize) -> bool {
        e.kind() == crate::ErrorKind::Malformed
            && buffered.saturating_sub(self.checkpoint.pos) < RETRY_WINDOW
    }

    /// Commits everything parsed before `pos` (a row boundary): a later
    /// rollback returns here.
    #[inline]
    fn set_checkpoint(&mut self, pos: usize) {
        self.checkpoint = self.take_checkpoint(pos);
        self.rare_saved = None;
        self.shared_undo.clear();
    }

    /// Call before changing any [`RareState`] field: keeps the state of
    /// the checkpoint for a rollback.
    #[cold]
    fn save_rare(&mut self) {
        if self.rare_saved.is_none() {
            self.rare_saved = Some(RareState {
                shared: self.shared.len(),
                shared_text: self.shared_text.len(),
                pending: self.pending.len(),
                missing_sst: self.missing_sst,
                abs_seen: self.abs_seen,
                rel_rows: self.rel_rows,
                rel_marks: self.rel_marks,
            });
        }
    }

    fn take_checkpoint(&self, pos: usize) -> Checkpoint {
        Checkpoint {
            pos,
            cells: self.store.cells.len(),
            arena: self.store.arena.len(),
            formulas: self.store.formulas.len(),
            hidden: self.hidden_rows.len(),
            formula_bytes: self.formula_bytes,
            last_key: self.last_key,
            row: self.row,
            next_row: self.next_row,
            next_col: self.next_col,
            unsorted: self.unsorted,
        }
    }

    fn rollback(&mut self, cp: Checkpoint) {
        self.store.cells.truncate(cp.cells);
        self.store.arena.truncate(cp.arena);
        self.store.formulas.truncate(cp.formulas);
        self.hidden_rows.truncate(cp.hidden);
        self.formula_bytes = cp.formula_bytes;
        self.last_key = cp.last_key;
        self.row = cp.row;
        self.next_row = cp.next_row;
        self.next_col = cp.next_col;
        self.unsorted = cp.unsorted;
        // A master registered in the rolled-back bytes must not serve the
        // cells parsed again before it (fuzz finding 18, test
        // `fuzz_regressions::a_block_cut_inside_a_cell_forgets_its_shared_master`).
        while let Some((slot, old)) = self.shared_undo.pop() {
            if let Some(s) = self.shared.get_mut(slot) {
                *s = old;
            }
        }
        if let Some(rare) = self.rare_saved.take() {
            self.shared.truncate(rare.shared);
            self.shared_text.truncate(rare.shared_text);
            self.pending.truncate(rare.pending);
            self.missing_sst = rare.missing_sst;
            self.abs_seen = rare.abs_seen;
            self.rel_rows = rare.rel_rows;
            self.rel_marks = rare.rel_marks;
        }
    }

    /// Parses rows in `slice` (all of it complete unless `limit` is the
    /// buffer end at EOF); returns the bytes consumed.
    fn data_rows(&mut self, slice: &[u8], limit: usize) -> Result<usize> {
        let mut pos = 0;
        loop {
            // Fast path: an unprefixed `<c ...>` is parsed without the
            // generic tag walker (most of the bytes of a sheet).
            if let Some(lt) = find_lt(slice, pos) {
                match slice.get(lt + 1..lt + 4) {
                    Some(b"c r") => {
                        if let Some(fc) = fast_cell(slice, lt) {
                            pos = self.commit_fast(slice, lt, fc)?;
                            continue;
                        }
                        if let Some(head) = parse_cell_start(slice, lt) {
                            pos = self.cell_body(slice, head)?;
                            continue;
                        }
                    }
                    Some([b'c', b' ' | b'>' | b'/', _]) => {
                        if let Some(head) = parse_cell_start(slice, lt) {
                            pos = self.cell_body(slice, head)?;
                            continue;
                        }
                    }
                    Some(b"/ro") if slice.get(lt + 4..lt + 6) == Some(b"w>") => {
                        pos = lt + 6;
                        self.set_checkpoint(pos);
                        continue;
                    }
                    Some(b"row") if slice.get(lt + 4) == Some(&b' ') => {
                        if let Some(end) = self.row_start_fast(slice, lt)? {
                            pos = end;
                            continue;
                        }
                    }
                    _ => {}
                }
                pos = lt;
            }
            let tag = match next_tag(slice, pos) {
                Ok(Some(t)) => t,
                Ok(None) => return Ok(limit),
                Err(e) => return Err(xml_err(e, self.base).at_cell(self.row, self.next_col)),
            };
            pos = tag.end;
            match (tag.name, tag.kind) {
                (b"c", TagKind::Start | TagKind::Empty) => {
                    pos = self.cell(slice, &tag)?;
                }
                (b"row", TagKind::Start | TagKind::Empty) => {
                    self.row_start(&tag)?;
                    if tag.kind == TagKind::Empty {
                        self.set_checkpoint(pos);
                    }
                }
                (b"row", TagKind::End) => self.set_checkpoint(pos),
                (b"sheetData", TagKind::End) => {
                    self.phase = Phase::Tail;
                    return Ok(pos);
                }
                (_, TagKind::Start) => {
                    pos = skip_element(slice, pos, self.ctx.limits.max_xml_depth)
                        .map_err(|e| xml_err(e, self.base))?;
                }
                _ => {}
            }
        }
    }

    /// Starts row `r` (1-based, checked against the grid) given by its
    /// `r` attribute.
    #[inline]
    fn enter_row(&mut self, r: u32) {
        self.mark_abs();
        self.row = r - 1;
        self.next_row = r;
        self.next_col = 0;
    }

    /// Parses an unprefixed `<row ...>` start tag. The common
    /// `<row r="N">` (optionally with more attributes and no `hidden`) is
    /// read with a byte loop; anything else goes through [`Self::row_start`].
    fn row_start_fast(&mut self, buf: &[u8], lt: usize) -> Result<Option<usize>> {
        // The bare `<row r="N">` (what most writers other than Excel put
        // out) without the searches below for `>` and `hidden`: 195
        // instructions a row on seed.xlsx before, one row in four cells.
        if let Some(rest) = buf
            .get(lt..)
            .and_then(|b| b.strip_prefix(b"<row r=\"".as_slice()))
        {
            // Up to seven digits in one step, else up to ten one by one.
            let (mut n, mut r) = (0usize, 0u64);
            match crate::cell_scan::bytes_at(rest, 0).map(crate::cell_scan::digits8) {
                Some((v, k)) if k < 8 => (r, n) = (v, k),
                _ => {
                    while let Some(&d @ b'0'..=b'9') = rest.get(n).filter(|_| n < 10) {
                        r = r * 10 + u64::from(d - b'0');
                        n += 1;
                    }
                }
            }
            if rest.get(n..n + 2) == Some(b"\">".as_slice())
                && let Ok(r) = u32::try_from(r)
                && (1..=crate::refs::MAX_ROW + 1).contains(&r)
            {
                self.enter_row(r);
                return Ok(Some(lt + 8 + n + 2));
            }
        }
        let Some(gt) = buf
            .get(lt..)
            .and_then(|r| memchr::memchr(b'>', r))
            .map(|i| lt + i)
        else {
            return Ok(None);
        };
        let inner = buf.get(lt + 4..gt).unwrap_or_default();
        // An odd number of `"` puts that `>` inside a value (legal XML):
        // the generic walker finds the tag's real end.
        let mut quotes = 0usize;
        for &b in inner {
            match b {
                b'\'' | b'\n' | b'\t' => return Ok(None),
                b'"' => quotes += 1,
                _ => {}
            }
        }
        if quotes % 2 == 1 {
            return Ok(None);
        }
        let empty = inner.last() == Some(&b'/');
        if !empty
            && let Some(digits) = inner.strip_prefix(b" r=\"")
            && memchr::memmem::find(inner, b"hidden").is_none()
        {
            let n = digits.iter().take_while(|b| b.is_ascii_digit()).count();
            if let Some(r) = digits.get(..n).and_then(parse_u32)
                && digits.get(n) == Some(&b'"')
                && (1..=crate::refs::MAX_ROW + 1).contains(&r)
            {
                self.enter_row(r);
                return Ok(Some(gt + 1));
            }
        }
        let tag = Tag {
            name: b"row",
            kind: if empty {
                TagKind::Empty
            } else {
                TagKind::Start
            },
            attrs: inner.strip_suffix(b"/").unwrap_or(inner),
            start: lt,
            end: gt + 1,
        };
        self.row_start(&tag)?;
        Ok(Some(gt + 1))
    }

    fn row_start(&mut self, tag: &Tag<'_>) -> Result<()> {
        let mut row = self.next_row;
        let mut hidden = false;
        for (name, value) in tag.attributes() {
            match name {
                b"r" => {
                    self.mark_abs();
                    row = parse_u32(value)
                        .filter(|&r| (1..=crate::refs::MAX_ROW + 1).contains(&r))
                        .map(|r| r - 1)
                        .ok_or_else(|| {
                            Error::malformed(format!(
                                "bad row number '{}'",
                                String::from_utf8_lossy(value)
                            ))
                            .at_offset(self.base + tag.start as u64)
                        })?;
                }
                b"hidden" => hidden = value == b"1" || value == b"true",
                _ => {}
            }
        }
        self.row = row;
        self.next_row = row.saturating_add(1);
        self.next_col = 0;
        if hidden {
            self.hidden_rows.push(row);
        }
        Ok(())
    }

    /// Parses one `<c>` element whose start tag is `tag`; returns the offset
    /// past its end.
    fn cell(&mut self, buf: &[u8], tag: &Tag<'_>) -> Result<usize> {
        let mut head = CellHead {
            start: tag.start,
            end: tag.end,
            empty: tag.kind == TagKind::Empty,
            r: None,
            rc: None,
            t: b'n',
            style: 0,
        };
        for (name, value) in tag.attributes() {
            match name {
                b"r" => head.r = Some(value),
                b"t" => head.t = type_code(value),
                b"s" => head.style = parse_u32(value).unwrap_or(0),
                _ => {}
            }
        }
        self.cell_body(buf, head)
    }

    /// Stores a cell read by [`fast_cell`]; returns the offset past it.
    #[inline]
    fn commit_fast(&mut self, buf: &[u8], lt: usize, fc: FastCell) -> Result<usize> {
        let (row, col) = (fc.row, fc.col);
        self.mark_abs();
        let at = self.base + lt as u64;
        if row > crate::refs::MAX_ROW || col > crate::refs::MAX_COL {
            return Err(Error::malformed(format!(
                "cell at row {} column {} lies beyond Excel's grid (1,048,576 rows x 16,384 columns)",
                u64::from(row) + 1,
                u64::from(col) + 1
            ))
            .at_offset(at));
        }
        self.next_col = col + 1;
        if row != self.row {
            self.row = row;
            self.next_row = row + 1;
        }
        let decoded = match (fc.t, fc.num) {
            (b'n', Some(v)) => Some(match self.ctx.styles.date_kind(fc.style) {
                Some(kind) => (
                    T_DATE,
                    date_kind_code(crate::dates::kind_for(kind, v)),
                    v.to_bits(),
                ),
                None => (T_NUMBER, 0, v.to_bits()),
            }),
            (b's', Some(_)) if (fc.index as usize) < self.ctx.sst_len => {
                Some((T_SST, 0, u64::from(fc.index)))
            }
            // `0` or `1`, exactly as written.
            (b'b', Some(v)) if fc.v.1 == fc.v.0 + 1 && (v == 0.0 || v == 1.0) => {
                Some((T_BOOL, 0, u64::from(v == 1.0)))
            }
            _ => self
                .decode_value(fc.t, buf.get(fc.v.0..fc.v.1), None, fc.style)
                .map_err(|e| e.at_cell(row, col).at_offset(at))?,
        };
        let formula = fc.f.and_then(|(fs, fe)| buf.get(fs..fe));
        self.store_value(decoded, formula, row, col)
            .map_err(|e| e.at_cell(row, col).at_offset(at))?;
        Ok(fc.end)
    }

    /// Parses a cell whose start tag is described by `head`; returns the
    /// offset past the cell.
    fn cell_body(&mut self, buf: &[u8], head: CellHead<'_>) -> Result<usize> {
        let mut row = self.row;
        let mut col = self.next_col;
        let t = head.t;
        let style = head.style;
        if head.r.is_some() {
            self.mark_abs();
        }
        if let Some((r, c)) = head.rc {
            row = r;
            col = c;
        } else if let Some(value) = head.r {
            let (r, c) = parse_a1(value).ok_or_else(|| {
                Error::malformed(format!(
                    "bad cell reference '{}'",
                    String::from_utf8_lossy(value)
                ))
                .at_offset(self.base + head.start as u64)
                .at_cell(self.row, self.next_col)
            })?;
            row = r;
            col = c;
        }
        if row > crate::refs::MAX_ROW || col > crate::refs::MAX_COL {
            return Err(Error::malformed(format!(
                "cell at row {} column {} lies beyond Excel's grid (1,048,576 rows x 16,384 columns)",
                u64::from(row) + 1,
                u64::from(col) + 1
            ))
            .at_offset(self.base + head.start as u64));
        }
        self.next_col = col.saturating_add(1);
        if row != self.row {
            self.row = row;
            self.next_row = row.saturating_add(1);
        }
        if head.empty {
            return Ok(head.end);
        }
        // Fast path: `[<f>formula</f>]<v>text</v></c>`.
        let mut vtag = head.end;
        let mut fast_formula: Option<(usize, usize)> = None;
        if buf.get(vtag..vtag + 3) == Some(b"<f>")
            && let Some(fend) = find_lt(buf, vtag + 3)
            && buf.get(fend..fend + 4) == Some(b"</f>")
        {
            fast_formula = Some((vtag + 3, fend));
            vtag = fend + 4;
        }
        if let Some(rest) = buf.get(vtag..)
            && rest.starts_with(b"<v>")
        {
            let vstart = vtag + 3;
            if let Some(vend) = find_lt(buf, vstart)
                && buf.get(vend..vend + 8) == Some(b"</v></c>")
            {
                let raw = buf.get(vstart..vend);
                let at = self.base + head.start as u64;
                let formula = fast_formula.and_then(|(fs, fe)| buf.get(fs..fe));
                self.decode_value(t, raw, None, style)
                    .and_then(|decoded| self.store_value(decoded, formula, row, col))
                    .map_err(|e| e.at_cell(row, col).at_offset(at))?;
                return Ok(vend + 8);
            }
        }
        let tag = CellTagPos {
            start: head.start,
            end: head.end,
        };
        let at = self.base + tag.start as u64;
        let here = move |e: Error| e.at_cell(row, col).at_offset(at);
        // Children: <v>, <f>, <is>; anything else is skipped.
        let mut pos = tag.end;
        let mut value: Option<(usize, usize)> = None; // raw <v> text span
        let mut inline: Option<(u32, u32)> = None;
        let mut has_formula = false;
        // Formula records and join-time expansions (chunk mode) of this
        // element's `<f>`s start here: a later `<f>` replaces them, as it
        // replaces `has_formula` (fuzz finding, test
        // `fuzz_regressions::second_formula_of_a_cell_replaces_a_pending_shared_child`).
        // So an element leaves at most one record, and only with a stored
        // cell (a value, or `T_EMPTY` for a formula without one): an
        // earlier `<f>`'s record left behind could outrank an earlier
        // copy's formula at the same place (test
        // `fuzz_regressions::duplicate_cells_around_a_pending_shared_child`).
        let pending_before = self.pending.len();
        let formulas_before = self.store.formulas.len();
        loop {
            let child = next_tag(buf, pos)
                .map_err(|e| here(xml_err(e, at - tag.start as u64)))?
                .ok_or_else(|| here(Error::malformed("cell element is not closed")))?;
            pos = child.end;
            match (child.name, child.kind) {
                (b"c", TagKind::End) => break,
                (b"v", TagKind::Start) => {
                    let (start, end, after) =
                        text_span(buf, pos).map_err(|e| here(xml_err(e, at - tag.start as u64)))?;
                    value = Some((start, end));
                    pos = after;
                }
                (b"f", TagKind::Start | TagKind::Empty) => {
                    self.pending.truncate(pending_before);
                    self.store.formulas.truncate(formulas_before);
                    has_formula = self.formula(buf, &child, row, col).map_err(here)?;
                    if child.kind == TagKind::Start {
                        pos = skip_element(buf, pos, self.ctx.limits.max_xml_depth)
                            .map_err(|e| here(xml_err(e, at - tag.start as u64)))?;
                    }
                }
                (b"is", TagKind::Start) => {
                    let off = self.store.arena.len();
                    pos = self.inline_text(buf, pos).map_err(here)?;
                    self.check_text(off).map_err(here)?;
                    let len = self.store.arena.len() - off;
                    inline = Some((off as u32, len as u32));
                }
                (_, TagKind::Start) => {
                    pos = skip_element(buf, pos, self.ctx.limits.max_xml_depth)
                        .map_err(|e| here(xml_err(e, at - tag.start as u64)))?;
                }
                _ => {}
            }
        }
        let raw = value.and_then(|(s, e)| buf.get(s..e));
        let decoded = self.decode_value(t, raw, inline, style).map_err(here)?;
        let Some((tag_code, aux, bits)) = decoded else {
            // No value: with a formula the cell exists without one
            // (`Value::Empty`, a formula with no cached result); without,
            // it is not stored.
            if has_formula {
                self.push_cell(row, col, T_EMPTY, AUX_FORMULA, 0)
                    .map_err(here)?;
            }
            return Ok(pos);
        };
        self.push_cell(
            row,
            col,
            tag_code,
            aux | if has_formula { AUX_FORMULA } else { 0 },
            bits,
        )
        .map_err(here)?;
        Ok(pos)
    }

    /// Stores a decoded value (if any) with its plain formula text.
    #[inline(always)]
    fn store_value(
        &mut self,
        decoded: Option<(u8, u8, u64)>,
        formula: Option<&[u8]>,
        row: u32,
        col: u32,
    ) -> Result<()> {
        let Some((tag_code, mut aux, bits)) = decoded else {
            return self.store_formula_only(formula, row, col);
        };
        if let Some(text) = formula
            && self.plain_formula(text, row, col)?
        {
            aux |= AUX_FORMULA;
        }
        self.push_cell(row, col, tag_code, aux, bits)
    }

    /// A cell without a value: stored as `T_EMPTY` when it has plain
    /// formula text (a formula with no cached result), else not at all.
    #[cold]
    #[inline(never)]
    fn store_formula_only(&mut self, formula: Option<&[u8]>, row: u32, col: u32) -> Result<()> {
        match formula {
            Some(text) if self.plain_formula(text, row, col)? => {
                self.push_cell(row, col, T_EMPTY, AUX_FORMULA, 0)
            }
            _ => Ok(()),
        }
    }

    #[inline]
    fn push_cell(&mut self, row: u32, col: u32, tag: u8, aux: u8, bits: u64) -> Result<()> {
        if self.store.cells.len() as u64 >= self.ctx.limits.max_cells_per_sheet {
            return Err(Error::limit(format!(
                "more than {} cells in one sheet",
                self.ctx.limits.max_cells_per_sheet
            )));
        }
        let key = ((u64::from(row) << 16) | u64::from(col)) + 1;
        self.unsorted |= key <= self.last_key;
        self.last_key = key;
        self.store.cells.push(RawCell {
            row,
            col: col as u16,
            tag,
            aux,
            bits,
        });
        Ok(())
    }

    /// Turns a cell's type attribute and raw value into (tag, aux, bits);
    /// `None` for an empty cell.
    fn decode_value(
        &mut self,
        t: u8,
        raw: Option<&[u8]>,
        inline: Option<(u32, u32)>,
        style: u32,
    ) -> Result<Option<(u8, u8, u64)>> {
        let base = self.base;
        Ok(Some(match (t, raw, inline) {
            (b'i', _, Some((off, len))) if len > 0 => (T_INLINE, 0, span_bits(off, len)),
            (_, None, _) => return Ok(None),
            (b's', Some(raw), _) => {
                let raw = ream_xml::trim_xml_ws(raw);
                if raw.is_empty() {
                    return Ok(None);
                }
                let Some(idx) = parse_u32(raw) else {
                    if let Some(v) = crate::escapes::resolved(raw) {
                        return self.decode_value(t, Some(&v), inline, style);
                    }
                    return Err(Error::malformed(format!(
                        "bad shared string index '{}'",
                        String::from_utf8_lossy(raw)
                    )));
                };
                if idx as usize >= self.ctx.sst_len {
                    // Not fatal: the cell is left empty and the sheet gets a
                    // warning (the readers users compare with do the same).
                    self.save_rare();
                    if self.missing_sst.0 == 0 {
                        self.missing_sst.1 = (self.row, self.next_col.saturating_sub(1), idx);
                    }
                    self.missing_sst.0 += 1;
                    return Ok(None);
                }
                (T_SST, 0, u64::from(idx))
            }
            // An inline-string cell keeps its text in <is>; a stray <v> is
            // ignored, as other readers do.
            (b'i', _, _) => return Ok(None),
            (b'S', Some(raw), _) => {
                let off = self.store.arena.len();
                // Plain text is one character a byte: under the limit when
                // its byte length is; else `check_text` counts.
                if raw.len() > self.ctx.limits.max_string_chars
                    || !push_plain_ascii(&mut self.store.arena, raw)
                {
                    ream_xml::unescape_into(raw, &mut self.store.arena)
                        .map_err(|e| xml_err(e, base))?;
                    self.check_text(off)?;
                }
                let len = self.store.arena.len() - off;
                if len == 0 {
                    return Ok(None);
                }
                (T_INLINE, 0, span_bits(off as u32, len as u32))
            }
            (b'b', Some(raw), _) => match ream_xml::trim_xml_ws(raw) {
                b"1" | b"true" => (T_BOOL, 0, 1),
                b"0" | b"false" => (T_BOOL, 0, 0),
                b"" => return Ok(None),
                other => {
                    if let Some(v) = crate::escapes::resolved(raw) {
                        return self.decode_value(t, Some(&v), inline, style);
                    }
                    return Err(Error::malformed(format!(
                        "bad boolean '{}'",
                        String::from_utf8_lossy(other)
                    )));
                }
            },
            (b'e', Some(raw), _) => {
                let raw = ream_xml::trim_xml_ws(raw);
                match CellError::from_bytes(raw) {
                    Some(e) => (T_ERROR, e.code(), 0),
                    None if raw.is_empty() => return Ok(None),
                    None if let Some(v) = crate::escapes::resolved(raw) => {
                        return self.decode_value(t, Some(&v), inline, style);
                    }
                    None => (T_ERROR, CellError::Value.code(), 0),
                }
            }
            (b'd', Some(raw), _) => {
                let raw = ream_xml::trim_xml_ws(raw);
                if raw.is_empty() {
                    return Ok(None);
                }
                match crate::dates::iso_to_serial(raw, self.ctx.date_1904) {
                    Some(serial) => (
                        T_DATE,
                        date_kind_code(crate::dates::kind_for(DateKind::DateTime, serial)),
                        serial.to_bits(),
                    ),
                    None => {
                        if let Some(v) = crate::escapes::resolved(raw) {
                            return self.decode_value(t, Some(&v), inline, style);
                        }
                        return Err(Error::malformed(format!(
                            "bad ISO 8601 date '{}'",
                            String::from_utf8_lossy(
                                raw.get(..raw.len().min(40)).unwrap_or_default()
                            )
                        )));
                    }
                }
            }
            (_, Some(raw), _) => {
                let raw = ream_xml::trim_xml_ws(raw);
                if raw.is_empty() {
                    return Ok(None);
                }
                let Some(v) = parse_number(raw) else {
                    if let Some(v) = crate::escapes::resolved(raw) {
                        return self.decode_value(t, Some(&v), inline, style);
                    }
                    return Err(Error::malformed(format!(
                        "not a number: '{}'",
                        String::from_utf8_lossy(raw.get(..raw.len().min(40)).unwrap_or_default())
                    )));
                };
                match self.ctx.styles.date_kind(style) {
                    Some(kind) => (
                        T_DATE,
                        date_kind_code(crate::dates::kind_for(kind, v)),
                        v.to_bits(),
                    ),
                    None => (T_NUMBER, 0, v.to_bits()),
                }
            }
        }))
    }

    /// Files the formula text the arena received since `off` for (row,
    /// col), charged against the formula limit. Returns true.
    fn record_formula(&mut self, off: usize, row: u32, col: u32) -> Result<bool> {
        let len = self.store.arena.len() - off;
        self.charge_formula(len)?;
        self.store.formulas.push(FormulaRec {
            row,
            col,
            off: off as u32,
            len: len as u32,
        });
        Ok(true)
    }

    /// Counts formula bytes against `max_formula_bytes`.
    fn charge_formula(&mut self, len: usize) -> Result<()> {
        self.formula_bytes += len as u64;
        if self.formula_bytes > self.ctx.limits.max_formula_bytes {
            return Err(Error::limit(format!(
                "formula text of this sheet exceeds {} bytes (shared formulas expanded)",
                self.ctx.limits.max_formula_bytes
            )));
        }
        Ok(())
    }

    /// Records a plain (not shared) formula's raw text for (row, col).
    fn plain_formula(&mut self, text: &[u8], row: u32, col: u32) -> Result<bool> {
        if text.is_empty() {
            return Ok(false);
        }
        let off = self.store.arena.len();
        // Most formulas are short printable ASCII with no entity, escape or
        // line end: copy them as they are (valid UTF-8 by construction).
        if !push_plain_ascii(&mut self.store.arena, text) {
            ream_xml::unescape_into(text, &mut self.store.arena)
                .map_err(|e| xml_err(e, self.base))?;
            self.check_text(off)?;
        }
        self.record_formula(off, row, col)
    }

    /// Records the formula of the cell at (row, col). Returns whether the
    /// cell now has formula text.
    fn formula(&mut self, buf: &[u8], f: &Tag<'_>, row: u32, col: u32) -> Result<bool> {
        let mut shared = false;
        let mut si: Option<u32> = None;
        for (name, value) in f.attributes() {
            match name {
                b"t" => shared = value == b"shared",
                b"si" => si = parse_u32(value),
                _ => {}
            }
        }
        let text = if f.kind == TagKind::Start {
            let (s, e, _) = text_span(buf, f.end).map_err(|e| xml_err(e, self.base))?;
            buf.get(s..e).unwrap_or_default()
        } else {
            &[]
        };
        let off = self.store.arena.len();
        if !text.is_empty() {
            ream_xml::unescape_into(text, &mut self.store.arena)
                .map_err(|e| xml_err(e, self.base))?;
            self.check_text(off)?;
            let len = (self.store.arena.len() - off) as u32;
            if let (true, Some(si)) = (shared, si) {
                let slot = si as usize;
                if slot > MAX_SHARED_SI {
                    return Err(Error::limit(format!(
                        "shared formula index {si} exceeds {MAX_SHARED_SI}"
                    )));
                }
                self.save_rare();
                if self.shared.len() <= slot {
                    self.shared.resize(slot + 1, None);
                }
                // The master text is kept apart from the cell arena, so a
                // streaming reader can recycle the arena between blocks.
                let text_off = self.shared_text.len() as u32;
                if let Some(t) = self.store.arena.get(off..) {
                    self.shared_text.extend_from_slice(t);
                }
                if let Some(s) = self.shared.get_mut(slot) {
                    self.shared_undo.push((slot, *s));
                    *s = Some(SharedMaster {
                        row,
                        col,
                        off: text_off,
                        len,
                        rel: !self.abs_seen,
                    });
                }
            }
        } else if let (true, Some(si)) = (shared, si) {
            let Some(m) = self.shared.get(si as usize).copied().flatten() else {
                if self.chunk_mode {
                    // The master may be in an earlier chunk: an empty record
                    // holds the formula's place, filled at the join (or
                    // dropped, with the cell's flag, when there is none).
                    self.save_rare();
                    self.pending.push(Pending {
                        si,
                        cell: self.store.cells.len(),
                        formula: self.store.formulas.len(),
                    });
                    return self.record_formula(off, row, col);
                }
                return Ok(false);
            };
            let (start, end) = (m.off as usize, (m.off + m.len) as usize);
            let drow = i64::from(row) - i64::from(m.row);
            let dcol = i64::from(col) - i64::from(m.col);
            self.scratch.clear();
            let master = self.shared_text.get(start..end).unwrap_or_default();
            shift_formula(master, drow, dcol, &mut self.scratch);
            self.store.arena.extend_from_slice(&self.scratch);
        } else {
            return Ok(false);
        }
        self.record_formula(off, row, col)
    }
}

impl SheetParser<'_> {
    /// Collects the text of an `<is>` element (all `<t>` runs, phonetic
    /// `<rPh>` runs skipped) into the arena; returns the offset past `</is>`.
    fn inline_text(&mut self, buf: &[u8], from: usize) -> Result<usize> {
        collect_runs(
            buf,
            from,
            b"is",
            &mut self.store.arena,
            self.ctx.limits.max_xml_depth,
        )
        .map_err(|e| xml_err(e, self.base))
    }

    /// Validates the text appended to the arena since `off`: UTF-8, `_xHHHH_`
    /// escapes decoded, length limit.
    fn check_text(&mut self, off: usize) -> Result<()> {
        finish_text(&mut self.store.arena, off, self.ctx.limits.max_string_chars)
    }
}

/// True when `tail` (the part after `</sheetData>`) closes the root
/// element, i.e. the part is not cut short.
fn ends_with_end_tag(tail: &[u8]) -> bool {
    let mut depth: i64 = 1;
    let mut pos = 0;
    while let Ok(Some(tag)) = next_tag(tail, pos) {
        pos = tag.end;
        match tag.kind {
            TagKind::Start => depth += 1,
            TagKind::End => {
                depth -= 1;
                if depth == 0 {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// Appends `text` to `arena` when it is short printable ASCII with no
/// entity, `_xHHHH_` escape or line end (most formula and string values),
/// which needs no decoding and is valid UTF-8 by construction; returns
/// false (appending nothing) otherwise.
#[inline]
fn push_plain_ascii(arena: &mut Vec<u8>, text: &[u8]) -> bool {
    let plain = text.len() <= 256 && crate::cell_scan::is_plain_ascii(text);
    if plain {
        arena.extend_from_slice(text);
    }
    plain
}

/// End of the last complete `</row>` (or `</x:row>`) in `buf`, found with
/// `finder` (a reverse finder for `row>`).
pub(crate) fn last_row_end(finder: &memmem::FinderRev<'_>, buf: &[u8]) -> Option<usize> {
    let mut hay = buf;
    while let Some(i) = finder.rfind(hay) {
        let before = hay.get(..i).unwrap_or_default();
        // Accept `</row>` or `</prefix:row>` (a short prefix).
        let tail = before
            .get(before.len().saturating_sub(24)..)
            .unwrap_or_default();
        let ok = before.ends_with(b"</")
            || tail.iter().rposition(|&b| b == b'<').is_some_and(|lt| {
                let between = tail.get(lt + 1..).unwrap_or_default();
                between.first() == Some(&b'/')
                    && between.last() == Some(&b':')
                    && between.iter().all(|&b| b != b'>' && b != b' ')
            });
        if ok {
            return Some(i + 4);
        }
        hay = before;
    }
    None
}
