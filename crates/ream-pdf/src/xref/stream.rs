//! Cross-reference streams: `/W`, `/Index`, decoded data to entries.

use super::XrefEntry;
use crate::error::{Error, Result};
use crate::object::{Dict, Object};

/// The entries of an xref stream with dictionary `dict` and decoded `data`.
pub(crate) fn entries(
    dict: &Dict,
    data: &[u8],
    at: u64,
    max_objects: u64,
) -> Result<Vec<(u32, XrefEntry)>> {
    let w = widths(dict).ok_or_else(|| {
        Error::malformed(at, "xref stream /W is not three widths of 0 to 8 bytes")
    })?;
    let size = dict.int(b"Size").unwrap_or(0).max(0);
    let index: Vec<(i64, i64)> = match dict.get(b"Index").and_then(Object::as_array) {
        Some(a) => a
            .chunks(2)
            .filter_map(|p| Some((p.first()?.as_int()?, p.get(1)?.as_int()?)))
            .collect(),
        None => vec![(0, size)],
    };
    let row: usize = w.iter().sum();
    if row == 0 {
        return Err(Error::malformed(at, "xref stream /W sums to zero"));
    }
    let mut out = Vec::new();
    let mut rows = data.chunks_exact(row);
    for (start, count) in index {
        if start < 0 || count < 0 || start.saturating_add(count) > i64::from(u32::MAX) {
            return Err(Error::malformed(
                at,
                format!("bad xref stream /Index pair {start} {count}"),
            ));
        }
        for i in 0..count {
            let Some(r) = rows.next() else {
                return Ok(out); // short data: keep what is there
            };
            if out.len() as u64 >= max_objects {
                return Err(Error::limit(format!(
                    "xref has more than max_objects ({max_objects}) entries"
                ))
                .at(at));
            }
            let (a, rest) = r.split_at(w[0]);
            let (b, c) = rest.split_at(w[1]);
            let ty = if w[0] == 0 { 1 } else { be(a) };
            let (f2, f3) = (be(b), be(c));
            let entry = match ty {
                0 => XrefEntry::Free,
                1 => XrefEntry::InFile {
                    offset: f2,
                    generation: u16::try_from(f3).unwrap_or(u16::MAX),
                },
                2 => XrefEntry::InStream {
                    stream: u32::try_from(f2).unwrap_or(u32::MAX),
                    index: u32::try_from(f3).unwrap_or(u32::MAX),
                },
                _ => continue, // reserved types: treat as absent
            };
            out.push(((start + i) as u32, entry));
        }
    }
    Ok(out)
}

fn widths(dict: &Dict) -> Option<[usize; 3]> {
    let a = dict.get(b"W")?.as_array()?;
    if a.len() != 3 {
        return None;
    }
    let mut w = [0usize; 3];
    for (slot, v) in w.iter_mut().zip(a) {
        let n = v.as_int()?;
        if !(0..=8).contains(&n) {
            return None;
        }
        *slot = n as usize;
    }
    Some(w)
}

fn be(b: &[u8]) -> u64 {
    b.iter().fold(0u64, |acc, &x| acc << 8 | u64::from(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dict(w: &[i64], index: Option<&[i64]>, size: i64) -> Dict {
        let mut d = Dict::new();
        d.insert(
            b"W".to_vec(),
            Object::Array(w.iter().map(|&x| Object::Int(x)).collect()),
        );
        if let Some(ix) = index {
            d.insert(
                b"Index".to_vec(),
                Object::Array(ix.iter().map(|&x| Object::Int(x)).collect()),
            );
        }
        d.insert(b"Size".to_vec(), Object::Int(size));
        d
    }

    #[test]
    fn rows_to_entries() {
        let data = [0, 0, 0, 1, 1, 0x10, 0, 2, 0, 9, 3];
        let e = entries(
            &dict(&[1, 2, 1], Some(&[3, 1, 10, 2]), 12),
            &data[..8],
            0,
            100,
        )
        .unwrap();
        assert_eq!(
            e,
            vec![
                (3, XrefEntry::Free),
                (
                    10,
                    XrefEntry::InFile {
                        offset: 0x1000,
                        generation: 2
                    }
                )
            ]
        );
        let e = entries(&dict(&[1, 2, 1], None, 1), &[2, 0, 9, 3], 0, 100).unwrap();
        assert_eq!(
            e,
            vec![(
                0,
                XrefEntry::InStream {
                    stream: 9,
                    index: 3
                }
            )]
        );
        assert!(entries(&dict(&[1, 9, 1], None, 1), &[], 0, 100).is_err());
        assert!(entries(&dict(&[1, 2], None, 1), &[], 0, 100).is_err());
        assert!(entries(&dict(&[0, 0, 0], None, 1), &[], 0, 100).is_err());
    }
}
