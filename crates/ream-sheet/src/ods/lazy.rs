//! The ODS open without cells (`load_cells(false)`): one constant-memory
//! pass over `content.xml` that lists the sheets (name, visibility, start
//! offset) and the named expressions, so that
//! [`Workbook::rows`](crate::Workbook::rows) can stream any sheet later
//! (`stream.rs`). It is the loaded read's walk on the same window, tables
//! in listing mode (rows skipped by byte search, `table::RowSkip`).
//!
//! With [`OpenOptions::sheets_needed`] (or
//! [`OpenOptions::sheet_needed_named`]) the pass stops at the start of the
//! last sheet wanted and leaves its window for the first `rows` call
//! (giant.ods: `ream cat --n-rows 10` 0.02 s against 0.64-0.80 s).
//!
//! Errors inside tables are reported when the sheet is read; a table's
//! repeat budget is `max_cells_per_sheet` shared by the top-level tables
//! (the loaded open also counts nested tables, so it can be stricter).

use super::names::RawName;
use super::split::{Outline, outline_step, window_prelude};
use super::stream::Cutter;
use super::table::{Carry, ParsedTable, TableCfg, name_and_style, parse_block_into};
use super::{MAX_TABLES, PART, loaded_sheets, workbook};
use crate::error::{Error, Result};
use crate::model::OpenStats;
use crate::options::OpenOptions;
use crate::pipeline::window::Window;
use crate::workbook::Workbook;
use ream_xml::Tag;
use ream_zip::{Archive, Entry};
use std::sync::Mutex;
use std::time::Instant;

/// What a streamed read of an ODS sheet needs from the listing pass.
pub(crate) struct Layout {
    pub archive: Archive,
    pub entry: Entry,
    /// Nesting depth of the spreadsheet's children.
    pub depth: u32,
    /// Top-level tables (the repeat budget is shared by them).
    pub tables: u64,
    /// Per sheet, the offset of its start tag in `content.xml`.
    pub starts: Vec<u64>,
    /// Inflate on a helper thread (several threads allowed at open).
    pub piped: bool,
    /// The window the last streamed sheet left (see `stream.rs`).
    pub(super) cache: Mutex<Option<Window>>,
}

impl Layout {
    /// Takes the cached window, if any.
    pub(super) fn take_window(&self) -> Option<Window> {
        self.cache.lock().ok()?.take()
    }

    /// Caches `w` for a later reader.
    pub(super) fn keep_window(&self, w: Window) {
        if let Ok(mut slot) = self.cache.lock() {
            *slot = Some(w);
        }
    }
}

impl std::fmt::Debug for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Layout")
            .field("tables", &self.tables)
            .field("starts", &self.starts.len())
            .finish()
    }
}

/// The sheet listed for the table whose start tag is `tag`: name and
/// style only.
fn listed(tag: &Tag<'_>, count: usize, scratch: &mut Vec<u8>) -> Result<ParsedTable> {
    if count >= MAX_TABLES {
        return Err(
            Error::limit(format!("content.xml holds more than {MAX_TABLES} tables"))
                .at_offset(tag.start as u64),
        );
    }
    let (name, style) = name_and_style(tag, scratch)?;
    Ok(ParsedTable {
        name,
        style,
        ..ParsedTable::default()
    })
}

/// Walks the table `sheet` whose start tag is at `pos` in the window
/// without reading its cells; returns its local names and the position
/// past it. Errors of the walk name the sheet, those of inflating do not.
fn skim_table(
    w: &mut Window,
    mut pos: usize,
    (cfg, sheet): (TableCfg<'_>, &str),
    cutter: &Cutter,
) -> Result<(Vec<RawName>, usize)> {
    let located = |e: Error, base: u64| e.offset_by(base).in_part(PART).in_sheet(sheet);
    let mut carry = Carry {
        skim: true,
        ..Carry::default()
    };
    let mut out = ParsedTable::default();
    loop {
        let (data, eof) = (w.data(), w.eof);
        cutter
            .next_rows(data, eof, &mut pos, |part, from, more| {
                parse_block_into(part, from, cfg, &mut carry, &mut out, more)
            })
            .map_err(|e| located(e, w.base))?;
        if carry.closed {
            return Ok((out.names, pos));
        }
        if eof {
            let what = "content.xml ends inside a table (content.xml ends early)";
            let at = w.data().len() as u64;
            return Err(located(Error::malformed(what).at_offset(at), w.base));
        }
        w.advance(pos)?;
        pos = 0;
    }
}

/// Lists an ODS package's sheets and names without reading cells.
pub(super) fn open(
    archive: Archive,
    opts: &OpenOptions,
    started: Instant,
    mut warnings: Vec<Error>,
) -> Result<Workbook> {
    let entry = super::content_entry(&archive)?.clone();
    let max_depth = opts.limits.max_xml_depth;
    let piped = opts.effective_threads(usize::MAX) > 1;
    let mut w = Window::new(&archive, &entry, PART, opts.stream_block, piped)?;
    let prelude = window_prelude(&mut w, max_depth, usize::MAX).map_err(|e| e.in_part(PART))?;
    let cfg = TableCfg {
        limits: &opts.limits,
        depth_left: max_depth.saturating_sub(prelude.depth.saturating_add(1)),
        tables: 1,
    };
    let child_left = max_depth.saturating_sub(prelude.depth);
    let cutter = Cutter::default();
    let (mut tables, mut starts, mut names, mut scratch) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut pos = prelude.body;
    let stopped = loop {
        match outline_step(w.data(), pos, child_left, &mut names, &mut scratch) {
            Ok(Outline::At(p)) => pos = p,
            Ok(Outline::End) => break false,
            Ok(Outline::Table(tag)) => {
                let (start, tag_end) = (tag.start, tag.end);
                let mut t = listed(&tag, tables.len(), &mut scratch)
                    .map_err(|e| e.offset_by(w.base).in_part(PART))?;
                starts.push(w.base + start as u64);
                let wanted = opts.sheet_needed_named.as_deref() == Some(t.name.as_str());
                if wanted || opts.sheets_needed == Some(tables.len() + 1) {
                    tables.push(t);
                    break true;
                }
                pos = if tag.kind == ream_xml::TagKind::Start {
                    let (local, end) = skim_table(&mut w, start, (cfg, &t.name), &cutter)?;
                    t.names = local;
                    end
                } else {
                    tag_end
                };
                tables.push(t);
            }
            Err(e) if e.truncated && !w.eof => {
                w.advance(pos)?;
                pos = 0;
            }
            Err(e) => return Err(e.offset_by(w.base).in_part(PART)),
        }
    };
    let inflated = w.base + w.data().len() as u64;
    let (sheets, names, _) =
        loaded_sheets(tables, names, &prelude.hidden_styles, &mut warnings, false);
    let stats = OpenStats {
        phase_a_s: started.elapsed().as_secs_f64(),
        threads: 1,
        inflated_bytes: inflated,
        ..OpenStats::default()
    };
    let layout = Layout {
        tables: starts.len() as u64,
        starts,
        depth: prelude.depth,
        archive,
        entry,
        piped,
        // Stopped early, the window still holds the last table's start:
        // the first `rows` call goes on from it instead of inflating from
        // the start again.
        cache: Mutex::new(stopped.then_some(w)),
    };
    Ok(workbook(sheets, names, stats, warnings, opts, Some(layout)))
}
