//! The three-phase open: A (container + workbook-level parts), B (worksheets
//! on the pipeline's pool, `sheet_pool`), C (small parts).

use crate::error::{Error, ErrorKind, Result};
use crate::model::{OpenStats, SheetKind};
use crate::options::OpenOptions;
use crate::parts::rels::{Relationship, parse_rels, rels_part_for, type_is};
use crate::parts::styles::{Styles, parse_styles};
use crate::parts::workbook_xml::parse_workbook;
use crate::sst::{SharedStrings, parse_shared_strings};
use crate::workbook::{Sheet, Workbook};
use ream_io::Bytes;
use ream_zip::{Archive, Container};
use std::sync::Arc;
use std::time::Instant;

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
            crate::sheet_pool::parse_wanted(&pkg, &jobs, &loaded, opts)?
        } else {
            let empty = jobs
                .iter()
                .map(|_| crate::sheet_read::empty_parsed(pkg.date_1904))
                .collect();
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
