//! Finding `startxref` and following the `/Prev` chain newest-first.

use super::{Section, XrefEntry, XrefKind, stream, table};
use crate::error::{Error, Result, Warning};
use crate::filters::{self, Filter};
use crate::object::{Dict, Object};
use crate::reader::Reader;
use std::collections::HashSet;

/// The offset after the last `startxref` in the file's tail.
pub(crate) fn startxref(r: &Reader) -> Result<u64> {
    for n in [1024u64, 64 << 10, 1 << 20] {
        let (base, tail) = r.tail(n)?;
        if let Some(i) = memchr::memmem::rfind(&tail, b"startxref") {
            let rest = tail.get(i + 9..).unwrap_or_default();
            let digits: Vec<u8> = rest
                .iter()
                .copied()
                .skip_while(|b| crate::lexer::is_ws(*b))
                .take_while(u8::is_ascii_digit)
                .collect();
            let v = std::str::from_utf8(&digits)
                .ok()
                .and_then(|s| s.parse::<u64>().ok());
            return v.ok_or_else(|| {
                Error::malformed(base + i as u64, "startxref is not followed by an offset")
            });
        }
        if base == 0 {
            break;
        }
    }
    Err(Error::malformed(
        r.len(),
        "no startxref near the end of the file",
    ))
}

/// Follows the chain from `start`: sections newest first. A broken first
/// section is an error; a broken older one ends the chain with a warning.
/// A `/Prev` that loops back is a warning (and `true` in the result: the
/// caller repairs, as qpdf does).
pub(crate) fn load(
    r: &Reader,
    start: u64,
    warnings: &mut Vec<Warning>,
) -> Result<(Vec<Section>, bool)> {
    let mut looped = false;
    let mut seen = HashSet::new();
    let mut out: Vec<Section> = Vec::new();
    let mut next = Some(start);
    while let Some(off) = next.take() {
        if !seen.insert(off) {
            warnings.push(Warning {
                offset: Some(off),
                ..Warning::new("/Prev chain loops back")
            });
            looped = true;
            break;
        }
        if out.len() >= r.limits.max_revisions {
            warnings.push(Warning::new(format!(
                "more than max_revisions ({}) xref sections; older ones ignored",
                r.limits.max_revisions
            )));
            break;
        }
        let sec = match section(r, off) {
            Ok(s) => s,
            Err(e) if out.is_empty() => return Err(e),
            Err(e) => {
                warnings.push(Warning::from_error(
                    "older xref section unreadable, chain ends there",
                    &e,
                ));
                break;
            }
        };
        next = sec.trailer.int(b"Prev").and_then(|p| u64::try_from(p).ok());
        if sec.kind == XrefKind::Hybrid {
            seen.extend(
                sec.trailer
                    .int(b"XRefStm")
                    .and_then(|p| u64::try_from(p).ok()),
            );
        }
        out.push(sec);
    }
    Ok((out, looped))
}

/// Parses the section at `off`: a table (with its `/XRefStm`) or a stream.
pub(crate) fn section(r: &Reader, off: u64) -> Result<Section> {
    let is_table = r.parse_at(off, 64, 64, |b, _| {
        let skip = b.iter().take_while(|c| crate::lexer::is_ws(**c)).count();
        Ok(b.get(skip..).unwrap_or_default().starts_with(b"xref"))
    })?;
    if !is_table {
        return xref_stream(r, off);
    }
    let lim = r.limits;
    let (mut entries, trailer, end) =
        r.parse_at(off, 64 << 10, lim.max_object_bytes, |b, complete| {
            table::parse(b, off, complete, lim.max_objects, lim.max_nesting)
        })?;
    let mut kind = XrefKind::Table;
    if let Some(x) = trailer.int(b"XRefStm").and_then(|p| u64::try_from(p).ok()) {
        // Hybrid: the table's in-use entries win, then the stream's, then
        // the table's free entries (which hide compressed objects from
        // old readers).
        if let Ok(s) = xref_stream(r, x) {
            kind = XrefKind::Hybrid;
            let used: HashSet<u32> = entries
                .iter()
                .filter(|(_, e)| *e != XrefEntry::Free)
                .map(|(n, _)| *n)
                .collect();
            let from_stream: HashSet<u32> = s.entries.iter().map(|(n, _)| *n).collect();
            entries.retain(|(n, e)| *e != XrefEntry::Free || !from_stream.contains(n));
            entries.extend(s.entries.into_iter().filter(|(n, _)| !used.contains(n)));
        }
    }
    Ok(Section {
        offset: off,
        kind,
        entries,
        trailer,
        end,
    })
}

/// Parses the xref stream object at `off`.
fn xref_stream(r: &Reader, off: u64) -> Result<Section> {
    let (_, obj) = r.indirect_at(off)?;
    let Object::Stream(s) = obj else {
        return Err(Error::malformed(
            off,
            "startxref points at neither 'xref' nor an xref stream",
        ));
    };
    if s.dict.name(b"Type").is_some_and(|t| t != b"XRef") {
        return Err(Error::malformed(
            off,
            "object at the xref offset is not /Type /XRef",
        ));
    }
    let length = s.dict.int(b"Length").and_then(|n| u64::try_from(n).ok());
    let (len, _) = r.stream_len(s.data_offset, length)?;
    let filters = direct_filters(&s.dict);
    let budget = r.limits.max_decoded_stream;
    let lim = r.limits.max_objects;
    let n = usize::try_from(len).map_err(|_| Error::limit("stream too large"))?;
    let entries = r.src_with(s.data_offset, n, |raw| {
        let d = filters::decode(raw, &filters, budget)?;
        stream::entries(&s.dict, &d.data, off, lim)
    })??;
    let mut trailer = s.dict.clone();
    for k in [
        &b"Length"[..],
        b"Filter",
        b"DecodeParms",
        b"W",
        b"Index",
        b"Type",
    ] {
        trailer.remove(k);
    }
    Ok(Section {
        offset: off,
        kind: XrefKind::Stream,
        entries,
        trailer,
        end: s.data_offset + len,
    })
}

/// The filter chain of a dictionary whose entries are direct.
pub(crate) fn direct_filters(d: &Dict) -> Vec<Filter> {
    filter_chain(d, &|o| o.clone())
}

/// The filter chain of `d`, resolving values with `resolve`.
pub(crate) fn filter_chain(d: &Dict, resolve: &dyn Fn(&Object) -> Object) -> Vec<Filter> {
    let filter = d.get(b"Filter").map(resolve).unwrap_or(Object::Null);
    let parms = d
        .get(b"DecodeParms")
        .or_else(|| d.get(b"DP"))
        .map(resolve)
        .unwrap_or(Object::Null);
    let names: Vec<Vec<u8>> = match filter {
        Object::Name(n) => vec![n],
        Object::Array(a) => a
            .iter()
            .filter_map(|o| resolve(o).as_name().map(<[u8]>::to_vec))
            .collect(),
        _ => Vec::new(),
    };
    let parms: Vec<Option<Dict>> = match parms {
        Object::Dict(p) => vec![Some(p)],
        Object::Array(a) => a.iter().map(|o| resolve(o).as_dict().cloned()).collect(),
        _ => Vec::new(),
    };
    names
        .into_iter()
        .enumerate()
        .map(|(i, name)| Filter {
            name,
            parms: parms.get(i).cloned().flatten(),
        })
        .collect()
}
