//! Excel binary workbooks (`.xlsb`: BIFF12 records in an OPC ZIP package)
//! read into the same [`Workbook`] model as XLSX, ODS and XLS.
//!
//! * **A**: `workbook.bin` gives the sheets (name, visibility, part through
//!   the XML relationships) and the date system; `styles.bin` which cell
//!   formats are dates; `sharedStrings.bin` the shared strings
//!   ([`workbook`]).
//! * **B**: the worksheets are inflated and parsed in parallel, on
//!   `min(sheets, threads)` scoped threads taking sheets (largest first)
//!   from an atomic counter, each into its own cell store ([`sheet`]).
//!
//! Values: numbers (BrtCellReal, BrtCellRk), shared strings (BrtCellIsst),
//! inline strings (BrtCellSt, BrtCellRString), booleans, errors, and the
//! cached values of formulas (BrtFmlaNum/String/Bool/Error); a number
//! whose cell format is a date is a date. Formula text is decompiled from
//! the tokens ([`crate::ptg`]; shared and array formulas through
//! BrtShrFmla/BrtArrFmla) beside the cached value; defined names (BrtName)
//! are listed with their definitions ([`names`]). Chartsheets, dialog and
//! macro sheets are listed without cells.
//!
//! With [`OpenOptions::load_cells`]`(false)` no worksheet is parsed at
//! open; [`Workbook::rows`] inflates a worksheet part in blocks and
//! parses its records as they arrive ([`stream`]; memory: one block).
//! Hyperlinks (BrtHLink) take their targets from the sheet's
//! relationships (read with the cells only). Comments come from the
//! `commentsN.bin` part the sheet's relationships name, with or without
//! cells ([`comments`]). Tables are not read.

mod comments;
mod names;
mod records;
mod sheet;
mod stream;
mod workbook;

use crate::error::{Error, Result};
use crate::model::{OpenStats, SheetKind};
use crate::open::read_rels;
use crate::options::OpenOptions;
use crate::parts::rels::type_is;
use crate::sst::SharedStrings;
use crate::workbook::{Sheet, Workbook};
use ream_zip::Archive;
use sheet::ParsedXlsb;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;
pub(crate) use stream::{Streamable, XlsbRows};
use workbook::Globals;

/// Opens the XLSB package in `archive`, whose workbook part is `wb_part`
/// (an `xl/workbook.bin`); `warnings` are the package's so far.
pub(crate) fn open(
    archive: Archive,
    wb_part: &str,
    opts: &OpenOptions,
    t0: Instant,
    mut warnings: Vec<Error>,
) -> Result<Workbook> {
    let limits = &opts.limits;
    let data = workbook::read_bin(&archive, wb_part)?.ok_or_else(|| {
        Error::malformed(format!("missing workbook part {wb_part}")).in_part(wb_part)
    })?;
    let rels = read_rels(&archive, wb_part)?;
    let mut g = workbook::read_workbook(&data, wb_part, &rels, limits)?;
    warnings.append(&mut g.warnings);
    let target = |kind: &str, fallback: &str| -> String {
        rels.iter()
            .find(|r| crate::parts::rels::type_is(r, kind) && !r.external)
            .map_or_else(|| fallback.to_string(), |r| r.target.clone())
    };
    let styles_part = target("styles", "xl/styles.bin");
    if let Some(d) = workbook::read_bin(&archive, &styles_part)? {
        g.xf_dates = workbook::read_styles(&d, &styles_part, limits)?;
    }
    let sst_part = target("sharedStrings", "xl/sharedStrings.bin");
    let sst = match workbook::read_bin(&archive, &sst_part)? {
        Some(d) => workbook::read_sst(&d, &sst_part, limits)?,
        None => SharedStrings::default(),
    };
    let sst = Arc::new(sst);
    let phase_a_s = t0.elapsed().as_secs_f64();

    let t1 = Instant::now();
    let mut jobs: Vec<(usize, u64)> = g
        .sheets
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == SheetKind::Worksheet)
        .map(|(i, s)| (i, archive.find(&s.part).map_or(0, |e| e.uncompressed_size)))
        .collect();
    let bytes: u64 = jobs.iter().map(|j| j.1).sum();
    let threads = opts.effective_threads_for(jobs.len(), bytes);
    // Largest first, so one big sheet does not start last.
    jobs.sort_by_key(|j| std::cmp::Reverse(j.1));
    let parsed = if opts.load_cells {
        parse_all(&archive, &g, &sst, &jobs, threads, opts)?
    } else {
        jobs.iter().map(|_| ParsedXlsb::default()).collect()
    };
    let phase_b_s = t1.elapsed().as_secs_f64();

    let mut parsed: Vec<Option<ParsedXlsb>> = {
        let mut slots: Vec<Option<ParsedXlsb>> = (0..g.sheets.len()).map(|_| None).collect();
        for ((i, _), p) in jobs.iter().zip(parsed) {
            if let Some(s) = slots.get_mut(*i) {
                *s = Some(p);
            }
        }
        slots
    };
    let mut cells = 0u64;
    let sheets: Vec<Sheet> = g
        .sheets
        .iter()
        .enumerate()
        .map(|(index, e)| {
            let mut p = parsed
                .get_mut(index)
                .and_then(Option::take)
                .unwrap_or_default();
            warnings.append(&mut p.warnings);
            cells += p.store.cells.len() as u64;
            Sheet {
                name: e.name.clone(),
                index,
                kind: e.kind,
                visibility: e.visibility,
                part: e.part.clone(),
                dimension: p.dimension,
                store: p.store,
                merged: p.merged,
                comments: sheet_comments(&archive, e, opts, &mut warnings),
                tables: Vec::new(),
                hyperlinks: p.hyperlinks,
                hidden_rows: p.hidden_rows,
                hidden_cols: p.hidden_cols,
                drawings: Vec::new(),
                loaded: opts.load_cells,
            }
        })
        .collect();
    let stats = OpenStats {
        phase_a_s,
        phase_b_s,
        phase_c_s: 0.0,
        inflate_s: 0.0,
        parse_s: phase_b_s,
        threads,
        cells,
        inflated_bytes: bytes,
        chunks: 0,
        chunk_fallbacks: 0,
        windowed: false,
    };
    let names = std::mem::take(&mut g.defined_names);
    let date_1904 = g.date_1904;
    let legacy = (!opts.load_cells).then(|| {
        Box::new(crate::legacy_rows::Legacy::Xlsb(Streamable {
            archive,
            g,
            sst: Arc::clone(&sst),
        }))
    });
    Ok(Workbook {
        sheets,
        names,
        date_1904,
        stats,
        shared_strings: sst.len(),
        warnings,
        limits: opts.limits,
        stream_block: opts.stream_block.max(1),
        stream_piped: false,
        package: None,
        ods: None,
        legacy,
    })
}

/// The comments of the sheet `e` from the comments part its relationships
/// name (sorted by cell), read whether or not cells are loaded; a part
/// that does not read adds a warning naming it and the sheet.
fn sheet_comments(
    archive: &Archive,
    e: &workbook::SheetEntry,
    opts: &OpenOptions,
    warnings: &mut Vec<Error>,
) -> Vec<crate::model::Comment> {
    if e.kind != SheetKind::Worksheet {
        return Vec::new();
    }
    let rels = read_rels(archive, &e.part).unwrap_or_default();
    let mut out = Vec::new();
    for r in rels
        .iter()
        .filter(|r| type_is(r, "comments") && !r.external)
    {
        let max_chars = opts.limits.max_string_chars;
        let read = workbook::read_bin(archive, &r.target).and_then(|d| {
            d.map_or(Ok(Vec::new()), |d| {
                comments::parse_comments(&d, &r.target, max_chars)
            })
        });
        match read {
            Ok(c) => out.extend(c),
            Err(err) => warnings.push(err.in_sheet(e.name.clone())),
        }
    }
    out.sort_by_key(|c| (c.row, c.col));
    out
}

/// Every worksheet of `jobs` ((sheet index, size) pairs), in the order of
/// `jobs`, parsed on `threads` threads; the first error in that order wins.
fn parse_all(
    archive: &Archive,
    g: &Globals,
    sst: &Arc<SharedStrings>,
    jobs: &[(usize, u64)],
    threads: usize,
    opts: &OpenOptions,
) -> Result<Vec<ParsedXlsb>> {
    let one = |k: usize| -> Result<ParsedXlsb> {
        let e = jobs
            .get(k)
            .and_then(|&(i, _)| g.sheets.get(i))
            .ok_or_else(|| Error::malformed("a sheet index out of range"))?;
        let data = workbook::read_bin(archive, &e.part)?.ok_or_else(|| {
            Error::malformed(format!(
                "sheet '{}': its part {} is missing",
                e.name, e.part
            ))
            .in_part(e.part.clone())
        })?;
        let mut p = sheet::parse_sheet(&data, &e.part, &e.name, g, sst, &opts.limits)
            .map_err(|err| err.in_sheet(e.name.clone()))?;
        if !p.link_rids.is_empty() {
            // External targets through the sheet's relationships; links keep
            // their ranges when those do not read.
            let rels = read_rels(archive, &e.part).unwrap_or_default();
            for (l, rid) in p.hyperlinks.iter_mut().zip(&p.link_rids) {
                l.target = rels.iter().find(|r| &r.id == rid).map(|r| r.target.clone());
            }
        }
        Ok(p)
    };
    if threads <= 1 || jobs.len() <= 1 {
        return (0..jobs.len()).map(one).collect();
    }
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let done: Vec<Vec<(usize, Result<ParsedXlsb>)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    while !failed.load(Ordering::Relaxed) {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        if k >= jobs.len() {
                            break;
                        }
                        let r = one(k);
                        failed.fetch_or(r.is_err(), Ordering::Relaxed);
                        out.push((k, r));
                    }
                    out
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_default())
            .collect()
    });
    let mut results: Vec<Option<Result<ParsedXlsb>>> = (0..jobs.len()).map(|_| None).collect();
    for (k, r) in done.into_iter().flatten() {
        if let Some(slot) = results.get_mut(k) {
            *slot = Some(r);
        }
    }
    let mut out = Vec::with_capacity(jobs.len());
    for r in results {
        match r {
            Some(Ok(p)) => out.push(p),
            Some(Err(e)) => return Err(e),
            // Not parsed because an earlier sheet failed; that error comes first.
            None => {}
        }
    }
    if out.len() != jobs.len() {
        return Err(Error::malformed("a sheet was not parsed"));
    }
    Ok(out)
}
