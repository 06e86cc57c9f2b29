//! [`Aggregate`], the sorted result, and its writers.

use crate::acc::Acc;
use crate::decimal::{Round, Wide, ratio_text};
use crate::error::BadRow;
use crate::format::{push_json_string, push_tenths};
use std::io::{self, Write};

/// Decimals of a printed mean past the key's scale (6): see
/// [`KeyStats::mean_text`].
pub const MEAN_EXTRA_DECIMALS: u32 = 6;

/// Rows passed over: empty lines, and malformed rows with `skip_bad_rows`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Skips {
    pub empty: u64,
    pub bad: u64,
    pub first: Vec<BadRow>,
}

/// The result of an aggregation: one entry per distinct key, sorted by key
/// bytes, and the rows that were skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate {
    names: Vec<u8>,
    entries: Vec<(usize, usize, Acc)>,
    rows: u64,
    skips: Skips,
}

/// One key's statistics, borrowed from an [`Aggregate`].
///
/// Every value is kept exactly: values in the strict 1BRC form
/// (`-?d?d.d`) in integer tenths, any other in fixed point at the largest
/// number of decimals the key's values need (trailing zeros not counted,
/// so `0.1` and `0.10` are the same value), with a 192-bit sum. The texts
/// ([`KeyStats::min_text`], ...) are exact decimals; the `f64` accessors
/// are the nearest `f64` to them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyStats<'a> {
    key: &'a [u8],
    acc: &'a Acc,
}

impl<'a> KeyStats<'a> {
    /// The key bytes (UTF-8 unless `allow_invalid_utf8` let other bytes in).
    pub fn key(&self) -> &'a [u8] {
        self.key
    }

    /// The key as text (invalid UTF-8 replaced by U+FFFD).
    pub fn name(&self) -> std::borrow::Cow<'a, str> {
        String::from_utf8_lossy(self.key)
    }

    /// Rows with this key.
    pub fn count(&self) -> u64 {
        self.acc.rows()
    }

    /// True when every value was in the strict 1BRC form.
    pub fn is_exact(&self) -> bool {
        self.acc.dec.count == 0
    }

    /// `(min, mean, max)` in tenths, the mean rounded half up (toward
    /// +infinity) as the 1BRC reference does, for a key whose values were
    /// all in the strict 1BRC form.
    pub fn tenths(&self) -> Option<(i64, i64, i64)> {
        let a = self.acc;
        (self.is_exact() && a.count > 0).then(|| (a.min, mean_tenths(a.sum, a.count), a.max))
    }

    /// The smallest value as an exact decimal, trailing zeros trimmed to
    /// one decimal at least (`12.0`, `0.25`).
    pub fn min_text(&self) -> String {
        let a = self.acc.all();
        point_text(a.min, a.scale)
    }

    /// The largest value, as [`KeyStats::min_text`].
    pub fn max_text(&self) -> String {
        let a = self.acc.all();
        point_text(a.max, a.scale)
    }

    /// The sum of the values, as [`KeyStats::min_text`].
    pub fn sum_text(&self) -> String {
        let a = self.acc.all();
        ratio_text(a.sum, 1, a.scale, a.scale.max(1), Round::HalfAway, true)
    }

    /// The mean as a decimal: exact when it has at most `d` decimals, and
    /// otherwise rounded half away from zero to `d` decimals, where `d` is
    /// [`MEAN_EXTRA_DECIMALS`] plus the key's scale (the most decimals any
    /// of its values needs, trailing zeros not counted, at least 1).
    /// Trailing zeros trimmed to one decimal at least. The same numbers
    /// give the same text however they are written (`0.1`, `0.10`,
    /// `1e-1`): `0.1, 0.2` gives `0.15`, `1, 2, 2` gives `1.6666667`.
    pub fn mean_text(&self) -> String {
        let a = self.acc.all();
        let to = a.scale.max(1) + MEAN_EXTRA_DECIMALS;
        ratio_text(a.sum, a.count, a.scale, to, Round::HalfAway, true)
    }

    /// `(min, mean, max)` as the 1BRC format prints them: one decimal,
    /// rounded half up (toward +infinity).
    fn one_decimal(&self) -> [String; 3] {
        let a = self.acc.all();
        let one = |sum: Wide, count| ratio_text(sum, count, a.scale, 1, Round::HalfUp, false);
        [
            one(Wide::from_i128(a.min), 1),
            one(a.sum, a.count),
            one(Wide::from_i128(a.max), 1),
        ]
    }

    /// The smallest value (the `f64` nearest [`KeyStats::min_text`]).
    pub fn min(&self) -> f64 {
        to_f64(&self.min_text())
    }

    /// The largest value (the `f64` nearest [`KeyStats::max_text`]).
    pub fn max(&self) -> f64 {
        to_f64(&self.max_text())
    }

    /// The sum of the values (the `f64` nearest [`KeyStats::sum_text`]).
    pub fn sum(&self) -> f64 {
        to_f64(&self.sum_text())
    }

    /// The mean (the `f64` nearest [`KeyStats::mean_text`]).
    pub fn mean(&self) -> f64 {
        to_f64(&self.mean_text())
    }
}

/// The exact text of `v * 10^-scale`.
fn point_text(v: i128, scale: u32) -> String {
    ratio_text(
        Wide::from_i128(v),
        1,
        scale,
        scale.max(1),
        Round::HalfAway,
        true,
    )
}

/// A decimal text as the nearest `f64`.
fn to_f64(s: &str) -> f64 {
    s.parse().unwrap_or(f64::NAN)
}

/// The mean of `count` values summing to `sum` tenths, in tenths, rounded
/// half up: `floor(sum / count + 1/2)`, exactly in integers.
pub fn mean_tenths(sum: i64, count: u64) -> i64 {
    let (s, c) = (i128::from(sum), i128::from(count.max(1)));
    i64::try_from((2 * s + c).div_euclid(2 * c)).unwrap_or(0)
}

impl Aggregate {
    /// Builds a sorted aggregate from owned keys.
    pub(crate) fn from_keys(
        items: impl Iterator<Item = (Box<[u8]>, Acc)>,
        skips: Skips,
    ) -> Aggregate {
        let mut items: Vec<(Box<[u8]>, Acc)> = items.collect();
        items.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut names = Vec::with_capacity(items.iter().map(|i| i.0.len()).sum());
        let mut entries = Vec::with_capacity(items.len());
        let mut rows = 0;
        for (k, acc) in items {
            entries.push((names.len(), k.len(), acc));
            names.extend_from_slice(&k);
            rows += acc.rows();
        }
        Aggregate {
            names,
            entries,
            rows,
            skips,
        }
    }

    /// Empty lines passed over (a line with nothing but its line break;
    /// the header line is not counted).
    pub fn empty_lines(&self) -> u64 {
        self.skips.empty
    }

    /// Malformed rows skipped with `skip_bad_rows` (0 without it: the first
    /// is an error).
    pub fn bad_rows(&self) -> u64 {
        self.skips.bad
    }

    /// The first [`crate::REPORTED_BAD_ROWS`] skipped rows in input order,
    /// with line, offset and problem.
    pub fn first_bad_rows(&self) -> &[BadRow] {
        &self.skips.first
    }

    /// Distinct keys.
    pub fn keys(&self) -> usize {
        self.entries.len()
    }

    /// Data rows aggregated (the header not included).
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Every key's statistics, sorted by key bytes.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = KeyStats<'_>> + '_ {
        self.entries.iter().map(|(start, len, acc)| KeyStats {
            key: self.names.get(*start..start + len).unwrap_or_default(),
            acc,
        })
    }

    /// The statistics of one key.
    pub fn get(&self, key: &[u8]) -> Option<KeyStats<'_>> {
        let i = self
            .entries
            .binary_search_by(|(s, l, _)| self.names.get(*s..s + l).unwrap_or_default().cmp(key))
            .ok()?;
        let (start, len, acc) = self.entries.get(i)?;
        Some(KeyStats {
            key: self.names.get(*start..start + len)?,
            acc,
        })
    }

    /// Writes the 1BRC output: `{a=min/mean/max, b=...}` and a newline,
    /// keys as raw bytes, every number with one decimal rounded half up
    /// (toward +infinity) from the exact value, never `-0.0`. No keys:
    /// `{}`.
    pub fn write_1brc(&self, w: &mut impl Write) -> io::Result<()> {
        let mut out = Vec::with_capacity(self.names.len() + self.entries.len() * 20 + 3);
        out.push(b'{');
        for (i, k) in self.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b", ");
            }
            out.extend_from_slice(k.key);
            out.push(b'=');
            match k.tenths() {
                Some((lo, mean, hi)) => {
                    push_tenths(&mut out, lo);
                    out.push(b'/');
                    push_tenths(&mut out, mean);
                    out.push(b'/');
                    push_tenths(&mut out, hi);
                }
                None => {
                    let [lo, mean, hi] = k.one_decimal();
                    out.extend_from_slice(format!("{lo}/{mean}/{hi}").as_bytes());
                }
            }
        }
        out.extend_from_slice(b"}\n");
        w.write_all(&out)
    }

    /// Writes CSV: a `key,count,min,mean,max` header, then one row per key
    /// (the header alone when there are none). Numbers are the exact texts
    /// of [`KeyStats::min_text`], [`KeyStats::mean_text`] and
    /// [`KeyStats::max_text`]. A key holding `,`, `"`, CR or LF is quoted
    /// (quotes doubled).
    pub fn write_csv(&self, w: &mut impl Write) -> io::Result<()> {
        let mut out = b"key,count,min,mean,max\n".to_vec();
        for k in self.iter() {
            if k.key
                .iter()
                .any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
            {
                out.push(b'"');
                for &b in k.key {
                    if b == b'"' {
                        out.push(b'"');
                    }
                    out.push(b);
                }
                out.push(b'"');
            } else {
                out.extend_from_slice(k.key);
            }
            out.extend_from_slice(format!(",{}", k.count()).as_bytes());
            for n in [k.min_text(), k.mean_text(), k.max_text()] {
                out.push(b',');
                out.extend_from_slice(n.as_bytes());
            }
            out.push(b'\n');
            if out.len() > 1 << 16 {
                w.write_all(&out)?;
                out.clear();
            }
        }
        w.write_all(&out)
    }

    /// Writes JSON Lines: `{"key":..,"count":..,"min":..,"mean":..,"max":..}`
    /// per key (nothing when there are none), numbers as the exact decimal
    /// texts of the CSV output. Keys that are not UTF-8 are written lossily
    /// (U+FFFD).
    pub fn write_jsonl(&self, w: &mut impl Write) -> io::Result<()> {
        let mut out = Vec::new();
        for k in self.iter() {
            out.extend_from_slice(b"{\"key\":");
            push_json_string(&mut out, &k.name());
            out.extend_from_slice(format!(",\"count\":{}", k.count()).as_bytes());
            for (name, n) in [
                ("min", k.min_text()),
                ("mean", k.mean_text()),
                ("max", k.max_text()),
            ] {
                out.extend_from_slice(format!(",\"{name}\":{n}").as_bytes());
            }
            out.extend_from_slice(b"}\n");
            if out.len() > 1 << 16 {
                w.write_all(&out)?;
                out.clear();
            }
        }
        w.write_all(&out)
    }
}
