//! Whole-sheet reads.

use crate::{Error, ReadOptions, Table};
use ream::sheet::Workbook;

/// Reads sheet `sheet` (0-based) of `wb` into one record batch (see the
/// crate docs for the type rules and [`ReadOptions`] for the window).
/// A loaded sheet is read from its cells; a sheet not loaded at open is
/// streamed (twice: once to infer types, once to build the columns).
pub fn read_sheet(wb: &Workbook, sheet: usize, opts: &ReadOptions) -> Result<Table, Error> {
    let mut it = crate::iter_batches(wb, sheet, opts, usize::MAX)?;
    let schema = it.schema();
    let mut batches = Vec::new();
    for b in it.by_ref() {
        batches.push(b?);
    }
    Ok(Table {
        schema,
        batches,
        warnings: it.warnings().to_vec(),
    })
}
