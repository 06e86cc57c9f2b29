//! One worksheet read whole on one thread: inflated in one shot into a
//! reused buffer and parsed, or, for a part over [`ONE_SHOT_MAX`],
//! streamed block by block. A unit of the open's pool (`sheet_pool`).

use crate::error::{Error, Result};
use crate::model::SheetKind;
use crate::open::{Package, SheetJob};
use crate::options::OpenOptions;
use crate::pipeline::window::Window;
use crate::worksheet::{ParsedSheet, SheetCtx, SheetParser};
use ream_zip::Entry;
use std::time::Instant;

/// Worksheet parts larger than this are inflated in blocks (streaming)
/// instead of one shot, so memory stays bounded for giant sheets.
const ONE_SHOT_MAX: u64 = 64 << 20;
/// First block of the streaming inflate; blocks double up to
/// `pipeline::inflow::CACHE_BLOCK` (still in the core's cache when
/// parsed).
const FIRST_BLOCK: usize = 64 << 10;

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
        let (res, inf, par, bytes) = parse_streaming(pkg, entry, &job.part, ctx);
        (res.map_err(name), inf, par, bytes)
    }
}

/// Streams a large sheet over the pipeline's sliding window
/// (`pipeline::window`, inflated on this thread): parse the complete rows
/// of the window, drop them, read on. Memory: one block plus the carried
/// partial row. A UTF-16 part (legal, rare; the block parser reads UTF-8
/// only) is read whole and transcoded by the window, as the one-shot path
/// does (test
/// `fuzz_regressions::utf16_sheet_over_the_one_shot_size_on_one_thread`).
fn parse_streaming(
    pkg: &Package,
    entry: &Entry,
    part: &str,
    ctx: SheetCtx<'_>,
) -> (Result<ParsedSheet>, f64, f64, u64) {
    let mut w = match Window::new(&pkg.archive, entry, part.to_string(), FIRST_BLOCK, false) {
        Ok(w) => w,
        Err(e) => return (Err(e), 0.0, 0.0, 0),
    };
    let mut parser = SheetParser::new(ctx).reserve_for(entry.uncompressed_size);
    let mut par = 0.0;
    let mut used = 0;
    loop {
        if let Err(e) = w.advance(used) {
            return (Err(e), w.inflate_s, par, w.base);
        }
        let t = Instant::now();
        let fed = parser.feed(w.data(), w.eof);
        par += t.elapsed().as_secs_f64();
        used = match fed {
            Ok(u) => u,
            Err(e) => return (Err(e), w.inflate_s, par, w.base),
        };
        if w.eof {
            break;
        }
    }
    let total = w.base + w.data().len() as u64;
    let t = Instant::now();
    let res = parser.finish();
    par += t.elapsed().as_secs_f64();
    (res, w.inflate_s, par, total)
}
