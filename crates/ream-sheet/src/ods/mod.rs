//! OpenDocument spreadsheets (`.ods`): `content.xml` read into the same
//! [`Workbook`] model as XLSX.
//!
//! * **Package** — `mimetype` and `META-INF/manifest.xml` checked (an
//!   encrypted package is refused as [`ErrorKind::Encrypted`]).
//! * **One pass** over `content.xml` on the pipeline's sliding window
//!   ([`load`], `crate::pipeline`) for every read: the prelude walked
//!   (automatic table styles: hidden sheets; a DTD is refused, [`split`]),
//!   then the outline (the top level of `office:spreadsheet`): tables
//!   become sheets, nested tables are dropped and
//!   `table:named-expressions` become defined names. Loaded, tables are
//!   parsed here or handed to the pool whole or in row chunks and joined
//!   in order ([`chunks`]); the thread count only sets how many parsers
//!   run, and memory is one window plus the units in flight. Errors are
//!   those of the serial pass: the first in document order, naming
//!   `content.xml`, the sheet, the cell and the byte offset.
//! * **Without cells** (`load_cells(false)`) — the same pass lists the
//!   sheets and names (`list`), and
//!   [`Workbook::rows`](crate::Workbook::rows) streams a sheet block by
//!   block with the same table walker on the same window ([`stream`]): the
//!   pipeline with one parser, same cells and errors, memory of one block.
//!
//! Values: `float`/`percentage`/`currency` are numbers, `date` and `time`
//! are serials of the 1900 system (times of day below one day are
//! [`DateKind::Time`](crate::DateKind::Time), longer ones durations),
//! `boolean`, `string` (paragraphs joined with `\n`), and LibreOffice's
//! `calcext:value-type="error"` an error value. Formulas keep their ODF
//! text without the `of:=` prefix; named ranges are given in Excel's
//! notation (`Sheet1!$A$1:$B$2`).
//!
//! Limits (see `table.rs`): empty repeats are free; a repeated non-empty
//! cell or row is stored once per repetition, clipped to the grid of
//! 1,048,576 rows x 16,384 columns (one warning per sheet), within
//! `max_cells_per_sheet` per sheet, and everything repeats add (copies,
//! hidden rows, `text:s` spaces) draws on one repeat budget of
//! `max_cells_per_sheet` for the workbook, so a small file cannot multiply
//! the limit with many tables (a streamed sheet has it to itself). At most
//! 65,536 tables. Hidden rows and columns are reported within the used
//! range (LibreOffice hides million-row trailers). Row chunks give results
//! identical to the serial parse (`chunks.rs`).

mod cell;
mod chunks;
mod load;
mod names;
mod plain;
mod split;
mod stream;
mod table;
mod text;
mod values;
mod xml;

pub(crate) use stream::Layout;
pub(crate) use stream::OdsRows;

use crate::error::{Error, ErrorKind, Result};
use crate::model::{DefinedName, SheetKind, Visibility};
use crate::options::OpenOptions;
use crate::pipeline::window::Window;
use crate::workbook::{Sheet, Workbook};
use load::{Mode, read_from};
use ream_zip::Archive;
use std::sync::Mutex;
use std::time::Instant;

/// Most table elements a `content.xml` may hold (LibreOffice allows
/// 10,000 sheets); more is refused as a limit, not parsed.
const MAX_TABLES: usize = 65_536;

/// The part every ODS error names.
const PART: &str = "content.xml";

/// True when `archive` looks like an OpenDocument package: it has a
/// `content.xml`, or a `mimetype` naming an OpenDocument type.
pub(crate) fn looks_like_ods(archive: &Archive) -> bool {
    if archive.find(PART).is_some() {
        return true;
    }
    archive
        .find("mimetype")
        .and_then(|e| archive.read(e).ok())
        .is_some_and(|m| m.starts_with(b"application/vnd.oasis.opendocument"))
}

/// Refuses packages that are not spreadsheets or are encrypted.
fn check_package(archive: &Archive) -> Result<()> {
    if let Some(e) = archive.find("mimetype") {
        let m = archive
            .read(e)
            .map_err(|e| Error::from(e).in_part("mimetype"))?;
        let m = ream_xml::trim_xml_ws(&m);
        if m.starts_with(b"application/vnd.oasis.opendocument")
            && !m.starts_with(b"application/vnd.oasis.opendocument.spreadsheet")
        {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                    "this OpenDocument package is {}, not a spreadsheet",
                    String::from_utf8_lossy(m)
                ),
            )
            .in_part("mimetype"));
        }
    }
    let manifest = "META-INF/manifest.xml";
    if let Some(xml) = crate::open::read_part(archive, manifest)?
        && memchr::memmem::find(&xml, b"encryption-data").is_some()
    {
        return Err(Error::new(
            ErrorKind::Encrypted,
            "the spreadsheet is password-protected (encrypted OpenDocument package)",
        )
        .in_part(manifest));
    }
    Ok(())
}

/// `content.xml`'s entry in `archive`.
fn content_entry(archive: &Archive) -> Result<&ream_zip::Entry> {
    archive.find(PART).ok_or_else(|| {
        Error::malformed("missing content.xml: not a readable OpenDocument spreadsheet")
            .in_part(PART)
    })
}

/// Opens an ODS package whose ZIP directory is already read. `started` is
/// when the open began (for phase timings).
pub(crate) fn open(archive: Archive, opts: &OpenOptions, started: Instant) -> Result<Workbook> {
    let warnings = crate::open::duplicate_warnings(&archive);
    check_package(&archive)?;
    if !opts.load_cells {
        return list(archive, opts, started, warnings);
    }
    let entry = content_entry(&archive)?;
    let mut read = load::read(&archive, entry, opts)?;
    // Phase A is the prelude, B the rest of the pass.
    let st = &mut read.stats;
    st.phase_b_s = (started.elapsed().as_secs_f64() - st.phase_a_s).max(0.0);
    st.parse_s = (st.phase_b_s - st.inflate_s).max(0.0);
    Ok(workbook(read, warnings, opts, None))
}

/// The workbook of a read: its tables as sheets (text sealed, warnings
/// named) and its named expressions as defined names; `layout` is kept
/// when the tables were only listed (`list`), their cells streamed
/// later.
fn workbook(
    read: load::Windowed,
    mut warnings: Vec<Error>,
    opts: &OpenOptions,
    layout: Option<Layout>,
) -> Workbook {
    let t = Instant::now();
    let mut stats = read.stats;
    let mut sheets = Vec::with_capacity(read.tables.len());
    let mut names = Vec::new();
    let mut add_names = |raw: Vec<names::RawName>, local_sheet| {
        names.extend(raw.into_iter().map(|(name, formula)| DefinedName {
            name,
            formula,
            local_sheet,
            hidden: false,
        }));
    };
    for (index, mut t) in read.tables.into_iter().enumerate() {
        t.store.seal_text();
        let hidden = t
            .style
            .as_ref()
            .is_some_and(|s| read.hidden_styles.binary_search(s).is_ok());
        for w in std::mem::take(&mut t.warnings) {
            warnings.push(w.in_part(PART).in_sheet(t.name.clone()));
        }
        add_names(std::mem::take(&mut t.names), Some(index));
        stats.cells += t.store.cells.len() as u64;
        sheets.push(Sheet {
            name: t.name,
            index,
            kind: SheetKind::Worksheet,
            visibility: if hidden {
                Visibility::Hidden
            } else {
                Visibility::Visible
            },
            part: PART.to_string(),
            dimension: None,
            store: t.store,
            merged: t.merged,
            comments: t.comments,
            tables: Vec::new(),
            hyperlinks: t.hyperlinks,
            hidden_rows: t.hidden_rows,
            hidden_cols: t.hidden_cols,
            drawings: t.drawings,
            loaded: layout.is_none(),
        });
    }
    add_names(read.names, None);
    stats.phase_c_s = t.elapsed().as_secs_f64();
    Workbook {
        sheets,
        names,
        date_1904: false,
        stats,
        shared_strings: 0,
        warnings,
        limits: opts.limits,
        stream_block: opts.stream_block.max(1),
        stream_piped: opts.effective_threads(usize::MAX) > 1,
        package: None,
        ods: layout.map(Box::new),
        legacy: None,
    }
}

/// Lists an ODS package's sheets and names without reading cells, for
/// [`Workbook::rows`](crate::Workbook::rows) to stream any sheet later.
/// With [`OpenOptions::sheets_needed`] (or
/// [`OpenOptions::sheet_needed_named`]) the pass stops at the start of the
/// last sheet wanted and leaves its window for the first `rows` call
/// (giant.ods: `ream cat --n-rows 10` 0.02 s against 0.64-0.80 s).
fn list(
    archive: Archive,
    opts: &OpenOptions,
    started: Instant,
    warnings: Vec<Error>,
) -> Result<Workbook> {
    let entry = content_entry(&archive)?.clone();
    let piped = opts.effective_threads(usize::MAX) > 1;
    let w = Window::new(&archive, &entry, PART, opts.stream_block, piped)?;
    // The last sheet wanted: the pass stops at its start tag.
    let last_wanted = |listed: usize, name: &str| {
        opts.sheet_needed_named.as_deref() == Some(name) || opts.sheets_needed == Some(listed + 1)
    };
    let unused = std::sync::atomic::AtomicU64::new(0);
    let mut read = read_from(w, opts, started, Mode::List(&last_wanted), &unused)?;
    read.stats.phase_a_s = started.elapsed().as_secs_f64();
    let layout = Layout {
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
