//! Formula text of a worksheet's formula cells (XLS FORMULA, XLSB
//! BrtFmla*): plain formulas decompiled where they stand, shared formulas
//! (SHRFMLA / BrtShrFmla) and array formulas (ARRAY / BrtArrFmla) found
//! through the PtgExp of their cells. A formula that does not decompile
//! keeps its cached value; a warning names the sheet, the cell and the
//! token.

use crate::error::{Error, Result};
use crate::options::Limits;
use crate::ptg::{self, Dialect, FormulaBook};
use crate::store::{CellStore, FormulaRec};
use std::collections::{HashMap, HashSet};

/// Warnings kept per sheet; further failures are counted in one more.
const MAX_WARNINGS: usize = 10;

/// A FORMULA whose PtgExp named a formula not seen yet: its SHRFMLA or
/// ARRAY record follows right after.
#[derive(Debug, Clone, Copy)]
struct Pending {
    cell: (u32, u32),
    target: (u32, u32),
    offset: usize,
}

/// A shared formula's tokens and their trailing data.
pub(crate) type Tokens<'s> = (&'s [u8], &'s [u8]);

/// Shared and array formulas of one sheet, and the formula text written.
pub(crate) struct SheetFormulas<'s> {
    dialect: Dialect,
    book: &'s FormulaBook,
    sheet: &'s str,
    part: &'s str,
    max_bytes: u64,
    /// Shared formulas by first cell: tokens and trailing data, copied
    /// (a streamed part's buffer moves on).
    shared: HashMap<(u32, u32), (Vec<u8>, Vec<u8>)>,
    arrays: HashSet<(u32, u32)>,
    pending: Option<Pending>,
    text: String,
    bytes: u64,
    failed: usize,
    pub warnings: Vec<Error>,
}

impl<'s> SheetFormulas<'s> {
    /// Formulas of sheet `sheet` (stored in part `part`).
    pub(crate) fn new(
        dialect: Dialect,
        book: &'s FormulaBook,
        sheet: &'s str,
        part: &'s str,
        limits: &Limits,
    ) -> SheetFormulas<'s> {
        SheetFormulas {
            dialect,
            book,
            sheet,
            part,
            max_bytes: limits.max_formula_bytes,
            shared: HashMap::new(),
            arrays: HashSet::new(),
            pending: None,
            text: String::new(),
            bytes: 0,
            failed: 0,
            warnings: Vec::new(),
        }
    }

    /// A record other than SHRFMLA/ARRAY/TABLE/STRING: a pending PtgExp
    /// stays without text.
    pub(crate) fn end_pending(&mut self) {
        self.pending = None;
    }

    /// The formula (`rgce`, `extra`) of cell (row, col), its record at
    /// byte `at` of the part.
    pub(crate) fn formula(
        &mut self,
        row: u32,
        col: u32,
        (rgce, extra): Tokens<'_>,
        at: usize,
        store: &mut CellStore,
    ) -> Result<()> {
        self.pending = None;
        if let Some(target) = ptg::exp_target(self.dialect, rgce, extra) {
            // Taken out while it is written, put back after (no copy).
            if let Some((rgce, extra)) = self.shared.remove(&target) {
                let r = self.write(&rgce, &extra, (row, col), at, store);
                self.shared.insert(target, (rgce, extra));
                return r;
            }
            if !self.arrays.contains(&target) {
                self.pending = Some(Pending {
                    cell: (row, col),
                    target,
                    offset: at,
                });
            }
            return Ok(());
        }
        self.write(rgce, extra, (row, col), at, store)
    }

    /// SHRFMLA: the shared formula of the pending cell's PtgExp.
    pub(crate) fn shared(
        &mut self,
        (rgce, extra): Tokens<'_>,
        store: &mut CellStore,
    ) -> Result<()> {
        let Some(p) = self.pending.take() else {
            return Ok(());
        };
        self.shared
            .insert(p.target, (rgce.to_vec(), extra.to_vec()));
        self.write(rgce, extra, p.cell, p.offset, store)
    }

    /// ARRAY: the array formula, written for its first cell only (as XLSX
    /// stores it).
    pub(crate) fn array(&mut self, (rgce, extra): Tokens<'_>, store: &mut CellStore) -> Result<()> {
        let Some(p) = self.pending.take() else {
            return Ok(());
        };
        self.arrays.insert(p.target);
        self.write(rgce, extra, p.cell, p.offset, store)
    }

    fn write(
        &mut self,
        rgce: &[u8],
        extra: &[u8],
        cell: (u32, u32),
        at: usize,
        store: &mut CellStore,
    ) -> Result<()> {
        if let Err(e) = ptg::decompile(self.dialect, rgce, extra, self.book, cell, &mut self.text) {
            self.failed += 1;
            if self.warnings.len() < MAX_WARNINGS {
                self.warnings.push(
                    Error::malformed(format!("formula text skipped, cached value kept: {e}"))
                        .in_part(self.part)
                        .in_sheet(self.sheet)
                        .at_cell(cell.0, cell.1)
                        .at_offset(at as u64),
                );
            }
            return Ok(());
        }
        self.bytes += self.text.len() as u64;
        if self.bytes > self.max_bytes {
            return Err(Error::limit(format!(
                "formula text of this sheet exceeds {} bytes (shared formulas expanded; max_formula_bytes)",
                self.max_bytes
            ))
            .in_part(self.part)
            .in_sheet(self.sheet)
            .at_cell(cell.0, cell.1)
            .at_offset(at as u64));
        }
        let off = store.arena.len();
        store.arena.extend_from_slice(self.text.as_bytes());
        store.formulas.push(FormulaRec {
            row: cell.0,
            col: cell.1,
            off: u32::try_from(off).unwrap_or(u32::MAX),
            len: self.text.len() as u32,
        });
        Ok(())
    }

    /// The warnings, with one counting those left out.
    pub(crate) fn finish(mut self) -> Vec<Error> {
        if self.failed > self.warnings.len() {
            self.warnings.push(
                Error::malformed(format!(
                    "{} more formulas kept their cached values without text",
                    self.failed - self.warnings.len()
                ))
                .in_part(self.part)
                .in_sheet(self.sheet),
            );
        }
        self.warnings
    }
}

/// The tokens of a parsed formula whose length (16-bit, or 32-bit for
/// BIFF12) is at `at`, and the data after them (BIFF12: its own 32-bit
/// length first).
pub(crate) fn split(d: &[u8], at: usize, wide: bool) -> Tokens<'_> {
    let n = if wide { 4 } else { 2 };
    let cce = d.get(at..at + n).map_or(0, |b| {
        b.iter()
            .rev()
            .fold(0usize, |acc, &x| (acc << 8) | usize::from(x))
    });
    let body = d.get(at + n..).unwrap_or_default();
    let rgce = body.get(..cce).unwrap_or(body);
    let rest = body.get(rgce.len()..).unwrap_or_default();
    (
        rgce,
        if wide {
            rest.get(4..).unwrap_or_default()
        } else {
            rest
        },
    )
}
