//! One worksheet substream (phase B): cell records into a
//! [`CellStore`], plus hidden rows and columns, merged ranges and the
//! declared dimension. Embedded substreams (a chart's BOF..EOF inside a
//! sheet) are skipped.

use super::extras;
use super::globals::Globals;
use super::records::{Records, f64_at, malformed, u16_at, u32_at};
use crate::dates::kind_for;
use crate::error::{Error, Result};
use crate::model::{CellError, CellRange, Comment, Hyperlink};
use crate::options::Limits;
use crate::ptg::{Dialect, SheetFormulas, split};
use crate::sst::SharedStrings;
use crate::store::{
    CellStore, RawCell, T_BOOL, T_DATE, T_EMPTY, T_ERROR, T_INLINE, T_NUMBER, T_SST, date_kind_code,
};
use std::collections::HashMap;
use std::sync::Arc;

const BOF: u16 = 0x0809;
const EOF: u16 = 0x000A;
const DIMENSION: u16 = 0x0200;
const LABELSST: u16 = 0x00FD;
const LABEL: u16 = 0x0204;
const RSTRING: u16 = 0x00D6;
const RK: u16 = 0x027E;
const MULRK: u16 = 0x00BD;
const NUMBER: u16 = 0x0203;
const BOOLERR: u16 = 0x0205;
const FORMULA: u16 = 0x0006;
const STRING: u16 = 0x0207;
const SHRFMLA: u16 = 0x04BC;
const ARRAY: u16 = 0x0221;
const TABLE: u16 = 0x0236;
const ROW: u16 = 0x0208;
const COLINFO: u16 = 0x007D;
const MERGEDCELLS: u16 = 0x00E5;
const HLINK: u16 = 0x01B8;
const NOTE: u16 = 0x001C;
const OBJ: u16 = 0x005D;
const TXO: u16 = 0x01B6;

/// What one sheet substream holds.
#[derive(Debug, Default)]
pub(super) struct ParsedXls {
    pub store: CellStore,
    pub dimension: Option<CellRange>,
    pub merged: Vec<CellRange>,
    pub hidden_rows: Vec<u32>,
    pub hidden_cols: Vec<u32>,
    /// Formulas whose text was skipped (their cached values are kept).
    pub warnings: Vec<Error>,
    pub comments: Vec<Comment>,
    pub hyperlinks: Vec<Hyperlink>,
}

/// The cell error of a BIFF error code.
fn cell_error(code: u8) -> CellError {
    match code {
        0x00 => CellError::Null,
        0x07 => CellError::Div0,
        0x0F => CellError::Value,
        0x17 => CellError::Ref,
        0x1D => CellError::Name,
        0x24 => CellError::Num,
        0x2A => CellError::NA,
        0x2B => CellError::GettingData,
        _ => CellError::Unknown,
    }
}

/// An RK number: a 30-bit integer or the high 30 bits of a double, times
/// 1/100 when its low bit says so.
pub(super) fn rk_value(rk: u32) -> f64 {
    let v = if rk & 2 != 0 {
        f64::from((rk as i32) >> 2)
    } else {
        f64::from_bits(u64::from(rk & 0xFFFF_FFFC) << 32)
    };
    if rk & 1 != 0 { v / 100.0 } else { v }
}

struct Builder<'g> {
    g: &'g Globals,
    limits: &'g Limits,
    out: ParsedXls,
    sorted: bool,
    last: u64,
    sheet: &'g str,
}

impl Builder<'_> {
    fn push(
        &mut self,
        row: u32,
        col: u32,
        tag: u8,
        aux: u8,
        bits: u64,
        offset: usize,
    ) -> Result<()> {
        if self.out.store.cells.len() as u64 >= self.limits.max_cells_per_sheet {
            return Err(Error::limit(format!(
                "more than {} cells in one sheet (max_cells_per_sheet)",
                self.limits.max_cells_per_sheet
            ))
            .in_part("Workbook")
            .in_sheet(self.sheet)
            .at_cell(row, col)
            .at_offset(offset as u64));
        }
        let key = ((u64::from(row) << 16) | u64::from(col)) + 1;
        self.sorted &= key > self.last;
        self.last = key;
        self.out.store.cells.push(RawCell {
            row,
            col: col as u16,
            tag,
            aux,
            bits,
        });
        Ok(())
    }

    /// A number, as a date when its cell format is one.
    fn number(&mut self, row: u32, col: u32, xf: u16, v: f64, offset: usize) -> Result<()> {
        match self.g.xf_dates.get(usize::from(xf)).copied().flatten() {
            Some(k) if v.is_finite() => {
                let kind = kind_for(k, v);
                self.push(row, col, T_DATE, date_kind_code(kind), v.to_bits(), offset)
            }
            _ => self.push(row, col, T_NUMBER, 0, v.to_bits(), offset),
        }
    }

    /// Text into the sheet's arena.
    fn text(&mut self, row: u32, col: u32, s: &str, aux: u8, offset: usize) -> Result<()> {
        if s.chars().count() > self.limits.max_string_chars {
            return Err(Error::limit(format!(
                "a string longer than {} characters (max_string_chars)",
                self.limits.max_string_chars
            ))
            .in_part("Workbook")
            .in_sheet(self.sheet)
            .at_cell(row, col)
            .at_offset(offset as u64));
        }
        let arena = &mut self.out.store.arena;
        let off = u32::try_from(arena.len()).unwrap_or(u32::MAX);
        arena.extend_from_slice(s.as_bytes());
        let bits = (u64::from(off) << 32) | s.len() as u64;
        self.push(row, col, T_INLINE, aux, bits, offset)
    }
}

/// Parses the worksheet whose BOF is at `offset` of `stream`.
pub(super) fn parse_sheet(
    stream: &[u8],
    offset: usize,
    g: &Globals,
    sst: &Arc<SharedStrings>,
    limits: &Limits,
    sheet: &str,
) -> Result<ParsedXls> {
    let mut w = SheetWalk::new(stream, offset, g, sst, limits, sheet)?;
    w.step(None)?;
    Ok(w.finish_whole())
}

/// Cell records that start a new cell (a block of streamed rows is cut
/// before one of a new row).
fn is_cell_record(typ: u16) -> bool {
    matches!(
        typ,
        LABELSST | LABEL | RSTRING | RK | MULRK | NUMBER | BOOLERR | FORMULA
    )
}

/// A worksheet substream walked record by record: whole (a loaded open)
/// or in blocks of complete rows (streamed rows).
pub(super) struct SheetWalk<'g> {
    g: &'g Globals,
    b: Builder<'g>,
    recs: Records<'g>,
    formulas: SheetFormulas<'g>,
    depth: u32,
    pending_string: Option<(u32, u32, usize)>,
    s: String,
    done: bool,
    /// The comment object (OBJ) whose TXO text comes next.
    last_note_obj: Option<u16>,
    /// Comment texts by object id, until their NOTE records.
    note_texts: HashMap<u16, String>,
}

impl<'g> SheetWalk<'g> {
    /// Checks the BOF at `offset` and prepares the walk.
    pub(super) fn new(
        stream: &'g [u8],
        offset: usize,
        g: &'g Globals,
        sst: &Arc<SharedStrings>,
        limits: &'g Limits,
        sheet: &'g str,
    ) -> Result<SheetWalk<'g>> {
        let mut recs = Records::new(stream, offset);
        match recs.next_record()? {
            Some(r) if r.typ == BOF => {}
            _ => {
                return Err(malformed(
                    format!(
                        "sheet '{sheet}' does not start with a BOF record at byte {offset} (BOUNDSHEET offset)"
                    ),
                    offset,
                ));
            }
        }
        let mut b = Builder {
            g,
            limits,
            out: ParsedXls::default(),
            sorted: true,
            last: 0,
            sheet,
        };
        b.out.store.sst = Arc::clone(sst);
        b.out.store.date_1904 = g.date_1904;
        let dialect = if g.text.biff8 {
            Dialect::Biff8
        } else {
            Dialect::Biff5
        };
        Ok(SheetWalk {
            g,
            b,
            recs,
            formulas: SheetFormulas::new(dialect, &g.book, sheet, "Workbook", limits),
            depth: 0,
            pending_string: None,
            s: String::new(),
            done: false,
            last_note_obj: None,
            note_texts: HashMap::new(),
        })
    }

    /// The cells read so far (since the last [`next_block`](Self::next_block)).
    pub(super) fn store(&self) -> &crate::store::CellStore {
        &self.b.out.store
    }

    /// Reads records until the sheet's EOF or, with `cut = Some(n)`, until
    /// at least `n` cells are read and a cell of a new row comes (left
    /// unread). Returns false at the end of the sheet.
    fn step(&mut self, cut: Option<usize>) -> Result<bool> {
        if self.done {
            return Ok(false);
        }
        loop {
            let save = self.recs.position();
            let Some(r) = self.recs.next_record()? else {
                self.done = true;
                break;
            };
            if let Some(n) = cut
                && self.depth == 0
                && self.pending_string.is_none()
                && self.b.out.store.cells.len() >= n
                && is_cell_record(r.typ)
                && u64::from(u16_at(r.data, 0)) != self.b.last.saturating_sub(1) >> 16
            {
                self.recs.set_position(save);
                return Ok(true);
            }
            let d = r.data;
            let at = r.offset;
            if self.depth > 0 {
                match r.typ {
                    BOF => self.depth += 1,
                    EOF => self.depth -= 1,
                    _ => {}
                }
                continue;
            }
            let (row, col, xf) = (
                u32::from(u16_at(d, 0)),
                u32::from(u16_at(d, 2)),
                u16_at(d, 4),
            );
            // SHRFMLA, ARRAY and TABLE may stand between a FORMULA and its STRING.
            if !matches!(r.typ, STRING | SHRFMLA | ARRAY | TABLE)
                && let Some((row, col, off)) = self.pending_string.take()
            {
                // A string formula without its STRING record: the cell
                // still exists, without a value.
                self.b.push(row, col, T_EMPTY, 0, 0, off)?;
            }
            if !matches!(r.typ, STRING | SHRFMLA | ARRAY) {
                self.formulas.end_pending();
            }
            match r.typ {
                EOF => {
                    self.done = true;
                    break;
                }
                BOF => self.depth = 1,
                DIMENSION => {
                    let (r0, r1, c0, c1) = if self.g.text.biff8 {
                        (u32_at(d, 0), u32_at(d, 4), u16_at(d, 8), u16_at(d, 10))
                    } else {
                        (
                            u32::from(u16_at(d, 0)),
                            u32::from(u16_at(d, 2)),
                            u16_at(d, 4),
                            u16_at(d, 6),
                        )
                    };
                    if r1 > r0 && c1 > c0 {
                        self.b.out.dimension = Some(CellRange {
                            first_row: r0,
                            first_col: u32::from(c0),
                            last_row: r1 - 1,
                            last_col: u32::from(c1) - 1,
                        });
                    }
                }
                LABELSST => {
                    let i = u32_at(d, 6);
                    if (i as usize) < self.b.out.store.sst.len() {
                        self.b.push(row, col, T_SST, 0, u64::from(i), at)?;
                    } else {
                        self.b.text(row, col, "", 0, at)?;
                    }
                }
                LABEL | RSTRING => {
                    self.s.clear();
                    self.g
                        .text
                        .long_string(d.get(6..).unwrap_or(&[]), &mut self.s);
                    let text = std::mem::take(&mut self.s);
                    self.b.text(row, col, &text, 0, at)?;
                    self.s = text;
                }
                RK => self.b.number(row, col, xf, rk_value(u32_at(d, 6)), at)?,
                MULRK => {
                    let n = d.len().saturating_sub(6) / 6;
                    for k in 0..n {
                        let xf = u16_at(d, 4 + k * 6);
                        let v = rk_value(u32_at(d, 6 + k * 6));
                        self.b.number(row, col + k as u32, xf, v, at)?;
                    }
                }
                NUMBER => self.b.number(row, col, xf, f64_at(d, 6), at)?,
                BOOLERR => {
                    let v = d.get(6).copied().unwrap_or(0);
                    if d.get(7).copied().unwrap_or(0) == 0 {
                        self.b.push(row, col, T_BOOL, 0, u64::from(v != 0), at)?;
                    } else {
                        self.b
                            .push(row, col, T_ERROR, cell_error(v).code(), 0, at)?;
                    }
                }
                FORMULA => {
                    self.formulas.formula(
                        row,
                        col,
                        split(d, 20, false),
                        at,
                        &mut self.b.out.store,
                    )?;
                    if let Some(&[kind, _, v, _, _, _, 0xFF, 0xFF]) = d.get(6..14) {
                        match kind {
                            0 => self.pending_string = Some((row, col, at)),
                            1 => self.b.push(row, col, T_BOOL, 0, u64::from(v != 0), at)?,
                            2 => self
                                .b
                                .push(row, col, T_ERROR, cell_error(v).code(), 0, at)?,
                            _ => self.b.text(row, col, "", 0, at)?,
                        }
                    } else {
                        self.b.number(row, col, xf, f64_at(d, 6), at)?;
                    }
                }
                STRING => {
                    if let Some((row, col, off)) = self.pending_string.take() {
                        self.s.clear();
                        self.g.text.long_string(d, &mut self.s);
                        let text = std::mem::take(&mut self.s);
                        self.b.text(row, col, &text, 0, off)?;
                        self.s = text;
                    }
                }
                SHRFMLA => self
                    .formulas
                    .shared(split(d, 8, false), &mut self.b.out.store)?,
                ARRAY => self
                    .formulas
                    .array(split(d, 12, false), &mut self.b.out.store)?,
                ROW if u32_at(d, 12) & 0x20 != 0 => self.b.out.hidden_rows.push(row),
                COLINFO if u16_at(d, 8) & 1 != 0 => {
                    let (c0, c1) = (u32::from(u16_at(d, 0)), u32::from(u16_at(d, 2)));
                    // Excel writes one COLINFO up to column 255 for the rest
                    // of the sheet; list at most the 16,384 columns there are.
                    self.b.out.hidden_cols.extend(c0..=c1.min(16_383));
                }
                HLINK => {
                    if let Some(l) = extras::hyperlink(d) {
                        self.b.out.hyperlinks.push(l);
                    }
                }
                OBJ => self.last_note_obj = extras::note_object_id(d),
                TXO => {
                    let parts = self.recs.with_continues(r)?;
                    if let Some(id) = self.last_note_obj.take() {
                        let max = self.b.limits.max_string_chars;
                        let text = extras::txo_text(d, parts.get(1..).unwrap_or_default(), max);
                        self.note_texts.insert(id, text);
                    }
                }
                NOTE if self.g.text.biff8 => {
                    let (row, col, id, author) = extras::note(d, &self.g.text);
                    let text = self.note_texts.remove(&id).unwrap_or_default();
                    self.b.out.comments.push(Comment {
                        row,
                        col,
                        author,
                        text,
                    });
                }
                MERGEDCELLS => {
                    let n = usize::from(u16_at(d, 0));
                    for k in 0..n {
                        let e = 2 + k * 8;
                        if e + 8 > d.len() {
                            break;
                        }
                        self.b.out.merged.push(CellRange {
                            first_row: u32::from(u16_at(d, e)),
                            last_row: u32::from(u16_at(d, e + 2)),
                            first_col: u32::from(u16_at(d, e + 4)),
                            last_col: u32::from(u16_at(d, e + 6)),
                        });
                    }
                }
                _ => {}
            }
        }
        if let Some((row, col, off)) = self.pending_string.take() {
            self.b.push(row, col, T_EMPTY, 0, 0, off)?;
        }
        Ok(false)
    }

    /// The whole sheet, once [`step`](Self::step) reached its end.
    fn finish_whole(self) -> ParsedXls {
        let sorted = self.b.sorted;
        let mut out = self.b.out;
        out.warnings = self.formulas.finish();
        out.store.normalize(sorted);
        out.store.link_formulas();
        out.store.seal_text();
        out.hidden_cols.sort_unstable();
        out.hidden_cols.dedup();
        out
    }

    /// The next block of at least `cells` cells (complete rows, sorted),
    /// replacing the previous one; false at the end of the sheet.
    pub(super) fn next_block(&mut self, cells: usize) -> Result<bool> {
        let out = &mut self.b.out;
        out.store.clear_block();
        out.merged.clear();
        out.hidden_rows.clear();
        out.hidden_cols.clear();
        self.b.sorted = true;
        let more = self.step(Some(cells.max(1)))?;
        let store = &mut self.b.out.store;
        store.normalize(self.b.sorted);
        store.link_formulas();
        store.seal_text();
        Ok(more || !store.cells.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rk_numbers() {
        assert_eq!(rk_value((7 << 2) | 2), 7.0);
        assert_eq!(rk_value(((-3i32 as u32) << 2) | 2), -3.0);
        assert_eq!(rk_value((1234 << 2) | 3), 12.34);
        let bits = 1.5f64.to_bits();
        assert_eq!(rk_value((bits >> 32) as u32), 1.5);
    }
}
