//! OpenDocument spreadsheets (`.ods`): `content.xml` read into the same
//! [`Workbook`] model as XLSX, in the same three phases.
//!
//! * **A** — `mimetype` and `META-INF/manifest.xml` checked (an encrypted
//!   package is refused as [`ErrorKind::Encrypted`]), `content.xml`
//!   inflated once, the prelude walked (automatic table styles: hidden
//!   sheets; a DTD is refused), and every `<table:table` start found with
//!   one `memmem` pass ([`split`]).
//! * **B** — the tables, and the row chunks of tables of 8 MiB or more,
//!   parsed on a pool of `min(jobs, threads)` scoped threads taking jobs
//!   (largest first) from an atomic counter, each writing its own
//!   [`CellStore`](crate::store::CellStore); a serial loop for one job.
//! * **A and B overlapped** — with three threads or more and a
//!   `content.xml` of at least 2 x `chunk_bytes` (8 MiB), the calling
//!   thread inflates while the others already parse the tables and row
//!   chunks that are complete ([`progressive`]); every table is then
//!   stitched from chunks in phase C, or parsed there serially when they
//!   do not stitch.
//! * **Windowed** — with one or two threads and such a `content.xml`, the
//!   outline and the tables are read in one pass over a sliding window
//!   ([`windowed`]; with two, a helper thread parses row chunks and
//!   whole tables while the caller inflates), so the XML is never held
//!   whole; anything unusual (an error, a unit over 64 MiB) sends the
//!   open back to the whole-part read, whose result it must equal.
//! * **C** — the outline walk over the top level of `office:spreadsheet`
//!   in document order: tables become sheets (chunks stitched), nested
//!   candidates are dropped, `table:named-expressions` become defined
//!   names, and the
//!   first error (by document order) is returned, naming `content.xml`,
//!   the sheet, the cell and the byte offset.
//! * **Without cells** (`load_cells(false)`) — one constant-memory pass
//!   lists the sheets and names ([`lazy`]), and
//!   [`Workbook::rows`](crate::Workbook::rows) streams a sheet block by
//!   block with the same table walker ([`stream`], over a sliding
//!   [`window`]): same cells and errors, memory of one block.
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
//! hidden rows, `text:s` spaces) draws on a repeat budget of
//! `max_cells_per_sheet / tables`, so a small file cannot multiply the
//! limit with many tables. At most 65,536 table elements. Hidden rows and
//! columns are reported within the used range (LibreOffice hides
//! million-row trailers). Big tables are parsed in row chunks on all
//! threads (`chunks.rs`) with results identical to the serial parse.

mod cell;
mod chunk_pool;
mod chunks;
mod lazy;
mod names;
mod plain;
mod progressive;
mod split;
mod starts;
mod stream;
mod table;
mod text;
mod values;
mod window;
mod windowed;
mod xml;

pub(crate) use lazy::Layout;
pub(crate) use stream::OdsRows;

use crate::error::{Error, ErrorKind, Result};
use crate::model::{DefinedName, OpenStats, SheetKind, Visibility};
use crate::options::OpenOptions;
use crate::workbook::{Sheet, Workbook};
use ream_xml::{TagKind, XmlError, next_tag, skip_element};
use ream_zip::Archive;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;
use table::{ParsedTable, Partial, TableCfg, parse_chunk, parse_table};

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

/// Opens an ODS package whose ZIP directory is already read. `started` is
/// when the open began (for phase timings).
pub(crate) fn open(archive: Archive, opts: &OpenOptions, started: Instant) -> Result<Workbook> {
    let limits = &opts.limits;
    let mut warnings = crate::open::duplicate_warnings(&archive);
    check_package(&archive)?;
    if !opts.load_cells {
        return lazy::open(archive, opts, started, warnings);
    }
    // Phase A.
    let entry = archive.find(PART).ok_or_else(|| {
        Error::malformed("missing content.xml: not a readable OpenDocument spreadsheet")
            .in_part(PART)
    })?;
    let threads_all = opts.effective_threads(usize::MAX);
    let mut owned = Vec::new();
    let mut prog = None;
    let t = Instant::now();
    let big = entry.uncompressed_size >= progressive::MIN_CHUNKS * opts.chunk_bytes as u64;
    if big && threads_all > windowed::MAX_THREADS {
        prog = Some(
            progressive::read(&archive, entry, opts, threads_all).map_err(|e| e.in_part(PART))?,
        );
    } else {
        // A big part on one or two threads: read it over a window,
        // inflating on the second thread when there is one.
        if big
            && let Some(win) = windowed::read(
                &archive,
                entry,
                limits,
                opts.stream_block,
                threads_all,
                opts.chunk_bytes,
                opts.row_chunks_min,
            )
        {
            return Ok(from_windowed(win, warnings, opts, started));
        }
        archive
            .read_into(entry, &mut owned)
            .map_err(|e| Error::from(e).in_part(PART))?;
    }
    let mut inflate_s = t.elapsed().as_secs_f64();
    if let Some(p) = &prog {
        inflate_s = p.inflate_s;
    }
    if prog
        .as_ref()
        .is_some_and(|p| crate::encoding::is_utf16(p.buf.filled()))
    {
        owned = prog
            .take()
            .map(|p| p.buf.filled().to_vec())
            .unwrap_or_default();
    }
    // What the overlapped read planned and parsed; `None` when it gave up
    // (UTF-16, a prelude that does not parse, too many tables), and then
    // the serial plan below runs on the finished buffer.
    let planned = prog.as_mut().and_then(|p| p.planned.take());
    let overlap = prog
        .as_ref()
        .filter(|_| planned.is_some())
        .map(|p| (p.inflate_wall_s, p.parse_s, p.threads, p.chunks));
    crate::encoding::ensure_utf8(&mut owned).map_err(|e| e.in_part(PART))?;
    let buf: &[u8] = match &prog {
        Some(p) => p.buf.filled(),
        None => &owned,
    };
    let prelude = split::read_prelude(buf, limits.max_xml_depth).map_err(|e| e.in_part(PART))?;
    let (starts, planned) = match planned {
        Some((starts, jobs, results)) => (starts, Some((jobs, results))),
        None => (split::table_starts(buf, prelude.body), None),
    };
    if starts.len() > MAX_TABLES {
        return Err(Error::limit(format!(
            "content.xml holds {} table elements, more than {MAX_TABLES}",
            starts.len()
        ))
        .in_part(PART));
    }
    // Overlapped: phase A ends when the inflater does, B is the parse tail.
    let phase_a_s = match overlap {
        Some((wall, ..)) => t.duration_since(started).as_secs_f64() + wall,
        None => started.elapsed().as_secs_f64(),
    };

    // Phase B.
    let t = Instant::now();
    let cfg = TableCfg {
        limits,
        depth_left: limits
            .max_xml_depth
            .saturating_sub(prelude.depth.saturating_add(1)),
        tables: starts.len() as u64,
    };
    let (jobs, ranges, mut results, threads, parse_s) = match planned {
        Some((jobs, results)) => {
            let ranges = job_ranges(&jobs, starts.len());
            let (_, parse_s, threads, _) = overlap.unwrap_or((0.0, 0.0, 1, 0));
            (jobs, ranges, results, threads, parse_s)
        }
        None => {
            let (jobs, ranges) = plan(buf, &starts, opts);
            let budgets: Vec<AtomicU64> = starts.iter().map(|_| AtomicU64::new(0)).collect();
            let (results, threads, parse_s) =
                parse_jobs(buf, &jobs, &budgets, opts, cfg).map_err(|e| e.in_part(PART))?;
            (jobs, ranges, results, threads, parse_s)
        }
    };
    let n_chunks = match overlap {
        Some((.., chunks)) => chunks,
        None => jobs.iter().filter(|j| j.chunk.is_some()).count() as u64,
    };
    drop(jobs);
    let phase_b_s = match overlap {
        Some(_) => (started.elapsed().as_secs_f64() - phase_a_s).max(0.0),
        None => t.elapsed().as_secs_f64(),
    };

    // Phase C.
    let t = Instant::now();
    let outline = Outline {
        buf,
        cfg,
        depth: prelude.depth,
        starts: &starts,
        ranges: &ranges,
        fallbacks: std::cell::Cell::new(0),
    };
    let (tables, raw_names) = outline
        .walk(prelude.body, &mut results)
        .map_err(|e| e.in_part(PART))?;
    let (sheets, names, cells) =
        loaded_sheets(tables, raw_names, &prelude.hidden_styles, &mut warnings);
    let stats = OpenStats {
        phase_a_s,
        phase_b_s,
        phase_c_s: t.elapsed().as_secs_f64(),
        inflate_s,
        parse_s,
        threads,
        cells,
        inflated_bytes: buf.len() as u64,
        chunks: n_chunks,
        chunk_fallbacks: outline.fallbacks.get(),
        windowed: false,
    };
    Ok(workbook(sheets, names, stats, warnings, opts, None))
}

/// The sheets and defined names of a loaded open from its finished
/// tables (text sealed, warnings named), and the number of cells.
fn loaded_sheets(
    tables: Vec<ParsedTable>,
    raw_names: Vec<names::RawName>,
    hidden_styles: &[String],
    warnings: &mut Vec<Error>,
) -> (Vec<Sheet>, Vec<DefinedName>, u64) {
    let mut sheets = Vec::with_capacity(tables.len());
    let mut names = Vec::new();
    let mut cells = 0u64;
    for (index, mut t) in tables.into_iter().enumerate() {
        t.store.seal_text();
        let hidden = t
            .style
            .as_ref()
            .is_some_and(|s| hidden_styles.binary_search(s).is_ok());
        for w in std::mem::take(&mut t.warnings) {
            warnings.push(w.in_part(PART).in_sheet(t.name.clone()));
        }
        names.extend(defined_names(std::mem::take(&mut t.names), Some(index)));
        cells += t.store.cells.len() as u64;
        sheets.push(sheet_of(index, t, hidden, true));
    }
    names.extend(defined_names(raw_names, None));
    (sheets, names, cells)
}

/// The workbook of a loaded open read over a window on one thread
/// (`windowed.rs`): phase A is the prelude, B the rest of the pass.
fn from_windowed(
    win: windowed::Windowed,
    mut warnings: Vec<Error>,
    opts: &OpenOptions,
    started: Instant,
) -> Workbook {
    let t = Instant::now();
    let total_s = started.elapsed().as_secs_f64();
    let (sheets, names, cells) =
        loaded_sheets(win.tables, win.names, &win.hidden_styles, &mut warnings);
    let phase_b_s = (total_s - win.prelude_s).max(0.0);
    let stats = OpenStats {
        phase_a_s: win.prelude_s,
        phase_b_s,
        phase_c_s: t.elapsed().as_secs_f64(),
        inflate_s: win.inflate_s,
        parse_s: (phase_b_s - win.inflate_s).max(0.0),
        threads: win.threads,
        cells,
        inflated_bytes: win.inflated,
        chunks: win.chunks,
        chunk_fallbacks: 0,
        windowed: true,
    };
    workbook(sheets, names, stats, warnings, opts, None)
}

/// The workbook of an ODS open; `layout` kept when cells stream later.
fn workbook(
    sheets: Vec<Sheet>,
    names: Vec<DefinedName>,
    stats: OpenStats,
    warnings: Vec<Error>,
    opts: &OpenOptions,
    layout: Option<Layout>,
) -> Workbook {
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
    }
}

/// Sheet `index` of the workbook from its table; `loaded` false for a
/// table only listed (`lazy.rs`), whose cells are streamed later.
fn sheet_of(index: usize, t: ParsedTable, hidden: bool, loaded: bool) -> Sheet {
    Sheet {
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
        loaded,
    }
}

/// Named expressions as defined names, local to sheet `local` or global.
fn defined_names(raw: Vec<names::RawName>, local: Option<usize>) -> Vec<DefinedName> {
    raw.into_iter()
        .map(|(name, formula)| DefinedName {
            name,
            formula,
            local_sheet: local,
            hidden: false,
        })
        .collect()
}

/// One unit of phase B: a whole candidate table, or one chunk of a big
/// one (`chunks.rs`).
struct Job {
    /// Index of the candidate table.
    cand: usize,
    /// Where parsing starts.
    start: usize,
    /// Where the bytes this job may see end (the next chunk's start).
    limit: usize,
    /// `None` for a whole table, `Some(first)` for a chunk.
    chunk: Option<bool>,
}

/// What a job produced.
enum Done {
    Whole(Result<ParsedTable>),
    Chunk(Result<Partial>),
}

/// Cuts the candidates into jobs: tables of at least
/// [`chunks::CHUNKED_MIN`] bytes become chunks when more than one thread
/// may run. Returns the jobs and, per candidate, its range of jobs.
fn plan(
    buf: &[u8],
    starts: &[usize],
    opts: &OpenOptions,
) -> (Vec<Job>, Vec<std::ops::Range<usize>>) {
    let cores = opts.effective_threads(usize::MAX);
    let mut jobs = Vec::with_capacity(starts.len());
    let mut ranges = Vec::with_capacity(starts.len());
    for (cand, &start) in starts.iter().enumerate() {
        let end = starts.get(cand + 1).copied().unwrap_or(buf.len());
        let first_job = jobs.len();
        let points = if cores > 1 && end - start >= chunks::CHUNKED_MIN {
            chunks::split_points(buf, start, end, cores * 4)
        } else {
            vec![start]
        };
        if points.len() <= 1 {
            jobs.push(Job {
                cand,
                start,
                limit: buf.len(),
                chunk: None,
            });
        } else {
            for (k, &p) in points.iter().enumerate() {
                jobs.push(Job {
                    cand,
                    start: p,
                    limit: points.get(k + 1).copied().unwrap_or(buf.len()),
                    chunk: Some(k == 0),
                });
            }
        }
        ranges.push(first_job..jobs.len());
    }
    (jobs, ranges)
}

/// Per candidate, its range of jobs (jobs come grouped by candidate, in
/// order).
fn job_ranges(jobs: &[Job], candidates: usize) -> Vec<std::ops::Range<usize>> {
    let mut ranges = vec![0..0; candidates];
    let mut k = 0;
    for (cand, r) in ranges.iter_mut().enumerate() {
        let first = k;
        while jobs.get(k).is_some_and(|j| j.cand == cand) {
            k += 1;
        }
        *r = first..k;
    }
    ranges
}

/// Runs the jobs on the pool (largest first, an atomic job counter, a
/// serial loop for one thread). Returns each job's outcome (`None` when
/// the pool stopped early after an error), the threads used and the summed
/// parse seconds; an error only when a worker thread panicked.
fn parse_jobs(
    buf: &[u8],
    jobs: &[Job],
    budgets: &[AtomicU64],
    opts: &OpenOptions,
    cfg: TableCfg<'_>,
) -> Result<(Vec<Option<Done>>, usize, f64)> {
    let mut order: Vec<(usize, usize)> = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| (i, j.limit.min(buf.len()).saturating_sub(j.start)))
        .collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let threads = opts.effective_threads(jobs.len());
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let worker = || -> (Vec<(usize, Done)>, f64) {
        let mut out = Vec::new();
        let t = Instant::now();
        while !failed.load(Ordering::Relaxed) {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some(&(i, _)) = order.get(k) else { break };
            let Some(job) = jobs.get(i) else { break };
            let done = match (job.chunk, budgets.get(job.cand)) {
                (Some(first), Some(budget)) => {
                    let part = buf.get(..job.limit).unwrap_or(buf);
                    Done::Chunk(parse_chunk(part, job.start, cfg, first, budget))
                }
                _ => {
                    let res = parse_table(buf, job.start, cfg);
                    // A chunk's failure only sends its table to the serial
                    // path; a whole table's error ends the open.
                    if res.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    Done::Whole(res)
                }
            };
            out.push((i, done));
        }
        (out, t.elapsed().as_secs_f64())
    };
    let outs = if threads <= 1 {
        vec![worker()]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads).map(|_| scope.spawn(worker)).collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        let e = Error::malformed("a worker thread panicked");
                        (vec![(usize::MAX, Done::Whole(Err(e)))], 0.0)
                    })
                })
                .collect()
        })
    };
    let mut slots: Vec<Option<Done>> = (0..jobs.len()).map(|_| None).collect();
    let mut parse_s = 0.0;
    for (out, secs) in outs {
        parse_s += secs;
        for (i, done) in out {
            match (slots.get_mut(i), done) {
                (Some(slot), done) => *slot = Some(done),
                (None, Done::Whole(res)) => res.map(|_| ())?,
                (None, Done::Chunk(_)) => {}
            }
        }
    }
    Ok((slots, threads, parse_s))
}

/// The serial walk over the top level of `office:spreadsheet` (phase C).
struct Outline<'a> {
    buf: &'a [u8],
    cfg: TableCfg<'a>,
    /// Depth of the spreadsheet's children.
    depth: u32,
    starts: &'a [usize],
    /// Per candidate, its jobs.
    ranges: &'a [std::ops::Range<usize>],
    /// Chunked tables parsed here again, serially.
    fallbacks: std::cell::Cell<u64>,
}

impl Outline<'_> {
    /// The table at candidate `cand` from the pool's results: a whole
    /// table, or its chunks stitched; `None` when it must be parsed here.
    fn take(&self, cand: usize, slots: &mut [Option<Done>]) -> Option<Result<ParsedTable>> {
        let range = self.ranges.get(cand)?.clone();
        let mut parts = Vec::with_capacity(range.len());
        let fallback = || {
            self.fallbacks.set(self.fallbacks.get() + 1);
            None
        };
        for slot in slots.get_mut(range)? {
            match slot.take()? {
                Done::Whole(res) => return Some(res),
                Done::Chunk(Ok(p)) => parts.push(p),
                Done::Chunk(Err(_)) => return fallback(),
            }
        }
        chunks::stitch(parts, self.cfg).map(Ok).or_else(fallback)
    }

    /// Collects the top-level tables (from the pool, or parsed here when
    /// the pool did not) and the workbook's named expressions.
    fn walk(
        &self,
        from: usize,
        slots: &mut [Option<Done>],
    ) -> Result<(Vec<ParsedTable>, Vec<names::RawName>)> {
        let buf = self.buf;
        let mut pos = from;
        let mut tables = Vec::new();
        let mut raw_names = Vec::new();
        let mut scratch = Vec::new();
        let child_left = self.cfg.limits.max_xml_depth.saturating_sub(self.depth);
        loop {
            let tag = next_tag(buf, pos).map_err(xml::xml_err)?.ok_or_else(|| {
                xml::xml_err(XmlError {
                    offset: buf.len(),
                    message: "content.xml ends before </office:spreadsheet>",
                    truncated: true,
                })
            })?;
            match (tag.kind, tag.name) {
                (TagKind::Start | TagKind::Empty, b"table") => {
                    let pooled = match self.starts.binary_search(&tag.start) {
                        Ok(cand) => self.take(cand, slots),
                        Err(_) => None,
                    };
                    let res = pooled.unwrap_or_else(|| parse_table(buf, tag.start, self.cfg));
                    let table = res.map_err(|e| {
                        if e.sheet().is_none() {
                            e.in_sheet(format!("#{}", tables.len() + 1))
                        } else {
                            e
                        }
                    })?;
                    pos = table.end.max(tag.end);
                    tables.push(table);
                }
                (TagKind::Start, b"named-expressions") => {
                    pos = names::read_named_expressions(
                        buf,
                        tag.end,
                        child_left,
                        &mut raw_names,
                        &mut scratch,
                    )?;
                }
                (TagKind::Start, _) => {
                    pos = skip_element(buf, tag.end, child_left).map_err(xml::xml_err)?;
                }
                (TagKind::End, _) => return Ok((tables, raw_names)),
                _ => pos = tag.end,
            }
        }
    }
}
