//! One worksheet part (phase B): BIFF12 cell records into a
//! [`CellStore`], plus hidden rows and columns, merged ranges and the
//! declared dimension. A cell record gives its column and cell format
//! (XF, the low 24 bits of its second u32); its row is that of the
//! BrtRowHdr before it.

use super::records::{Records, StrError, f64_at, malformed, u8_at, u32_at, wide_string};
use super::workbook::Globals;
use crate::dates::kind_for;
use crate::error::{Error, Result};
use crate::model::{CellError, CellRange, Hyperlink};
use crate::options::Limits;
use crate::ptg::{Dialect, SheetFormulas, split};
use crate::sst::SharedStrings;
use crate::store::{
    CellStore, RawCell, T_BOOL, T_DATE, T_EMPTY, T_ERROR, T_INLINE, T_NUMBER, T_SST, date_kind_code,
};
use std::sync::Arc;

const ROW_HDR: u16 = 0;
const CELL_BLANK: u16 = 1;
const CELL_RK: u16 = 2;
const CELL_ERROR: u16 = 3;
const CELL_BOOL: u16 = 4;
const CELL_REAL: u16 = 5;
const CELL_ST: u16 = 6;
const CELL_ISST: u16 = 7;
const FMLA_STRING: u16 = 8;
const FMLA_NUM: u16 = 9;
const FMLA_BOOL: u16 = 10;
const FMLA_ERROR: u16 = 11;
const COL_INFO: u16 = 60;
const CELL_RSTRING: u16 = 62;
const WS_DIM: u16 = 148;
const MERGE_CELL: u16 = 176;
const ARR_FMLA: u16 = 426;
const H_LINK: u16 = 494;
const SHR_FMLA: u16 = 428;

/// The last row and column a worksheet can have.
const MAX_ROW: u32 = 1_048_575;
const MAX_COL: u32 = 16_383;

/// What one worksheet part holds.
#[derive(Debug, Default)]
pub(super) struct ParsedXlsb {
    pub store: CellStore,
    pub dimension: Option<CellRange>,
    pub merged: Vec<CellRange>,
    pub hidden_rows: Vec<u32>,
    pub hidden_cols: Vec<u32>,
    /// Formulas whose text was skipped (their cached values are kept).
    pub warnings: Vec<Error>,
    /// Hyperlinks (BrtHLink), with the relationship id of each external
    /// target (resolved by the caller) in `link_rids`.
    pub hyperlinks: Vec<Hyperlink>,
    pub link_rids: Vec<String>,
}

/// The cell error of a BIFF12 error code.
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

/// An RkNumber: a 30-bit integer or the high 30 bits of a double, divided
/// by 100 when its low bit says so.
pub(super) fn rk_value(rk: u32) -> f64 {
    let v = if rk & 2 != 0 {
        f64::from((rk as i32) >> 2)
    } else {
        f64::from_bits(u64::from(rk & 0xFFFF_FFFC) << 32)
    };
    if rk & 1 != 0 { v / 100.0 } else { v }
}

/// A range (RfX: first row, last row, first column, last column).
fn range_at(d: &[u8]) -> Option<CellRange> {
    let (r0, r1, c0, c1) = (u32_at(d, 0), u32_at(d, 4), u32_at(d, 8), u32_at(d, 12));
    (d.len() >= 16 && r0 <= r1 && c0 <= c1 && r1 <= MAX_ROW && c1 <= MAX_COL).then_some(CellRange {
        first_row: r0,
        first_col: c0,
        last_row: r1,
        last_col: c1,
    })
}

struct Builder<'g> {
    g: &'g Globals,
    limits: &'g Limits,
    part: &'g str,
    out: ParsedXlsb,
    sorted: bool,
    last: u64,
    scratch: String,
}

impl Builder<'_> {
    fn err(&self, e: Error, row: u32, col: u32, offset: usize) -> Error {
        e.in_part(self.part)
            .at_cell(row, col)
            .at_offset(offset as u64)
    }

    fn push(&mut self, row: u32, col: u32, tag: u8, aux: u8, bits: u64, at: usize) -> Result<()> {
        if self.out.store.cells.len() as u64 >= self.limits.max_cells_per_sheet {
            let e = Error::limit(format!(
                "more than {} cells in one sheet (max_cells_per_sheet)",
                self.limits.max_cells_per_sheet
            ));
            return Err(self.err(e, row, col, at));
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
    fn number(&mut self, row: u32, col: u32, xf: u32, v: f64, at: usize) -> Result<()> {
        let kind = self.g.xf_dates.get(xf as usize).copied().flatten();
        match kind {
            Some(k) if v.is_finite() => {
                let code = date_kind_code(kind_for(k, v));
                self.push(row, col, T_DATE, code, v.to_bits(), at)
            }
            _ => self.push(row, col, T_NUMBER, 0, v.to_bits(), at),
        }
    }

    /// The XLWideString at `d[pos..]` into the sheet's arena, as the cell's value.
    fn text(&mut self, row: u32, col: u32, d: &[u8], pos: usize, at: usize) -> Result<()> {
        self.scratch.clear();
        if let Err(e) = wide_string(d, pos, self.limits.max_string_chars, &mut self.scratch) {
            return Err(self.str_err(e, row, col, at));
        }
        let arena = &mut self.out.store.arena;
        let off = arena.len();
        arena.extend_from_slice(self.scratch.as_bytes());
        let off = u32::try_from(off)
            .map_err(|_| self.err(Error::limit("a sheet's strings exceed 4 GiB"), row, col, at))?;
        let bits = (u64::from(off) << 32) | self.scratch.len() as u64;
        self.push(row, col, T_INLINE, 0, bits, at)
    }

    fn str_err(&self, e: StrError, row: u32, col: u32, at: usize) -> Error {
        e.into_error(self.part, at).at_cell(row, col)
    }
}

/// Parses the worksheet part `part` (its bytes in `data`) of sheet `sheet`.
pub(super) fn parse_sheet(
    data: &[u8],
    part: &str,
    sheet: &str,
    g: &Globals,
    sst: &Arc<SharedStrings>,
    limits: &Limits,
) -> Result<ParsedXlsb> {
    let mut w = SheetWalk::new(part, sheet, g, sst, limits);
    let mut recs = Records::new(data, part);
    while let Some(r) = recs.next_record()? {
        w.record(r)?;
    }
    Ok(w.finish_whole())
}

/// A worksheet part read record by record: whole (a loaded open) or in
/// blocks of complete rows (streamed rows).
pub(super) struct SheetWalk<'g> {
    b: Builder<'g>,
    formulas: SheetFormulas<'g>,
    part: &'g str,
    row: u32,
}

impl<'g> SheetWalk<'g> {
    pub(super) fn new(
        part: &'g str,
        sheet: &'g str,
        g: &'g Globals,
        sst: &Arc<SharedStrings>,
        limits: &'g Limits,
    ) -> SheetWalk<'g> {
        let mut b = Builder {
            g,
            limits,
            part,
            out: ParsedXlsb::default(),
            sorted: true,
            last: 0,
            scratch: String::new(),
        };
        b.out.store.sst = Arc::clone(sst);
        b.out.store.date_1904 = g.date_1904;
        SheetWalk {
            b,
            formulas: SheetFormulas::new(Dialect::Biff12, &g.book, sheet, part, limits),
            part,
            row: 0,
        }
    }

    /// The cells of the current block.
    pub(super) fn store(&self) -> &crate::store::CellStore {
        &self.b.out.store
    }

    /// Empties the block for the next one.
    pub(super) fn clear_block(&mut self) {
        let out = &mut self.b.out;
        out.store.clear_block();
        out.merged.clear();
        out.hidden_rows.clear();
        out.hidden_cols.clear();
        self.b.sorted = true;
    }

    /// Sorts the block's cells and links their formulas.
    pub(super) fn seal_block(&mut self) {
        let store = &mut self.b.out.store;
        store.normalize(self.b.sorted);
        store.link_formulas();
        store.seal_text();
    }

    /// One record of the part.
    pub(super) fn record(&mut self, r: super::records::Record<'_>) -> Result<()> {
        let row = self.row;
        let (d, at) = (r.data, r.offset);
        match r.typ {
            SHR_FMLA => {
                self.formulas
                    .shared(split(d, 16, true), &mut self.b.out.store)?;
                return Ok(());
            }
            ARR_FMLA => {
                self.formulas
                    .array(split(d, 17, true), &mut self.b.out.store)?;
                return Ok(());
            }
            _ => self.formulas.end_pending(),
        }
        match r.typ {
            ROW_HDR => {
                let row = u32_at(d, 0);
                self.row = row;
                if row > MAX_ROW {
                    return Err(malformed(
                        self.part,
                        format!("a row header for row {row}, past the last row {MAX_ROW}"),
                        at,
                    ));
                }
                // fDyZero: bit 4 of byte 11.
                if u8_at(d, 11) & 0x10 != 0 {
                    self.b.out.hidden_rows.push(row);
                }
                return Ok(());
            }
            CELL_BLANK..=FMLA_ERROR | CELL_RSTRING => {}
            COL_INFO => {
                let (c0, c1) = (u32_at(d, 0), u32_at(d, 4));
                if u8_at(d, 16) & 1 != 0 && c0 <= c1 {
                    self.b.out.hidden_cols.extend(c0..=c1.min(MAX_COL));
                }
                return Ok(());
            }
            WS_DIM => {
                self.b.out.dimension = range_at(d);
                return Ok(());
            }
            H_LINK => {
                self.hyperlink(d);
                return Ok(());
            }
            MERGE_CELL => {
                if let Some(m) = range_at(d) {
                    self.b.out.merged.push(m);
                }
                return Ok(());
            }
            _ => return Ok(()),
        }
        let col = u32_at(d, 0);
        if d.len() < 8 || col > MAX_COL {
            let e = Error::malformed(format!(
                "cell record 0x{:04X} of {} bytes with column {col}: not a cell",
                r.typ,
                d.len()
            ));
            return Err(self.b.err(e, row, col.min(MAX_COL), at));
        }
        let xf = u32_at(d, 4) & 0x00FF_FFFF;
        let formula_at = match r.typ {
            FMLA_NUM => Some(18),
            FMLA_BOOL | FMLA_ERROR => Some(11),
            FMLA_STRING => Some(14 + 2 * u32_at(d, 8) as usize),
            _ => None,
        };
        if let Some(fa) = formula_at {
            self.formulas
                .formula(row, col, split(d, fa, true), at, &mut self.b.out.store)?;
        }
        match r.typ {
            CELL_BLANK => {}
            CELL_RK => self.b.number(row, col, xf, rk_value(u32_at(d, 8)), at)?,
            CELL_REAL | FMLA_NUM => self.b.number(row, col, xf, f64_at(d, 8), at)?,
            CELL_ERROR | FMLA_ERROR => {
                let code = cell_error(u8_at(d, 8)).code();
                self.b.push(row, col, T_ERROR, code, 0, at)?;
            }
            CELL_BOOL | FMLA_BOOL => {
                self.b
                    .push(row, col, T_BOOL, 0, u64::from(u8_at(d, 8) != 0), at)?;
            }
            CELL_ST | FMLA_STRING => self.b.text(row, col, d, 8, at)?,
            // BrtCellRString: a flags byte, then the string (runs skipped).
            CELL_RSTRING => self.b.text(row, col, d, 9, at)?,
            CELL_ISST => {
                let i = u32_at(d, 8);
                if i as usize >= self.b.out.store.sst.len() {
                    let e = Error::malformed(format!(
                        "shared string {i} is out of range (the table holds {})",
                        self.b.out.store.sst.len()
                    ));
                    return Err(self.b.err(e, row, col, at));
                }
                self.b.push(row, col, T_SST, 0, u64::from(i), at)?;
            }
            _ => self.b.push(row, col, T_EMPTY, 0, 0, at)?,
        }
        Ok(())
    }

    /// BrtHLink: range, relationship id, location, tooltip, display; a
    /// link whose strings do not read is skipped.
    fn hyperlink(&mut self, d: &[u8]) {
        let Some(range) = range_at(d) else { return };
        let max = self.b.limits.max_string_chars;
        let mut f = [String::new(), String::new(), String::new(), String::new()];
        let mut at = 16;
        for s in &mut f {
            match wide_string(d, at, max, s) {
                Ok(next) => at = next,
                Err(_) => return,
            }
        }
        let [rid, location, _tooltip, display] = f;
        let some = |s: String| (!s.is_empty()).then_some(s);
        self.b.out.hyperlinks.push(Hyperlink {
            range,
            target: None,
            location: some(location),
            display: some(display),
        });
        self.b.out.link_rids.push(rid);
    }

    /// The whole sheet once every record was read.
    fn finish_whole(self) -> ParsedXlsb {
        let sorted = self.b.sorted;
        let mut out = self.b.out;
        out.warnings = self.formulas.finish();
        out.store.normalize(sorted);
        out.store.link_formulas();
        out.store.seal_text();
        out.hidden_rows.sort_unstable();
        out.hidden_rows.dedup();
        out.hidden_cols.sort_unstable();
        out.hidden_cols.dedup();
        out
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
