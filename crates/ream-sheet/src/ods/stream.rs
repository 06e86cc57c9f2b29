//! Streaming one ODS sheet in constant memory: [`Workbook::rows`] on a
//! workbook opened with `load_cells(false)`.
//!
//! `content.xml` is inflated again from the start (or from a window an
//! earlier reader left) up to the sheet's start tag, known from the
//! listing pass ([`Layout`]). Each block of the window is cut at the last
//! `<table:table-row` it holds and parsed by the loaded open's table
//! walker, which carries its state from block to block ([`Carry`]): the
//! same cells and errors, absolute rows, memory of one block. A cut inside
//! something that only looks like a row start makes the walk run out of
//! bytes, and the block is parsed again with more. Only cells are
//! streamed (no hidden rows, merges, comments, links or drawings).
//!
//! [`Workbook::rows`]: crate::Workbook::rows

use super::PART;
use super::table::{Carry, Lens, ParsedTable, TableCfg, parse_block_into};
use super::xml::ends_name;
use crate::error::{Error, Result};
use crate::options::Limits;
use crate::pipeline::window::Window;
use crate::store::CellStore;
use memchr::memmem;
use ream_zip::{Archive, Entry};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

/// Start of a row element, as writers spell it.
pub(super) const ROW_START: &[u8] = b"<table:table-row";
/// End of a table element.
pub(super) const TABLE_END: &[u8] = b"</table:table>";

/// What a streamed read of an ODS sheet needs from the listing pass.
pub(crate) struct Layout {
    pub archive: Archive,
    pub entry: Entry,
    /// Nesting depth of the spreadsheet's children.
    pub depth: u32,
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
            .field("starts", &self.starts.len())
            .finish()
    }
}

/// The rows of one ODS sheet, block by block.
pub(crate) struct OdsRows<'w> {
    layout: &'w Layout,
    limits: &'w Limits,
    /// `None` only after an error (the window is then not cached).
    window: Option<Window>,
    /// Where the walk continues in the window.
    pos: usize,
    /// Where the table walk stands between blocks.
    carry: Carry,
    /// The current block's cells.
    out: ParsedTable,
    /// What repeat counts added to this sheet so far.
    repeats: Arc<AtomicU64>,
    done: bool,
    sheet: String,
}

impl<'w> OdsRows<'w> {
    /// Positions a new reader at the start tag of sheet `index`.
    pub fn new(
        layout: &'w Layout,
        limits: &'w Limits,
        first_block: usize,
        index: usize,
        sheet: &str,
    ) -> Result<OdsRows<'w>> {
        let start = layout
            .starts
            .get(index)
            .copied()
            .ok_or_else(|| Error::new(crate::ErrorKind::Usage, format!("no sheet {index}")))?;
        // A window left by an earlier reader at or before this sheet saves
        // inflating everything before it again (sheets read in order cost
        // one pass, not one per sheet).
        let cached = layout.take_window().filter(|w| w.base <= start);
        let mut window = match cached {
            Some(w) => w,
            None => Window::new(
                &layout.archive,
                &layout.entry,
                PART,
                first_block,
                layout.piped,
            )?,
        };
        window
            .seek(start)
            .map_err(|e| e.in_sheet(sheet.to_string()))?;
        Ok(OdsRows {
            layout,
            limits,
            window: Some(window),
            pos: 0,
            carry: Carry::default(),
            out: ParsedTable::default(),
            repeats: Arc::default(),
            done: false,
            sheet: sheet.to_string(),
        })
    }

    /// The cells of the current block, sorted by (row, column).
    pub fn block(&self) -> &CellStore {
        &self.out.store
    }

    /// Parses the next block of rows; false at the end of the sheet.
    pub fn refill(&mut self) -> Result<bool> {
        clear(&mut self.out);
        let repeats = Arc::clone(&self.repeats);
        let cfg = TableCfg {
            limits: self.limits,
            depth_left: self
                .limits
                .max_xml_depth
                .saturating_sub(self.layout.depth.saturating_add(1)),
            repeats: &repeats,
        };
        loop {
            if self.done {
                return Ok(false);
            }
            let Some(window) = self.window.as_mut() else {
                return Ok(false);
            };
            let (data, eof) = (window.data(), window.eof);
            match next_rows(
                data,
                eof,
                &mut self.pos,
                cfg,
                &mut self.carry,
                &mut self.out,
            ) {
                Ok(true) => {
                    // Hidden rows and columns are not streamed.
                    self.carry.hidden_runs.clear();
                    self.carry.hidden_col_runs.clear();
                    self.done = self.carry.closed;
                    if !self.out.store.cells.is_empty() {
                        self.out.store.normalize(true);
                        self.out.store.seal_text();
                        return Ok(true);
                    }
                    if self.done {
                        continue;
                    }
                }
                Ok(false) => {}
                Err(e) => {
                    let e = e.offset_by(window.base);
                    return Err(self.fail(e));
                }
            }
            if let Err(e) = window.advance(self.pos) {
                return Err(self.fail(e));
            }
            self.pos = 0;
        }
    }
}

impl OdsRows<'_> {
    /// Ends the reader on an error (its window is dropped, not cached).
    fn fail(&mut self, e: Error) -> Error {
        self.done = true;
        self.window = None;
        e.in_part(PART).in_sheet(self.sheet.clone())
    }
}

impl Drop for OdsRows<'_> {
    /// Leaves the window for the next reader of a later sheet.
    fn drop(&mut self) {
        if let Some(w) = self.window.take() {
            self.layout.keep_window(w);
        }
    }
}

/// Where the block of a table's rows from `pos` may end in a window
/// (shared by every read, `load.rs`, and the row stream): at the end of
/// `data` when the part ends there (`eof`), else just before the last row
/// start in `data`, or at its end when the table's end tag follows that
/// row (or no row start is left but an end tag is). `None`: read more.
pub(super) fn block_end(data: &[u8], pos: usize, eof: bool) -> Option<usize> {
    if eof {
        return Some(data.len());
    }
    let hay = data.get(pos..)?;
    let mut end = hay.len();
    let row = loop {
        match memmem::rfind(hay.get(..end)?, ROW_START) {
            Some(i) if ends_name(hay.get(i + ROW_START.len())) => break Some(i),
            Some(i) => end = i,
            None => break None,
        }
    };
    let tail = hay.get(row.unwrap_or(0)..)?;
    if memmem::find(tail, TABLE_END).is_some() {
        return Some(data.len());
    }
    row.map(|i| pos + i).filter(|&c| c > pos)
}

/// Parses the rows `data` holds from `*pos` up to [`block_end`] into
/// `out` (`parse_block_into`, walk state in `carry`) and moves `*pos`
/// past them. `Ok(false)`: nothing parsed, read more first (no whole row
/// in view, or the cut fell inside a nested element and the block is
/// parsed again from the same place with more bytes).
pub(super) fn next_rows(
    data: &[u8],
    eof: bool,
    pos: &mut usize,
    cfg: TableCfg<'_>,
    carry: &mut Carry,
    out: &mut ParsedTable,
) -> Result<bool> {
    let Some(end) = block_end(data, *pos, eof) else {
        return Ok(false);
    };
    let block = data.get(..end).unwrap_or_default();
    match parse_block_into(block, *pos, cfg, carry, out, !eof) {
        Ok(stop) => {
            *pos = stop;
            Ok(true)
        }
        Err(e) if e.truncated && !eof => Ok(false),
        Err(e) => Err(e),
    }
}

/// Empties a block's outputs, keeping their buffers.
fn clear(t: &mut ParsedTable) {
    let s = &mut t.store;
    if !s.text.is_empty() {
        s.arena = std::mem::take(&mut s.text).into_bytes();
    }
    Lens::default().restore(t);
}
