//! The read fallback for pipes and other unmappable inputs: blocks of
//! complete lines, each aggregated in parallel like a mapped file, merged
//! into an owned map after each block.

use crate::error::{AggError, Problem};
use crate::merge::Merger;
use crate::options::AggOptions;
use crate::output::Aggregate;
use crate::quoted::{self, Origin};
use crate::run::run_slice;
use std::io::Read;

/// Longest line a streamed input may have (64 MiB); a mapped file has no
/// such limit.
pub const MAX_STREAM_LINE: usize = 64 << 20;

/// Block size for `opts`: two chunks per thread, clamped to 1..=256 MiB.
fn block_bytes(opts: &AggOptions) -> usize {
    let threads = opts.effective_threads().max(1);
    opts.chunk_bytes
        .saturating_mul(threads.saturating_mul(2))
        .clamp(1 << 20, 256 << 20)
}

/// Reads until `buf` is full (from `filled` on) or the input ends;
/// returns the new fill level and whether the input ended.
fn fill(r: &mut impl Read, buf: &mut [u8], mut filled: usize) -> Result<(usize, bool), AggError> {
    loop {
        let Some(spare) = buf.get_mut(filled..) else {
            return Ok((filled, false));
        };
        if spare.is_empty() {
            return Ok((filled, false));
        }
        match r.read(spare) {
            Ok(0) => return Ok((filled, true)),
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(AggError::io(format!("reading the input failed: {e}"), e)),
        }
    }
}

/// Aggregates everything `r` yields; see [`crate::aggregate_reader`].
pub(crate) fn aggregate(mut r: impl Read, opts: &AggOptions) -> Result<Aggregate, AggError> {
    opts.validate()?;
    let mut buf = vec![0u8; block_bytes(opts)];
    let mut filled = 0;
    let mut merger = Merger::default();
    let (mut base_off, mut base_line) = (0u64, 0u64);
    let mut first = true;
    loop {
        let (now, eof) = fill(&mut r, &mut buf, filled)?;
        filled = now;
        let end = if eof {
            filled
        } else {
            match memchr::memrchr(b'\n', buf.get(..filled).unwrap_or_default()) {
                Some(i) => i + 1,
                None if filled >= MAX_STREAM_LINE => {
                    let err = AggError::at(
                        Problem::LineTooLong {
                            max: MAX_STREAM_LINE,
                        },
                        base_line + 1,
                        base_off,
                        format!("a line is longer than {MAX_STREAM_LINE} bytes (streamed input)"),
                    );
                    return Err(err);
                }
                None => {
                    let grown = (buf.len() * 2).min(MAX_STREAM_LINE).max(buf.len());
                    buf.resize(grown, 0);
                    continue;
                }
            }
        };
        let data = buf.get(..end).unwrap_or_default();
        let start = if first {
            crate::body_start(data, opts)
        } else {
            0
        };
        let run = run_slice(data, start, opts, None);
        if run.quoted {
            // The rest goes to the quoting reader: this block from its
            // start (after a BOM), its unfinished line, then the stream.
            let from = if first { crate::bom_len(data) } else { 0 };
            let origin = Origin {
                offset: base_off + from as u64,
                lines: base_line,
            };
            let rest = buf.get(from..filled).unwrap_or_default();
            quoted::aggregate(
                rest.chain(r),
                origin,
                first && opts.header,
                opts,
                &mut merger,
            )?;
            return Ok(merger.finish());
        }
        first = false;
        merger.settle(run, data, start, opts, (base_line, base_off))?;
        base_line += memchr::memchr_iter(b'\n', data).count() as u64;
        base_off += end as u64;
        buf.copy_within(end..filled, 0);
        filled -= end;
        if eof {
            break;
        }
    }
    Ok(merger.finish())
}
