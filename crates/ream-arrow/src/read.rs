//! Whole-sheet reads.

use crate::plan::{Inference, plan};
use crate::{Error, ReadOptions, Table};
use arrow_array::RecordBatch;
use ream::sheet::Workbook;

/// Reads sheet `sheet` (0-based) of `wb` into a [`Table`] of one record
/// batch (see the crate docs for the type rules and [`ReadOptions`] for
/// the window). A loaded sheet is read from its cells; a sheet not loaded
/// at open is streamed twice (once to infer the types, once to build the
/// columns).
pub fn read_sheet(wb: &Workbook, sheet: usize, opts: &ReadOptions) -> Result<Table, Error> {
    let plan = plan(wb, sheet, opts, Inference::Rows)?;
    let capacity = plan.rows_seen;
    let mut it = crate::batches::start(wb, sheet, opts, plan, usize::MAX, capacity)?;
    let schema = it.schema();
    let mut batches = Vec::with_capacity(1);
    for b in it.by_ref() {
        batches.push(b?);
    }
    if batches.is_empty() {
        batches.push(RecordBatch::new_empty(schema.clone()));
    }
    Ok(Table {
        schema,
        batches,
        warnings: it.warnings().to_vec(),
    })
}
