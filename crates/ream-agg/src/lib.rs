//! Group-by aggregation of huge delimited files: min, mean and max of a
//! value per key, the One Billion Row Challenge (1BRC) and its
//! generalisation.
//!
//! ```
//! let data = b"Hamburg;12.0\nBulawayo;8.9\nHamburg;34.2\n";
//! let agg = ream_agg::aggregate_bytes(data, &ream_agg::AggOptions::default()).unwrap();
//! let mut out = Vec::new();
//! agg.write_1brc(&mut out).unwrap();
//! assert_eq!(out, b"{Bulawayo=8.9/8.9/8.9, Hamburg=12.0/23.1/34.2}\n");
//! ```
//!
//! # Input
//! Lines end with `\n` or `\r\n`; the last line may lack its line break. A
//! UTF-8 byte order mark at the start is skipped. With
//! [`AggOptions::header`] the first line is skipped. Fields are split at
//! every [`AggOptions::delimiter`] byte (no quoting); the key and value are
//! fields `key_col` and `value_col`, later fields are ignored. In the default
//! two-column shape the key is everything before the first delimiter.
//!
//! # Values
//! A value in the strict 1BRC form `-?d?d.d` (-99.9..=99.9, exactly one
//! decimal) is exact: it is kept in integer tenths with 64-bit sums, and the
//! mean is rounded half up as the reference does. Any other decimal number
//! (more digits, no fraction, an exponent, a `+` sign) is accepted unless
//! [`AggOptions::strict_values`] is set, and goes to an `f64` part of its
//! key: such a key's mean is `f64` arithmetic, printed rounded half up to one
//! decimal in the 1BRC format and as the shortest round-trip text in CSV and
//! JSON Lines. `inf`, `nan`, hex and empty values are errors, as are numbers
//! past the `f64` range.
//!
//! # Errors
//! Every bad line gives an [`AggError`] with a [`Problem`], the 1-based line
//! and the byte offset from the start of the input. A parallel run reports
//! the same (first) error as a serial one.
//!
//! # Engine
//! The input is memory-mapped ([`aggregate_path`]; workers release each
//! finished chunk's pages) or read in blocks ([`aggregate_reader`]), cut into
//! chunks at newlines (many more chunks than threads, handed out through an
//! atomic counter) and aggregated by one worker per core, each with its own
//! open-addressing table (no lock, atomic or allocation per row). In the
//! two-column shape a row whose key is known and whose value is strict takes
//! the fast path: on x86-64 with AVX2 (detected at run time) the delimiter
//! and the line break found in one 32-byte compare each, the key (up to 31
//! bytes) compared with its slot in one 32-byte compare, the value checked
//! against its layout's byte bounds and parsed with one multiplication; on
//! other x86-64 CPUs the delimiter found in the first 16 bytes with SSE2,
//! SWAR elsewhere; two cursors per chunk so that the CPU overlaps two rows.
//! Every other row (first sight of a key, general number, other line
//! ending, bad input, the last bytes of the input) takes the general line
//! parser, which decides what is an error. The tables are merged, sorted by
//! key bytes and printed.
//!
//! # Limits
//! See [`AggOptions`] and LIMITS.md: keys of at most 100 bytes and at most
//! 10,000 distinct keys by default, lines of at most [`MAX_STREAM_LINE`]
//! bytes on the read path.

mod acc;
mod error;
mod fast;
mod format;
mod line;
mod merge;
mod options;
mod output;
mod parse;
mod raw;
mod run;
mod scan;
mod stream;
mod table;

pub use error::{AggError, ErrorKind, Problem};
pub use options::{
    AggOptions, DEFAULT_CHUNK_BYTES, DEFAULT_MAX_KEY_BYTES, DEFAULT_MAX_KEYS, MAX_MAX_KEY_BYTES,
    MAX_MAX_KEYS, MAX_THREADS,
};
pub use output::{Aggregate, KeyStats, mean_tenths};
pub use stream::MAX_STREAM_LINE;

use merge::Merger;
use std::io::Read;
use std::path::Path;

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Offset of the first data line: after a BOM and, with `header`, after
/// the first line.
pub(crate) fn body_start(data: &[u8], opts: &AggOptions) -> usize {
    let start = if data.starts_with(BOM) { BOM.len() } else { 0 };
    if !opts.header {
        return start;
    }
    match data.get(start..).and_then(|s| memchr::memchr(b'\n', s)) {
        Some(i) => start + i + 1,
        None => data.len(),
    }
}

/// Aggregates an in-memory input (all of it, as one file's bytes).
pub fn aggregate_bytes(data: &[u8], opts: &AggOptions) -> Result<Aggregate, AggError> {
    aggregate_slice(data, None, opts)
}

/// [`aggregate_bytes`], with the mapping `map` (whose bytes `data` are) to
/// release page by page as chunks are done.
fn aggregate_slice(
    data: &[u8],
    map: Option<&ream_io::Bytes>,
    opts: &AggOptions,
) -> Result<Aggregate, AggError> {
    opts.validate()?;
    let start = body_start(data, opts);
    let run = run::run_slice(data, start, opts, map);
    let mut merger = Merger::default();
    merger
        .settle(run, data, start, opts)
        .map_err(|f| f.locate(data))?;
    Ok(merger.finish())
}

/// Aggregates the file at `path`: memory-mapped when it is a regular file,
/// read in blocks through [`aggregate_reader`] otherwise (pipes, devices).
/// Workers release the pages of each chunk they finish (`MADV_DONTNEED`),
/// so a file larger than RAM works and the unmapping is shared by the
/// threads instead of done serially at the end.
///
/// The file must not be truncated by another process during the run (see
/// [`aggregate_reader`] for such files).
pub fn aggregate_path(path: &Path, opts: &AggOptions) -> Result<Aggregate, AggError> {
    opts.validate()?;
    let open_err = |e: std::io::Error| AggError::io(format!("{}: {e}", path.display()), e);
    let file = std::fs::File::open(path).map_err(open_err)?;
    let meta = file.metadata().map_err(open_err)?;
    if !meta.is_file() {
        return aggregate_reader(file, opts);
    }
    if meta.len() == 0 {
        return aggregate_bytes(&[], opts);
    }
    drop(file);
    let map = ream_io::Bytes::open(path, ream_io::MapMode::Map).map_err(open_err)?;
    aggregate_slice(&map, Some(&map), opts)
}

/// Aggregates everything `r` yields, reading blocks of complete lines
/// (two chunks per thread, 1 MiB to 256 MiB) and aggregating each block in
/// parallel. Lines may be at most [`MAX_STREAM_LINE`] bytes. Same results
/// and errors as [`aggregate_bytes`] on the same bytes.
pub fn aggregate_reader(r: impl Read, opts: &AggOptions) -> Result<Aggregate, AggError> {
    stream::aggregate(r, opts)
}
