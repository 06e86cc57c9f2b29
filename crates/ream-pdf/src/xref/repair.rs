//! Repair: rebuild the index by scanning the file for `N G obj` and
//! `trailer`.

use crate::error::Result;
use crate::lexer::{is_regular, is_ws};
use crate::object::{Dict, Object};
use crate::parser::Parser;
use crate::reader::Reader;

/// Scan chunk size (plus overlap on both sides).
const CHUNK: usize = 8 << 20;
const BEFORE: usize = 64;
const AFTER: usize = 2048;

/// What a scan found, in file order.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// `(num, gen, offset)` of every `N G obj` header.
    pub objects: Vec<(u32, u16, u64)>,
    /// Dictionaries that follow `trailer`.
    pub trailers: Vec<Dict>,
    /// Objects whose header text mentions `/ObjStm`, `/XRef` or `/Catalog`.
    pub objstms: Vec<u32>,
    pub xrefs: Vec<u64>,
    pub catalogs: Vec<(u32, u16)>,
}

/// Scans the whole file.
pub(crate) fn scan(r: &Reader) -> Result<Scan> {
    let mut s = Scan::default();
    let len = r.len();
    let finder = memchr::memmem::Finder::new(b"obj");
    let trailer = memchr::memmem::Finder::new(b"trailer");
    let mut start = 0u64;
    let mut trailer_at = Vec::new();
    while start < len {
        let from = start.saturating_sub(BEFORE as u64);
        let lead = (start - from) as usize;
        let want = lead + CHUNK + AFTER;
        r.src_with(from, want, |b| {
            let own_end = (lead + CHUNK).min(b.len());
            for i in finder.find_iter(b) {
                if i < lead || i >= own_end {
                    continue;
                }
                if s.objects.len() as u64 > r.limits.max_objects {
                    break;
                }
                if let Some((num, generation, at)) = header_before(b, i)
                    && b.get(i + 3).is_none_or(|c| !is_regular(*c))
                {
                    let off = from + at as u64;
                    s.objects.push((num, generation, off));
                    let body = b
                        .get(i + 3..(i + 3 + AFTER).min(b.len()))
                        .unwrap_or_default();
                    let body = cut_at(body, b"endobj");
                    let body = cut_at(body, b"stream");
                    if has(body, b"/ObjStm") {
                        s.objstms.push(num);
                    }
                    if has(body, b"/XRef") {
                        s.xrefs.push(off);
                    }
                    if has(body, b"/Catalog") {
                        s.catalogs.push((num, generation));
                    }
                }
            }
            for i in trailer.find_iter(b) {
                if i >= lead && i < own_end {
                    trailer_at.push(from + i as u64 + 7);
                }
            }
        })?;
        if s.objects.len() as u64 > r.limits.max_objects {
            return Err(crate::error::Error::limit(format!(
                "repair scan found more than max_objects ({}) objects",
                r.limits.max_objects
            )));
        }
        start += CHUNK as u64;
    }
    for at in trailer_at {
        let depth = r.limits.max_nesting;
        let d = r.parse_at(at, 4096, r.limits.max_object_bytes, |b, complete| {
            let mut p = Parser::new(crate::lexer::Lexer::new(b, at, complete), depth);
            p.object()
        });
        if let Ok(Object::Dict(d)) = d {
            s.trailers.push(d);
        }
    }
    Ok(s)
}

fn has(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

fn cut_at<'a>(hay: &'a [u8], needle: &[u8]) -> &'a [u8] {
    match memchr::memmem::find(hay, needle) {
        Some(i) => hay.get(..i).unwrap_or_default(),
        None => hay,
    }
}

/// For `obj` at `i`, the `N G ` before it: (num, gen, offset of N).
fn header_before(b: &[u8], i: usize) -> Option<(u32, u16, usize)> {
    let mut j = i;
    let ws_end = j;
    while j > 0 && b.get(j - 1).is_some_and(|c| is_ws(*c)) {
        j -= 1;
    }
    if j == ws_end {
        return None;
    }
    let gen_end = j;
    while j > 0 && b.get(j - 1).is_some_and(u8::is_ascii_digit) {
        j -= 1;
    }
    let generation = digits(b.get(j..gen_end)?)?;
    let ws_end = j;
    while j > 0 && b.get(j - 1).is_some_and(|c| is_ws(*c)) {
        j -= 1;
    }
    if j == ws_end {
        return None;
    }
    let num_end = j;
    while j > 0 && b.get(j - 1).is_some_and(u8::is_ascii_digit) {
        j -= 1;
    }
    let num = digits(b.get(j..num_end)?)?;
    if j > 0 && b.get(j - 1).is_some_and(|c| is_regular(*c)) {
        return None;
    }
    Some((u32::try_from(num).ok()?, u16::try_from(generation).ok()?, j))
}

fn digits(d: &[u8]) -> Option<u64> {
    if d.is_empty() || d.len() > 10 {
        return None;
    }
    std::str::from_utf8(d).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        let b = b"x\n12 0 obj<<>>endobj 3 1 obj";
        let i = memchr::memmem::find(b, b"obj").unwrap();
        assert_eq!(header_before(b, i), Some((12, 0, 2)));
        assert_eq!(header_before(b"a12 0 obj", 6), None);
        assert_eq!(header_before(b"12 0obj", 4), None);
    }
}
