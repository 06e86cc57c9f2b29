//! Rows of one sheet from either place they live: the cells loaded at
//! open, or the streaming reader when the sheet was not loaded.

use crate::Error;
use ream::sheet::{Cell, Cells, RowOptions, RowReader, Workbook};
use std::iter::Peekable;

/// A forward reader over the rows `first .. end` (0-based, `end`
/// exclusive) of one sheet, handing out each row's cells.
pub(crate) enum RowSource<'w> {
    /// Cells loaded at open, walked in place.
    Loaded {
        cells: Peekable<Cells<'w>>,
        first: u32,
        end: u64,
    },
    /// The streaming reader (constant memory).
    Stream(RowReader<'w>),
}

impl<'w> RowSource<'w> {
    /// Rows `first .. first + n` (`n` `None`: to the end) of sheet `sheet`.
    pub(crate) fn open(
        wb: &'w Workbook,
        sheet: usize,
        first: u32,
        n: Option<u64>,
    ) -> Result<RowSource<'w>, Error> {
        let sh = wb.sheet(sheet).ok_or_else(|| {
            Error::usage(format!(
                "no sheet {sheet} (the workbook has {})",
                wb.sheets().len()
            ))
        })?;
        if sh.is_loaded() {
            let end = match n {
                Some(n) => u64::from(first).saturating_add(n),
                None => u64::MAX,
            };
            return Ok(RowSource::Loaded {
                cells: sh.cells().peekable(),
                first,
                end,
            });
        }
        let opts = RowOptions {
            skip_rows: first,
            n_rows: n,
        };
        Ok(RowSource::Stream(wb.rows_with(sheet, opts)?))
    }

    /// Calls `f` on every cell of the next row holding a cell in the
    /// window, in column order; returns that row's index, or `None` at the
    /// end. Stops at the first error `f` returns.
    pub(crate) fn next_row(
        &mut self,
        mut f: impl FnMut(Cell<'_>) -> Result<(), Error>,
    ) -> Result<Option<u32>, Error> {
        match self {
            RowSource::Loaded { cells, first, end } => {
                while cells.next_if(|c| c.row < *first).is_some() {}
                let Some(row) = cells.peek().map(|c| c.row) else {
                    return Ok(None);
                };
                if u64::from(row) >= *end {
                    return Ok(None);
                }
                while let Some(c) = cells.next_if(|c| c.row == row) {
                    f(c)?;
                }
                Ok(Some(row))
            }
            RowSource::Stream(rows) => {
                let Some(r) = rows.next_row()? else {
                    return Ok(None);
                };
                for c in r.cells() {
                    f(c)?;
                }
                Ok(Some(r.index()))
            }
        }
    }
}
