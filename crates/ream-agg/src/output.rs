//! [`Aggregate`], the sorted result, and its writers.

use crate::acc::Acc;
use crate::format::{Num, push_json_string};
use std::io::{self, Write};

/// The result of an aggregation: one entry per distinct key, sorted by key
/// bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate {
    names: Vec<u8>,
    entries: Vec<(usize, usize, Acc)>,
    rows: u64,
}

/// One key's statistics, borrowed from an [`Aggregate`].
///
/// A key whose values were all in the strict 1BRC form (`-?d?d.d`) is
/// *exact*: min, max and sum are integer tenths and the mean is the sum over
/// the count rounded half up to tenths, as the 1BRC reference computes it.
/// A key with any other value is *general*: its values are summed as `f64`
/// (with the exact part added once as `sum / 10`), so its mean can differ in
/// the last bits between runs with different thread counts.
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
        self.acc.float.count == 0
    }

    /// `(min, rounded mean, max)` in tenths, for an exact key.
    pub fn tenths(&self) -> Option<(i64, i64, i64)> {
        let a = self.acc;
        (self.is_exact() && a.count > 0).then(|| (a.min, mean_tenths(a.sum, a.count), a.max))
    }

    /// The smallest value.
    pub fn min(&self) -> f64 {
        let exact = if self.acc.count > 0 {
            self.acc.min as f64 / 10.0
        } else {
            f64::INFINITY
        };
        exact.min(self.acc.float.min)
    }

    /// The largest value.
    pub fn max(&self) -> f64 {
        let exact = if self.acc.count > 0 {
            self.acc.max as f64 / 10.0
        } else {
            f64::NEG_INFINITY
        };
        exact.max(self.acc.float.max)
    }

    /// The sum of the values.
    pub fn sum(&self) -> f64 {
        self.acc.sum as f64 / 10.0 + self.acc.float.sum
    }

    /// The mean: for an exact key, the rounded mean in tenths divided by 10;
    /// otherwise `sum() / count()`.
    pub fn mean(&self) -> f64 {
        match self.tenths() {
            Some((_, m, _)) => m as f64 / 10.0,
            None => self.sum() / self.count() as f64,
        }
    }

    /// `(min, mean, max)` as the numbers the writers print: one decimal
    /// (`one_decimal`) or, for a general key, the shortest text that reads
    /// back as the same `f64`.
    fn nums(&self, one_decimal: bool) -> [Num; 3] {
        match self.tenths() {
            Some((lo, m, hi)) => [Num::Tenths(lo), Num::Tenths(m), Num::Tenths(hi)],
            None if one_decimal => [self.min(), self.mean(), self.max()].map(Num::round_tenths),
            None => [self.min(), self.mean(), self.max()].map(Num::Float),
        }
    }
}

/// The mean of `count` values summing to `sum` tenths, in tenths, rounded
/// half up: `floor(sum / count + 1/2)`, exactly in integers.
pub fn mean_tenths(sum: i64, count: u64) -> i64 {
    let (s, c) = (i128::from(sum), i128::from(count.max(1)));
    i64::try_from((2 * s + c).div_euclid(2 * c)).unwrap_or(0)
}

impl Aggregate {
    /// Builds a sorted aggregate from owned keys.
    pub(crate) fn from_keys(items: impl Iterator<Item = (Box<[u8]>, Acc)>) -> Aggregate {
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
        }
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
    /// keys as raw bytes, every number with one decimal (never `-0.0`).
    pub fn write_1brc(&self, w: &mut impl Write) -> io::Result<()> {
        let mut out = Vec::with_capacity(self.names.len() + self.entries.len() * 20 + 3);
        out.push(b'{');
        for (i, k) in self.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b", ");
            }
            out.extend_from_slice(k.key);
            out.push(b'=');
            let [lo, mean, hi] = k.nums(true);
            lo.push(&mut out);
            out.push(b'/');
            mean.push(&mut out);
            out.push(b'/');
            hi.push(&mut out);
        }
        out.extend_from_slice(b"}\n");
        w.write_all(&out)
    }

    /// Writes CSV: a `key,count,min,mean,max` header, then one row per key.
    /// Exact keys print one decimal; general keys the shortest `f64` text.
    /// A key holding `,`, `"`, CR or LF is quoted (quotes doubled).
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
            for n in k.nums(false) {
                out.push(b',');
                n.push(&mut out);
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
    /// per key. Keys that are not UTF-8 are written lossily (U+FFFD); a sum
    /// past the `f64` range gives `null`.
    pub fn write_jsonl(&self, w: &mut impl Write) -> io::Result<()> {
        let mut out = Vec::new();
        for k in self.iter() {
            out.extend_from_slice(b"{\"key\":");
            push_json_string(&mut out, &k.name());
            out.extend_from_slice(format!(",\"count\":{}", k.count()).as_bytes());
            let [lo, mean, hi] = k.nums(false);
            for (name, n) in [("min", lo), ("mean", mean), ("max", hi)] {
                out.extend_from_slice(format!(",\"{name}\":").as_bytes());
                n.push_json(&mut out);
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
