//! Parsers for the small XLSX parts (relationships, workbook, styles,
//! comments, tables, drawings, charts and the non-cell parts of a sheet),
//! built on quick-xml, plus the guarded reader they share.
//!
//! Every parser matches elements by local name (prefixes vary), rejects any
//! DTD (so no entity is ever expanded), limits element nesting and reports
//! XML errors as [`Error::malformed`] with the part name and byte offset.

pub(crate) mod comments;
pub(crate) mod drawings;
pub(crate) mod rels;
pub(crate) mod sheet_extras;
pub(crate) mod styles;
pub(crate) mod tables;
pub(crate) mod workbook_xml;

use crate::error::{Error, Result};
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;
use std::borrow::Cow;

/// Nesting depth callers pass when they have no configured limit.
pub(crate) const DEFAULT_MAX_DEPTH: u32 = 256;

/// A quick-xml reader over `xml` configured for the small parts: no text
/// trimming (parsers only collect text inside leaf elements, where spaces
/// matter), end names checked, empty elements kept as `Empty` events.
pub(crate) fn new_reader(xml: &[u8]) -> Reader<&[u8]> {
    let mut reader = Reader::from_reader(xml);
    let config = reader.config_mut();
    config.trim_text(false);
    config.expand_empty_elements = false;
    config.check_end_names = true;
    reader
}

/// A guarded event reader: DTD rejection, depth limit, error mapping.
pub(crate) struct PartReader<'a> {
    reader: Reader<&'a [u8]>,
    part: &'a str,
    depth: u32,
    max_depth: u32,
    fragment: bool,
}

impl<'a> PartReader<'a> {
    /// A reader for a whole, well-formed part.
    pub(crate) fn new(xml: &'a [u8], part: &'a str, max_depth: u32) -> Self {
        PartReader {
            reader: new_reader(xml),
            part,
            depth: 0,
            max_depth,
            fragment: false,
        }
    }

    /// A reader for a fragment of a part: unmatched or mismatched end tags
    /// and unclosed elements are tolerated (depth never goes below zero).
    pub(crate) fn fragment(xml: &'a [u8], part: &'a str, max_depth: u32) -> Self {
        let mut reader = new_reader(xml);
        let config = reader.config_mut();
        config.check_end_names = false;
        config.allow_unmatched_ends = true;
        PartReader {
            reader,
            part,
            depth: 0,
            max_depth,
            fragment: true,
        }
    }

    /// Nesting depth after the last event (an element's own depth right
    /// after its `Start`; `Empty` elements do not change it).
    pub(crate) fn depth(&self) -> u32 {
        self.depth
    }

    /// A malformed-part error at the current position.
    pub(crate) fn error(&self, message: impl Into<String>) -> Error {
        Error::malformed(message)
            .in_part(self.part)
            .at_offset(self.reader.buffer_position())
    }

    /// The next event, after the guards.
    pub(crate) fn next(&mut self) -> Result<Event<'a>> {
        let event = self.reader.read_event().map_err(|e| {
            Error::malformed(format!("XML: {e}"))
                .in_part(self.part)
                .at_offset(self.reader.error_position())
        })?;
        match &event {
            Event::DocType(_) => {
                return Err(self.error("DTD/entity declarations are not allowed"));
            }
            Event::Start(_) => {
                self.depth = self.depth.saturating_add(1);
                self.check_depth(self.depth)?;
            }
            Event::Empty(_) => self.check_depth(self.depth.saturating_add(1))?,
            Event::End(_) => self.depth = self.depth.saturating_sub(1),
            Event::Eof if !self.fragment && self.depth > 0 => {
                return Err(self.error("unexpected end of part inside an element"));
            }
            _ => {}
        }
        Ok(event)
    }

    fn check_depth(&self, depth: u32) -> Result<()> {
        if depth > self.max_depth {
            return Err(Error::limit(format!(
                "XML elements nested deeper than {}",
                self.max_depth
            ))
            .in_part(self.part)
            .at_offset(self.reader.buffer_position()));
        }
        Ok(())
    }

    /// Appends the character data of a `Text`, `CData` or `GeneralRef`
    /// event to `out` (line ends normalised, only the five predefined
    /// entities and character references resolved). Other events add nothing.
    pub(crate) fn push_text(&self, event: &Event<'_>, out: &mut String) -> Result<()> {
        match event {
            Event::Text(t) => out.push_str(&t.xml10_content()),
            Event::CData(t) => out.push_str(&t.xml10_content()),
            Event::GeneralRef(r) => match r.resolve_char_ref() {
                Ok(Some(c)) => out.push(c),
                Ok(None) => match quick_xml::escape::resolve_predefined_entity(r) {
                    Some(s) => out.push_str(s),
                    None => return Err(self.error(format!("undefined entity &{};", &**r))),
                },
                Err(e) => return Err(self.error(format!("bad character reference: {e}"))),
            },
            _ => {}
        }
        Ok(())
    }

    /// The normalised value of the attribute whose local name is `local`
    /// (namespace declarations ignored).
    pub(crate) fn attr(&self, e: &BytesStart<'_>, local: &str) -> Result<Option<String>> {
        self.find_attr(e, |key| key_local(key) == local)
    }

    /// The relationship id of an element: a prefixed `*:id` attribute
    /// (normally `r:id`), else a plain `id`.
    pub(crate) fn rel_id(&self, e: &BytesStart<'_>) -> Result<Option<String>> {
        match self.find_attr(e, |key| key.contains(':') && key_local(key) == "id")? {
            Some(v) => Ok(Some(v)),
            None => self.find_attr(e, |key| key == "id"),
        }
    }

    fn find_attr(&self, e: &BytesStart<'_>, want: impl Fn(&str) -> bool) -> Result<Option<String>> {
        for a in e.attributes() {
            let a = a.map_err(|err| self.error(format!("XML attribute: {err}")))?;
            let key = a.key.0;
            if key.starts_with("xmlns") || !want(key) {
                continue;
            }
            let value = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|err| self.error(format!("XML attribute value: {err}")))?;
            return Ok(Some(value.into_owned()));
        }
        Ok(None)
    }
}

fn key_local(key: &str) -> &str {
    key.rsplit_once(':').map_or(key, |(_, l)| l)
}

/// The local name of a start or empty element (`x:row` -> `row`).
pub(crate) fn local<'e>(e: &'e BytesStart<'_>) -> &'e str {
    key_local(e.name().0)
}

/// True for `"1"` and `"true"` (XML Schema boolean true).
pub(crate) fn xml_bool(v: Option<&str>) -> bool {
    matches!(v.map(str::trim), Some("1" | "true"))
}

/// Decodes the `_xHHHH_` escapes of OOXML strings (ST_Xstring): `_x000D_`
/// becomes `'\r'`, `_x005F_` an underscore (so `_x005F_x000D_` reads
/// `_x000D_`); surrogate pairs are joined; anything invalid stays as written.
pub(crate) fn decode_xhhhh(s: &str) -> Cow<'_, str> {
    if !s.contains("_x") {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find("_x") {
        let (before, at) = rest.split_at(pos);
        out.push_str(before);
        match escape_unit(at) {
            Some(hi @ 0xD800..=0xDBFF) => {
                let low = at.get(7..).and_then(escape_unit);
                match low.filter(|l| (0xDC00..=0xDFFF).contains(l)) {
                    Some(lo) => {
                        let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        match char::from_u32(c) {
                            Some(ch) => out.push(ch),
                            None => out.push_str(at.get(..14).unwrap_or(at)),
                        }
                        rest = at.get(14..).unwrap_or("");
                    }
                    None => {
                        out.push_str(at.get(..7).unwrap_or(at));
                        rest = at.get(7..).unwrap_or("");
                    }
                }
            }
            Some(unit) => {
                match char::from_u32(unit) {
                    Some(ch) => out.push(ch),
                    None => out.push_str(at.get(..7).unwrap_or(at)),
                }
                rest = at.get(7..).unwrap_or("");
            }
            None => {
                out.push_str("_x");
                rest = at.get(2..).unwrap_or("");
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The UTF-16 unit of an `_xHHHH_` escape at the start of `s`.
fn escape_unit(s: &str) -> Option<u32> {
    let b = s.as_bytes();
    if b.get(..2) != Some(b"_x") || b.get(6) != Some(&b'_') {
        return None;
    }
    let hex = s.get(2..6)?;
    if !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn drain(xml: &str, max_depth: u32) -> Result<u32> {
        let mut r = PartReader::new(xml.as_bytes(), "p.xml", max_depth);
        let mut n = 0;
        loop {
            if let Event::Eof = r.next()? {
                return Ok(n);
            }
            n += 1;
        }
    }

    #[test]
    fn rejects_doctype() {
        let xml = r#"<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "bbbb">]><x>&a;</x>"#;
        let e = drain(xml, 256).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Malformed);
        assert_eq!(e.message(), "DTD/entity declarations are not allowed");
        assert_eq!(e.part(), Some("p.xml"));
    }

    #[test]
    fn undefined_entity_is_an_error() {
        let xml = "<t>a &amp; &#x41;&#66; &foo;</t>";
        let mut r = PartReader::new(xml.as_bytes(), "p.xml", 8);
        let mut out = String::new();
        let err = loop {
            match r.next() {
                Ok(Event::Eof) => panic!("no error"),
                Ok(ev) => {
                    if let Err(e) = r.push_text(&ev, &mut out) {
                        break e;
                    }
                }
                Err(e) => break e,
            }
        };
        assert_eq!(out, "a & AB ");
        assert!(err.message().contains("foo"));
    }

    #[test]
    fn depth_limit() {
        let ok = "<a><b><c/></b></a>";
        assert!(drain(ok, 3).is_ok());
        let e = drain(ok, 2).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
        let deep = "<a>".repeat(300);
        assert_eq!(
            drain(&deep, 256).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
    }

    #[test]
    fn garbage_and_truncation() {
        for xml in ["<a><b></a>", "<a x=\"1>", "<a>", "<a></a></a>", "\u{0}<<>>"] {
            let e = drain(xml, 256).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Malformed, "{xml}");
            assert!(e.offset().is_some());
        }
        let mut r = PartReader::new(b"<a>\xff\xfe</a>", "p", 8);
        assert!((0..5).any(|_| r.next().is_err()));
        assert_eq!(drain("", 8).unwrap(), 0);
        assert_eq!(drain("\u{feff}<a/>", 8).unwrap(), 1);
    }

    #[test]
    fn fragments_tolerate_unbalanced_tags() {
        let mut r = PartReader::fragment(b"</x:sheetData><a></b></worksheet>", "p", 4);
        while !matches!(r.next().unwrap(), Event::Eof) {}
        assert_eq!(r.depth(), 0);
    }

    #[test]
    fn attributes_by_local_name() {
        let xml = r#"<x:sheet xmlns:x="u" xmlns:r="v" name="A&amp;B" id="plain" r:id="rId1"/>"#;
        let mut r = PartReader::new(xml.as_bytes(), "p", 8);
        let Event::Empty(e) = r.next().unwrap() else {
            panic!()
        };
        assert_eq!(local(&e), "sheet");
        assert_eq!(r.attr(&e, "name").unwrap().as_deref(), Some("A&B"));
        assert_eq!(r.rel_id(&e).unwrap().as_deref(), Some("rId1"));
        assert_eq!(r.attr(&e, "missing").unwrap(), None);
    }

    #[test]
    fn xhhhh_escapes() {
        assert_eq!(decode_xhhhh("a_x000D_b"), "a\rb");
        assert_eq!(decode_xhhhh("_x005F_x000D_"), "_x000D_");
        assert_eq!(decode_xhhhh("_x000a__x0041_"), "\nA");
        assert_eq!(decode_xhhhh("_xD83D__xDE00_"), "\u{1F600}");
        assert_eq!(decode_xhhhh("_xD83D_x"), "_xD83D_x");
        for s in [
            "_x",
            "_x00",
            "_x00G1_",
            "_x0041",
            "x_x_",
            "plain",
            "_x_x0041_",
        ] {
            let want = if s == "_x_x0041_" { "_xA" } else { s };
            assert_eq!(decode_xhhhh(s), want);
        }
        assert!(matches!(decode_xhhhh("plain"), Cow::Borrowed(_)));
    }
}
