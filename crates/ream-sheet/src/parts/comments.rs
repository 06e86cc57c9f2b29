//! Legacy comments (`xl/commentsN.xml`), threaded comments and persons.

use super::{PartReader, decode_xhhhh, local};
use crate::error::Result;
use crate::model::Comment;
use crate::refs::parse_a1;
use quick_xml::events::Event;
use std::collections::HashMap;

/// Parses a legacy comments part. Rich runs are flattened, phonetic runs
/// (`<rPh>`) skipped; comments with an unparseable `ref` are skipped.
pub(crate) fn parse_comments(xml: &[u8], part: &str, max_depth: u32) -> Result<Vec<Comment>> {
    let mut r = PartReader::new(xml, part, max_depth);
    let mut authors: Vec<String> = Vec::new();
    let mut out = Vec::new();
    // The comment being read: cell and author index.
    let mut current: Option<((u32, u32), Option<usize>)> = None;
    let mut text = String::new();
    let mut author: Option<String> = None;
    let mut in_t = false;
    let mut in_phonetic = 0u32;
    loop {
        let event = r.next()?;
        match &event {
            Event::Start(e) => match local(e) {
                "author" => author = Some(String::new()),
                "comment" => {
                    let cell = r.attr(e, "ref")?.and_then(|v| parse_a1(v.as_bytes()));
                    let id = r.attr(e, "authorId")?.and_then(|v| v.trim().parse().ok());
                    current = cell.map(|c| (c, id));
                    text.clear();
                }
                "rPh" => in_phonetic += 1,
                "t" => in_t = true,
                _ => {}
            },
            Event::Empty(e) if local(e) == "author" => authors.push(String::new()),
            Event::End(e) => match e.local_name().into_inner() {
                "author" => authors.push(decode_xhhhh(&author.take().unwrap_or_default()).into()),
                "comment" => {
                    if let Some(((row, col), id)) = current.take() {
                        let name = id.and_then(|i| authors.get(i)).cloned().unwrap_or_default();
                        out.push(Comment {
                            row,
                            col,
                            author: name,
                            text: decode_xhhhh(&text).into_owned(),
                        });
                    }
                }
                "rPh" => in_phonetic = in_phonetic.saturating_sub(1),
                "t" => in_t = false,
                _ => {}
            },
            Event::Eof => return Ok(out),
            other => {
                if let Some(a) = author.as_mut() {
                    r.push_text(other, a)?;
                } else if in_t && in_phonetic == 0 && current.is_some() {
                    r.push_text(other, &mut text)?;
                }
            }
        }
    }
}

/// Parses `xl/persons/person.xml` into person id -> display name.
pub(crate) fn parse_persons(
    xml: &[u8],
    part: &str,
    max_depth: u32,
) -> Result<HashMap<String, String>> {
    let mut r = PartReader::new(xml, part, max_depth);
    let mut out = HashMap::new();
    loop {
        match r.next()? {
            Event::Start(e) | Event::Empty(e) if local(&e) == "person" => {
                if let Some(id) = r.attr(&e, "id")? {
                    out.insert(id, r.attr(&e, "displayName")?.unwrap_or_default());
                }
            }
            Event::Eof => return Ok(out),
            _ => {}
        }
    }
}

/// Parses a threaded comments part; every comment and reply becomes one
/// [`Comment`] in document order, the author looked up in `persons`.
pub(crate) fn parse_threaded_comments(
    xml: &[u8],
    part: &str,
    persons: &HashMap<String, String>,
    max_depth: u32,
) -> Result<Vec<Comment>> {
    let mut r = PartReader::new(xml, part, max_depth);
    let mut out = Vec::new();
    let mut current: Option<(u32, u32, String)> = None;
    let mut text: Option<String> = None;
    loop {
        let event = r.next()?;
        match &event {
            Event::Start(e) | Event::Empty(e) => match local(e) {
                "threadedComment" => {
                    let cell = r.attr(e, "ref")?.and_then(|v| parse_a1(v.as_bytes()));
                    let person = r.attr(e, "personId")?;
                    let author = person.and_then(|p| persons.get(&p).cloned());
                    current = cell.map(|(row, col)| (row, col, author.unwrap_or_default()));
                    if matches!(event, Event::Empty(_)) {
                        current = None;
                    }
                }
                "text" if current.is_some() && matches!(event, Event::Start(_)) => {
                    text = Some(String::new());
                }
                _ => {}
            },
            Event::End(e) => match e.local_name().into_inner() {
                "text" => {
                    if let (Some(t), Some((row, col, author))) = (text.take(), current.as_ref()) {
                        out.push(Comment {
                            row: *row,
                            col: *col,
                            author: author.clone(),
                            text: t,
                        });
                    }
                }
                "threadedComment" => current = None,
                _ => {}
            },
            Event::Eof => return Ok(out),
            other => {
                if let Some(t) = text.as_mut() {
                    r.push_text(other, t)?;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn legacy_comments_flatten_runs() {
        let xml = r#"<?xml version="1.0"?>
<comments xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
  <authors><author>Ann &amp; Bo</author><author/></authors>
  <commentList>
    <comment ref="B3" authorId="0" shapeId="0"><text>
      <r><rPr><b/><rFont val="Tahoma"/></rPr><t>Ann:</t></r>
      <r><t xml:space="preserve"> line_x000D_
two</t></r>
      <rPh sb="0" eb="1"><t>PHONETIC</t></rPh>
    </text></comment>
    <comment ref="A1" authorId="9"><text><t>plain</t></text></comment>
    <comment ref="bogus" authorId="0"><text><t>skipped</t></text></comment>
    <comment ref="C1" authorId="1"><text><t/></text></comment>
  </commentList>
</comments>"#;
        let c = parse_comments(xml.as_bytes(), "xl/comments1.xml", 256).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!((c[0].row, c[0].col), (2, 1));
        assert_eq!(c[0].author, "Ann & Bo");
        assert_eq!(c[0].text, "Ann: line\r\ntwo");
        assert_eq!((c[1].author.as_str(), c[1].text.as_str()), ("", "plain"));
        assert_eq!((c[2].row, c[2].col, c[2].text.as_str()), (0, 2, ""));
    }

    #[test]
    fn prefixed_legacy_comments() {
        let xml = r#"<x:comments xmlns:x="u"><x:authors><x:author>Z</x:author></x:authors>
<x:commentList><x:comment ref="$D$4" authorId="0"><x:text><x:r><x:t>hi</x:t></x:r></x:text></x:comment></x:commentList></x:comments>"#;
        let c = parse_comments(xml.as_bytes(), "c", 16).unwrap();
        assert_eq!(
            c[0],
            Comment {
                row: 3,
                col: 3,
                author: "Z".into(),
                text: "hi".into()
            }
        );
    }

    #[test]
    fn threaded_comments_with_persons() {
        let persons = r#"<personList xmlns="http://schemas.microsoft.com/office/spreadsheetml/2018/threadedcomments">
<person displayName="Jane Roe" id="{P1}" userId="j@x" providerId="AD"/></personList>"#;
        let persons = parse_persons(persons.as_bytes(), "xl/persons/person.xml", 16).unwrap();
        assert_eq!(persons.get("{P1}").map(String::as_str), Some("Jane Roe"));
        let xml = r#"<ThreadedComments xmlns="http://schemas.microsoft.com/office/spreadsheetml/2018/threadedcomments">
<threadedComment ref="A2" dT="2024-01-01T00:00:00" personId="{P1}" id="{C1}"><text>First &lt;note&gt;</text></threadedComment>
<threadedComment ref="A2" personId="{P9}" id="{C2}" parentId="{C1}"><text>Reply</text><mentions/></threadedComment>
<threadedComment ref="?" personId="{P1}" id="{C3}"><text>lost</text></threadedComment>
</ThreadedComments>"#;
        let c = parse_threaded_comments(xml.as_bytes(), "t", &persons, 16).unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(
            (c[0].row, c[0].author.as_str(), c[0].text.as_str()),
            (1, "Jane Roe", "First <note>")
        );
        assert_eq!((c[1].author.as_str(), c[1].text.as_str()), ("", "Reply"));
    }

    #[test]
    fn empty_garbage_dtd_depth() {
        assert!(parse_comments(b"", "c", 8).unwrap().is_empty());
        assert!(parse_persons(b"", "p", 8).unwrap().is_empty());
        assert!(
            parse_threaded_comments(b"", "t", &HashMap::new(), 8)
                .unwrap()
                .is_empty()
        );
        assert!(
            parse_comments(
                b"<comments><commentList><comment ref='A1'><text><t>x</text>",
                "c",
                8
            )
            .is_err()
        );
        assert!(parse_persons(b"<personList><person id=a/></personList>", "p", 8).is_err());
        let dtd = b"<!DOCTYPE c><comments/>";
        assert_eq!(
            parse_comments(dtd, "c", 8).unwrap_err().kind(),
            ErrorKind::Malformed
        );
        let deep = b"<comments><commentList><comment ref='A1'><text><r><t>x</t></r></text></comment></commentList></comments>";
        assert!(parse_comments(deep, "c", 6).is_ok());
        assert_eq!(
            parse_comments(deep, "c", 5).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
    }
}
