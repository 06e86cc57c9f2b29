//! Partial aggregation for distributed runs: the lines of one byte range
//! of an input aggregated into an exact, serializable [`Partial`] state;
//! states merged in any order and grouping; the merge of all ranges of
//! all inputs finished into the same [`Aggregate`] as one run over the
//! concatenated inputs.
//!
//! A range `start..end` owns the lines that start in it: its first line is
//! the first line start at or after `start` (a line starts at byte 0, after
//! a UTF-8 BOM, after the header line with [`AggOptions::header`], and after
//! every `\n`); it ends with the last line that starts before `end`. So the
//! ranges `0..a`, `a..b`, `b..len` cut anywhere, mid-line included, hold
//! every line exactly once, and only the range holding byte 0 skips a BOM
//! and a header.

use crate::acc::{Acc, DecAcc};
use crate::decimal::{MAX_DIGITS, Wide, pow10};
use crate::error::AggError;
use crate::options::AggOptions;
use crate::output::{Aggregate, Skips};
use crate::table::key_cost;
use crate::{body_start, merge::Merger, merge_slice, run};
use std::collections::HashMap;
use std::path::Path;

/// The first bytes of a serialized [`Partial`].
const MAGIC: &[u8; 8] = b"REAMAGG1";

/// Bytes of one serialized accumulator (after its key).
const ACC_BYTES: usize = 8 * 4 + 8 + 4 + 8 * 3 + 16 * 2;

/// The exact state of an aggregation over some lines: per key the count,
/// sum (integer tenths, and a 192-bit fixed-point part for other values),
/// min and max, plus the empty lines and skipped rows counted. Merging is
/// exact, associative and commutative. The first bad rows that
/// [`AggOptions::skip_bad_rows`] keeps are not carried, only their count.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Partial {
    keys: HashMap<Box<[u8]>, Acc>,
    empty: u64,
    bad: u64,
}

impl Partial {
    /// The number of distinct keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when no key was seen.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Bytes the distinct keys count against
    /// [`AggOptions::max_key_memory`]: [`crate::KEY_OVERHEAD_BYTES`] plus
    /// the length of each key, as a one-machine run counts them.
    pub fn key_memory(&self) -> usize {
        self.keys
            .keys()
            .fold(0usize, |n, k| n.saturating_add(key_cost(k)))
    }

    /// [`Partial::merge`], then a limit error when the distinct keys need
    /// more than `max_key_memory` bytes ([`Partial::key_memory`]): the
    /// budget a distributed combine keeps, as one run keeps
    /// [`AggOptions::max_key_memory`].
    pub fn merge_within(&mut self, other: Partial, max_key_memory: usize) -> Result<(), AggError> {
        self.merge(other);
        if self.key_memory() > max_key_memory {
            return Err(AggError::key_memory(max_key_memory));
        }
        Ok(())
    }

    /// Adds `other` into `self`.
    pub fn merge(&mut self, other: Partial) {
        self.empty += other.empty;
        self.bad += other.bad;
        if self.keys.len() < other.keys.len() {
            let small = std::mem::replace(&mut self.keys, other.keys);
            self.add_keys(small);
        } else {
            self.add_keys(other.keys);
        }
    }

    fn add_keys(&mut self, keys: HashMap<Box<[u8]>, Acc>) {
        for (k, a) in keys {
            match self.keys.get_mut(&k) {
                Some(m) => m.merge(&a),
                None => {
                    self.keys.insert(k, a);
                }
            }
        }
    }

    /// The result: keys sorted by their bytes, as [`crate::aggregate_bytes`]
    /// gives it.
    pub fn finish(self) -> Aggregate {
        let skips = Skips {
            empty: self.empty,
            bad: self.bad,
            first: Vec::new(),
        };
        Aggregate::from_keys(self.keys.into_iter(), skips)
    }

    /// The state as bytes (little-endian, versioned by a magic prefix),
    /// for [`Partial::from_bytes`] on another machine.
    pub fn to_bytes(&self) -> Vec<u8> {
        let names: usize = self.keys.keys().map(|k| k.len() + 4).sum();
        let mut out = Vec::with_capacity(MAGIC.len() + 24 + names + self.keys.len() * ACC_BYTES);
        out.extend_from_slice(MAGIC);
        for n in [self.empty, self.bad, self.keys.len() as u64] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        for (k, a) in &self.keys {
            out.extend_from_slice(&(k.len() as u32).to_le_bytes());
            out.extend_from_slice(k);
            out.extend_from_slice(&a.count.to_le_bytes());
            out.extend_from_slice(&a.sum.to_le_bytes());
            out.extend_from_slice(&a.min.to_le_bytes());
            out.extend_from_slice(&a.max.to_le_bytes());
            out.extend_from_slice(&a.dec.count.to_le_bytes());
            out.extend_from_slice(&a.dec.scale.to_le_bytes());
            for l in a.dec.sum.limbs() {
                out.extend_from_slice(&l.to_le_bytes());
            }
            out.extend_from_slice(&a.dec.min.to_le_bytes());
            out.extend_from_slice(&a.dec.max.to_le_bytes());
        }
        out
    }

    /// Reads what [`Partial::to_bytes`] wrote. Anything else (another
    /// magic, a truncated state, a scale over 18, a min or max out of
    /// range) is a usage error naming the byte offset.
    pub fn from_bytes(b: &[u8]) -> Result<Partial, AggError> {
        let mut r = Reader { b, at: 0 };
        if r.take(MAGIC.len())? != MAGIC {
            return Err(AggError::usage(
                "not a ream-agg partial state (no REAMAGG1 magic at byte 0)".into(),
            ));
        }
        let empty = r.u64()?;
        let bad = r.u64()?;
        let n = r.u64()?;
        let mut p = Partial {
            keys: HashMap::new(),
            empty,
            bad,
        };
        for _ in 0..n {
            let len = r.u32()? as usize;
            let key: Box<[u8]> = r.take(len)?.into();
            let at = r.at;
            let count = r.u64()?;
            let sum = r.i64()?;
            let min = r.i64()?;
            let max = r.i64()?;
            let dcount = r.u64()?;
            let scale = r.u32()?;
            let limbs = [r.u64()?, r.u64()?, r.u64()?];
            let dmin = r.i128()?;
            let dmax = r.i128()?;
            let bound = pow10(2 * MAX_DIGITS) as i128;
            if scale > MAX_DIGITS || dmin.abs() >= bound || dmax.abs() >= bound {
                return Err(AggError::usage(format!(
                    "corrupt ream-agg partial state: accumulator at byte {at} out of range"
                )));
            }
            let acc = Acc {
                count,
                sum,
                min,
                max,
                dec: DecAcc {
                    count: dcount,
                    scale,
                    sum: Wide::from_limbs(limbs),
                    min: dmin,
                    max: dmax,
                },
            };
            let mut one = HashMap::with_capacity(1);
            one.insert(key, acc);
            p.add_keys(one);
        }
        if r.at != b.len() {
            return Err(AggError::usage(format!(
                "corrupt ream-agg partial state: {} bytes left over at byte {}",
                b.len() - r.at,
                r.at
            )));
        }
        Ok(p)
    }

    fn from_merger(m: Merger) -> Partial {
        let (keys, skips) = m.into_parts();
        Partial {
            keys,
            empty: skips.empty,
            bad: skips.bad,
        }
    }
}

/// A cursor over a serialized state.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], AggError> {
        let s = self
            .at
            .checked_add(n)
            .and_then(|e| self.b.get(self.at..e))
            .ok_or_else(|| {
                AggError::usage(format!(
                    "corrupt ream-agg partial state: truncated at byte {} ({} bytes)",
                    self.at,
                    self.b.len()
                ))
            })?;
        self.at += n;
        Ok(s)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], AggError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    fn u32(&mut self) -> Result<u32, AggError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, AggError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn i64(&mut self) -> Result<i64, AggError> {
        Ok(i64::from_le_bytes(self.array()?))
    }
    fn i128(&mut self) -> Result<i128, AggError> {
        Ok(i128::from_le_bytes(self.array()?))
    }
}

/// Aggregates the lines of `data` (one whole input) that start in
/// `start..end` (byte offsets, clamped to the input) into a [`Partial`].
/// Errors name the line and byte offset within `data`, as
/// [`crate::aggregate_bytes`] does.
///
/// With quoting (any delimiter but `;`), a quote byte in a range that is
/// not the whole input is a usage error: a quoted field may hold line
/// breaks, so such an input cannot be cut at newlines; give it one range.
pub fn aggregate_bytes_range(
    data: &[u8],
    start: u64,
    end: u64,
    opts: &AggOptions,
) -> Result<Partial, AggError> {
    range(data, None, start, end, opts)
}

/// [`aggregate_bytes_range`] over the regular file at `path`, memory-mapped
/// (the pages of the range are released as it is done), so a task reads
/// only its range and the line before it.
pub fn aggregate_path_range(
    path: &Path,
    start: u64,
    end: u64,
    opts: &AggOptions,
) -> Result<Partial, AggError> {
    opts.validate()?;
    let open_err = |e: std::io::Error| AggError::io(format!("{}: {e}", path.display()), e);
    let meta = std::fs::metadata(path).map_err(open_err)?;
    if !meta.is_file() {
        return Err(AggError::usage(format!(
            "{}: byte ranges need a regular file",
            path.display()
        )));
    }
    if meta.len() == 0 {
        return Ok(Partial::default());
    }
    let map = ream_io::Bytes::open(path, ream_io::MapMode::Map).map_err(open_err)?;
    range(&map, Some(&map), start, end, opts)
}

/// Aggregates `lines`, whole lines cut out of a larger input (no BOM or
/// header is skipped), into a [`Partial`]: what a task that read its byte
/// range itself (from remote storage) runs. `base` is (lines, bytes)
/// before `lines` in that input: errors name line and byte offset in the
/// input (give 0 lines when they are not known; the line is then counted
/// from the range). With quoting (any delimiter but `;`) a quote byte is a
/// usage error, as in [`aggregate_bytes_range`].
pub fn aggregate_lines(
    lines: &[u8],
    base: (u64, u64),
    opts: &AggOptions,
) -> Result<Partial, AggError> {
    opts.validate()?;
    let r = run::run_lines(lines, 0, 0, opts, None);
    if r.quoted {
        return Err(AggError::usage(format!(
            "a quote byte in bytes {}..{}: an input with quoted fields cannot be cut \
             into byte ranges; give it one range (a larger block size)",
            base.1,
            base.1 + lines.len() as u64
        )));
    }
    let mut merger = Merger::default();
    merger.settle(r, lines, 0, opts, base)?;
    Ok(Partial::from_merger(merger))
}

fn range(
    data: &[u8],
    map: Option<&ream_io::Bytes>,
    start: u64,
    end: u64,
    opts: &AggOptions,
) -> Result<Partial, AggError> {
    opts.validate()?;
    let len = data.len();
    let clamp = |x: u64| usize::try_from(x).map_or(len, |x| x.min(len));
    let body = body_start(data, opts);
    let s = run::line_start_at(data, body, clamp(start));
    let e = run::line_start_at(data, body, clamp(end)).max(s);
    if s == body && e == len {
        return merge_slice(data, map, opts).map(Partial::from_merger);
    }
    let slice = data.get(..e).unwrap_or(data);
    let r = run::run_lines(slice, body, s, opts, map);
    if r.quoted {
        return Err(AggError::usage(format!(
            "a quote byte in bytes {s}..{e}: an input with quoted fields cannot be cut \
             into byte ranges; give it one range (a larger block size)"
        )));
    }
    let mut merger = Merger::default();
    merger.settle(r, slice, s, opts, (0, 0))?;
    Ok(Partial::from_merger(merger))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ErrorKind, aggregate_bytes};

    fn by_ranges(data: &[u8], cuts: &[u64], opts: &AggOptions) -> Aggregate {
        let mut bounds = vec![0u64];
        bounds.extend_from_slice(cuts);
        bounds.push(data.len() as u64);
        let mut total = Partial::default();
        for w in bounds.windows(2) {
            let p = aggregate_bytes_range(data, w[0], w[1], opts).unwrap();
            let p = Partial::from_bytes(&p.to_bytes()).unwrap();
            total.merge(p);
        }
        total.finish()
    }

    #[test]
    fn every_cut_gives_the_whole_result() {
        let body = "a;1.5\nbb;-2\n\na;0.25\nc;1e2\r\nbb;7.0\nc;-0.125";
        for (text, header) in [
            (format!("\u{feff}k;v\n{body}"), true),
            (format!("\u{feff}{body}\n"), false),
        ] {
            let data = text.as_bytes();
            let opts = AggOptions {
                header,
                threads: 1,
                ..AggOptions::default()
            };
            let whole = aggregate_bytes(data, &opts).unwrap();
            for a in 0..=data.len() as u64 {
                for b in a..=data.len() as u64 + 1 {
                    assert_eq!(by_ranges(data, &[a, b], &opts), whole, "cuts {a} {b}");
                }
            }
        }
    }

    #[test]
    fn errors_name_the_line_of_the_input() {
        let data = b"a;1\nb;2\nc;x\nd;4\n";
        let e = aggregate_bytes_range(data, 5, 100, &AggOptions::default()).unwrap_err();
        assert_eq!((e.line(), e.offset()), (3, 10));
        assert!(aggregate_bytes_range(data, 0, 5, &AggOptions::default()).is_ok());
    }

    #[test]
    fn owned_lines_cut_by_hand_give_the_whole_result() {
        // What a remote task does: the lines of each range cut out of the
        // input, aggregated apart, merged.
        let data = b"a;1.5\nbb;-2\n\na;0.25\nc;1e2\r\nbb;7.0\nc;-0.125\n";
        let opts = AggOptions::default();
        let whole = aggregate_bytes(data, &opts).unwrap();
        for cut in 0..=data.len() {
            let s = run::line_start_at(data, 0, cut);
            let mut total = aggregate_lines(&data[..s], (0, 0), &opts).unwrap();
            total.merge(aggregate_lines(&data[s..], (0, s as u64), &opts).unwrap());
            assert_eq!(total.finish(), whole, "cut at {cut}");
        }
    }

    #[test]
    fn owned_lines_errors_are_shifted_by_the_base() {
        let e = aggregate_lines(b"b;2\nc;x\n", (1, 4), &AggOptions::default()).unwrap_err();
        assert_eq!((e.line(), e.offset()), (3, 10));
        assert!(e.to_string().starts_with("line 3, byte 10:"), "{e}");
        let opts = AggOptions {
            delimiter: b',',
            ..AggOptions::default()
        };
        let e = aggregate_lines(b"\"a\",1\n", (0, 8), &opts).unwrap_err();
        assert!(e.to_string().contains("quote byte in bytes 8..14"), "{e}");
    }

    #[test]
    fn merging_states_keeps_the_key_budget() {
        let opts = AggOptions::default();
        let a = aggregate_bytes_range(b"k1;1\nk2;2\n", 0, 100, &opts).unwrap();
        let b = aggregate_bytes_range(b"k3;1\nk1;2\n", 0, 100, &opts).unwrap();
        let per_key = a.key_memory() / 2;
        assert_eq!(a.key_memory(), 2 * per_key);
        let mut ok = a.clone();
        ok.merge_within(b.clone(), 3 * per_key).unwrap();
        assert_eq!(ok.len(), 3);
        let mut over = a;
        let e = over.merge_within(b, 3 * per_key - 1).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
        assert!(
            e.to_string()
                .starts_with("the distinct keys of the merged states"),
            "{e}"
        );
    }

    #[test]
    fn quoted_fields_need_one_range() {
        let opts = AggOptions {
            delimiter: b',',
            ..AggOptions::default()
        };
        let data = b"\"a,b\",1\nc,2\n";
        let e = aggregate_bytes_range(data, 8, 100, &opts);
        assert!(e.is_ok(), "no quote in the second range");
        let e = aggregate_bytes_range(data, 0, 8, &opts).unwrap_err();
        assert!(e.to_string().contains("quote"), "{e}");
        let whole = aggregate_bytes_range(data, 0, 100, &opts).unwrap().finish();
        assert_eq!(whole, aggregate_bytes(data, &opts).unwrap());
    }

    #[test]
    fn corrupt_states_are_errors() {
        let p = aggregate_bytes_range(b"a;1\nb;2.5\n", 0, 100, &AggOptions::default()).unwrap();
        let b = p.to_bytes();
        for n in 0..b.len() {
            assert!(Partial::from_bytes(&b[..n]).is_err(), "prefix {n}");
        }
        let mut extra = b.clone();
        extra.push(0);
        assert!(Partial::from_bytes(&extra).is_err());
        assert_eq!(Partial::from_bytes(&b).unwrap(), p);
    }
}
