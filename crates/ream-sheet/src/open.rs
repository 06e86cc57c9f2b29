//! The three-phase open: A (container + workbook-level parts), B (worksheets
//! on a pool), C (small parts).

use crate::error::{Error, ErrorKind, Result};
use crate::model::{OpenStats, SheetKind};
use crate::options::OpenOptions;
use crate::parts::rels::{Relationship, parse_rels, rels_part_for, type_is};
use crate::parts::styles::{Styles, parse_styles};
use crate::parts::workbook_xml::parse_workbook;
use crate::sst::{SharedStrings, parse_shared_strings};
use crate::workbook::{Sheet, Workbook};
use crate::worksheet::{ParsedSheet, SheetCtx, SheetParser};
use ream_io::Bytes;
use ream_zip::{Archive, Container, Entry};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// Worksheet parts larger than this are inflated in blocks (streaming)
/// instead of one shot, so memory stays bounded for giant sheets.
const ONE_SHOT_MAX: u64 = 64 << 20;
/// Block size of the streaming inflate.
const STREAM_BLOCK: usize = 4 << 20;

/// Everything phase A produces, shared read-only by the workers.
#[derive(Debug)]
pub(crate) struct Package {
    pub archive: Archive,
    pub sst: Arc<SharedStrings>,
    pub styles: Styles,
    pub date_1904: bool,
}

/// A sheet as listed by the workbook, before parsing.
#[derive(Clone)]
pub(crate) struct SheetJob {
    pub name: String,
    pub kind: SheetKind,
    pub visibility: crate::model::Visibility,
    pub part: String,
}

/// Reads a small part fully (one-shot inflate), or `None` if it is absent.
pub(crate) fn read_part(archive: &Archive, name: &str) -> Result<Option<Vec<u8>>> {
    match archive.find(name) {
        Some(e) => {
            let mut xml = archive.read(e).map_err(|e| Error::from(e).in_part(name))?;
            crate::encoding::ensure_utf8(&mut xml).map_err(|e| e.in_part(name))?;
            Ok(Some(xml))
        }
        None => Ok(None),
    }
}

/// One warning per part name the package holds more than once.
pub(crate) fn duplicate_warnings(archive: &Archive) -> Vec<Error> {
    archive
        .duplicate_names()
        .iter()
        .map(|n| {
            Error::malformed(format!(
                "the package holds {n} more than once; the last copy was read"
            ))
            .in_part(n.clone())
        })
        .collect()
}

/// Reads the relationships of `part` (empty when it has none).
pub(crate) fn read_rels(archive: &Archive, part: &str) -> Result<Vec<Relationship>> {
    let rels_name = rels_part_for(part);
    match read_part(archive, &rels_name)? {
        Some(xml) => parse_rels(&xml, &rels_name),
        None => Ok(Vec::new()),
    }
}

fn check_container(src: &[u8]) -> Result<()> {
    match ream_zip::sniff(src) {
        Container::EncryptedOoxml => Err(Error::new(
            ErrorKind::Encrypted,
            "the workbook is password-protected (an encrypted OOXML package in a CFB container)",
        )),
        Container::Pdf => Err(Error::new(
            ErrorKind::Unsupported,
            "this is a PDF, not a workbook",
        )),
        _ if src.is_empty() => Err(Error::malformed("the file is empty (0 bytes)")),
        _ => Ok(()),
    }
}

pub(crate) fn open(src: Bytes, opts: &OpenOptions) -> Result<Workbook> {
    let t0 = Instant::now();
    if ream_zip::sniff(&src) == Container::Cfb {
        return crate::xls::open(src, opts, t0);
    }
    if crate::xls::is_bare_biff(&src) {
        return crate::xls::open_stream(&src, opts, t0);
    }
    check_container(&src)?;
    let limits = &opts.limits;
    let zip_limits = ream_zip::Limits {
        max_entries: limits.max_zip_entries,
        max_total_inflated: limits.max_inflated_bytes,
        max_ratio: limits.max_inflate_ratio,
        ..ream_zip::Limits::default()
    };
    let archive = Archive::new(src, zip_limits)?;
    let mut early_warnings = duplicate_warnings(&archive);

    // Phase A: workbook-level parts.
    let root_rels = read_rels(&archive, "")?;
    let wb_part = root_rels
        .iter()
        .find(|r| type_is(r, "officeDocument") && !r.external)
        .map(|r| r.target.clone())
        .unwrap_or_else(|| match archive.find("xl/workbook.bin") {
            Some(_) if archive.find("xl/workbook.xml").is_none() => "xl/workbook.bin".to_string(),
            _ => "xl/workbook.xml".to_string(),
        });
    if wb_part.to_ascii_lowercase().ends_with(".bin") {
        return crate::xlsb::open(archive, &wb_part, opts, t0, early_warnings);
    }
    let wb_xml = match read_part(&archive, &wb_part)? {
        Some(x) => x,
        None if crate::ods::looks_like_ods(&archive) => {
            return crate::ods::open(archive, opts, t0);
        }
        None => {
            return Err(Error::malformed(format!(
                "missing workbook part {wb_part}: not an XLSX package"
            ))
            .in_part(wb_part.clone()));
        }
    };
    let info = parse_workbook(&wb_xml, &wb_part, limits.max_xml_depth)?;
    let wb_rels = read_rels(&archive, &wb_part)?;
    let target_of = |pred: &dyn Fn(&Relationship) -> bool, fallback: &str| -> String {
        wb_rels
            .iter()
            .find(|r| pred(r) && !r.external)
            .map(|r| r.target.clone())
            .unwrap_or_else(|| fallback.to_string())
    };
    let sst_part = target_of(&|r| type_is(r, "sharedStrings"), "xl/sharedStrings.xml");
    let sst = match read_part(&archive, &sst_part)? {
        Some(xml) => parse_shared_strings(&xml, &sst_part, limits)?,
        None => SharedStrings::default(),
    };
    let styles_part = target_of(&|r| type_is(r, "styles"), "xl/styles.xml");
    let styles = match read_part(&archive, &styles_part)? {
        Some(xml) => parse_styles(&xml, &styles_part, limits.max_xml_depth)?,
        None => Styles::default(),
    };
    let mut jobs = Vec::with_capacity(info.sheets.len());
    for s in &info.sheets {
        let rel = wb_rels.iter().find(|r| r.id == s.rid);
        let kind = match rel {
            Some(r) if type_is(r, "chartsheet") => SheetKind::Chartsheet,
            Some(r) if type_is(r, "dialogsheet") => SheetKind::DialogSheet,
            Some(r) if type_is(r, "xlMacrosheet") || type_is(r, "macrosheet") => {
                SheetKind::MacroSheet
            }
            _ => SheetKind::Worksheet,
        };
        let part = match rel {
            Some(r) if !r.external => r.target.clone(),
            _ => {
                // Skipped, not fatal: the other sheets are still good.
                early_warnings.push(
                    Error::malformed(format!(
                        "sheet '{}' has no relationship '{}' to a part; it was skipped",
                        s.name, s.rid
                    ))
                    .in_part(wb_part.clone()),
                );
                continue;
            }
        };
        jobs.push(SheetJob {
            name: s.name.clone(),
            kind,
            visibility: s.visibility,
            part,
        });
    }
    let pkg = Package {
        archive,
        sst: Arc::new(sst),
        styles,
        date_1904: info.date_1904,
    };
    let phase_a_s = t0.elapsed().as_secs_f64();

    // Phase B: worksheets on the pool.
    let t1 = Instant::now();
    let loaded: Vec<bool> = match &opts.cells_of {
        _ if !opts.load_cells => vec![false; jobs.len()],
        None => vec![true; jobs.len()],
        Some(pick) => {
            let at = pick.position(jobs.iter().map(|j| j.name.as_str()));
            (0..jobs.len()).map(|i| Some(i) == at).collect()
        }
    };
    let (parsed, threads, inflate_s, parse_s, inflated_bytes, chunks, chunk_fallbacks) =
        if opts.load_cells {
            parse_wanted(&pkg, &jobs, &loaded, opts)?
        } else {
            let empty = jobs.iter().map(|_| empty_parsed(pkg.date_1904)).collect();
            (empty, 1, 0.0, 0.0, 0, 0, 0)
        };
    let phase_b_s = t1.elapsed().as_secs_f64();

    // Phase C: small parts.
    let t2 = Instant::now();
    let mut sheets = Vec::with_capacity(jobs.len());
    let mut phase_c = crate::small_parts::PhaseC::default();
    phase_c.warnings.append(&mut early_warnings);
    let mut cells = 0u64;
    for (index, ((job, parsed), loaded)) in jobs.into_iter().zip(parsed).zip(loaded).enumerate() {
        for w in parsed.warnings {
            phase_c
                .warnings
                .push(w.in_part(job.part.clone()).in_sheet(job.name.clone()));
        }
        let mut store = parsed.store;
        store.sst = Arc::clone(&pkg.sst);
        store.seal_text();
        cells += store.cells.len() as u64;
        let mut sheet = Sheet {
            name: job.name,
            index,
            kind: job.kind,
            visibility: job.visibility,
            part: job.part,
            dimension: parsed.dimension,
            store,
            merged: Vec::new(),
            comments: Vec::new(),
            tables: Vec::new(),
            hyperlinks: Vec::new(),
            hidden_rows: parsed.hidden_rows,
            hidden_cols: Vec::new(),
            drawings: Vec::new(),
            loaded,
        };
        if sheet.kind != SheetKind::Chartsheet && loaded {
            phase_c.attach(&pkg.archive, &mut sheet, &parsed.head, &parsed.tail, limits);
        }
        sheets.push(sheet);
    }
    let phase_c_s = t2.elapsed().as_secs_f64();
    let stats = OpenStats {
        phase_a_s,
        phase_b_s,
        phase_c_s,
        inflate_s,
        parse_s,
        threads,
        cells,
        inflated_bytes,
        chunks,
        chunk_fallbacks,
        windowed: false,
    };
    Ok(Workbook {
        sheets,
        names: info.defined_names,
        date_1904: pkg.date_1904,
        stats,
        shared_strings: pkg.sst.len(),
        warnings: phase_c.warnings,
        limits: opts.limits,
        stream_block: opts.stream_block.max(1),
        stream_piped: opts.effective_threads(usize::MAX) > 1,
        package: Some(Arc::new(pkg)),
        ods: None,
        legacy: None,
    })
}

/// (sheets, threads, inflate s, parse s, bytes inflated, chunks, fallbacks)
type Parsed = (Vec<ParsedSheet>, usize, f64, f64, u64, u64, u64);

/// Per-worker output: (job index, result, inflate s, parse s, bytes).
type WorkerOut = Vec<(usize, Result<ParsedSheet>, f64, f64, u64)>;

/// [`parse_sheets`] on the jobs marked in `wanted`; the others get an
/// empty sheet (listed, not loaded).
fn parse_wanted(
    pkg: &Package,
    jobs: &[SheetJob],
    wanted: &[bool],
    opts: &OpenOptions,
) -> Result<Parsed> {
    if wanted.iter().all(|w| *w) {
        return parse_sheets(pkg, jobs, opts);
    }
    let chosen: Vec<SheetJob> = jobs
        .iter()
        .zip(wanted)
        .filter(|(_, w)| **w)
        .map(|(j, _)| j.clone())
        .collect();
    let (mut parsed, threads, inflate_s, parse_s, bytes, chunks, fallbacks) =
        parse_sheets(pkg, &chosen, opts)?;
    parsed.reverse();
    let all = wanted
        .iter()
        .map(|w| match w {
            true => parsed.pop().unwrap_or_else(|| empty_parsed(pkg.date_1904)),
            false => empty_parsed(pkg.date_1904),
        })
        .collect();
    Ok((all, threads, inflate_s, parse_s, bytes, chunks, fallbacks))
}

fn parse_sheets(pkg: &Package, jobs: &[SheetJob], opts: &OpenOptions) -> Result<Parsed> {
    // Largest parts first, so that a big sheet never starts last.
    let mut order: Vec<(usize, u64)> = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| {
            (
                i,
                pkg.archive.find(&j.part).map_or(0, |e| e.uncompressed_size),
            )
        })
        .collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    // Big sheets are cut into chunks that every worker helps parse (see
    // `chunked`); then all cores are used even for a single sheet.
    let all_threads = opts.effective_threads(usize::MAX);
    let is_big = |i: usize, size: u64| {
        all_threads > 1
            && size >= crate::chunked::MIN_CHUNKS * opts.chunk_bytes as u64
            && jobs.get(i).is_some_and(|j| j.kind != SheetKind::Chartsheet)
    };
    let n_big = order.iter().filter(|&&(i, size)| is_big(i, size)).count();
    let total: u64 = order.iter().map(|&(_, size)| size).sum();
    let threads = if n_big > 0 {
        all_threads
    } else {
        opts.effective_threads_for(jobs.len(), total)
    };
    let board = crate::chunked::Board::new(n_big);
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let worker = || -> WorkerOut {
        let mut out = Vec::new();
        let mut buf = Vec::new();
        while !failed.load(Ordering::Relaxed) {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some(&(i, size)) = order.get(k) else {
                // No sheet left: help parse chunks of big sheets.
                if board.help(&failed) {
                    continue;
                }
                break;
            };
            let Some(job) = jobs.get(i) else { break };
            let (res, inf, par, bytes) = if is_big(i, size) {
                parse_big(pkg, job, i, opts, &board, 2 * threads, &mut buf)
            } else {
                parse_one(pkg, job, opts, &mut buf)
            };
            if res.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            out.push((i, res, inf, par, bytes));
        }
        out
    };
    let outs: Vec<WorkerOut> = if threads <= 1 {
        vec![worker()]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads).map(|_| scope.spawn(worker)).collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        vec![(
                            usize::MAX,
                            Err(Error::new(ErrorKind::Malformed, "a worker thread panicked")),
                            0.0,
                            0.0,
                            0,
                        )]
                    })
                })
                .collect()
        })
    };
    let mut slots: Vec<Option<ParsedSheet>> = (0..jobs.len()).map(|_| None).collect();
    let mut first_err: Option<(usize, Error)> = None;
    let (mut inflate_s, mut parse_s, mut bytes) = (0.0, 0.0, 0u64);
    for (i, res, inf, par, b) in outs.into_iter().flatten() {
        inflate_s += inf;
        parse_s += par;
        bytes += b;
        match res {
            Ok(p) => {
                if let Some(slot) = slots.get_mut(i) {
                    *slot = Some(p);
                }
            }
            Err(e) => {
                if first_err.as_ref().is_none_or(|(j, _)| i < *j) {
                    first_err = Some((i, e));
                }
            }
        }
    }
    if let Some((at, e)) = first_err {
        // Sheets are taken largest first and nobody starts one after a
        // failure, so sheets before the failing one may not have been
        // read: read them now, so that the error is always the first by
        // sheet order, whatever the sizes and threads (fuzz finding: one
        // thread reported the second sheet's error, two the first's).
        for (i, job) in jobs.iter().enumerate().take(at) {
            if slots.get(i).is_some_and(Option::is_none) {
                let (res, ..) = parse_one(pkg, job, opts, &mut Vec::new());
                res?;
            }
        }
        return Err(e);
    }
    let mut parsed = Vec::with_capacity(jobs.len());
    for slot in slots {
        parsed.push(slot.ok_or_else(|| Error::malformed("a sheet was not parsed"))?);
    }
    let parse_s = parse_s + board.parse_ns.load(Ordering::Relaxed) as f64 / 1e9;
    Ok((
        parsed,
        threads,
        inflate_s,
        parse_s,
        bytes,
        board.chunks.load(Ordering::Relaxed),
        board.fallbacks.load(Ordering::Relaxed),
    ))
}

fn empty_parsed(date_1904: bool) -> ParsedSheet {
    ParsedSheet {
        store: crate::store::CellStore {
            date_1904,
            ..Default::default()
        },
        hidden_rows: Vec::new(),
        dimension: None,
        head: Vec::new(),
        tail: Vec::new(),
        warnings: Vec::new(),
    }
}

/// Inflates and parses one sheet. Returns (result, inflate s, parse s, bytes).
fn parse_one(
    pkg: &Package,
    job: &SheetJob,
    opts: &OpenOptions,
    buf: &mut Vec<u8>,
) -> (Result<ParsedSheet>, f64, f64, u64) {
    if job.kind == SheetKind::Chartsheet {
        return (Ok(empty_parsed(pkg.date_1904)), 0.0, 0.0, 0);
    }
    let Some(entry) = pkg.archive.find(&job.part) else {
        return (
            Err(Error::malformed(format!(
                "sheet '{}' refers to part {} which is missing from the package",
                job.name, job.part
            ))
            .in_part(job.part.clone())),
            0.0,
            0.0,
            0,
        );
    };
    let ctx = SheetCtx {
        sst_len: pkg.sst.len(),
        styles: &pkg.styles,
        limits: &opts.limits,
        date_1904: pkg.date_1904,
    };
    let name = |e: Error| e.in_part(job.part.clone()).in_sheet(job.name.clone());
    if entry.uncompressed_size <= ONE_SHOT_MAX {
        let t = Instant::now();
        if let Err(e) = pkg.archive.read_into(entry, buf) {
            return (Err(name(e.into())), t.elapsed().as_secs_f64(), 0.0, 0);
        }
        let inf = t.elapsed().as_secs_f64();
        let t = Instant::now();
        if let Err(e) = crate::encoding::ensure_utf8(buf) {
            return (Err(name(e)), inf, 0.0, 0);
        }
        let res = SheetParser::new(ctx)
            .reserve_for(buf.len() as u64)
            .parse_all(buf)
            .map_err(name);
        (res, inf, t.elapsed().as_secs_f64(), buf.len() as u64)
    } else {
        let (res, inf, par, bytes) = parse_streaming(pkg, entry, ctx);
        (res.map_err(name), inf, par, bytes)
    }
}

/// Streams a large sheet: inflate a block, parse complete rows, carry the
/// rest. Memory: one block plus the carried partial row.
fn parse_streaming(
    pkg: &Package,
    entry: &Entry,
    ctx: SheetCtx<'_>,
) -> (Result<ParsedSheet>, f64, f64, u64) {
    use std::io::Read;
    let (mut inf, mut par) = (0.0, 0.0);
    let mut total = 0u64;
    let mut reader = match pkg.archive.stream(entry) {
        Ok(r) => r,
        Err(e) => return (Err(e.into()), 0.0, 0.0, 0),
    };
    let mut parser = SheetParser::new(ctx).reserve_for(entry.uncompressed_size);
    let mut buf: Vec<u8> = Vec::with_capacity(STREAM_BLOCK * 2);
    let mut filled = 0usize;
    loop {
        if buf.len() < filled + STREAM_BLOCK {
            buf.resize(filled + STREAM_BLOCK, 0);
        }
        let t = Instant::now();
        let n = match buf.get_mut(filled..).map(|b| reader.read(b)) {
            Some(Ok(n)) => n,
            Some(Err(e)) => return (Err(ream_zip::Error::from_io(e).into()), inf, par, total),
            None => 0,
        };
        inf += t.elapsed().as_secs_f64();
        filled += n;
        total += n as u64;
        if total == filled as u64
            && n > 0
            && crate::encoding::is_utf16(buf.get(..filled).unwrap_or_default())
        {
            // UTF-16 (legal, rare): the block parser reads UTF-8 only, so
            // the part is read whole and transcoded, as the one-shot path
            // does (test
            // `fuzz_regressions::utf16_sheet_over_the_one_shot_size_on_one_thread`).
            buf.truncate(filled);
            let t = Instant::now();
            if let Err(e) = reader.read_to_end(&mut buf) {
                return (Err(ream_zip::Error::from_io(e).into()), inf, par, total);
            }
            inf += t.elapsed().as_secs_f64();
            total = buf.len() as u64;
            let t = Instant::now();
            let res = crate::encoding::ensure_utf8(&mut buf).and_then(|()| {
                SheetParser::new(ctx)
                    .reserve_for(buf.len() as u64)
                    .parse_all(&buf)
            });
            return (res, inf, par + t.elapsed().as_secs_f64(), total);
        }
        let eof = n == 0;
        let t = Instant::now();
        let used = match parser.feed(buf.get(..filled).unwrap_or_default(), eof) {
            Ok(u) => u,
            Err(e) => return (Err(e), inf, par, total),
        };
        par += t.elapsed().as_secs_f64();
        pkg.archive.release(entry, reader.consumed());
        buf.copy_within(used..filled, 0);
        filled -= used;
        if eof {
            break;
        }
    }
    let t = Instant::now();
    let res = parser.finish();
    par += t.elapsed().as_secs_f64();
    (res, inf, par, total)
}

/// Parses a big sheet in chunks on the board; falls back to the sequential
/// path when the chunking cannot be used for this part.
fn parse_big<'a>(
    pkg: &'a Package,
    job: &'a SheetJob,
    index: usize,
    opts: &'a OpenOptions,
    board: &crate::chunked::Board<'a>,
    max_in_flight: usize,
    buf: &mut Vec<u8>,
) -> (Result<ParsedSheet>, f64, f64, u64) {
    let Some(entry) = pkg.archive.find(&job.part) else {
        return parse_one(pkg, job, opts, buf);
    };
    let ctx = SheetCtx {
        sst_len: pkg.sst.len(),
        styles: &pkg.styles,
        limits: &opts.limits,
        date_1904: pkg.date_1904,
    };
    let (res, inf) = crate::chunked::parse_chunked(
        pkg,
        entry,
        ctx,
        index,
        board,
        max_in_flight,
        opts.chunk_bytes,
    );
    match res {
        Ok(Some(p)) => (Ok(p), inf, 0.0, entry.uncompressed_size),
        Ok(None) => {
            let (res, inf2, par, bytes) = parse_one(pkg, job, opts, buf);
            (res, inf + inf2, par, bytes)
        }
        Err(e) => (
            Err(e.in_part(job.part.clone()).in_sheet(job.name.clone())),
            inf,
            0.0,
            0,
        ),
    }
}
