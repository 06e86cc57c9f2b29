//! The join of a big sheet's row chunks: chunk outputs appended in order
//! into one sheet's cells, relative rows numbered on from the previous
//! chunk, text and formula offsets moved to the joined arena, and
//! shared-formula children whose master sat in an earlier chunk expanded
//! from the masters joined so far. The chunk next in order can also be
//! parsed straight onto the joined rows ([`Joiner::parse_next`]).

use crate::error::{Error, Result};
use crate::formula::shift_formula;
use crate::model::CellRange;
use crate::store::{AUX_FORMULA, CellStore, FormulaRec, RawCell, T_EMPTY, T_INLINE};
use crate::worksheet::{ChunkOut, JoinedSoFar, ParsedSheet, SheetCtx, SheetParser};
use std::collections::HashMap;

/// A chunk's cell vector and text arena, emptied, for reuse.
pub(crate) type Spare = (Vec<RawCell>, Vec<u8>);

/// Joins chunk outputs in order into one sheet.
#[derive(Default)]
pub(crate) struct Joiner {
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
    /// An empty join for one sheet, its cell vector reserved for `cells`
    /// cells (a hint; nothing is reserved when the memory is not there).
    pub(crate) fn for_sheet(ctx: SheetCtx<'_>, cells: usize) -> Joiner {
        let mut j = Joiner {
            store: CellStore {
                date_1904: ctx.date_1904,
                ..CellStore::default()
            },
            max_formula_bytes: ctx.limits.max_formula_bytes,
            max_cells: ctx.limits.max_cells_per_sheet,
            ..Joiner::default()
        };
        let _ = j.store.cells.try_reserve(cells);
        ream_io::advise_huge_pages(&j.store.cells);
        j
    }

    /// True once a shared-formula master was joined: a chunk can then no
    /// longer be parsed in place ([`parse_next`](Self::parse_next) does
    /// not know the masters).
    pub(crate) fn has_masters(&self) -> bool {
        !self.masters.is_empty()
    }

    /// The joined sheet, with the head read before the chunks.
    pub(crate) fn into_parsed(self, head: Vec<u8>, dimension: Option<CellRange>) -> ParsedSheet {
        let mut store = self.store;
        store.normalize(!self.unsorted);
        let mut hidden_rows = self.hidden_rows;
        hidden_rows.sort_unstable();
        hidden_rows.dedup();
        ParsedSheet {
            store,
            hidden_rows,
            dimension,
            head,
            tail: self.tail,
            warnings: self.warnings,
        }
    }

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
    /// (see `chunked::ChunkTask::join_in_place`); same result as parsing it alone and
    /// joining it with [`add`](Self::add).
    pub(crate) fn parse_next(
        &mut self,
        ctx: SheetCtx<'_>,
        offset: u64,
        xml: &[u8],
        last: bool,
    ) -> Result<()> {
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
    pub(crate) fn add(&mut self, mut c: ChunkOut) -> Result<Spare> {
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
pub(crate) fn check_cut(xml: &[u8]) -> Result<()> {
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

#[cfg(test)]
#[path = "chunk_join_tests.rs"]
mod tests;
