//! Package relationships (`_rels/*.rels`).

use super::{DEFAULT_MAX_DEPTH, PartReader, local};
use crate::error::Result;
use quick_xml::events::Event;

/// One `<Relationship>` of a rels part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Relationship {
    /// The `Id` (`rId3`).
    pub id: String,
    /// The full `Type` URI.
    pub rel_type: String,
    /// Absolute part name without a leading `/` for internal targets; the
    /// `Target` verbatim when `external`.
    pub target: String,
    /// True for `TargetMode="External"` (URLs, files outside the package).
    pub external: bool,
}

/// Parses a rels part, resolving internal targets against the folder of the
/// part the rels belong to. Entries without `Id` or `Target` are skipped.
pub(crate) fn parse_rels(xml: &[u8], rels_part: &str) -> Result<Vec<Relationship>> {
    let base = source_folder(rels_part);
    let mut r = PartReader::new(xml, rels_part, DEFAULT_MAX_DEPTH);
    let mut out = Vec::new();
    loop {
        match r.next()? {
            Event::Start(e) | Event::Empty(e) if local(&e) == "Relationship" => {
                let (Some(id), Some(target)) = (r.attr(&e, "Id")?, r.attr(&e, "Target")?) else {
                    continue;
                };
                let rel_type = r.attr(&e, "Type")?.unwrap_or_default();
                let external = r
                    .attr(&e, "TargetMode")?
                    .is_some_and(|m| m.eq_ignore_ascii_case("external"));
                let target = if external {
                    target
                } else {
                    resolve(base, &target)
                };
                out.push(Relationship {
                    id,
                    rel_type,
                    target,
                    external,
                });
            }
            Event::Eof => return Ok(out),
            _ => {}
        }
    }
}

/// The rels part of `part`: `xl/workbook.xml` -> `xl/_rels/workbook.xml.rels`,
/// `""` (the package) -> `_rels/.rels`.
pub(crate) fn rels_part_for(part: &str) -> String {
    let part = part.trim_start_matches('/');
    match part.rsplit_once('/') {
        Some((dir, file)) => format!("{dir}/_rels/{file}.rels"),
        None => format!("_rels/{part}.rels"),
    }
}

/// True when the last path segment of the relationship type is `short`
/// (`worksheet`, `sharedStrings`, `comments`, ...), so transitional,
/// strict and Microsoft extension namespaces all match.
pub(crate) fn type_is(rel: &Relationship, short: &str) -> bool {
    rel.rel_type.rsplit('/').next() == Some(short)
}

/// Folder (with trailing `/`, or empty) of the part a rels part describes:
/// `xl/worksheets/_rels/sheet1.xml.rels` -> `xl/worksheets/`.
fn source_folder(rels_part: &str) -> &str {
    let p = rels_part.trim_start_matches('/');
    let dir = p.rsplit_once('/').map_or("", |(d, _)| d);
    let dir = if dir == "_rels" {
        ""
    } else {
        dir.strip_suffix("/_rels").unwrap_or(dir)
    };
    if dir.is_empty() {
        ""
    } else {
        p.get(..=dir.len()).unwrap_or("")
    }
}

/// Joins `target` to `base` and removes `.`/`..` segments (never climbing
/// above the package root). Backslashes count as separators; a fragment or
/// query is dropped.
fn resolve(base: &str, target: &str) -> String {
    let target = target.split(['#', '?']).next().unwrap_or("");
    let target = target.replace('\\', "/");
    let joined = match target.strip_prefix('/') {
        Some(abs) => abs.to_string(),
        None => format!("{base}{target}"),
    };
    let mut segs: Vec<&str> = Vec::new();
    for seg in joined.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                segs.pop();
            }
            s => segs.push(s),
        }
    }
    segs.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn resolves_relative_to_the_source_part() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/drawing" Target="../drawings/drawing1.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com/a?b=1&amp;c=2" TargetMode="External"/>
<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/table" Target="/xl/tables/table1.xml"/>
<Relationship Id="rId4" Type="x/comments" Target="..\..\..\comments1.xml"/>
<Relationship Type="x/bad" Target="no-id.xml"/>
</Relationships>"#;
        let rels = parse_rels(xml.as_bytes(), "xl/worksheets/_rels/sheet1.xml.rels").unwrap();
        assert_eq!(rels.len(), 4);
        assert_eq!(rels[0].target, "xl/drawings/drawing1.xml");
        assert!(type_is(&rels[0], "drawing"));
        assert!(!type_is(&rels[0], "vmlDrawing"));
        assert_eq!(rels[1].target, "https://example.com/a?b=1&c=2");
        assert!(rels[1].external);
        assert_eq!(rels[2].target, "xl/tables/table1.xml");
        assert_eq!(rels[3].target, "comments1.xml");
    }

    #[test]
    fn strict_namespace_and_prefixes() {
        let xml = r#"<p:Relationships xmlns:p="http://schemas.openxmlformats.org/package/2006/relationships">
<p:Relationship Id="rId1" Type="http://purl.oclc.org/ooxml/officeDocument/relationships/worksheet" Target="worksheets/sheet1.xml"/>
<p:Relationship Id="rId2" Type="http://purl.oclc.org/ooxml/officeDocument/relationships/sharedStrings" Target="./sharedStrings.xml"/>
</p:Relationships>"#;
        let rels = parse_rels(xml.as_bytes(), "xl/_rels/workbook.xml.rels").unwrap();
        assert!(type_is(&rels[0], "worksheet"));
        assert_eq!(rels[0].target, "xl/worksheets/sheet1.xml");
        assert!(type_is(&rels[1], "sharedStrings"));
        assert_eq!(rels[1].target, "xl/sharedStrings.xml");
        assert!(!rels[1].external);
    }

    #[test]
    fn package_rels() {
        let xml = r#"<Relationships><Relationship Id="rId1" Type="t/officeDocument" Target="xl/workbook.xml"/></Relationships>"#;
        let rels = parse_rels(xml.as_bytes(), "_rels/.rels").unwrap();
        assert_eq!(rels[0].target, "xl/workbook.xml");
    }

    #[test]
    fn rels_part_names() {
        assert_eq!(
            rels_part_for("xl/worksheets/sheet1.xml"),
            "xl/worksheets/_rels/sheet1.xml.rels"
        );
        assert_eq!(
            rels_part_for("/xl/workbook.xml"),
            "xl/_rels/workbook.xml.rels"
        );
        assert_eq!(rels_part_for(""), "_rels/.rels");
        assert_eq!(
            source_folder("xl/worksheets/_rels/sheet1.xml.rels"),
            "xl/worksheets/"
        );
        assert_eq!(source_folder("_rels/.rels"), "");
    }

    #[test]
    fn empty_garbage_and_dtd() {
        assert!(parse_rels(b"", "_rels/.rels").unwrap().is_empty());
        assert!(
            parse_rels(b"<Relationships/>", "_rels/.rels")
                .unwrap()
                .is_empty()
        );
        assert!(parse_rels(b"<Relationships><Relationship Id=", "r").is_err());
        let dtd = br#"<!DOCTYPE r [<!ENTITY x "y">]><Relationships/>"#;
        assert_eq!(
            parse_rels(dtd, "r").unwrap_err().kind(),
            ErrorKind::Malformed
        );
    }
}
