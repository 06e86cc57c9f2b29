//! One big table parsed on several threads: its bytes are cut at
//! `<table:table-row` boundaries, each chunk is parsed on its own with row
//! numbers relative to the chunk (ODS rows carry no index, so nothing
//! needs guessing), and the chunks are stitched in order: rows shifted by
//! the rows of the chunks before, strings and formulas rebased into one
//! arena, cells past the grid dropped.
//!
//! A cut can land where a row start is not at table level (inside a row
//! group, a nested table, a comment). The chunk before it then fails, or
//! does not end at table level, and the stitch refuses; the caller then
//! reads the part again without row chunks (`load.rs`), so chunked and
//! serial results are identical by construction.

use super::table::{GRID_ROWS, ParsedTable, Partial};
use crate::error::Result;
use crate::pipeline::join::Ordered;
use crate::store::T_INLINE;

/// A table's chunks stitched one by one as they finish (any order in, in
/// order out: the pipeline's ordered join), appended to the first.
#[derive(Default)]
pub(crate) struct Stitcher {
    /// The chunks joined so far, as one partial table.
    acc: Option<Partial>,
    order: Ordered<Result<Partial>>,
    /// A chunk failed, closed the table early, or would not fit.
    broken: bool,
}

impl Stitcher {
    /// Files chunk `seq`'s outcome and joins every chunk now next in order.
    pub(crate) fn add(&mut self, seq: usize, res: Result<Partial>) {
        let (acc, broken) = (&mut self.acc, &mut self.broken);
        self.order.add(seq, res, |r| join(acc, broken, r));
    }

    /// True when chunks `0..n` have all come in (joined or failed).
    pub(crate) fn has(&self, n: usize) -> bool {
        self.order.released() >= n
    }

    /// The whole table as one closed partial when all `parts` chunks
    /// joined into it; `None` when they do not form the table.
    pub(crate) fn finish(self, parts: usize) -> Option<Partial> {
        let acc = self.acc?;
        (!self.broken && self.order.released() == parts && acc.walk.closed).then_some(acc)
    }
}

/// Joins the next chunk in order onto `acc`.
fn join(acc: &mut Option<Partial>, broken: &mut bool, res: Result<Partial>) {
    if *broken {
        return;
    }
    let Ok(p) = res else {
        *broken = true;
        return;
    };
    let Some(acc) = acc.as_mut() else {
        *acc = Some(p);
        return;
    };
    // Only the last chunk may close the table.
    let (a, w) = (&mut acc.walk, p.walk);
    if a.closed || append(&mut acc.table, p.table, a.row, &mut a.clipped).is_none() {
        *broken = true;
        return;
    }
    let offset = a.row;
    a.hidden_runs.extend(
        w.hidden_runs
            .iter()
            .map(|&(r, c)| (r.saturating_add(offset), c)),
    );
    a.clipped |= w.clipped;
    a.row = offset.saturating_add(w.row);
    a.used = a.used.saturating_add(w.used);
    a.expanded = a.expanded.saturating_add(w.expanded);
    a.closed = w.closed;
}

/// Appends chunk `t` (rows relative) to `out`, its rows shifted by
/// `offset`.
fn append(out: &mut ParsedTable, t: ParsedTable, offset: u64, clipped: &mut bool) -> Option<()> {
    let base = out.store.arena.len();
    let total = base.checked_add(t.store.arena.len())?;
    if total > u32::MAX as usize {
        return None;
    }
    let base32 = u64::try_from(base).ok()?;
    out.store.arena.extend_from_slice(&t.store.arena);
    let row_of = |r: u32| -> Option<u32> {
        let abs = u64::from(r) + offset;
        (abs < GRID_ROWS).then_some(abs as u32)
    };
    // The same, noting what the grid drops.
    let dropped = std::cell::Cell::new(false);
    let shift = |r: u32| {
        let row = row_of(r);
        dropped.set(dropped.get() || row.is_none());
        row
    };
    out.store
        .cells
        .extend(t.store.cells.into_iter().filter_map(|mut c| {
            c.row = shift(c.row)?;
            if c.tag == T_INLINE {
                c.bits += base32 << 32;
            }
            Some(c)
        }));
    out.store
        .formulas
        .extend(t.store.formulas.into_iter().filter_map(|mut f| {
            (f.row, f.off) = (row_of(f.row)?, f.off + base32 as u32);
            Some(f)
        }));
    out.merged.extend(t.merged.into_iter().filter_map(|mut m| {
        m.first_row = shift(m.first_row)?;
        m.last_row = (u64::from(m.last_row) + offset).min(GRID_ROWS - 1) as u32;
        Some(m)
    }));
    out.comments
        .extend(t.comments.into_iter().filter_map(|mut c| {
            c.row = shift(c.row)?;
            Some(c)
        }));
    out.hyperlinks
        .extend(t.hyperlinks.into_iter().filter_map(|mut l| {
            l.range.first_row = shift(l.range.first_row)?;
            l.range.last_row = l.range.first_row;
            Some(l)
        }));
    for mut d in t.drawings {
        if let Some((r, c)) = d.anchor {
            let Some(row) = row_of(r) else { continue };
            d.anchor = Some((row, c));
        }
        out.drawings.push(d);
    }
    *clipped |= dropped.get();
    out.names.extend(t.names);
    out.warnings.extend(t.warnings);
    out.end = t.end;
    Some(())
}
