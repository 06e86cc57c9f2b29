//! Tag scanning.

use crate::{XmlError, err, truncated};
use memchr::{memchr, memchr3, memmem};

/// What kind of markup a [`Tag`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagKind {
    /// `<name ...>`
    Start,
    /// `</name>`
    End,
    /// `<name .../>`
    Empty,
    /// `<![CDATA[...]]>`: `attrs` holds the character data.
    CData,
    /// A comment, processing instruction or XML declaration (skipped).
    Other,
}

/// One piece of markup found by [`next_tag`], borrowing the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tag<'a> {
    /// Local name (prefix stripped); empty for `Other`/`CData`.
    pub name: &'a [u8],
    /// What kind of markup.
    pub kind: TagKind,
    /// The raw attribute bytes between the name and `>` / `/>`.
    pub attrs: &'a [u8],
    /// Offset of the `<`.
    pub start: usize,
    /// Offset just past the closing `>`.
    pub end: usize,
}

impl<'a> Tag<'a> {
    /// Iterates the attributes of this tag.
    pub fn attributes(&self) -> Attrs<'a> {
        Attrs {
            inner: self.qualified_attributes(),
        }
    }
    /// Iterates the attributes of this tag with their prefixes.
    pub fn qualified_attributes(&self) -> QualifiedAttrs<'a> {
        QualifiedAttrs {
            buf: self.attrs,
            pos: 0,
        }
    }
}

/// Strips a namespace prefix: `x:row` -> `row`.
#[inline]
pub fn local_name(name: &[u8]) -> &[u8] {
    match memchr(b':', name) {
        Some(i) => name.get(i + 1..).unwrap_or_default(),
        None => name,
    }
}

#[inline]
fn is_name_end(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'/' | b'>')
}

/// Finds the `>` closing a tag whose attributes start at `from`, skipping
/// quoted attribute values (which may contain `>`); `None` when the tag
/// is not closed in `buf`.
#[inline]
pub fn find_tag_end(buf: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    loop {
        let rest = buf.get(i..)?;
        let j = memchr3(b'>', b'"', b'\'', rest)?;
        let at = i + j;
        match buf.get(at)? {
            b'>' => return Some(at),
            q => {
                let close = memchr(*q, buf.get(at + 1..)?)?;
                i = at + 1 + close + 1;
            }
        }
    }
}

/// Finds the next piece of markup at or after `from`.
///
/// Returns `Ok(None)` when there is no further `<`, and an error for a tag
/// that is not closed before the end of `buf` (the caller decides whether
/// that means truncation or "feed more bytes") or for a DTD.
pub fn next_tag(buf: &[u8], from: usize) -> Result<Option<Tag<'_>>, XmlError> {
    let Some(rel) = buf.get(from..).and_then(|r| memchr(b'<', r)) else {
        return Ok(None);
    };
    let start = from + rel;
    let after = buf.get(start + 1..).unwrap_or_default();
    match after.first() {
        Some(b'/') => {
            let name_start = start + 2;
            let gt = memchr(b'>', buf.get(name_start..).unwrap_or_default())
                .ok_or(truncated(start, "unclosed end tag"))?;
            let raw = buf.get(name_start..name_start + gt).unwrap_or_default();
            let raw = crate::text::trim_xml_ws(raw);
            Ok(Some(Tag {
                name: local_name(raw),
                kind: TagKind::End,
                attrs: &[],
                start,
                end: name_start + gt + 1,
            }))
        }
        Some(b'?') => {
            let close = memmem::find(after, b"?>")
                .ok_or(truncated(start, "unclosed processing instruction"))?;
            Ok(Some(Tag {
                name: &[],
                kind: TagKind::Other,
                attrs: &[],
                start,
                end: start + 1 + close + 2,
            }))
        }
        Some(b'!') => {
            if after.starts_with(b"!--") {
                let close = memmem::find(after.get(3..).unwrap_or_default(), b"-->")
                    .ok_or(truncated(start, "unclosed comment"))?;
                Ok(Some(Tag {
                    name: &[],
                    kind: TagKind::Other,
                    attrs: &[],
                    start,
                    end: start + 1 + 3 + close + 3,
                }))
            } else if after.starts_with(b"![CDATA[") {
                let body = after.get(8..).unwrap_or_default();
                let close =
                    memmem::find(body, b"]]>").ok_or(truncated(start, "unclosed CDATA section"))?;
                Ok(Some(Tag {
                    name: &[],
                    kind: TagKind::CData,
                    attrs: body.get(..close).unwrap_or_default(),
                    start,
                    end: start + 9 + close + 3,
                }))
            } else if b"!--".starts_with(after) || b"![CDATA[".starts_with(after) {
                // The bytes end inside `<!--` or `<![CDATA[`: more may come
                // (a comment cut at a block boundary is not a DTD).
                Err(truncated(start, "unclosed comment or CDATA section"))
            } else {
                Err(err(start, "DTD/entity declarations are not allowed"))
            }
        }
        Some(_) => {
            let name_start = start + 1;
            let mut name_end = name_start;
            while let Some(&b) = buf.get(name_end) {
                if is_name_end(b) {
                    break;
                }
                name_end += 1;
            }
            if name_end == name_start {
                return Err(err(start, "empty element name"));
            }
            let gt = find_tag_end(buf, name_end).ok_or(truncated(start, "unclosed start tag"))?;
            let empty = gt > name_end && buf.get(gt - 1) == Some(&b'/');
            let attrs_end = if empty { gt - 1 } else { gt };
            Ok(Some(Tag {
                name: local_name(buf.get(name_start..name_end).unwrap_or_default()),
                kind: if empty {
                    TagKind::Empty
                } else {
                    TagKind::Start
                },
                attrs: buf.get(name_end..attrs_end).unwrap_or_default(),
                start,
                end: gt + 1,
            }))
        }
        None => Err(truncated(start, "truncated markup")),
    }
}

/// Skips the element whose start tag ended at `from` (its content and end
/// tag), returning the offset past its end tag. Nesting is tracked up to
/// `max_depth` levels.
pub fn skip_element(buf: &[u8], from: usize, max_depth: u32) -> Result<usize, XmlError> {
    let mut depth: u32 = 1;
    let mut pos = from;
    while let Some(tag) = next_tag(buf, pos)? {
        pos = tag.end;
        match tag.kind {
            TagKind::Start => {
                depth += 1;
                if depth > max_depth {
                    return Err(err(tag.start, "XML nesting too deep"));
                }
            }
            TagKind::End => {
                depth -= 1;
                if depth == 0 {
                    return Ok(pos);
                }
            }
            _ => {}
        }
    }
    Err(truncated(
        buf.len(),
        "element not closed before end of input",
    ))
}

/// Iterator over `(local name, raw value)` attribute pairs. Values are the
/// bytes between the quotes, still escaped. Malformed attribute text ends
/// the iteration.
#[derive(Debug, Clone)]
pub struct Attrs<'a> {
    inner: QualifiedAttrs<'a>,
}

impl<'a> Iterator for Attrs<'a> {
    type Item = (&'a [u8], &'a [u8]);
    #[inline]
    fn next(&mut self) -> Option<(&'a [u8], &'a [u8])> {
        self.inner
            .next()
            .map(|(name, value)| (local_name(name), value))
    }
}

/// Iterator over `(qualified name, raw value)` attribute pairs, prefixes
/// kept (`office:value-type` and `calcext:value-type` stay apart). Values are
/// still escaped. Malformed attribute text ends the iteration.
#[derive(Debug, Clone)]
pub struct QualifiedAttrs<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for QualifiedAttrs<'a> {
    type Item = (&'a [u8], &'a [u8]);
    #[inline]
    fn next(&mut self) -> Option<(&'a [u8], &'a [u8])> {
        let buf = self.buf;
        let mut i = self.pos;
        while matches!(buf.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            i += 1;
        }
        let name_start = i;
        let eq = memchr(b'=', buf.get(i..)?)? + i;
        let name = crate::text::trim_xml_ws(buf.get(name_start..eq)?);
        i = eq + 1;
        while matches!(buf.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            i += 1;
        }
        let q = *buf.get(i)?;
        if q != b'"' && q != b'\'' {
            return None;
        }
        let close = memchr(q, buf.get(i + 1..)?)? + i + 1;
        let value = buf.get(i + 1..close)?;
        self.pos = close + 1;
        Some((name, value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(xml: &[u8]) -> Vec<(TagKind, String)> {
        let mut out = Vec::new();
        let mut pos = 0;
        while let Some(t) = next_tag(xml, pos).unwrap() {
            out.push((t.kind, String::from_utf8_lossy(t.name).into_owned()));
            pos = t.end;
        }
        out
    }

    #[test]
    fn walks_tags_with_prefixes_and_quotes() {
        let xml = br#"<?xml version="1.0"?><x:row r="1" a='x>y'><!-- c --><c r="A1"/></x:row >"#;
        assert_eq!(
            tags(xml),
            vec![
                (TagKind::Other, String::new()),
                (TagKind::Start, "row".into()),
                (TagKind::Other, String::new()),
                (TagKind::Empty, "c".into()),
                (TagKind::End, "row".into()),
            ]
        );
    }

    #[test]
    fn attributes() {
        let xml = br#"<c r="B2" s = '3' x:t="s"/>"#;
        let t = next_tag(xml, 0).unwrap().unwrap();
        let a: Vec<_> = t.attributes().collect();
        assert_eq!(
            a,
            vec![
                (&b"r"[..], &b"B2"[..]),
                (&b"s"[..], &b"3"[..]),
                (&b"t"[..], &b"s"[..])
            ]
        );
    }

    #[test]
    fn rejects_dtd_and_truncation() {
        assert!(next_tag(b"<!DOCTYPE x [<!ENTITY a 'b'>]>", 0).is_err());
        assert!(next_tag(b"<c r=\"A1", 0).is_err());
        assert!(next_tag(b"<", 0).is_err());
        assert!(next_tag(b"<!-- x", 0).is_err());
        assert_eq!(next_tag(b"no tags", 0).unwrap(), None);
    }

    #[test]
    fn comment_or_cdata_cut_short_is_truncated_not_a_dtd() {
        for cut in [&b"<!"[..], b"<!-", b"<![", b"<![CDATA"] {
            let e = next_tag(cut, 0).unwrap_err();
            assert!(e.truncated, "{cut:?}: {e}");
        }
        let e = next_tag(b"<!DOC", 0).unwrap_err();
        assert!(!e.truncated, "{e}");
    }

    #[test]
    fn cdata_and_skip() {
        let xml = b"<a><![CDATA[x<y]]></a>";
        let t = next_tag(xml, 3).unwrap().unwrap();
        assert_eq!(t.kind, TagKind::CData);
        assert_eq!(t.attrs, b"x<y");
        let s = b"<a><b><c/></b></a>tail";
        assert_eq!(skip_element(s, 3, 10).unwrap(), 18);
        assert!(skip_element(b"<a><b><b><b>", 3, 2).is_err());
    }
}
