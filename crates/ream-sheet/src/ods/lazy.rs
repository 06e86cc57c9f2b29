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

use super::load::{Mode, Stop, read_from};
use super::{PART, workbook};
use crate::error::{Error, Result};
use crate::options::OpenOptions;
use crate::pipeline::window::Window;
use crate::workbook::Workbook;
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

/// Lists an ODS package's sheets and names without reading cells.
pub(super) fn open(
    archive: Archive,
    opts: &OpenOptions,
    started: Instant,
    warnings: Vec<Error>,
) -> Result<Workbook> {
    let entry = super::content_entry(&archive)?.clone();
    let piped = opts.effective_threads(usize::MAX) > 1;
    let w = Window::new(&archive, &entry, PART, opts.stream_block, piped)?;
    // The last sheet wanted: the pass stops at its start tag.
    let last_wanted = |listed: usize, name: &str| {
        opts.sheet_needed_named.as_deref() == Some(name) || opts.sheets_needed == Some(listed + 1)
    };
    let mut read = match read_from(w, opts, started, Mode::List(&last_wanted), None) {
        Ok(read) => read,
        Err(Stop::Error(e)) => return Err(e),
        // A listing does not depend on the table count.
        Err(Stop::Recount(_)) => return Err(Error::malformed("content.xml: listing failed")),
    };
    read.stats.phase_a_s = started.elapsed().as_secs_f64();
    let layout = Layout {
        tables: read.starts.len() as u64,
        starts: std::mem::take(&mut read.starts),
        depth: read.depth,
        archive,
        entry,
        piped,
        // Stopped early, the window still holds the last table's start:
        // the first `rows` call goes on from it instead of inflating from
        // the start again.
        cache: Mutex::new(read.window.take()),
    };
    Ok(workbook(read, warnings, opts, Some(layout)))
}
