//! The loaded ODS open on one or two threads over a sliding window of
//! `content.xml`, instead of inflating the part whole first (with two
//! threads the second inflates ahead of the parse).
//!
//! The whole-part read costs more than its parse there: giant.ods
//! holds 1.16 GiB of XML, and faulting in a buffer that size took 1.8 to
//! 4.5 s of system time on our 2-core VM, more than inflating and parsing
//! it. This read walks the same outline as phase C (`mod.rs`) over a
//! [`Window`], and parses each table block by block with the table walker
//! (`table::parse_block_into`, cut at row starts like the row stream), so
//! the XML in memory is one block (up to 4 MiB) plus the longest row.
//!
//! The result must be the whole-part read's, so this read gives up (the
//! caller then reads the part whole, and reports that read's error) on
//! anything unusual: any error at all, a unit (skipped element, named
//! expressions, the prelude, a row) longer than [`MAX_SPAN`], or more
//! than `MAX_TABLES` table candidates. The repeat budget of a table
//! depends on the number of `<table:table` candidates in the whole part,
//! known only at its end: tables are walked with the count so far (a
//! larger, more permissive budget) and checked against the final count
//! when finished, as the whole-part read checks them.

use super::MAX_TABLES;
use super::names::{RawName, read_named_expressions};
use super::split::read_prelude;
use super::stream::{ROW_START, TABLE_END, cut};
use super::table::{
    Carry, ParsedTable, Partial, TableCfg, empty_table, finish_table, parse_block_into,
};
use super::window::Window;
use super::xml::ends_name;
use crate::options::Limits;
use memchr::memmem;
use ream_xml::{TagKind, next_tag, skip_element};
use ream_zip::{Archive, Entry};
use std::time::Instant;

/// Most threads for which a big part is read this way: with more, the
/// overlapped read (`progressive.rs`) parses on all of them. On two
/// threads the window (inflating on the second) beat it on giant.ods,
/// 1.5-1.7 s and 260 MiB RSS against 1.9-3.4 s and 1.4 GiB, most of the
/// difference being page faults on the whole-part buffer.
pub(super) const MAX_THREADS: usize = 2;

/// Most bytes the window may hold from the current position: a longer
/// unit sends the open to the whole-part read (no rescans without bound).
const MAX_SPAN: usize = 64 << 20;

/// Start of a table element, as counted by `split::table_starts`.
const NEEDLE: &[u8] = b"<table:table";

/// What the windowed read produced.
pub(super) struct Windowed {
    /// The top-level tables, finished (hidden rows, limits checked).
    pub tables: Vec<ParsedTable>,
    /// Named expressions outside tables.
    pub names: Vec<RawName>,
    /// Automatic styles that hide a table.
    pub hidden_styles: Vec<String>,
    /// Bytes of `content.xml`.
    pub inflated: u64,
    /// Seconds spent inflating.
    pub inflate_s: f64,
    /// Seconds to the end of the prelude (phase A).
    pub prelude_s: f64,
    /// Threads used: 2 when a helper thread inflated.
    pub threads: usize,
}

/// The window and the table-candidate count.
struct Reader {
    w: Window,
    /// `<table:table` candidates after the prelude, counted so far.
    count: u64,
    /// Absolute offset up to which candidates were counted.
    scanned: u64,
    needle: memmem::Finder<'static>,
    row_start: memmem::FinderRev<'static>,
    table_end: memmem::Finder<'static>,
}

impl Reader {
    /// Counts the candidates in the bytes read since the last call; a
    /// match too close to the window's end to be judged waits for more.
    fn scan(&mut self) {
        let data = self.w.data();
        let base = self.w.base;
        let from = usize::try_from(self.scanned.saturating_sub(base))
            .unwrap_or(usize::MAX)
            .min(data.len());
        let limit = if self.w.eof {
            data.len()
        } else {
            data.len().saturating_sub(NEEDLE.len())
        };
        if limit <= from {
            return;
        }
        let hay = data.get(from..).unwrap_or_default();
        for i in self.needle.find_iter(hay) {
            let at = from + i;
            if at >= limit {
                break;
            }
            if ends_name(data.get(at + NEEDLE.len())) {
                self.count += 1;
            }
        }
        self.scanned = base + limit as u64;
    }

    /// Drops the bytes before `*pos` (those already counted) and reads
    /// one more block; `None` at the end of the part, on an error, past
    /// [`MAX_SPAN`] or `MAX_TABLES`.
    fn advance(&mut self, pos: &mut usize) -> Option<()> {
        if self.w.eof {
            return None;
        }
        let counted = usize::try_from(self.scanned.saturating_sub(self.w.base)).unwrap_or(0);
        let keep = (*pos).min(counted);
        if self.w.data().len().saturating_sub(keep) > MAX_SPAN {
            return None;
        }
        self.w.advance(keep).ok()?;
        *pos -= keep;
        self.scan();
        (self.count <= MAX_TABLES as u64).then_some(())
    }

    /// Parses the table whose start tag is at `start` in the window, block
    /// by block, with the repeat budget of the tables counted so far.
    /// Returns it unfinished and the position past its end tag.
    fn table<'l>(
        &mut self,
        start: usize,
        cfg: &dyn Fn(u64) -> TableCfg<'l>,
    ) -> Option<(Partial, usize)> {
        let mut pos = start;
        let mut carry = Carry::default();
        let mut out = empty_table(0);
        loop {
            let eof = self.w.eof;
            let data = self.w.data();
            let end = if eof {
                Some(data.len())
            } else {
                cut(data, pos, &self.row_start, &self.table_end)
            };
            if let Some(end) = end {
                let part = data.get(..end)?;
                match parse_block_into(part, pos, cfg(self.count), &mut carry, &mut out, !eof) {
                    Ok(stop) => {
                        pos = stop;
                        if carry.cur.closed {
                            return Some((carry.into_partial(out), stop));
                        }
                    }
                    // A cut inside a nested element: again with more bytes.
                    Err(e) if e.truncated && !eof => {}
                    Err(_) => return None,
                }
            }
            self.advance(&mut pos)?;
        }
    }
}

/// What to do after looking at one tag of the outline.
enum Step {
    At(usize),
    Table(usize),
    More,
    Done,
}

/// Reads `content.xml` of `archive` (entry `entry`) over a window, parsed
/// on this thread and inflated on this one or (`piped`) on a helper
/// thread; `None` when the caller must read it whole instead (see the
/// module doc). The archive's inflate budget is charged once either way.
pub(super) fn read(
    archive: &Archive,
    entry: &Entry,
    limits: &Limits,
    first_block: usize,
    piped: bool,
) -> Option<Windowed> {
    let t0 = Instant::now();
    let w = Window::new(archive, entry, first_block, piped).ok()?;
    let threads = if piped { 2 } else { 1 };
    let res = read_from(w, limits, t0, threads);
    if res.is_none() {
        archive.refund(entry);
    }
    res
}

fn read_from(mut w: Window, limits: &Limits, t0: Instant, threads: usize) -> Option<Windowed> {
    let max_depth = limits.max_xml_depth;
    w.advance(0).ok()?;
    let prelude = loop {
        match read_prelude(w.data(), max_depth) {
            Ok(p) => break p,
            Err(e)
                if !w.eof
                    && w.data().len() <= MAX_SPAN
                    && (e.truncated || e.kind() == crate::ErrorKind::Unsupported) =>
            {
                w.advance(0).ok()?;
            }
            Err(_) => return None,
        }
    };
    let prelude_s = t0.elapsed().as_secs_f64();
    let mut r = Reader {
        w,
        count: 0,
        scanned: prelude.body as u64,
        needle: memmem::Finder::new(NEEDLE),
        row_start: memmem::FinderRev::new(ROW_START),
        table_end: memmem::Finder::new(TABLE_END),
    };
    r.scan();
    let depth = prelude.depth;
    let cfg = move |tables: u64| TableCfg {
        limits,
        depth_left: max_depth.saturating_sub(depth.saturating_add(1)),
        tables: tables.max(1),
    };
    let child_left = max_depth.saturating_sub(depth);
    let mut pos = prelude.body;
    let mut partials = Vec::new();
    let mut names = Vec::new();
    let mut scratch = Vec::new();
    loop {
        let step = {
            let data = r.w.data();
            match next_tag(data, pos) {
                Ok(Some(tag)) => match (tag.kind, tag.name) {
                    (TagKind::Start | TagKind::Empty, b"table") => Step::Table(tag.start),
                    (TagKind::Start, b"named-expressions") => {
                        let mut got = Vec::new();
                        match read_named_expressions(
                            data,
                            tag.end,
                            child_left,
                            &mut got,
                            &mut scratch,
                        ) {
                            Ok(end) => {
                                names.append(&mut got);
                                Step::At(end)
                            }
                            Err(e) if e.truncated => Step::More,
                            Err(_) => return None,
                        }
                    }
                    (TagKind::Start, _) => match skip_element(data, tag.end, child_left) {
                        Ok(end) => Step::At(end),
                        Err(e) if e.truncated => Step::More,
                        Err(_) => return None,
                    },
                    (TagKind::End, _) => Step::Done,
                    _ => Step::At(tag.end),
                },
                Ok(None) => Step::More,
                Err(e) if e.truncated => Step::More,
                Err(_) => return None,
            }
        };
        match step {
            Step::At(p) => pos = p,
            Step::Table(start) => {
                let (p, end) = r.table(start, &cfg)?;
                partials.push(p);
                pos = end;
            }
            Step::More => r.advance(&mut pos)?,
            Step::Done => break,
        }
    }
    // The rest of the part: candidates after the spreadsheet count too,
    // and the size and CRC are checked at its end.
    while !r.w.eof {
        let mut all = r.w.data().len();
        r.advance(&mut all)?;
    }
    r.scan();
    if r.count > MAX_TABLES as u64 {
        return None;
    }
    let inflated = r.w.base + r.w.data().len() as u64;
    let inflate_s = r.w.inflate_s;
    drop(r.w);
    let last = cfg(r.count);
    let mut tables = Vec::with_capacity(partials.len());
    for p in partials {
        if p.expanded > last.expand_max() || p.used > limits.max_cells_per_sheet {
            return None;
        }
        tables.push(finish_table(p, last).ok()?);
    }
    Some(Windowed {
        tables,
        names,
        hidden_styles: prelude.hidden_styles,
        inflated,
        inflate_s,
        prelude_s,
        threads,
    })
}
