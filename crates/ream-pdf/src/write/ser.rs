//! Objects to bytes, cross-reference sections, small helpers shared by the
//! incremental update and the full rewrite.

use crate::object::{Dict, ObjRef, Object};
use crate::syntax::write_object;
use std::io::Write;

/// Appends `o` in PDF syntax (streams must be written with
/// [`stream_object`]; a stream here prints only its dictionary).
pub(crate) fn push_object(out: &mut Vec<u8>, o: &Object) {
    let o = match o {
        Object::Stream(s) => &Object::Dict(s.dict.clone()),
        o => o,
    };
    let mut s = String::new();
    // Writing into a String cannot fail.
    let _ = write_object(&mut s, o);
    out.extend_from_slice(s.as_bytes());
}

/// `num gen obj\n<object>\nendobj\n`.
pub(crate) fn plain_object(out: &mut Vec<u8>, r: ObjRef, o: &Object) {
    let _ = writeln!(out, "{} {} obj", r.num, r.generation);
    push_object(out, o);
    out.extend_from_slice(b"\nendobj\n");
}

/// The start of a stream object up to and including `stream\n`; the
/// dictionary gets `/Length len` (direct).
pub(crate) fn stream_head(out: &mut Vec<u8>, r: ObjRef, dict: &Dict, len: u64) {
    let mut d = dict.clone();
    d.insert(b"Length".to_vec(), Object::Int(len as i64));
    let _ = writeln!(out, "{} {} obj", r.num, r.generation);
    push_object(out, &Object::Dict(d));
    out.extend_from_slice(b"\nstream\n");
}

/// What follows a stream's data.
pub(crate) const STREAM_TAIL: &[u8] = b"\nendstream\nendobj\n";

/// A whole stream object with `data` as stored.
pub(crate) fn stream_object(out: &mut Vec<u8>, r: ObjRef, dict: &Dict, data: &[u8]) {
    stream_head(out, r, dict, data.len() as u64);
    out.extend_from_slice(data);
    out.extend_from_slice(STREAM_TAIL);
}

/// Replaces every reference inside `o` by `f(reference)`.
pub(crate) fn map_refs(o: &mut Object, f: &mut dyn FnMut(ObjRef) -> ObjRef) {
    match o {
        Object::Ref(r) => *r = f(*r),
        Object::Array(a) => a.iter_mut().for_each(|x| map_refs(x, f)),
        Object::Dict(d) => map_dict_refs(d, f),
        Object::Stream(s) => map_dict_refs(&mut s.dict, f),
        _ => {}
    }
}

fn map_dict_refs(d: &mut Dict, f: &mut dyn FnMut(ObjRef) -> ObjRef) {
    let keys: Vec<Vec<u8>> = d.iter().map(|(k, _)| k.to_vec()).collect();
    for k in keys {
        if let Some(mut v) = d.get(&k).cloned() {
            map_refs(&mut v, f);
            d.insert(k, v);
        }
    }
}

/// A text string for an Info value: the bytes as they are when the text
/// is printable ASCII, else UTF-16BE with a byte-order mark.
pub fn text_string(s: &str) -> Object {
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        Object::String(s.as_bytes().to_vec())
    } else {
        let mut v = vec![0xFE, 0xFF];
        for u in s.encode_utf16() {
            v.extend_from_slice(&u.to_be_bytes());
        }
        Object::String(v)
    }
}

/// One cross-reference entry to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    /// Type 1: at an offset, with a generation.
    InFile(u64, u16),
    /// Type 2: in object stream `.0` at index `.1`.
    InStream(u32, u32),
    /// Type 0: free.
    Free,
}

/// Runs of consecutive numbers in sorted `nums`: `(first, count)`.
pub(crate) fn runs(nums: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &n in nums {
        match out.last_mut() {
            Some((s, c)) if s.checked_add(*c) == Some(n) => *c += 1,
            _ => out.push((n, 1)),
        }
    }
    out
}

/// A classic `xref` table for `entries` (sorted by number, unique).
pub(crate) fn xref_table(out: &mut Vec<u8>, entries: &[(u32, Entry)]) {
    out.extend_from_slice(b"xref\n");
    let nums: Vec<u32> = entries.iter().map(|(n, _)| *n).collect();
    let mut it = entries.iter();
    for (start, count) in runs(&nums) {
        let _ = writeln!(out, "{start} {count}");
        for _ in 0..count {
            let Some((_, e)) = it.next() else { break };
            let _ = match e {
                Entry::InFile(off, g) => write!(out, "{off:010} {g:05} n\r\n"),
                Entry::Free | Entry::InStream(..) => write!(out, "0000000000 65535 f\r\n"),
            };
        }
    }
}

/// Bytes needed for `v` (at least 1).
fn width(v: u64) -> usize {
    let mut w = 1;
    while w < 8 && v >> (8 * w) != 0 {
        w += 1;
    }
    w
}

/// The dictionary entries `/W`, `/Index` and the flate-compressed rows of
/// an xref stream for `entries` (sorted by number, unique).
pub(crate) fn xref_stream_rows(entries: &[(u32, Entry)]) -> (Dict, Vec<u8>) {
    let max2 = entries
        .iter()
        .map(|(_, e)| match e {
            Entry::InFile(o, _) => *o,
            Entry::InStream(s, _) => u64::from(*s),
            Entry::Free => 0,
        })
        .max()
        .unwrap_or(0);
    let max3 = entries
        .iter()
        .map(|(_, e)| match e {
            Entry::InFile(_, g) => u64::from(*g),
            Entry::InStream(_, i) => u64::from(*i),
            Entry::Free => 0,
        })
        .max()
        .unwrap_or(0);
    let (w2, w3) = (width(max2), width(max3));
    let mut raw = Vec::with_capacity(entries.len() * (1 + w2 + w3));
    for (_, e) in entries {
        let (t, f2, f3) = match *e {
            Entry::Free => (0u8, 0u64, 0u64),
            Entry::InFile(o, g) => (1, o, u64::from(g)),
            Entry::InStream(s, i) => (2, u64::from(s), u64::from(i)),
        };
        raw.push(t);
        raw.extend_from_slice(f2.to_be_bytes().get(8 - w2..).unwrap_or_default());
        raw.extend_from_slice(f3.to_be_bytes().get(8 - w3..).unwrap_or_default());
    }
    let nums: Vec<u32> = entries.iter().map(|(n, _)| *n).collect();
    let mut index = Vec::new();
    for (s, c) in runs(&nums) {
        index.push(Object::Int(i64::from(s)));
        index.push(Object::Int(i64::from(c)));
    }
    let mut d = Dict::new();
    d.insert(b"Type".to_vec(), Object::Name(b"XRef".to_vec()));
    d.insert(
        b"W".to_vec(),
        Object::Array(vec![
            Object::Int(1),
            Object::Int(w2 as i64),
            Object::Int(w3 as i64),
        ]),
    );
    d.insert(b"Index".to_vec(), Object::Array(index));
    d.insert(b"Filter".to_vec(), Object::Name(b"FlateDecode".to_vec()));
    (d, deflate(&raw, 6))
}

/// zlib-compresses `data`.
pub(crate) fn deflate(data: &[u8], level: u32) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(
        Vec::with_capacity(data.len() / 2 + 64),
        flate2::Compression::new(level),
    );
    // Writing into a Vec cannot fail.
    let _ = e.write_all(data);
    e.finish().unwrap_or_default()
}

/// `startxref\n<offset>\n%%EOF\n`.
pub(crate) fn startxref(out: &mut Vec<u8>, offset: u64) {
    let _ = write!(out, "startxref\n{offset}\n%%EOF\n");
}

/// 16 bytes derived from `data` (two FNV-1a passes with different seeds):
/// a deterministic second `/ID` element for a new revision.
pub(crate) fn id_bytes(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16);
    for seed in [0xcbf2_9ce4_8422_2325u64, 0x6c62_272e_07bb_0142] {
        let mut h = seed;
        for &b in data {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        out.extend_from_slice(&h.to_be_bytes());
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_tables() {
        assert_eq!(runs(&[1, 2, 3, 7, 9, 10]), vec![(1, 3), (7, 1), (9, 2)]);
        let mut out = Vec::new();
        xref_table(
            &mut out,
            &[(3, Entry::InFile(15, 0)), (4, Entry::InFile(1234567, 2))],
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "xref\n3 2\n0000000015 00000 n\r\n0001234567 00002 n\r\n"
        );
        let (d, data) = xref_stream_rows(&[(5, Entry::InFile(300, 0)), (6, Entry::InStream(5, 2))]);
        assert_eq!(
            d.get(b"W"),
            Some(&Object::Array(vec![
                Object::Int(1),
                Object::Int(2),
                Object::Int(1)
            ]))
        );
        assert!(!data.is_empty());
        assert_eq!(text_string("ab"), Object::String(b"ab".to_vec()));
        assert_eq!(
            text_string("é"),
            Object::String(vec![0xFE, 0xFF, 0x00, 0xE9])
        );
        assert_eq!(id_bytes(b"x").len(), 16);
    }
}
