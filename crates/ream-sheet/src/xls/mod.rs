//! Legacy Excel workbooks (`.xls`, BIFF8 from Excel 97-2003 and BIFF5/7
//! from Excel 5/95) read into the same [`Workbook`] model as XLSX and ODS.
//!
//! * **A**: the CFB (OLE2) container is opened with the `cfb` crate and
//!   its `Workbook` (BIFF8) or `Book` (BIFF5) stream read whole (within
//!   `max_inflated_bytes`); the globals substream gives the code page, the
//!   date system, which cell formats are dates, the shared strings and
//!   every sheet's offset ([`globals`]). An encrypted workbook (FILEPASS:
//!   RC4 or RC4 CryptoAPI) is first decrypted whole into a new buffer,
//!   with the default password or [`OpenOptions::password`] ([`crypt`]).
//! * **B**: the worksheets are parsed in parallel from their offsets, on
//!   `min(sheets, threads)` scoped threads taking sheets (largest first)
//!   from an atomic counter, each into its own cell store ([`sheet`]).
//!
//! Values: numbers (NUMBER, RK, MULRK), shared strings (LABELSST), inline
//! strings (LABEL, RSTRING), booleans and errors (BOOLERR), and the cached
//! value of a FORMULA (number, string from its STRING record, boolean,
//! error); a number whose cell format is a date is a date. Formula text
//! is decompiled from the tokens ([`crate::ptg`]; shared and array
//! formulas through their SHRFMLA/ARRAY records) beside the
//! cached value; defined names (NAME) are listed with their definitions
//! ([`names`]); comments (NOTE with their OBJ/TXO text) and hyperlinks
//! (HLINK: URL and file monikers, locations, display text) are read with
//! a loaded sheet ([`extras`]).
//! With [`OpenOptions::load_cells`]`(false)` no sheet is parsed at open:
//! the decrypted stream and the globals are kept, and [`Workbook::rows`]
//! walks a worksheet's records from its BOUNDSHEET offset in blocks of
//! complete rows ([`XlsRows`]; memory: the stream plus one block).

mod crypt;
mod extras;
mod globals;
mod names;
mod records;
mod sheet;

use crate::error::{Error, ErrorKind, Result};
use crate::model::{OpenStats, SheetKind};
use crate::options::OpenOptions;
use crate::workbook::{Sheet, Workbook};
use sheet::ParsedXls;
use std::io::{Cursor, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// The part name errors give for the CFB container itself.
const CONTAINER: &str = "CFB container";

/// Opens the XLS workbook in `src` (a CFB file).
pub(crate) fn open(src: ream_io::Bytes, opts: &OpenOptions, t0: Instant) -> Result<Workbook> {
    let patched = swapped_byte_order(&src);
    let stream = workbook_stream(patched.as_deref().unwrap_or(&src), opts)?;
    let mut wb = open_stream(&stream, opts, t0)?;
    if patched.is_some() {
        wb.warnings.push(
            Error::malformed(
                "the CFB header's byte order mark at offset 28 is FF FE (swapped); read as little-endian",
            )
            .in_part(CONTAINER),
        );
    }
    Ok(wb)
}

/// Offset of the CFB header's byte order mark, which must be FE FF.
const BYTE_ORDER_AT: usize = 28;

/// A copy of `src` with the byte order mark corrected, when a writer
/// stored it swapped (FF FE). Every CFB file is little-endian whatever the
/// mark says, so the rest reads as usual; the `cfb` crate refuses the
/// swapped mark, hence the copy (only for such files).
fn swapped_byte_order(src: &[u8]) -> Option<Vec<u8>> {
    if src.get(BYTE_ORDER_AT..BYTE_ORDER_AT + 2) != Some(&[0xFF, 0xFE]) {
        return None;
    }
    let mut copy = src.to_vec();
    copy.get_mut(BYTE_ORDER_AT..BYTE_ORDER_AT + 2)?
        .copy_from_slice(&[0xFE, 0xFF]);
    Some(copy)
}

/// True when `src` starts with a BIFF BOF record: a workbook stream saved
/// without the CFB container (Excel 2-4 wrote such files; some tools
/// still do).
pub(crate) fn is_bare_biff(src: &[u8]) -> bool {
    matches!(
        src.get(..4),
        Some(&[0x09, 0x00 | 0x02 | 0x04 | 0x08, len, 0]) if (4..=20).contains(&len)
    )
}

/// Opens a workbook stream (the globals substream, then the sheets).
pub(crate) fn open_stream(stream: &[u8], opts: &OpenOptions, t0: Instant) -> Result<Workbook> {
    let decrypted;
    let stream = match crypt::find_filepass(stream) {
        Some(fp) => {
            decrypted = crypt::decrypt_stream(stream, &fp, opts.password.as_deref())?;
            decrypted.as_slice()
        }
        None => stream,
    };
    let mut g = globals::read_globals(stream, &opts.limits)?;
    let phase_a_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let sst = Arc::new(std::mem::take(&mut g.sst));
    let jobs: Vec<usize> = (0..g.sheets.len())
        .filter(|&i| {
            g.sheets
                .get(i)
                .is_some_and(|s| s.kind == SheetKind::Worksheet)
        })
        .collect();
    let threads = opts.effective_threads_for(jobs.len(), stream.len() as u64);
    let parsed = if opts.load_cells {
        parse_all(stream, &g, &sst, &jobs, threads, opts)?
    } else {
        Vec::new()
    };
    let phase_b_s = t1.elapsed().as_secs_f64();
    let mut cells = 0u64;
    let mut warnings = Vec::new();
    let mut parsed = parsed.into_iter();
    let sheets: Vec<Sheet> = g
        .sheets
        .iter()
        .enumerate()
        .map(|(index, e)| {
            let mut p = if e.kind == SheetKind::Worksheet {
                parsed.next().unwrap_or_default()
            } else {
                ParsedXls::default()
            };
            warnings.append(&mut p.warnings);
            cells += p.store.cells.len() as u64;
            Sheet {
                name: e.name.clone(),
                index,
                kind: e.kind,
                visibility: e.visibility,
                part: "Workbook".to_string(),
                dimension: p.dimension,
                store: p.store,
                merged: p.merged,
                comments: p.comments,
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
        inflated_bytes: stream.len() as u64,
        chunks: 0,
        chunk_fallbacks: 0,
        windowed: false,
    };
    let names = std::mem::take(&mut g.defined_names);
    let date_1904 = g.date_1904;
    let legacy = (!opts.load_cells).then(|| {
        Box::new(crate::legacy_rows::Legacy::Xls(Streamable {
            stream: stream.to_vec(),
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

/// An XLS workbook opened without cells: its (decrypted) stream and
/// globals, kept for streamed rows.
#[derive(Debug)]
pub(crate) struct Streamable {
    stream: Vec<u8>,
    g: globals::Globals,
    sst: Arc<crate::sst::SharedStrings>,
}

/// One worksheet's rows streamed from its records: blocks of complete
/// rows, each replacing the last (memory: one block of cells).
pub(crate) struct XlsRows<'w> {
    walk: sheet::SheetWalk<'w>,
    cells: usize,
}

impl<'w> XlsRows<'w> {
    /// Rows of sheet `index`, in blocks of about `block_cells` cells.
    pub(crate) fn new(
        src: &'w Streamable,
        index: usize,
        limits: &'w crate::options::Limits,
        block_cells: usize,
    ) -> Result<XlsRows<'w>> {
        let e = src
            .g
            .sheets
            .get(index)
            .ok_or_else(|| Error::new(ErrorKind::Usage, format!("no sheet {index}")))?;
        let walk = sheet::SheetWalk::new(&src.stream, e.offset, &src.g, &src.sst, limits, &e.name)
            .map_err(|err| err.in_sheet(e.name.clone()))?;
        Ok(XlsRows {
            walk,
            cells: block_cells.max(1),
        })
    }

    /// The current block's cells.
    pub(crate) fn block(&self) -> &crate::store::CellStore {
        self.walk.store()
    }

    /// Reads the next block; false at the end of the sheet.
    pub(crate) fn refill(&mut self) -> Result<bool> {
        self.walk.next_block(self.cells)
    }
}

/// The BIFF stream of the CFB file in `src`: `Workbook` (BIFF8) or `Book`
/// (BIFF5), by any letter case, at the root.
fn workbook_stream(src: &[u8], opts: &OpenOptions) -> Result<Vec<u8>> {
    let cfb_err = |e: std::io::Error| {
        Error::malformed(format!("the CFB (OLE2) container is broken: {e}")).in_part(CONTAINER)
    };
    let mut cf = cfb::CompoundFile::open(Cursor::new(src)).map_err(cfb_err)?;
    let names: Vec<(String, u64)> = cf
        .read_root_storage()
        .filter(|e| e.is_stream())
        .map(|e| (e.name().to_string(), e.len()))
        .collect();
    let find = |want: &str| names.iter().find(|(n, _)| n.eq_ignore_ascii_case(want));
    if names
        .iter()
        .any(|(n, _)| n == "EncryptionInfo" || n == "EncryptedPackage")
    {
        return Err(Error::new(
            ErrorKind::Encrypted,
            "the workbook is password-protected (an encrypted OOXML package in a CFB container)",
        ));
    }
    let Some((name, len)) = find("Workbook").or_else(|| find("Book")) else {
        return Err(Error::new(
            ErrorKind::Unsupported,
            format!(
                "this CFB (OLE2) file has no Workbook stream, so it is not an Excel workbook (streams: {})",
                names
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .in_part(CONTAINER));
    };
    if *len > opts.limits.max_inflated_bytes {
        return Err(Error::limit(format!(
            "the {name} stream holds {len} bytes (max_inflated_bytes = {})",
            opts.limits.max_inflated_bytes
        ))
        .in_part(name.clone()));
    }
    let mut stream = cf.open_stream(format!("/{name}")).map_err(cfb_err)?;
    let mut out = Vec::with_capacity(usize::try_from(*len).unwrap_or(0));
    stream
        .by_ref()
        .take(*len)
        .read_to_end(&mut out)
        .map_err(|e| cfb_err(e).in_part(name.clone()))?;
    Ok(out)
}

/// Every worksheet of `jobs` (indices into the sheet list), in order,
/// parsed on `threads` threads; the first error in sheet order wins.
fn parse_all(
    stream: &[u8],
    g: &globals::Globals,
    sst: &Arc<crate::sst::SharedStrings>,
    jobs: &[usize],
    threads: usize,
    opts: &OpenOptions,
) -> Result<Vec<ParsedXls>> {
    let one = |k: usize| -> Result<ParsedXls> {
        let e = jobs
            .get(k)
            .and_then(|&i| g.sheets.get(i))
            .ok_or_else(|| Error::malformed("a sheet index out of range"))?;
        sheet::parse_sheet(stream, e.offset, g, sst, &opts.limits, &e.name)
            .map_err(|err| err.in_sheet(e.name.clone()))
    };
    if threads <= 1 || jobs.len() <= 1 {
        return (0..jobs.len()).map(one).collect();
    }
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let mut results: Vec<Option<Result<ParsedXls>>> = (0..jobs.len()).map(|_| None).collect();
    let done: Vec<Vec<(usize, Result<ParsedXls>)>> = std::thread::scope(|scope| {
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
    for (k, r) in done.into_iter().flatten() {
        if let Some(slot) = results.get_mut(k) {
            *slot = Some(r);
        }
    }
    // The first error in sheet order; sheets after a failure may be unparsed.
    if let Some(e) = results.iter_mut().find_map(|r| match r.take() {
        Some(Err(e)) => Some(e),
        other => {
            *r = other;
            None
        }
    }) {
        return Err(e);
    }
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(Error::malformed("a sheet was not parsed"))))
        .collect()
}
