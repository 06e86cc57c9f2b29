//! The ODS open without cells (`load_cells(false)`): one pass over
//! `content.xml` in constant memory that lists the sheets (name,
//! visibility, where each starts) and the named expressions, so that
//! [`Workbook::rows`](crate::Workbook::rows) can stream any sheet later
//! (`stream.rs`).
//!
//! The pass walks the outline and each table's direct children with the
//! tag scanner, but skips a row's cells with two byte searches: the next
//! `</table:table-row>`, taken when the bytes before it hold no other
//! `table-row` (a nested table's row) and no `<!`/`<?` (a comment, CDATA
//! or processing instruction could hide one); otherwise the row is walked
//! tag by tag. On `giant.ods` (1.16 GiB of XML) the tag walk alone costs
//! about 1.9 s; the byte searches bring the pass down to inflating plus
//! a few tenths of a second (see BENCHMARKS.md).
//!
//! With [`OpenOptions::sheets_needed`] (or
//! [`OpenOptions::sheet_needed_named`]) the pass stops at the start of the
//! last sheet wanted and leaves its window for the first `rows` call, so
//! the head of the first sheet costs a few blocks of inflating instead of
//! the whole part (giant.ods: `ream cat --n-rows 10` 0.02 s against
//! 0.64-0.80 s).
//!
//! Errors inside tables are reported when the sheet is read, not here
//! (this pass checks only what it walks); a table's repeat budget is
//! `max_cells_per_sheet` shared by the top-level tables (the loaded open
//! also counts tables nested in cells, so it can be stricter).

use super::names::{RawName, read_named_expressions};
use super::split::{Outline, outline_step, window_prelude};
use super::table::{ParsedTable, empty_table, is_group};
use super::xml::{attr, attr_string, shift, xml_err};
use super::{MAX_TABLES, PART, loaded_sheets, workbook};
use crate::error::{Error, Result};
use crate::model::OpenStats;
use crate::options::OpenOptions;
use crate::pipeline::window::Window;
use crate::workbook::Workbook;
use memchr::memmem;
use ream_xml::{Tag, TagKind, next_tag, skip_element};
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

/// End tag of a row, as LibreOffice and most writers spell it.
const ROW_END: &[u8] = b"</table:table-row>";

/// The state of the listing walk.
struct Lister {
    max_depth: u32,
    /// Depth of the spreadsheet's children.
    depth: u32,
    /// Open elements inside the current table (1 = table level), or 0
    /// outside tables.
    in_table: u32,
    /// The listed tables: name, style and local names only.
    tables: Vec<ParsedTable>,
    starts: Vec<u64>,
    names: Vec<RawName>,
    scratch: Vec<u8>,
    row_end: memmem::Finder<'static>,
    row_name: memmem::Finder<'static>,
    /// Stop at the start of this many tables ([`OpenOptions::sheets_needed`]).
    stop_at: Option<usize>,
    /// Stop at the start of the first table of this name
    /// ([`OpenOptions::sheet_needed_named`]).
    stop_name: Option<String>,
}

/// What one step of the walk did.
enum Step {
    /// Moved on to this position.
    At(usize),
    /// The window ends inside the next unit: read more, retry from here.
    More,
    /// `</office:spreadsheet>` was read.
    Done,
    /// The last table wanted starts here ([`OpenOptions::sheets_needed`]).
    Stop,
}

/// A scanner result where running out of bytes means "read more".
fn more<T>(r: std::result::Result<T, ream_xml::XmlError>) -> Result<Option<T>> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.truncated => Ok(None),
        Err(e) => Err(xml_err(e)),
    }
}

impl Lister {
    /// Handles the unit at `pos` (a tag, or a whole element to skip).
    fn step(&mut self, data: &[u8], pos: usize, base: u64) -> Result<Step> {
        if self.in_table == 0 {
            let child_left = self.max_depth.saturating_sub(self.depth);
            let step = outline_step(data, pos, child_left, &mut self.names, &mut self.scratch);
            return match step {
                Ok(Outline::Table(tag)) => self.table(&tag, base),
                Ok(Outline::At(p)) => Ok(Step::At(p)),
                Ok(Outline::End) => Ok(Step::Done),
                Err(e) if e.truncated => Ok(Step::More),
                Err(e) => Err(e),
            };
        }
        let Some(Some(tag)) = more(next_tag(data, pos))? else {
            return Ok(Step::More);
        };
        let table_left = self.max_depth.saturating_sub(self.depth + 1);
        let left = table_left.saturating_sub(self.in_table);
        match (tag.kind, tag.name) {
            (TagKind::Start, b"table-row") => Ok(match self.skip_row(data, tag.end, left)? {
                Some(end) => Step::At(end),
                None => Step::More,
            }),
            (TagKind::Start, name) if is_group(name) => {
                self.in_table += 1;
                if self.in_table > table_left {
                    return Err(Error::limit("XML nesting too deep").at_offset(tag.start as u64));
                }
                Ok(Step::At(tag.end))
            }
            (TagKind::Start, b"named-expressions") => self.names(data, tag.end, left),
            (TagKind::Start, _) => Ok(match more(skip_element(data, tag.end, left))? {
                Some(end) => Step::At(end),
                None => Step::More,
            }),
            (TagKind::End, name) => {
                self.in_table -= 1;
                if self.in_table == 0 && name != b"table" {
                    return Err(Error::malformed(format!(
                        "mismatched end tag </{}> closes a table",
                        String::from_utf8_lossy(name)
                    ))
                    .at_offset(tag.start as u64));
                }
                Ok(Step::At(tag.end))
            }
            _ => Ok(Step::At(tag.end)),
        }
    }

    /// Lists the table whose start tag is `tag` (`base`: the window's
    /// offset in `content.xml`).
    fn table(&mut self, tag: &Tag<'_>, base: u64) -> Result<Step> {
        if self.tables.len() >= MAX_TABLES {
            return Err(
                Error::limit(format!("content.xml holds more than {MAX_TABLES} tables"))
                    .at_offset(tag.start as u64),
            );
        }
        let text = |raw: &[u8], s: &mut Vec<u8>| {
            attr_string(raw, s).map_err(|e| xml_err(shift(e, tag.start)))
        };
        let name = match attr(tag, b"name") {
            Some(raw) => text(raw, &mut self.scratch)?,
            None => String::new(),
        };
        let style = attr(tag, b"style-name")
            .map(|raw| text(raw, &mut self.scratch))
            .transpose()?;
        let wanted = self.stop_name.as_deref() == Some(name.as_str());
        self.tables.push(ParsedTable {
            name,
            style,
            ..empty_table(0)
        });
        self.starts.push(base + tag.start as u64);
        if wanted || self.stop_at == Some(self.tables.len()) {
            return Ok(Step::Stop);
        }
        if tag.kind == TagKind::Start {
            self.in_table = 1;
        }
        Ok(Step::At(tag.end))
    }

    /// Reads `table:named-expressions` (start tag ending at `from`) into
    /// the current table's names, or the workbook's outside tables.
    fn names(&mut self, data: &[u8], from: usize, left: u32) -> Result<Step> {
        let out = match self.tables.last_mut() {
            Some(t) if self.in_table > 0 => &mut t.names,
            _ => &mut self.names,
        };
        match read_named_expressions(data, from, left, out, &mut self.scratch) {
            Ok(end) => Ok(Step::At(end)),
            Err(e) if e.truncated => Ok(Step::More),
            Err(e) => Err(e),
        }
    }

    /// Skips a row whose start tag ended at `from`; `None` when the window
    /// ends inside it.
    fn skip_row(&self, data: &[u8], from: usize, left: u32) -> Result<Option<usize>> {
        let hay = data.get(from..).unwrap_or_default();
        if let Some(e) = self.row_end.find(hay) {
            let body = hay.get(..e).unwrap_or_default();
            if self.row_name.find(body).is_none() && memchr::memchr2(b'!', b'?', body).is_none() {
                return Ok(Some(from + e + ROW_END.len()));
            }
        }
        more(skip_element(data, from, left))
    }
}

/// Lists an ODS package's sheets and names without reading cells.
pub(super) fn open(
    archive: Archive,
    opts: &OpenOptions,
    started: Instant,
    mut warnings: Vec<Error>,
) -> Result<Workbook> {
    let entry = archive.find(PART).cloned().ok_or_else(|| {
        Error::malformed("missing content.xml: not a readable OpenDocument spreadsheet")
            .in_part(PART)
    })?;
    let max_depth = opts.limits.max_xml_depth;
    let piped = opts.effective_threads(usize::MAX) > 1;
    let (lister, hidden_styles, inflated, left) = {
        let mut w = Window::new(&archive, &entry, PART, opts.stream_block, piped)?;
        let prelude = window_prelude(&mut w, max_depth, usize::MAX).map_err(|e| e.in_part(PART))?;
        let mut lister = Lister {
            max_depth,
            depth: prelude.depth,
            in_table: 0,
            tables: Vec::new(),
            starts: Vec::new(),
            names: Vec::new(),
            scratch: Vec::new(),
            row_end: memmem::Finder::new(ROW_END),
            row_name: memmem::Finder::new(b"table-row"),
            stop_at: opts.sheets_needed,
            stop_name: opts.sheet_needed_named.clone(),
        };
        let mut pos = prelude.body;
        let mut stopped = false;
        loop {
            let step = lister.step(w.data(), pos, w.base);
            let step = step.map_err(|e| {
                let e = e.offset_by(w.base).in_part(PART);
                match lister.tables.last() {
                    Some(t) if lister.in_table > 0 => e.in_sheet(t.name.clone()),
                    _ => e,
                }
            })?;
            match step {
                Step::At(p) => pos = p,
                Step::Done => break,
                Step::Stop => {
                    stopped = true;
                    break;
                }
                Step::More if w.eof => {
                    let what = if lister.in_table > 0 {
                        "content.xml ends inside a table"
                    } else {
                        "content.xml ends before </office:spreadsheet>"
                    };
                    return Err(Error::malformed(format!("{what} (content.xml ends early)"))
                        .at_offset(w.base + w.data().len() as u64)
                        .in_part(PART));
                }
                Step::More => {
                    w.advance(pos)?;
                    pos = 0;
                }
            }
        }
        let inflated = w.base + w.data().len() as u64;
        // Stopped early, the window still holds the last table's start:
        // the first `rows` call goes on from it instead of inflating
        // from the start again.
        (
            lister,
            prelude.hidden_styles,
            inflated,
            stopped.then_some(w),
        )
    };
    let (sheets, names, _) = loaded_sheets(
        lister.tables,
        lister.names,
        &hidden_styles,
        &mut warnings,
        false,
    );
    let stats = OpenStats {
        phase_a_s: started.elapsed().as_secs_f64(),
        threads: 1,
        inflated_bytes: inflated,
        ..OpenStats::default()
    };
    let layout = Layout {
        tables: lister.starts.len() as u64,
        starts: lister.starts,
        depth: lister.depth,
        archive,
        entry,
        piped,
        cache: Mutex::new(left),
    };
    Ok(workbook(sheets, names, stats, warnings, opts, Some(layout)))
}
