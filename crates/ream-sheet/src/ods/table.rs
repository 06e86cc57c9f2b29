//! One `table:table` element in, one sheet's cells and small parts out.
//!
//! Rows and columns are counted, never materialised: an empty cell or row
//! only advances a counter however large its repeat count, so the
//! 1,048,576-row trailers LibreOffice writes cost nothing. A repeated
//! non-empty cell or row is stored once per repetition, within the grid
//! (1,048,576 rows x 16,384 columns; what lies beyond is dropped with one
//! warning) and within `max_cells_per_sheet`, which is checked *before* a
//! repetition is expanded, so a repeat bomb fails at once with
//! `LimitExceeded` instead of first filling memory. What repeats add is
//! also counted against one budget of `max_cells_per_sheet` for the whole
//! read ([`TableCfg::repeats`]), so that many tables cannot multiply it.

use super::names::{RawName, read_named_expressions};
use super::text::read_frame;
use super::values::parse_count;
use super::xml::{attr, attr_string, bad_value, shift, truncated, xml_err};
use crate::error::{Error, Result};
use crate::model::{CellRange, Comment, Drawing, Hyperlink};
use crate::options::Limits;
use crate::store::{CellStore, T_INLINE};
use ream_xml::{Tag, TagKind, next_tag, skip_element};
use std::sync::atomic::{AtomicU64, Ordering};

/// Cells a chunk takes from the shared budget at a time.
const BUDGET_BLOCK: u64 = 1 << 16;

/// Rows of the grid (as in Excel and LibreOffice).
pub(crate) const GRID_ROWS: u64 = 1 << 20;
/// Columns of the grid (as in Excel and LibreOffice 7.4+).
pub(crate) const GRID_COLS: u64 = 1 << 14;

/// A parsed table: cells, small parts and where it ended.
#[derive(Default)]
pub(crate) struct ParsedTable {
    /// `table:name`.
    pub name: String,
    /// `table:style-name` (its automatic style says whether it is shown).
    pub style: Option<String>,
    /// The cells.
    pub store: CellStore,
    /// Ranges from `table:number-columns-spanned` / `-rows-spanned`.
    pub merged: Vec<CellRange>,
    /// `office:annotation`s.
    pub comments: Vec<Comment>,
    /// `text:a` links in cell text.
    pub hyperlinks: Vec<Hyperlink>,
    /// Images and embedded objects (charts).
    pub drawings: Vec<Drawing>,
    /// Hidden rows (filled by [`finish_table`]).
    pub hidden_rows: Vec<u32>,
    /// Hidden columns within the grid.
    pub hidden_cols: Vec<u32>,
    /// Names local to this table.
    pub names: Vec<RawName>,
    /// Problems that did not stop the parse (cells beyond the grid).
    pub warnings: Vec<Error>,
    /// Offset just past `</table:table>`.
    pub end: usize,
}

/// What every table parse of one read shares.
#[derive(Clone, Copy)]
pub(crate) struct TableCfg<'a> {
    pub limits: &'a Limits,
    /// Nesting allowed below a table element.
    pub depth_left: u32,
    /// Items repeat counts added so far in this read (copies, `text:s`
    /// spaces; hidden rows are added by [`finish_table`]'s caller), at
    /// most `max_cells_per_sheet` for all tables together.
    pub repeats: &'a AtomicU64,
}

/// The error for repeat counts that would add `wanted` items to a read
/// whose budget is `max_cells_per_sheet`.
pub(crate) fn repeat_error(limits: &Limits, wanted: u64) -> Error {
    let max = limits.max_cells_per_sheet;
    Error::limit(format!(
        "repeat counts would add {wanted} stored cells, hidden rows or spaces to this workbook, \
         more than max_cells_per_sheet ({max}), which bounds what repeats add to all sheets"
    ))
}

/// Adds `n` to `total` (saturating); returns the total before.
fn add_to(total: &AtomicU64, n: u64) -> u64 {
    let add = |t: u64| Some(t.saturating_add(n));
    match total.fetch_update(Ordering::Relaxed, Ordering::Relaxed, add) {
        Ok(t) | Err(t) => t,
    }
}

/// Takes `n` back from `total` (saturating).
fn sub_from(total: &AtomicU64, n: u64) {
    let sub = |t: u64| Some(t.saturating_sub(n));
    let _ = total.fetch_update(Ordering::Relaxed, Ordering::Relaxed, sub);
}

/// A table (or one chunk of it) before [`finish_table`]: rows are relative
/// to the chunk's first row.
pub(crate) struct Partial {
    pub table: ParsedTable,
    /// Where its walk ended.
    pub walk: Carry,
}

/// Where a table's walk stands: what it carries from one row, block
/// (`load.rs`, `stream.rs`) or chunk to the next.
#[derive(Debug, Default)]
pub(crate) struct Carry {
    /// Listing only (`mod.rs` `list`): rows are skipped unread ([`RowSkip`]),
    /// columns and shapes skipped; names and the table's end are found.
    pub skim: bool,
    /// The start tag was read.
    pub started: bool,
    /// `</table:table>` was read.
    pub closed: bool,
    /// Open elements from the table element down (1 = table level).
    pub depth: u32,
    /// Rows walked (the next row index; may run past the grid).
    pub row: u64,
    /// Next column index for `table:table-column`.
    pub col_def: u64,
    /// Items stored (cells, comments, merges, links) against the limit.
    pub used: u64,
    /// Items added by repeat counts (also counted in [`TableCfg::repeats`]).
    pub expanded: u64,
    pub formula_bytes: u64,
    /// Something was dropped for lying beyond the grid.
    pub clipped: bool,
    /// Hidden row and column runs (first, count), expanded at the end.
    pub hidden_runs: Vec<(u64, u64)>,
    pub hidden_col_runs: Vec<(u64, u64)>,
}

/// The table walker; the cell itself is in `cell.rs`.
pub(super) struct TableParser<'a> {
    pub(super) buf: &'a [u8],
    pub(super) cfg: TableCfg<'a>,
    pub(super) limits: &'a Limits,
    /// Nesting still allowed below the table element.
    pub(super) depth_left: u32,
    pub(super) out: ParsedTable,
    /// The walk's state (the current row among it).
    pub(super) w: Carry,
    /// Current column (0-based; may run past the grid).
    pub(super) col: u64,
    /// Chunk mode (one slice of a big table's rows; see `chunks.rs`):
    /// `Some(first)`; `None` for a whole table.
    chunk: Option<bool>,
    /// The cell budget shared by the chunks of one table, taken in blocks.
    shared: Option<&'a AtomicU64>,
    block_left: u64,
    /// Streaming (`stream.rs`): the buffer ends where more bytes may
    /// follow, so running out of tags at any depth inside the table only
    /// stops the walk.
    more_follows: bool,
    /// Listing only: how rows are skipped (see [`Carry::skim`]).
    skim: Option<RowSkip>,
    pub(super) scratch: Vec<u8>,
}

/// How the listing pass (`mod.rs` `list`) skips a table's content: a row is
/// skipped with two byte searches, the next `</table:table-row>` taken
/// when the bytes before it hold no other `table-row` (a nested table's
/// row) and no `<!`/`<?` (a comment, CDATA or processing instruction could
/// hide one); otherwise tag by tag. On `giant.ods` (1.16 GiB of XML) the
/// tag walk alone costs about 1.9 s; the byte searches bring the pass down
/// to inflating plus a few tenths of a second.
struct RowSkip {
    row_end: memchr::memmem::Finder<'static>,
    row_name: memchr::memmem::Finder<'static>,
}

/// End tag of a row, as LibreOffice and most writers spell it.
const ROW_END: &[u8] = b"</table:table-row>";

impl Default for RowSkip {
    fn default() -> Self {
        RowSkip {
            row_end: memchr::memmem::Finder::new(ROW_END),
            row_name: memchr::memmem::Finder::new(b"table-row"),
        }
    }
}

impl RowSkip {
    /// Whether the listing skips the element of `tag` unread (rows,
    /// columns, shapes) instead of walking it as the parse does.
    fn skips(&self, tag: &Tag<'_>) -> bool {
        matches!(tag.kind, TagKind::Start | TagKind::Empty)
            && matches!(tag.name, b"table-row" | b"table-column" | b"shapes")
    }

    /// The offset past the row whose start tag ended at `from`, when the
    /// byte searches may take it (see the type).
    fn past_row(&self, buf: &[u8], from: usize) -> Option<usize> {
        let hay = buf.get(from..)?;
        let e = self.row_end.find(hay)?;
        let body = hay.get(..e)?;
        let plain =
            self.row_name.find(body).is_none() && memchr::memchr2(b'!', b'?', body).is_none();
        plain.then_some(from + e + ROW_END.len())
    }
}

/// The `<table:table-row>` start tag at exactly `pos`, as `next_tag` reads
/// it, without its general scan (which cost some 400 instructions a row on
/// seed.ods): `None` for anything else, including white space before it.
fn fast_row_tag(buf: &[u8], pos: usize) -> Option<Tag<'_>> {
    const ROW: &[u8] = b"<table:table-row";
    if !buf.get(pos..)?.starts_with(ROW) {
        return None;
    }
    let name_end = pos + ROW.len();
    let gt = match buf.get(name_end)? {
        b'>' => name_end,
        b' ' => ream_xml::find_tag_end(buf, name_end)?,
        _ => return None,
    };
    let (kind, attrs_end) = match gt > name_end && buf.get(gt - 1) == Some(&b'/') {
        true => (TagKind::Empty, gt - 1),
        false => (TagKind::Start, gt),
    };
    Some(Tag {
        name: b"table-row",
        kind,
        attrs: buf.get(name_end..attrs_end)?,
        start: pos,
        end: gt + 1,
    })
}

/// Parses one chunk of a big table: `buf` ends where the next chunk
/// begins; `first` chunks start at the table's start tag, the others at a
/// `<table:table-row`. Rows come out relative to the chunk.
pub(crate) fn parse_chunk(
    buf: &[u8],
    start: usize,
    cfg: TableCfg<'_>,
    first: bool,
    shared: &AtomicU64,
) -> Result<Partial> {
    let out = ParsedTable {
        end: start,
        ..ParsedTable::default()
    };
    let mut p = TableParser::new(buf, cfg, out);
    (p.chunk, p.shared) = (Some(first), Some(shared));
    let from = if first {
        p.start_tag(start)?
    } else {
        Some(start)
    };
    if let Some(from) = from {
        match p.walk(from, 1) {
            Ok((end, _)) => p.out.end = end,
            Err(e) if p.out.name.is_empty() => return Err(e),
            Err(e) => return Err(e.in_sheet(p.out.name.clone())),
        }
    }
    Ok(p.into_partial())
}

/// True for the elements that group rows or columns inside a table: the
/// walk descends into them.
pub(super) fn is_group(name: &[u8]) -> bool {
    matches!(
        name,
        b"table-rows"
            | b"table-header-rows"
            | b"table-row-group"
            | b"table-columns"
            | b"table-header-columns"
            | b"table-column-group"
    )
}

/// Lengths of a table's outputs: before a block, to take back what a
/// failed block added (or, all zero, to empty them); when a row starts,
/// to repeat what it stored.
#[derive(Clone, Copy, Default)]
pub(super) struct Lens {
    cells: usize,
    formulas: usize,
    arena: usize,
    merged: usize,
    comments: usize,
    links: usize,
    drawings: usize,
    names: usize,
    warnings: usize,
}

impl Lens {
    #[inline]
    fn of(t: &ParsedTable) -> Lens {
        Lens {
            cells: t.store.cells.len(),
            formulas: t.store.formulas.len(),
            arena: t.store.arena.len(),
            merged: t.merged.len(),
            comments: t.comments.len(),
            links: t.hyperlinks.len(),
            drawings: t.drawings.len(),
            names: t.names.len(),
            warnings: t.warnings.len(),
        }
    }

    pub(super) fn restore(&self, t: &mut ParsedTable) {
        t.store.cells.truncate(self.cells);
        t.store.formulas.truncate(self.formulas);
        t.store.arena.truncate(self.arena);
        t.merged.truncate(self.merged);
        t.comments.truncate(self.comments);
        t.hyperlinks.truncate(self.links);
        t.drawings.truncate(self.drawings);
        t.names.truncate(self.names);
        t.warnings.truncate(self.warnings);
    }
}

/// Parses the next block of a table read block by block over a window
/// (`load.rs`, `stream.rs`), appending to `out` (the table so far) and
/// carrying the walk and the hidden runs in `carry`: `buf[from..]` holds
/// the bytes read so far; the first block starts at the table's start
/// tag. With `more_follows`, running out of tags stops the walk (the
/// caller cuts `buf` at a row start, so the walk stops between rows);
/// without it, it is the serial parse's truncation error. Rows are
/// absolute. On an error everything the block added to
/// `out` and `carry` is taken back, so the block can be parsed again from
/// `from` with more bytes. Returns where the walk stopped.
pub(crate) fn parse_block_into(
    buf: &[u8],
    from: usize,
    cfg: TableCfg<'_>,
    carry: &mut Carry,
    out: &mut ParsedTable,
    more_follows: bool,
) -> Result<usize> {
    let lens = Lens::of(out);
    // The scalars as they were, to take back on an error.
    let before = Carry {
        hidden_runs: Vec::new(),
        hidden_col_runs: Vec::new(),
        ..*carry
    };
    let runs = (carry.hidden_runs.len(), carry.hidden_col_runs.len());
    let mut p = TableParser::new(buf, cfg, std::mem::take(out));
    p.w = std::mem::take(carry);
    p.more_follows = more_follows;
    p.skim = p.w.skim.then(RowSkip::default);
    let walked = if p.w.started {
        p.walk(from, p.w.depth).map(Some)
    } else {
        match p.start_tag(from) {
            Ok(Some(end)) => p.walk(end, 1).map(Some),
            Ok(None) => Ok(None),
            Err(e) => Err(e),
        }
    };
    p.w.started = true;
    let res = match walked {
        Ok(Some((end, depth))) => {
            p.w.depth = depth;
            p.out.end = end;
            Ok(end)
        }
        // An empty `<table:table/>`.
        Ok(None) => Ok(p.out.end),
        Err(e) => {
            // Taken back, so a retry with more bytes counts them once.
            sub_from(cfg.repeats, p.w.expanded.saturating_sub(before.expanded));
            lens.restore(&mut p.out);
            p.w.hidden_runs.truncate(runs.0);
            p.w.hidden_col_runs.truncate(runs.1);
            p.w = Carry {
                hidden_runs: std::mem::take(&mut p.w.hidden_runs),
                hidden_col_runs: std::mem::take(&mut p.w.hidden_col_runs),
                ..before
            };
            Err(e)
        }
    };
    *carry = p.w;
    *out = p.out;
    res
}

impl<'a> TableParser<'a> {
    pub(super) fn new(buf: &'a [u8], cfg: TableCfg<'a>, out: ParsedTable) -> TableParser<'a> {
        TableParser {
            buf,
            cfg,
            limits: cfg.limits,
            depth_left: cfg.depth_left,
            out,
            w: Carry::default(),
            col: 0,
            chunk: None,
            shared: None,
            block_left: 0,
            more_follows: false,
            skim: None,
            scratch: Vec::new(),
        }
    }

    /// Reads the table's start tag at `start` (name, style). Returns the
    /// offset past it, or `None` for an empty `<table:table/>`.
    fn start_tag(&mut self, start: usize) -> Result<Option<usize>> {
        let tag = self.next(start, "table start tag missing")?;
        let (name, style) = name_and_style(&tag, &mut self.scratch)?;
        (self.out.name, self.out.style) = (name, style);
        if tag.kind == TagKind::Empty {
            self.w.closed = true;
            self.out.end = tag.end;
            return Ok(None);
        }
        Ok(Some(tag.end))
    }
}

/// `table:name` (empty when absent) and `table:style-name` of a table's
/// start tag.
pub(super) fn name_and_style(
    tag: &Tag<'_>,
    scratch: &mut Vec<u8>,
) -> Result<(String, Option<String>)> {
    let mut text = |raw: &[u8]| attr_string(raw, scratch).map_err(|e| xml_err(shift(e, tag.start)));
    let name = attr(tag, b"name").map(&mut text).transpose()?;
    let style = attr(tag, b"style-name").map(&mut text).transpose()?;
    Ok((name.unwrap_or_default(), style))
}

/// Sorts out what the walk left: hidden rows and columns within the used
/// range, the clipping warning, cell order. `repeats` is what repeat
/// counts added to the tables before this one; this table's copies,
/// spaces and hidden rows are added, and the total must stay within
/// `max_cells_per_sheet`.
pub(crate) fn finish_table(p: Partial, limits: &Limits, repeats: &mut u64) -> Result<ParsedTable> {
    let mut out = p.table;
    let cells = &out.store.cells;
    let last_row = cells
        .last()
        .map(|c| c.row)
        .into_iter()
        .chain(out.merged.iter().map(|r| r.last_row))
        .chain(out.comments.iter().map(|c| c.row))
        .chain(out.hyperlinks.iter().map(|l| l.range.last_row))
        .max();
    let last_col = cells
        .iter()
        .map(|c| u32::from(c.col))
        .chain(out.merged.iter().map(|r| r.last_col))
        .chain(out.comments.iter().map(|c| c.col))
        .chain(out.hyperlinks.iter().map(|l| l.range.last_col))
        .max();
    // Runs clipped to the used range, as (first, end).
    let clip = |runs: &[(u64, u64)], last: Option<u32>| -> Vec<(u64, u64)> {
        let Some(last) = last else { return Vec::new() };
        let stop = u64::from(last) + 1;
        runs.iter()
            .map(|&(first, count)| (first, first.saturating_add(count).min(stop)))
            .filter(|&(first, end)| end > first)
            .collect()
    };
    let rows = clip(&p.walk.hidden_runs, last_row);
    let cols = clip(&p.walk.hidden_col_runs, last_col);
    let extra: u64 = rows
        .iter()
        .chain(&cols)
        .map(|&(first, end)| end - first - 1)
        .sum();
    *repeats = repeats
        .saturating_add(p.walk.expanded)
        .saturating_add(extra);
    if *repeats > limits.max_cells_per_sheet {
        return Err(repeat_error(limits, *repeats));
    }
    out.hidden_rows
        .extend(rows.iter().flat_map(|&(a, b)| a..b).map(|r| r as u32));
    out.hidden_cols
        .extend(cols.iter().flat_map(|&(a, b)| a..b).map(|c| c as u32));
    if p.walk.clipped {
        out.warnings.push(Error::limit(format!(
            "cells beyond the grid of {GRID_ROWS} rows x {GRID_COLS} columns were dropped"
        )));
    }
    out.hidden_cols.sort_unstable();
    out.hidden_cols.dedup();
    out.store.normalize(true);
    Ok(out)
}

impl<'a> TableParser<'a> {
    pub(super) fn next(&self, pos: usize, what: &'static str) -> Result<Tag<'a>> {
        super::xml::next(self.buf, pos, what)
    }

    pub(super) fn skip(&self, from: usize, depth: u32) -> Result<usize> {
        skip_element(self.buf, from, self.depth_left.saturating_sub(depth)).map_err(xml_err)
    }

    /// Walks the table's children from `depth` (1 = table level) up to
    /// its end tag; returns where it stopped and the depth there.
    fn walk(&mut self, from: usize, depth: u32) -> Result<(usize, u32)> {
        let mut pos = from;
        let mut depth = depth;
        loop {
            let fast = fast_row_tag(self.buf, pos);
            let tag = match fast.map_or_else(|| next_tag(self.buf, pos), |t| Ok(Some(t))) {
                Ok(Some(t)) => t,
                Err(e) => return Err(xml_err(e)),
                // A chunk ends at the next chunk's first row, at table level.
                Ok(None) if self.chunk.is_some() && depth == 1 => return Ok((pos, depth)),
                // A streamed block ends at a row start, at any depth.
                Ok(None) if self.more_follows => return Ok((pos, depth)),
                Ok(None) => {
                    return Err(truncated(self.buf.len(), "content.xml ends inside a table"));
                }
            };
            pos = tag.end;
            if let Some(skim) = &self.skim
                && skim.skips(&tag)
            {
                if tag.kind == TagKind::Start {
                    let row = tag.name == b"table-row";
                    pos = match skim.past_row(self.buf, pos).filter(|_| row) {
                        Some(end) => end,
                        None => self.skip(pos, depth)?,
                    };
                }
                continue;
            }
            match (tag.kind, tag.name) {
                (TagKind::Start | TagKind::Empty, b"table-row") => {
                    pos = self.row(&tag, depth)?;
                }
                (TagKind::Start | TagKind::Empty, b"table-column") if self.chunk == Some(false) => {
                    return Err(Error::malformed("a column definition after rows"));
                }
                (TagKind::Start | TagKind::Empty, b"table-column") => {
                    self.column(&tag)?;
                    if tag.kind == TagKind::Start {
                        pos = self.skip(pos, depth)?;
                    }
                }
                (TagKind::Start, name) if is_group(name) => {
                    depth += 1;
                    if depth > self.depth_left {
                        return Err(
                            Error::limit("XML nesting too deep").at_offset(tag.start as u64)
                        );
                    }
                }
                (TagKind::Start, b"named-expressions") => {
                    let left = self.depth_left.saturating_sub(depth);
                    pos = read_named_expressions(
                        self.buf,
                        pos,
                        left,
                        &mut self.out.names,
                        &mut self.scratch,
                    )?;
                }
                (TagKind::Start, b"shapes") => pos = self.shapes(pos, depth)?,
                (TagKind::Start, _) => pos = self.skip(pos, depth)?,
                (TagKind::End, name) => {
                    depth -= 1;
                    if depth == 0 {
                        if name != b"table" {
                            return Err(Error::malformed(format!(
                                "mismatched end tag </{}> closes a table",
                                String::from_utf8_lossy(name)
                            ))
                            .at_offset(tag.start as u64));
                        }
                        self.w.closed = true;
                        return Ok((pos, depth));
                    }
                }
                _ => {}
            }
        }
    }

    /// Frames of `table:shapes` (not anchored to a cell).
    fn shapes(&mut self, from: usize, depth: u32) -> Result<usize> {
        let mut pos = from;
        loop {
            let tag = self.next(pos, "content.xml ends inside table:shapes")?;
            pos = tag.end;
            match tag.kind {
                TagKind::Start | TagKind::Empty if tag.name == b"frame" => {
                    let left = self.depth_left.saturating_sub(depth + 1);
                    let empty = tag.kind == TagKind::Empty;
                    let (d, end) = read_frame(self.buf, pos, empty, left, None, &mut self.scratch)?;
                    self.out.drawings.extend(d);
                    pos = end;
                }
                TagKind::Start => pos = self.skip(pos, depth + 1)?,
                TagKind::End => return Ok(pos),
                _ => {}
            }
        }
    }

    /// A `table:table-column`: advances the column count, records hidden
    /// columns (within the grid).
    fn column(&mut self, tag: &Tag<'_>) -> Result<()> {
        let repeat = repeat_count(tag, b"number-columns-repeated", "column repeat count")?;
        let hidden = is_hidden(tag);
        if hidden && self.w.col_def < GRID_COLS {
            self.w.hidden_col_runs.push((self.w.col_def, repeat));
        }
        self.w.col_def = self.w.col_def.saturating_add(repeat);
        Ok(())
    }

    /// Counts `n` items added by a repeat count; fails before the read's
    /// repeat total would pass `max_cells_per_sheet`.
    pub(super) fn expand(&mut self, n: u64, at: usize) -> Result<()> {
        if n == 0 {
            // Every stored cell comes here with nothing repeated.
            return Ok(());
        }
        self.w.expanded = self.w.expanded.saturating_add(n);
        let total = add_to(self.cfg.repeats, n).saturating_add(n);
        if total > self.limits.max_cells_per_sheet {
            let mut e = repeat_error(self.limits, total).at_offset(at as u64);
            if let (Ok(r), Ok(c)) = (u32::try_from(self.w.row), u32::try_from(self.col)) {
                e = e.at_cell(r, c);
            }
            return Err(e);
        }
        Ok(())
    }

    /// Fails before storing `n` more items would pass the sheet's limit.
    /// Inlined: every stored cell calls it (out of line it cost 25
    /// instructions a cell, 2.6 % of a one-thread open of seed.ods).
    #[inline]
    pub(super) fn reserve_budget(&mut self, n: u64, at: usize) -> Result<()> {
        let max = self.limits.max_cells_per_sheet;
        let mut total = self.w.used.saturating_add(n);
        if let Some(shared) = self.shared {
            // Chunks of one table draw on one budget, in blocks (an
            // overdraw only sends the table back to the serial path).
            if n > self.block_left {
                let take = n.max(BUDGET_BLOCK);
                let before = shared.fetch_add(take, Ordering::Relaxed);
                total = before.saturating_add(take);
                self.block_left = self.block_left.saturating_add(take);
            } else {
                total = 0;
            }
            self.block_left -= n;
        }
        if total > max {
            return Err(self.over_budget(total, at));
        }
        self.w.used = self.w.used.saturating_add(n);
        Ok(())
    }

    /// The error of [`reserve_budget`](Self::reserve_budget): `total`
    /// items wanted, over the limit, at byte `at` and the current cell.
    #[cold]
    #[inline(never)]
    fn over_budget(&self, total: u64, at: usize) -> Error {
        let max = self.limits.max_cells_per_sheet;
        let mut e = Error::limit(format!(
            "more than {max} cells in one sheet (repeated cells expanded: {total} wanted)"
        ))
        .at_offset(at as u64);
        if let (Ok(r), Ok(c)) = (u32::try_from(self.w.row), u32::try_from(self.col)) {
            e = e.at_cell(r, c);
        }
        e
    }

    /// A `table:table-row`; returns the offset past it.
    fn row(&mut self, tag: &Tag<'a>, depth: u32) -> Result<usize> {
        // Most rows are a bare `<table:table-row>`: no attribute search
        // (two searches of an empty list cost some 120 instructions a row).
        let (repeat, hidden) = if tag.attrs.is_empty() {
            (1, false)
        } else {
            let repeat = repeat_count(tag, b"number-rows-repeated", "row repeat count")?;
            (repeat, is_hidden(tag))
        };
        let marks = Lens::of(&self.out);
        self.col = 0;
        let mut pos = tag.end;
        if tag.kind == TagKind::Start {
            loop {
                // An end tag is not tried as a cell (the row's end came
                // through the cell scan once a row, some 30 instructions).
                if self.buf.get(pos + 1) == Some(&b'/') {
                    if let Some(rest) = self.buf.get(pos..)
                        && rest.starts_with(b"</table:table-row>")
                    {
                        pos += 18;
                        break;
                    }
                } else if let Some(end) = self.plain_cell(pos)? {
                    pos = end;
                    continue;
                }
                let t = self.next(pos, "content.xml ends inside a table row")?;
                pos = t.end;
                match (t.kind, t.name) {
                    (TagKind::Start | TagKind::Empty, b"table-cell" | b"covered-table-cell") => {
                        pos = self.cell(&t, depth + 1)?;
                    }
                    (TagKind::Start, _) => pos = self.skip(pos, depth + 1)?,
                    (TagKind::End, _) => break,
                    _ => {}
                }
            }
        }
        if hidden {
            self.w.hidden_runs.push((self.w.row, repeat));
        }
        if repeat > 1 {
            // An error of the copies names the row's first cell.
            self.col = 0;
            self.repeat_row(repeat, marks, tag.start)?;
        }
        self.w.row = self.w.row.saturating_add(repeat);
        Ok(pos)
    }

    /// Stores copies 2..=`repeat` of what the current row stored (not its
    /// drawings), within the grid and the budgets.
    fn repeat_row(&mut self, repeat: u64, m: Lens, at: usize) -> Result<()> {
        let now = Lens::of(&self.out);
        let per_row = (now.cells - m.cells)
            + (now.merged - m.merged)
            + (now.comments - m.comments)
            + (now.links - m.links);
        if per_row == 0 {
            return Ok(());
        }
        let fit = GRID_ROWS.saturating_sub(self.w.row).min(repeat);
        if fit < repeat {
            self.w.clipped = true;
        }
        let copies = fit.saturating_sub(1);
        let extra = (per_row as u64).saturating_mul(copies);
        self.reserve_budget(extra, at)?;
        self.expand(extra, at)?;
        let out = &mut self.out;
        let row = ParsedTable {
            store: CellStore {
                cells: out.store.cells.split_off(m.cells),
                formulas: out.store.formulas.split_off(m.formulas),
                ..CellStore::default()
            },
            merged: out.merged.split_off(m.merged),
            comments: out.comments.split_off(m.comments),
            hyperlinks: out.hyperlinks.split_off(m.links),
            ..ParsedTable::default()
        };
        for k in 0..=copies {
            append_items(out, &row, k, 0);
        }
        Ok(())
    }

    fn into_partial(self) -> Partial {
        Partial {
            table: self.out,
            walk: self.w,
        }
    }
}

/// Appends `src`'s items to `out`: rows shifted by `offset`, text spans
/// by `base` (where `src`'s arena starts in `out`'s). Items whose row
/// passes the grid are dropped; returns true when a cell, merge, comment
/// or link was. Merged ranges end within the grid; a link covers one row.
pub(super) fn append_items(
    out: &mut ParsedTable,
    src: &ParsedTable,
    offset: u64,
    base: u32,
) -> bool {
    let row_of = |r: u32| {
        let abs = u64::from(r) + offset;
        (abs < GRID_ROWS).then_some(abs as u32)
    };
    let dropped = std::cell::Cell::new(false);
    let shift = |r: u32| {
        let row = row_of(r);
        dropped.set(dropped.get() || row.is_none());
        row
    };
    let (to, from) = (&mut out.store, &src.store);
    to.cells.extend(from.cells.iter().filter_map(|&(mut c)| {
        c.row = shift(c.row)?;
        if c.tag == T_INLINE {
            c.bits += u64::from(base) << 32;
        }
        Some(c)
    }));
    to.formulas
        .extend(from.formulas.iter().filter_map(|&(mut f)| {
            (f.row, f.off) = (row_of(f.row)?, f.off + base);
            Some(f)
        }));
    out.merged.extend(src.merged.iter().filter_map(|&(mut m)| {
        m.first_row = shift(m.first_row)?;
        m.last_row = (u64::from(m.last_row) + offset).min(GRID_ROWS - 1) as u32;
        Some(m)
    }));
    out.comments.extend(src.comments.iter().filter_map(|c| {
        let row = shift(c.row)?;
        Some(Comment { row, ..c.clone() })
    }));
    out.hyperlinks.extend(src.hyperlinks.iter().filter_map(|l| {
        let mut l = l.clone();
        l.range.first_row = shift(l.range.first_row)?;
        l.range.last_row = l.range.first_row;
        Some(l)
    }));
    out.drawings.extend(src.drawings.iter().filter_map(|d| {
        let mut d = d.clone();
        if let Some((r, c)) = d.anchor {
            d.anchor = Some((row_of(r)?, c));
        }
        Some(d)
    }));
    dropped.get()
}

/// A row's or column's repeat count from attribute `name` (1 when absent,
/// at least 1); a count that does not parse is an error naming `what`.
#[inline]
fn repeat_count(tag: &Tag<'_>, name: &[u8], what: &str) -> Result<u64> {
    match attr(tag, name) {
        Some(raw) => Ok(parse_count(raw)
            .ok_or_else(|| bad_value(what, raw, tag.start))?
            .max(1)),
        None => Ok(1),
    }
}

/// Whether a row or column is hidden (`table:visibility` collapse or
/// filter).
#[inline]
fn is_hidden(tag: &Tag<'_>) -> bool {
    matches!(attr(tag, b"visibility"), Some(b"collapse" | b"filter"))
}

#[cfg(test)]
mod tests {
    use super::fast_row_tag;
    use ream_xml::next_tag;

    /// The fast row scan reads a row start tag as `next_tag` does, and
    /// leaves everything else (other names, white space first, unclosed
    /// tags) to it.
    #[test]
    fn fast_row_tag_reads_like_next_tag() {
        let cases: [&[u8]; 10] = [
            b"<table:table-row>x",
            b"<table:table-row/>",
            b"<table:table-row table:style-name=\"ro1\">",
            b"<table:table-row a='>' b=\"'>\" table:number-rows-repeated=\"3\"/>",
            b"<table:table-row a=\"1\"",
            b"<table:table-rows>",
            b"<table:table-row\t>",
            b" <table:table-row>",
            b"<table:table-row-group>",
            b"<table:table-row a=\"x",
        ];
        for c in cases {
            let want = next_tag(c, 0)
                .ok()
                .flatten()
                .filter(|t| t.name == b"table-row");
            let got = fast_row_tag(c, 0);
            let show = |t: Option<ream_xml::Tag<'_>>| {
                t.map(|t| (t.name.to_vec(), t.kind, t.attrs.to_vec(), t.start, t.end))
            };
            match got {
                Some(_) => assert_eq!(show(got), show(want), "{:?}", String::from_utf8_lossy(c)),
                None => assert!(
                    want.is_none() || c[0] != b'<' || c[16] != b' ',
                    "{:?}",
                    String::from_utf8_lossy(c)
                ),
            }
        }
        assert!(fast_row_tag(b"<table:table-row>", 0).is_some());
        assert!(fast_row_tag(b"<table:table-row a=\"1\"", 0).is_none());
    }
}
