//! Cell comments of an XLSB sheet: the `commentsN.bin` part its
//! relationships name. Records: BrtCommentAuthor (an XLWideString per
//! author, in index order), then per comment BrtBeginComment (author
//! index, the anchored range, a GUID) and BrtCommentText (a RichStr: flags
//! byte, then the plain text as an XLWideString; rich runs follow and are
//! not needed for the text).

use super::records::{Records, u32_at, wide_string};
use crate::error::Result;
use crate::model::Comment;

const COMMENT_AUTHOR: u16 = 632;
const BEGIN_COMMENT: u16 = 635;
const COMMENT_TEXT: u16 = 637;
const END_COMMENT: u16 = 636;

/// The comments of the comments part `data` (named `part` in errors), in
/// part order, each at the top-left cell of its range. A framing fault or
/// a string past its record is an error naming the part and byte offset;
/// a comment whose author index is out of range keeps an empty author.
pub(super) fn parse_comments(data: &[u8], part: &str, max_chars: usize) -> Result<Vec<Comment>> {
    let mut records = Records::new(data, part);
    let (mut authors, mut out) = (Vec::new(), Vec::new());
    let mut open: Option<Comment> = None;
    while let Some(r) = records.next_record()? {
        let d = r.data;
        match r.typ {
            COMMENT_AUTHOR => {
                let mut name = String::new();
                wide_string(d, 0, max_chars, &mut name)
                    .map_err(|e| e.into_error(part, r.offset))?;
                authors.push(name);
            }
            BEGIN_COMMENT if d.len() >= 20 => {
                let author = authors.get(u32_at(d, 0) as usize).cloned();
                open = Some(Comment {
                    row: u32_at(d, 4),
                    col: u32_at(d, 12),
                    author: author.unwrap_or_default(),
                    text: String::new(),
                });
            }
            COMMENT_TEXT if d.len() > 1 => {
                if let Some(c) = open.as_mut() {
                    c.text.clear();
                    wide_string(d, 1, max_chars, &mut c.text)
                        .map_err(|e| e.into_error(part, r.offset))?;
                }
            }
            END_COMMENT => out.extend(open.take()),
            _ => {}
        }
    }
    out.extend(open);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(typ: u16, data: &[u8]) -> Vec<u8> {
        let mut v = vec![(typ & 0x7F) as u8 | 0x80, (typ >> 7) as u8];
        v.push(data.len() as u8);
        v.extend_from_slice(data);
        v
    }

    fn wide(s: &str) -> Vec<u8> {
        let units: Vec<u16> = s.encode_utf16().collect();
        let mut v = (units.len() as u32).to_le_bytes().to_vec();
        units
            .iter()
            .for_each(|u| v.extend_from_slice(&u.to_le_bytes()));
        v
    }

    fn comment(author: u32, row: u32, col: u32, text: &str) -> Vec<u8> {
        let mut begin = Vec::new();
        for x in [author, row, row, col, col] {
            begin.extend_from_slice(&x.to_le_bytes());
        }
        begin.extend_from_slice(&[0; 16]);
        let mut t = vec![0u8];
        t.extend(wide(text));
        [
            rec(BEGIN_COMMENT, &begin),
            rec(COMMENT_TEXT, &t),
            rec(END_COMMENT, &[]),
        ]
        .concat()
    }

    #[test]
    fn authors_texts_and_cells() {
        let part = [
            rec(COMMENT_AUTHOR, &wide("Ann")),
            rec(COMMENT_AUTHOR, &wide("Bo")),
            comment(1, 6, 2, "second\nline"),
            comment(0, 0, 0, "first"),
            comment(9, 3, 3, "nobody"),
        ]
        .concat();
        let got = parse_comments(&part, "xl/comments1.bin", 1000).unwrap();
        let seen: Vec<_> = got
            .iter()
            .map(|c| (c.row, c.col, c.author.as_str(), c.text.as_str()))
            .collect();
        assert_eq!(
            seen,
            [
                (6, 2, "Bo", "second\nline"),
                (0, 0, "Ann", "first"),
                (3, 3, "", "nobody")
            ]
        );
    }

    #[test]
    fn a_text_past_its_record_is_named() {
        let mut t = vec![0u8];
        t.extend_from_slice(&50u32.to_le_bytes());
        t.extend_from_slice(b"a\0");
        let begin = &comment(0, 0, 0, "x")[..39];
        let part = [
            rec(COMMENT_AUTHOR, &wide("A")),
            begin.to_vec(),
            rec(COMMENT_TEXT, &t),
            rec(END_COMMENT, &[]),
        ]
        .concat();
        let err = parse_comments(&part, "xl/comments1.bin", 1000)
            .unwrap_err()
            .to_string();
        assert!(err.contains("xl/comments1.bin"), "{err}");
        assert!(err.contains("past the record"), "{err}");
    }
}
