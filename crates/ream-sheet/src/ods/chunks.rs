//! One big table parsed on several threads: its bytes are cut at
//! `<table:table-row` boundaries, each chunk is parsed on its own with rows
//! relative to the chunk (ODS rows carry no index), and the chunks are
//! stitched in order: rows shifted, text rebased into one arena, cells
//! past the grid dropped.
//!
//! A cut can land where a row start is not at table level (in a row group,
//! a nested table, a comment). The chunk before it then fails or does not
//! end at table level, the stitch refuses, and the caller reads the part
//! again without chunks (`load.rs`), so chunked and serial results agree.

use super::table::{Partial, append_items};
use crate::error::Result;
use crate::pipeline::join::Ordered;

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
    // Only the last chunk may close the table; the joined text stays
    // under 4 GiB (spans are 32-bit).
    let (a, w, t, out) = (&mut acc.walk, p.walk, p.table, &mut acc.table);
    let base = out.store.arena.len();
    if a.closed || base + t.store.arena.len() > u32::MAX as usize {
        *broken = true;
        return;
    }
    // Rows shifted by the rows before, text spans into one arena.
    let offset = a.row;
    out.store.arena.extend_from_slice(&t.store.arena);
    a.clipped |= append_items(out, &t, offset, base as u32) | w.clipped;
    out.names.extend(t.names);
    out.warnings.extend(t.warnings);
    out.end = t.end;
    a.hidden_runs.extend(
        w.hidden_runs
            .iter()
            .map(|&(r, c)| (r.saturating_add(offset), c)),
    );
    a.row = offset.saturating_add(w.row);
    a.used = a.used.saturating_add(w.used);
    a.expanded = a.expanded.saturating_add(w.expanded);
    a.closed = w.closed;
}
