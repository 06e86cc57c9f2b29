//! Shared strings: one byte arena plus offsets, parsed once per workbook.

/// The workbook's shared-string table, read-only after phase A.
#[derive(Debug, Default)]
pub(crate) struct SharedStrings {
    pub(crate) arena: String,
    /// `ends[i]` is the end offset of string i in `arena`; string i starts at
    /// `ends[i - 1]` (or 0).
    pub(crate) ends: Vec<u32>,
}

impl SharedStrings {
    /// Number of strings.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }
    /// String `i`, if it exists.
    pub(crate) fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = match i.checked_sub(1) {
            Some(p) => *self.ends.get(p)? as usize,
            None => 0,
        };
        self.arena.get(start..end)
    }
}

use crate::error::{Error, Result};
use crate::options::Limits;
use ream_xml::{TagKind, next_tag};

/// Parses `xl/sharedStrings.xml` into one arena. Rich text runs are
/// flattened, phonetic runs skipped, entities and `_xHHHH_` escapes decoded.
/// Allocations: O(log n) for the arena and offsets, none per string.
pub(crate) fn parse_shared_strings(
    xml: &[u8],
    part: &str,
    limits: &Limits,
) -> Result<SharedStrings> {
    let mut arena: Vec<u8> = Vec::with_capacity(xml.len() / 2);
    let mut ends: Vec<u32> = Vec::new();
    let mut pos = 0;
    let here = |e: ream_xml::XmlError| {
        Error::malformed(e.message.to_string())
            .in_part(part)
            .at_offset(e.offset as u64)
    };
    while let Some(tag) = next_tag(xml, pos).map_err(here)? {
        pos = tag.end;
        if tag.name != b"si" {
            continue;
        }
        let off = arena.len();
        if tag.kind == TagKind::Start {
            pos = crate::cell_text::collect_runs(xml, pos, b"si", &mut arena, limits.max_xml_depth)
                .map_err(here)?;
            crate::cell_text::finish_text(&mut arena, off, limits.max_string_chars)
                .map_err(|e| e.in_part(part).at_offset(tag.start as u64))?;
        } else if tag.kind != TagKind::Empty {
            continue;
        }
        let end = u32::try_from(arena.len())
            .map_err(|_| Error::limit("shared strings exceed 4 GiB").in_part(part))?;
        ends.push(end);
    }
    arena.shrink_to_fit();
    let arena = String::from_utf8(arena)
        .map_err(|_| Error::malformed("invalid UTF-8 in shared strings").in_part(part))?;
    Ok(SharedStrings { arena, ends })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_plain_rich_and_phonetic() {
        let xml = br#"<?xml version="1.0"?><sst xmlns="x" count="4" uniqueCount="4"><si><t>a&amp;b</t></si><si><r><rPr><b/></rPr><t xml:space="preserve">Hello </t></r><r><t>World</t></r></si><si/><si><t>kanji</t><rPh sb="0" eb="1"><t>KANA</t></rPh></si><si><t>x_x000D_y</t></si></sst>"#;
        let s = parse_shared_strings(xml, "xl/sharedStrings.xml", &Limits::default()).unwrap();
        let all: Vec<_> = (0..s.len()).map(|i| s.get(i).unwrap()).collect();
        assert_eq!(all, vec!["a&b", "Hello World", "", "kanji", "x\ry"]);
        assert_eq!(s.get(5), None);
    }

    #[test]
    fn errors_name_the_part() {
        let e = parse_shared_strings(
            b"<sst><si><t>open",
            "xl/sharedStrings.xml",
            &Limits::default(),
        )
        .unwrap_err();
        assert_eq!(e.part(), Some("xl/sharedStrings.xml"));
        let e = parse_shared_strings(b"<sst><si><t>&bad;</t></si></sst>", "p", &Limits::default())
            .unwrap_err();
        assert!(e.to_string().contains("entity"), "{e}");
        let e = parse_shared_strings(b"<sst><si><t>\xff</t></si></sst>", "p", &Limits::default())
            .unwrap_err();
        assert!(e.to_string().contains("UTF-8"), "{e}");
    }
}
