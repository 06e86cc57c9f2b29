//! Compact, sparse cell storage: 16 bytes per cell that has a value or a
//! formula.
//!
//! Cells live in one `Vec<RawCell>` sorted by (row, col); strings that are
//! not shared live in one byte arena per sheet, formulas in a side table.
//! Nothing is allocated per cell: the vectors grow geometrically, so a sheet
//! of N cells costs O(log N) allocations. A declared `<dimension>` or a
//! far-off cell never allocates a dense rectangle.

use crate::model::{Cell, CellError, DateKind, ExcelDateTime, Value};
use crate::sst::SharedStrings;
use std::sync::Arc;

pub(crate) const T_NUMBER: u8 = 0;
pub(crate) const T_SST: u8 = 1;
pub(crate) const T_INLINE: u8 = 2;
pub(crate) const T_BOOL: u8 = 3;
pub(crate) const T_ERROR: u8 = 4;
pub(crate) const T_DATE: u8 = 5;
/// A cell without a value that still exists (a formula with no cached
/// result): read as [`Value::Empty`].
pub(crate) const T_EMPTY: u8 = 6;

/// Flag in `RawCell::aux`: the cell has an entry in the formula table.
pub(crate) const AUX_FORMULA: u8 = 0x80;

/// One stored cell. `bits` is an f64 (number/date), a shared-string index,
/// an arena span (offset << 32 | len), a bool or an error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct RawCell {
    pub row: u32,
    pub col: u16,
    pub tag: u8,
    /// Low bits: date kind for `T_DATE`, error code for `T_ERROR`;
    /// bit 7: [`AUX_FORMULA`].
    pub aux: u8,
    pub bits: u64,
}

/// A formula attached to the cell at (row, col): text in the arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FormulaRec {
    pub row: u32,
    pub col: u32,
    pub off: u32,
    pub len: u32,
}

/// All cells of one sheet.
#[derive(Debug, Default)]
pub(crate) struct CellStore {
    pub cells: Vec<RawCell>,
    /// Text while the sheet is built (every piece validated UTF-8 as it
    /// was pushed); moved to `text` by [`CellStore::seal_text`].
    pub arena: Vec<u8>,
    /// The sealed arena: validated once as a whole, so reading a string
    /// cell or a formula is a bounds check, not a UTF-8 validation per
    /// access (which costs ~25 instructions per cell on `giant`).
    pub text: String,
    pub formulas: Vec<FormulaRec>,
    pub sst: Arc<SharedStrings>,
    pub date_1904: bool,
}

pub(crate) fn date_kind_code(k: DateKind) -> u8 {
    match k {
        DateKind::DateTime => 0,
        DateKind::Time => 1,
        DateKind::Duration => 2,
    }
}

fn date_kind_from(c: u8) -> DateKind {
    match c & 0x7f {
        1 => DateKind::Time,
        2 => DateKind::Duration,
        _ => DateKind::DateTime,
    }
}

impl CellStore {
    /// Sorts cells (and formulas) by (row, col) if a sheet wrote them out of
    /// order; for duplicates the last written wins. Cheap when already sorted.
    /// `cells_sorted`: the caller saw every cell arrive in strictly
    /// increasing (row, col) order (checked at push time, so no extra pass).
    pub fn normalize(&mut self, cells_sorted: bool) {
        if !cells_sorted {
            // Stable sort keeps write order among equal keys; keep the last.
            self.cells.sort_by_key(|c| (c.row, c.col));
            let mut out: Vec<RawCell> = Vec::with_capacity(self.cells.len());
            for c in self.cells.drain(..) {
                match out.last_mut() {
                    Some(last) if (last.row, last.col) == (c.row, c.col) => *last = c,
                    _ => out.push(c),
                }
            }
            self.cells = out;
        }
        let fsorted = self
            .formulas
            .windows(2)
            .all(|w| matches!(w, [a, b] if (a.row, a.col) < (b.row, b.col)));
        if !fsorted {
            self.formulas.sort_by_key(|f| (f.row, f.col));
            let mut out: Vec<FormulaRec> = Vec::with_capacity(self.formulas.len());
            for f in self.formulas.drain(..) {
                match out.last_mut() {
                    Some(last) if (last.row, last.col) == (f.row, f.col) => *last = f,
                    _ => out.push(f),
                }
            }
            self.formulas = out;
        }
    }

    /// Sets [`AUX_FORMULA`] on every cell that has an entry in the formula
    /// table and drops entries without a cell (both tables sorted by
    /// [`normalize`](Self::normalize)); for readers that learn a cell's
    /// formula text after its value.
    pub fn link_formulas(&mut self) {
        if self.formulas.is_empty() {
            return;
        }
        let mut keep = Vec::with_capacity(self.formulas.len());
        let mut i = 0;
        for f in &self.formulas {
            while self
                .cells
                .get(i)
                .is_some_and(|c| (c.row, u32::from(c.col)) < (f.row, f.col))
            {
                i += 1;
            }
            if let Some(c) = self.cells.get_mut(i)
                && (c.row, u32::from(c.col)) == (f.row, f.col)
            {
                c.aux |= AUX_FORMULA;
                keep.push(*f);
            }
        }
        self.formulas = keep;
    }

    /// Empties the cells, text and formulas for the next block of a
    /// streamed sheet, keeping the buffers' capacity.
    pub fn clear_block(&mut self) {
        self.cells.clear();
        self.formulas.clear();
        if self.arena.is_empty() {
            self.arena = std::mem::take(&mut self.text).into_bytes();
        }
        self.arena.clear();
        self.text.clear();
    }

    /// Validates the finished arena once and keeps it as a `String`.
    /// Call when no more text will be appended (the sheet is complete); an
    /// arena that is somehow not UTF-8 stays bytes, read as before.
    pub fn seal_text(&mut self) {
        if self.arena.is_empty() {
            return;
        }
        match String::from_utf8(std::mem::take(&mut self.arena)) {
            Ok(s) => self.text = s,
            Err(e) => self.arena = e.into_bytes(),
        }
    }

    #[inline]
    fn arena_str(&self, off: u32, len: u32) -> &str {
        let start = off as usize;
        let end = start + len as usize;
        if !self.text.is_empty() {
            return self.text.get(start..end).unwrap_or("");
        }
        self.arena
            .get(start..end)
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or("")
    }

    /// Formula `i` of the table, as (row, col, text).
    #[inline]
    pub fn formula_at(&self, i: usize) -> Option<(u32, u32, &str)> {
        let f = self.formulas.get(i)?;
        Some((f.row, f.col, self.arena_str(f.off, f.len)))
    }

    fn formula_of(&self, row: u32, col: u32) -> Option<&str> {
        let i = self
            .formulas
            .binary_search_by_key(&(row, col), |f| (f.row, f.col))
            .ok()?;
        let f = self.formulas.get(i)?;
        Some(self.arena_str(f.off, f.len))
    }

    /// Decodes one raw cell into the public view.
    pub fn view(&self, c: &RawCell) -> Cell<'_> {
        let formula = if c.aux & AUX_FORMULA != 0 {
            self.formula_of(c.row, u32::from(c.col))
        } else {
            None
        };
        self.view_with(c, formula)
    }

    /// Like [`view`](Self::view), with the formula text already found
    /// (sequential readers walk the formula table alongside the cells
    /// instead of searching it per cell).
    #[inline]
    pub fn view_with<'s>(&'s self, c: &RawCell, formula: Option<&'s str>) -> Cell<'s> {
        let value = match c.tag {
            T_NUMBER => Value::Number(f64::from_bits(c.bits)),
            T_SST => Value::String(self.sst.get(c.bits as usize).unwrap_or("")),
            T_INLINE => Value::String(self.arena_str((c.bits >> 32) as u32, c.bits as u32)),
            T_BOOL => Value::Bool(c.bits != 0),
            T_ERROR => Value::Error(CellError::from_code(c.aux & 0x7f)),
            T_EMPTY => Value::Empty,
            _ => Value::DateTime(ExcelDateTime {
                serial: f64::from_bits(c.bits),
                kind: date_kind_from(c.aux),
                date_1904: self.date_1904,
            }),
        };
        Cell {
            row: c.row,
            col: u32::from(c.col),
            value,
            formula,
        }
    }

    /// Finds the cell at (row, col).
    pub fn get(&self, row: u32, col: u32) -> Option<Cell<'_>> {
        let i = self
            .cells
            .binary_search_by_key(&(row, col), |c| (c.row, u32::from(c.col)))
            .ok()?;
        self.cells.get(i).map(|c| self.view(c))
    }

    /// Heap bytes held by this store (capacity, not length).
    pub fn heap_bytes(&self) -> usize {
        self.cells.capacity() * std::mem::size_of::<RawCell>()
            + self.arena.capacity()
            + self.text.capacity()
            + self.formulas.capacity() * std::mem::size_of::<FormulaRec>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_cell_is_16_bytes() {
        assert_eq!(std::mem::size_of::<RawCell>(), 16);
    }

    #[test]
    fn normalize_sorts_and_keeps_last_duplicate() {
        let mut s = CellStore::default();
        for (row, col, bits) in [(2, 0, 1), (0, 1, 2), (0, 1, 3), (0, 0, 4)] {
            s.cells.push(RawCell {
                row,
                col,
                tag: T_NUMBER,
                aux: 0,
                bits: f64::to_bits(bits as f64),
            });
        }
        s.normalize(false);
        let got: Vec<_> = s
            .cells
            .iter()
            .map(|c| (c.row, c.col, f64::from_bits(c.bits)))
            .collect();
        assert_eq!(got, vec![(0, 0, 4.0), (0, 1, 3.0), (2, 0, 1.0)]);
    }
}
