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
    for mut c in t.store.cells {
        let Some(row) = row_of(c.row) else {
            *clipped = true;
            continue;
        };
        c.row = row;
        if c.tag == T_INLINE {
            c.bits += base32 << 32;
        }
        out.store.cells.push(c);
    }
    for mut f in t.store.formulas {
        let Some(row) = row_of(f.row) else { continue };
        f.row = row;
        f.off += base32 as u32;
        out.store.formulas.push(f);
    }
    for mut m in t.merged {
        let Some(row) = row_of(m.first_row) else {
            *clipped = true;
            continue;
        };
        m.first_row = row;
        m.last_row = (u64::from(m.last_row) + offset).min(GRID_ROWS - 1) as u32;
        out.merged.push(m);
    }
    for mut c in t.comments {
        let Some(row) = row_of(c.row) else {
            *clipped = true;
            continue;
        };
        c.row = row;
        out.comments.push(c);
    }
    for mut l in t.hyperlinks {
        let Some(row) = row_of(l.range.first_row) else {
            *clipped = true;
            continue;
        };
        l.range.first_row = row;
        l.range.last_row = row;
        out.hyperlinks.push(l);
    }
    for mut d in t.drawings {
        if let Some((r, c)) = d.anchor {
            let Some(row) = row_of(r) else { continue };
            d.anchor = Some((row, c));
        }
        out.drawings.push(d);
    }
    out.names.extend(t.names);
    out.warnings.extend(t.warnings);
    out.end = t.end;
    Some(())
}

#[cfg(test)]
mod tests {
    use super::super::table::{TableCfg, finish_table, parse_chunk, parse_table};
    use super::*;
    use std::sync::atomic::AtomicU64;

    /// Everything a parsed table holds, as text.
    fn dump(t: &ParsedTable) -> Vec<String> {
        let mut out: Vec<String> = t
            .store
            .cells
            .iter()
            .map(|c| format!("{:?}", t.store.view(c)))
            .collect();
        out.push(format!("{:?}", t.merged));
        out.push(format!("{:?}", t.comments));
        out.push(format!("{:?}", t.hyperlinks));
        out.push(format!("{:?}", t.drawings));
        out.push(format!("{:?} {:?}", t.hidden_rows, t.hidden_cols));
        out.push(format!("{:?} {} {:?}", t.names, t.end, t.name));
        out.extend(t.warnings.iter().map(|w| w.to_string()));
        out
    }

    /// The table parsed in chunks cut at `cuts`; `None` when stitching
    /// refuses (the caller would parse serially).
    fn chunked(buf: &[u8], start: usize, cuts: &[usize], cfg: TableCfg<'_>) -> Option<ParsedTable> {
        let budget = AtomicU64::new(0);
        let mut points = vec![start];
        points.extend_from_slice(cuts);
        let mut st = Stitcher::default();
        for (k, &p) in points.iter().enumerate().rev() {
            let limit = points.get(k + 1).copied().unwrap_or(buf.len());
            st.add(k, parse_chunk(&buf[..limit], p, cfg, k == 0, &budget));
        }
        let whole = st.finish(points.len())?;
        if whole.walk.used > cfg.limits.max_cells_per_sheet
            || whole.walk.expanded > cfg.expand_max()
        {
            return None;
        }
        finish_table(whole, cfg).ok()
    }

    #[test]
    fn chunked_equals_serial_for_every_cut() {
        let cell = |v: &str| {
            format!(r#"<table:table-cell office:value-type="float" office:value="{v}"/>"#)
        };
        let rows = [
            format!("<table:table-header-rows><table:table-row>{}</table:table-row></table:table-header-rows>", cell("1")),
            format!(r#"<table:table-row table:visibility="collapse"><table:table-cell office:value-type="string" table:number-columns-spanned="2"><text:p>s&amp;t</text:p></table:table-cell><table:covered-table-cell/>{}</table:table-row>"#, cell("2")),
            r#"<table:table-row table:number-rows-repeated="3"><table:table-cell table:formula="of:=1+1" office:value-type="float" office:value="2"><office:annotation><dc:creator>A</dc:creator><text:p>c</text:p></office:annotation></table:table-cell></table:table-row>"#.to_string(),
            "<table:table-row table:number-rows-repeated=\"5\"><table:table-cell/></table:table-row>".to_string(),
            format!("<table:table-row-group><table:table-row>{}</table:table-row><table:table-row>{}</table:table-row></table:table-row-group>", cell("3"), cell("4")),
            r#"<table:table-row><table:table-cell office:value-type="string"><text:p><text:a xlink:href="http://x/">l</text:a></text:p><draw:frame><draw:image xlink:href="Pictures/i.png"/></draw:frame></table:table-cell></table:table-row>"#.to_string(),
            r#"<table:table-row table:number-rows-repeated="1048560"><table:table-cell/></table:table-row>"#.to_string(),
            format!("<table:table-row>{}{}</table:table-row>", cell("6"), cell("7")),
            format!(r#"<table:table-row table:visibility="collapse" table:number-rows-repeated="4">{}</table:table-row>"#, cell("8")),
        ]
        .concat();
        let xml = format!(
            r#"<table:table table:name="T"><table:table-column table:visibility="collapse"/>{rows}<table:named-expressions><table:named-range table:name="N" table:cell-range-address="$T.$A$1"/></table:named-expressions></table:table>"#
        );
        let buf = xml.as_bytes();
        let limits = crate::options::Limits::default();
        let cfg = TableCfg {
            limits: &limits,
            depth_left: 200,
            tables: 1,
        };
        let serial = dump(&parse_table(buf, 0, cfg).unwrap());
        assert!(serial.iter().any(|l| l.contains("beyond the grid")));
        let starts: Vec<usize> = xml
            .match_indices("<table:table-row")
            .map(|(i, _)| i)
            .filter(|&i| !xml[i..].starts_with("<table:table-row-"))
            .collect();
        let mut stitched = 0;
        for (a, &i) in starts.iter().enumerate() {
            for &j in &starts[a + 1..] {
                for cuts in [vec![i], vec![i, j]] {
                    if let Some(t) = chunked(buf, 0, &cuts, cfg) {
                        assert_eq!(dump(&t), serial, "cuts {cuts:?}");
                        stitched += 1;
                    }
                }
            }
        }
        // Cuts inside the row group or the header rows are refused; the
        // others stitch.
        assert!(stitched > 10, "{stitched}");
        // A cut at an arbitrary byte never gives a different table.
        for cut in (1..buf.len()).step_by(7) {
            if let Some(t) = chunked(buf, 0, &[cut], cfg) {
                assert_eq!(dump(&t), serial, "cut at {cut}");
            }
        }
    }
}
