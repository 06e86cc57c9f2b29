//! Entry points for the `cargo fuzz` targets in `fuzz/` (not a public API;
//! compiled only with the crate's `fuzz` feature, which `fuzz/Cargo.toml`
//! turns on).
//!
//! The lexer, the object parser and the cross-reference parsers are private
//! modules that no public call reaches on its own (every public path starts
//! at `startxref`), so the fuzz targets call them through these two
//! functions. They only run the parsers and drop what comes out; an `Err`
//! is a normal outcome, a panic or a hang is a finding.

use crate::lexer::{Lexer, Token};
use crate::options::PdfLimits;
use crate::parser::{Parser, parse_indirect};
use crate::reader::Reader;
use crate::xref::{chain, repair};
use ream_io::{Bytes, MapSource};
use std::sync::Arc;

/// Most tokens or objects one call reads (inputs are a few KiB; this only
/// guards the fuzz loop itself against a lexer that stops advancing).
const MAX_STEPS: usize = 1 << 20;

/// Tokenizes `data` to its end, as a complete buffer and as a prefix of
/// more data; then parses it as a sequence of direct objects and as one
/// indirect object (`N G obj ... endobj`) with the default nesting limit.
/// `Err` names a broken invariant (a token that consumed no bytes); parse
/// errors are normal and not reported.
#[doc(hidden)]
pub fn fuzz_lexer(data: &[u8]) -> Result<(), String> {
    let depth = PdfLimits::default().max_nesting;
    for complete in [true, false] {
        let mut lx = Lexer::new(data, 0, complete);
        for _ in 0..MAX_STEPS {
            let before = lx.pos();
            match lx.next() {
                Ok(Token::Eof) | Err(_) => break,
                Ok(_) => {}
            }
            // Every token other than Eof consumes at least one byte.
            if lx.pos() <= before {
                return Err(format!(
                    "lexer returned a token without advancing at {before}"
                ));
            }
        }
        let mut p = Parser::new(Lexer::new(data, 0, complete), depth);
        for _ in 0..MAX_STEPS {
            let before = p.lx.pos();
            if p.object().is_err() || p.lx.pos() == before {
                break;
            }
        }
        let _ = parse_indirect(data, 0, complete, depth);
    }
    Ok(())
}

/// Runs the cross-reference readers on `data` as a whole file: finds
/// `startxref` and follows the `/Prev` chain from there, follows it from
/// offset 0 as well (so the fuzzer reaches the table and stream parsers
/// without having to get an offset right), and runs the repair scan.
#[doc(hidden)]
pub fn fuzz_xref(data: &[u8]) {
    let r = Reader {
        src: Arc::new(MapSource::from_bytes(Bytes::from_vec(data.to_vec()))),
        limits: PdfLimits::default(),
    };
    let mut warnings = Vec::new();
    if let Ok(start) = chain::startxref(&r) {
        let _ = chain::load(&r, start, &mut warnings);
    }
    let _ = chain::load(&r, 0, &mut warnings);
    let _ = repair::scan(&r);
}
