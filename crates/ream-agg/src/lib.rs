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
//! [`AggOptions::header`] the first line is skipped. Empty lines (a trailing
//! one included) are skipped and counted ([`Aggregate::empty_lines`]); an
//! input of only empty lines gives an empty result. The key and value are
//! fields `key_col` and `value_col`, later fields are ignored. With the
//! default `;` delimiter (the 1BRC format) fields are split at every
//! delimiter byte, without quoting. With any other delimiter fields follow
//! RFC 4180: `"Rome, IT",12.5` has the key `Rome, IT`, and a quoted field
//! may hold delimiters, `""` and line breaks. Input without a quote byte
//! takes the parallel path either way; input with one is read serially
//! by the `csv` crate.
//!
//! # Values
//! Every value is exact. A value in the strict 1BRC form `-?d?d.d` is kept
//! in integer tenths by the hot loop. Any other decimal number (sign,
//! fraction, exponent: `12`, `0.25`, `+1.5e-3`) is accepted unless
//! [`AggOptions::strict_values`] is set, and kept in fixed point at the
//! largest number of decimals its key needs (trailing zeros not counted,
//! so `0.1`, `0.10` and `1e-1` are one value) with a 192-bit sum, which
//! cannot overflow. A value may have at most 18 significant digits and 18
//! decimals and be below 10^18 in magnitude; past that it is
//! [`Problem::ValueOutOfRange`], never rounded. `inf`, `nan`, hex and
//! empty values are [`Problem::BadValue`].
//!
//! # Output
//! The 1BRC format prints min, mean and max with one decimal, rounded half
//! up (toward +infinity) as the challenge's reference does. CSV and JSON
//! Lines print exact decimals, trailing zeros trimmed to one decimal at
//! least (`12.0`, `0.25`): min and max as they are; the mean exact when it
//! terminates within 6 decimals past the key's scale (the most decimals
//! its values need, at least 1), rounded half away from zero to that many
//! decimals otherwise (see [`KeyStats::mean_text`]). The same numbers give
//! the same output however they are written. No float arithmetic is
//! involved anywhere.
//!
//! # Errors
//! Every bad line gives an [`AggError`] with a [`Problem`], the 1-based line
//! and the byte offset from the start of the input. A parallel run reports
//! the same (first) error as a serial one. With
//! [`AggOptions::skip_bad_rows`] malformed rows are counted and the first
//! few kept ([`Aggregate::first_bad_rows`]) instead.
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
//! ending, empty or bad line, the last bytes of the input) takes the
//! general line parser, which decides what is an error. The tables are
//! merged, sorted by key bytes and printed.
//!
//! # Limits
//! See [`AggOptions`] and LIMITS.md: keys of at most 100 bytes, a key-table
//! budget of 512 MiB by default ([`AggOptions::max_key_memory`]), lines of
//! at most [`MAX_STREAM_LINE`] bytes on the read path.

mod acc;
mod decimal;
mod error;
mod fast;
mod format;
mod line;
mod merge;
mod options;
mod output;
mod parse;
mod partial;
mod quoted;
mod raw;
mod run;
mod scan;
mod skip;
mod stream;
mod table;

pub use decimal::MAX_DIGITS;
pub use error::{AggError, BadRow, ErrorKind, Problem};
pub use options::{
    AggOptions, DEFAULT_CHUNK_BYTES, DEFAULT_MAX_KEY_BYTES, DEFAULT_MAX_KEY_MEMORY,
    KEY_OVERHEAD_BYTES, MAX_MAX_KEY_BYTES, MAX_MAX_KEY_MEMORY, MAX_THREADS, MIN_MAX_KEY_MEMORY,
    REPORTED_BAD_ROWS, parse_delimiter,
};
pub use output::{Aggregate, KeyStats, MEAN_EXTRA_DECIMALS, mean_tenths};
pub use partial::{Partial, aggregate_bytes_range, aggregate_lines, aggregate_path_range};
pub use stream::MAX_STREAM_LINE;

use merge::Merger;
use std::io::Read;
use std::path::Path;

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The length of the BOM at the start of `data` (0 or 3).
pub(crate) fn bom_len(data: &[u8]) -> usize {
    if data.starts_with(BOM) { BOM.len() } else { 0 }
}

/// Offset of the first data line: after a BOM and, with `header`, after
/// the first line.
pub(crate) fn body_start(data: &[u8], opts: &AggOptions) -> usize {
    let start = bom_len(data);
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
    Ok(merge_slice(data, map, opts)?.finish())
}

/// The merged keys of a whole in-memory input (see [`aggregate_slice`]).
pub(crate) fn merge_slice(
    data: &[u8],
    map: Option<&ream_io::Bytes>,
    opts: &AggOptions,
) -> Result<Merger, AggError> {
    opts.validate()?;
    let start = body_start(data, opts);
    let run = run::run_slice(data, start, opts, map);
    let mut merger = Merger::default();
    if run.quoted {
        let from = bom_len(data);
        let origin = quoted::Origin {
            offset: from as u64,
            lines: 0,
        };
        let rest = data.get(from..).unwrap_or_default();
        quoted::aggregate(rest, origin, opts.header, opts, &mut merger)?;
    } else {
        merger.settle(run, data, start, opts, (0, 0))?;
    }
    Ok(merger)
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
