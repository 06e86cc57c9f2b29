//! One worksheet read whole on one thread: inflated in one shot into a
//! reused buffer and parsed, or, for a part over [`ONE_SHOT_MAX`],
//! streamed block by block. A unit of the open's pool (`sheet_pool`).

use crate::error::{Error, Result};
use crate::model::SheetKind;
use crate::open::{Package, SheetJob};
use crate::options::OpenOptions;
use crate::worksheet::{ParsedSheet, SheetCtx, SheetParser};
use ream_zip::Entry;
use std::time::Instant;

/// Worksheet parts larger than this are inflated in blocks (streaming)
/// instead of one shot, so memory stays bounded for giant sheets.
const ONE_SHOT_MAX: u64 = 64 << 20;
/// Block size of the streaming inflate.
const STREAM_BLOCK: usize = 4 << 20;

pub(crate) fn empty_parsed(date_1904: bool) -> ParsedSheet {
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
pub(crate) fn parse_one(
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
