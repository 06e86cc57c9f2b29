//! [`AggOptions`]: what to read and the limits that guard it.

use crate::error::AggError;

/// Default of the tuning knob [`AggOptions::tune_chunk_bytes`]: 4 MiB,
/// about 300,000 1BRC rows.
#[doc(hidden)]
pub const DEFAULT_CHUNK_BYTES: usize = 4 << 20;
/// Default [`AggOptions::max_key_bytes`]: 100, the 1BRC name limit.
pub const DEFAULT_MAX_KEY_BYTES: usize = 100;
/// Default [`AggOptions::max_key_memory`]: 512 MiB, about 2.6 million keys
/// of 16 bytes.
pub const DEFAULT_MAX_KEY_MEMORY: usize = 512 << 20;
/// Largest accepted [`AggOptions::max_key_memory`] (1 TiB).
pub const MAX_MAX_KEY_MEMORY: usize = 1 << 40;
/// Smallest accepted [`AggOptions::max_key_memory`] (1 KiB).
pub const MIN_MAX_KEY_MEMORY: usize = 1 << 10;
/// What a distinct key costs against [`AggOptions::max_key_memory`] besides
/// its bytes (192): a 64-byte table slot at up to half load, the merged
/// result's entry and the exact accumulator of its general values.
pub const KEY_OVERHEAD_BYTES: usize = 192;
/// Bad rows that [`AggOptions::skip_bad_rows`] keeps with their line and
/// offset (the first 5 in input order); the rest are only counted.
pub const REPORTED_BAD_ROWS: usize = 5;
/// Largest accepted [`AggOptions::max_key_bytes`] (16 MiB).
pub const MAX_MAX_KEY_BYTES: usize = 1 << 24;
/// Largest accepted [`AggOptions::threads`].
pub const MAX_THREADS: usize = 1024;

/// How to read the input. [`Default`] is the exact One Billion Row
/// Challenge shape: `name;value` lines, no header, names of at most 100
/// bytes of UTF-8, a 512 MiB key-table budget, all cores.
///
/// Build it from [`AggOptions::default`] with one method per setting:
/// `AggOptions::default().delimiter(b',').header(true)`. New settings may
/// be added (the struct is `#[non_exhaustive]`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AggOptions {
    /// Worker threads; 0 (the default) means one per available core. At
    /// most [`MAX_THREADS`].
    pub threads: usize,
    /// Tuning knob: see [`AggOptions::tune_chunk_bytes`].
    pub(crate) chunk_bytes: usize,
    /// Field separator (default `b';'`); anything but `\n` and `\r`.
    /// With any delimiter but `;` (the 1BRC format), fields follow RFC 4180
    /// quoting: `"Rome, IT",12.5` is the key `Rome, IT`, `""` is a quote
    /// inside a quoted field, and a quoted field may hold delimiters and
    /// line breaks. With `;` a quote is an ordinary byte.
    pub delimiter: u8,
    /// 0-based field holding the key (default 0).
    pub key_col: usize,
    /// 0-based field holding the value (default 1); must differ from
    /// `key_col`. Fields past the highest of the two are ignored.
    pub value_col: usize,
    /// Skip the first line (after a BOM) as a header (default false).
    pub header: bool,
    /// Longest accepted key in bytes (default 100); longer keys are an
    /// error. At least 1, at most [`MAX_MAX_KEY_BYTES`].
    pub max_key_bytes: usize,
    /// Budget of the key table in bytes (default
    /// [`DEFAULT_MAX_KEY_MEMORY`]): every distinct key costs its length
    /// plus [`KEY_OVERHEAD_BYTES`], and the row whose new key brings the
    /// total over the budget is an error. Each worker thread holds a table
    /// of the keys it met, so the peak is at most about `threads + 1` times
    /// the budget. From [`MIN_MAX_KEY_MEMORY`] to [`MAX_MAX_KEY_MEMORY`].
    pub max_key_memory: usize,
    /// Accept keys that are not valid UTF-8, as raw bytes (default false:
    /// such a key is an error naming the offending byte).
    pub allow_invalid_utf8: bool,
    /// Accept only values in the strict 1BRC form `-?d?d.d` (-99.9..99.9,
    /// exactly one decimal); any other value is an error. Default false:
    /// other decimal numbers (up to 18 significant digits and 18 decimals,
    /// optional exponent) are accepted and summed exactly (see the crate
    /// documentation).
    pub strict_values: bool,
    /// Skip malformed rows instead of stopping at the first (default
    /// false): a row without the delimiter or a needed field, with an empty
    /// key, a key that is not UTF-8, or a value that is empty, not a
    /// decimal number or past exact fixed point is counted
    /// ([`crate::Aggregate::bad_rows`]) and the first
    /// [`REPORTED_BAD_ROWS`] are kept with their line and offset. Limits
    /// (key length, key memory) still stop the run.
    pub skip_bad_rows: bool,
}

impl Default for AggOptions {
    fn default() -> AggOptions {
        AggOptions {
            threads: 0,
            chunk_bytes: DEFAULT_CHUNK_BYTES,
            delimiter: b';',
            key_col: 0,
            value_col: 1,
            header: false,
            max_key_bytes: DEFAULT_MAX_KEY_BYTES,
            max_key_memory: DEFAULT_MAX_KEY_MEMORY,
            allow_invalid_utf8: false,
            strict_values: false,
            skip_bad_rows: false,
        }
    }
}

impl AggOptions {
    /// Sets [`threads`](AggOptions::threads) (default 0: one per core).
    pub fn threads(mut self, n: usize) -> AggOptions {
        self.threads = n;
        self
    }
    /// Sets [`delimiter`](AggOptions::delimiter) (default `b';'`).
    pub fn delimiter(mut self, delimiter: u8) -> AggOptions {
        self.delimiter = delimiter;
        self
    }
    /// Sets [`key_col`](AggOptions::key_col) (default 0).
    pub fn key_col(mut self, col: usize) -> AggOptions {
        self.key_col = col;
        self
    }
    /// Sets [`value_col`](AggOptions::value_col) (default 1).
    pub fn value_col(mut self, col: usize) -> AggOptions {
        self.value_col = col;
        self
    }
    /// Sets [`header`](AggOptions::header) (default false).
    pub fn header(mut self, on: bool) -> AggOptions {
        self.header = on;
        self
    }
    /// Sets [`max_key_bytes`](AggOptions::max_key_bytes) (default 100).
    pub fn max_key_bytes(mut self, bytes: usize) -> AggOptions {
        self.max_key_bytes = bytes;
        self
    }
    /// Sets [`max_key_memory`](AggOptions::max_key_memory) (default
    /// [`DEFAULT_MAX_KEY_MEMORY`], 512 MiB).
    pub fn max_key_memory(mut self, bytes: usize) -> AggOptions {
        self.max_key_memory = bytes;
        self
    }
    /// Sets [`allow_invalid_utf8`](AggOptions::allow_invalid_utf8)
    /// (default false).
    pub fn allow_invalid_utf8(mut self, on: bool) -> AggOptions {
        self.allow_invalid_utf8 = on;
        self
    }
    /// Sets [`strict_values`](AggOptions::strict_values) (default false).
    pub fn strict_values(mut self, on: bool) -> AggOptions {
        self.strict_values = on;
        self
    }
    /// Sets [`skip_bad_rows`](AggOptions::skip_bad_rows) (default false).
    pub fn skip_bad_rows(mut self, on: bool) -> AggOptions {
        self.skip_bad_rows = on;
        self
    }

    /// Internal tuning knob, for tests and benchmarks only (hidden from the
    /// documentation, not part of the stable API): bytes per work unit,
    /// default [`DEFAULT_CHUNK_BYTES`] (4 MiB); 0 is refused by
    /// [`validate`](AggOptions::validate). Chunks are cut at newlines and
    /// handed out through an atomic counter, so there are many more chunks
    /// than threads. A line belongs to the chunk holding its first byte.
    /// Any value gives the same result.
    #[doc(hidden)]
    pub fn tune_chunk_bytes(mut self, bytes: usize) -> AggOptions {
        self.chunk_bytes = bytes;
        self
    }

    /// The number of worker threads a run uses: `threads`, or the number of
    /// available cores when it is 0.
    pub fn effective_threads(&self) -> usize {
        if self.threads == 0 {
            std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
        } else {
            self.threads
        }
    }

    /// True when the options select the two-column `key<delim>value` shape
    /// that the fixed-point fast path handles.
    pub(crate) fn two_columns(&self) -> bool {
        self.key_col == 0 && self.value_col == 1
    }

    /// True when fields follow RFC 4180 quoting: every delimiter but `;`.
    pub(crate) fn quoting(&self) -> bool {
        self.delimiter != b';'
    }

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), AggError> {
        let bad = |what: String| Err(AggError::usage(what));
        if self.threads > MAX_THREADS {
            return bad(format!(
                "threads = {} is over the limit of {MAX_THREADS}",
                self.threads
            ));
        }
        if self.chunk_bytes == 0 {
            return bad("chunk_bytes must be at least 1".into());
        }
        if matches!(self.delimiter, b'\n' | b'\r') {
            return bad("the delimiter cannot be a line break".into());
        }
        if self.delimiter == b'"' {
            return bad("the delimiter cannot be '\"' (the RFC 4180 quote)".into());
        }
        if self.key_col == self.value_col {
            return bad(format!(
                "key_col and value_col are both {}; they must differ",
                self.key_col
            ));
        }
        if self.max_key_bytes == 0 || self.max_key_bytes > MAX_MAX_KEY_BYTES {
            return bad(format!(
                "max_key_bytes = {} must be in 1..={MAX_MAX_KEY_BYTES}",
                self.max_key_bytes
            ));
        }
        if !(MIN_MAX_KEY_MEMORY..=MAX_MAX_KEY_MEMORY).contains(&self.max_key_memory) {
            return bad(format!(
                "max_key_memory = {} must be in {MIN_MAX_KEY_MEMORY}..={MAX_MAX_KEY_MEMORY} bytes",
                self.max_key_memory
            ));
        }
        Ok(())
    }
}

/// Parses a delimiter as `ream agg --delimiter` takes it: one ASCII
/// character other than a line break, or `\t` / `tab` for a tab. The
/// error says what was wrong.
pub fn parse_delimiter(s: &str) -> Result<u8, String> {
    match s {
        "\\t" | "tab" => Ok(b'\t'),
        _ => match s.as_bytes() {
            [b] if b.is_ascii() && !matches!(b, b'\n' | b'\r') => Ok(*b),
            _ => Err(format!(
                "{s:?} is not one ASCII character (use \\t or tab for a tab)"
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuning_default() {
        assert_eq!(AggOptions::default().chunk_bytes, 4 << 20);
        assert_eq!(AggOptions::default().tune_chunk_bytes(9).chunk_bytes, 9);
    }
}
