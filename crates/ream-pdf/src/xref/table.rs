//! Classic `xref` tables.

use super::XrefEntry;
use crate::error::{Error, Result};
use crate::lexer::{Lexer, Token};
use crate::object::Dict;
use crate::parser::Parser;

/// Entries, trailer and end offset of one table.
pub(crate) type Parsed = (Vec<(u32, XrefEntry)>, Dict, u64);

/// Parses `xref ... trailer << >>` at the start of `buf` (absolute offset
/// `base`): the entries in file order, the trailer, and the absolute end.
pub(crate) fn parse(
    buf: &[u8],
    base: u64,
    complete: bool,
    max_objects: u64,
    max_depth: usize,
) -> Result<Parsed> {
    let mut lx = Lexer::new(buf, base, complete);
    let at = lx.offset();
    if lx.next()? != Token::Keyword(b"xref") {
        return Err(Error::malformed(at, "expected 'xref'"));
    }
    let mut entries = Vec::new();
    let mut first_sub = true;
    loop {
        let here = lx.offset();
        let (start, count) = match lx.next()? {
            Token::Keyword(b"trailer") => break,
            Token::Int(start) => match lx.next()? {
                Token::Int(count) => (start, count),
                _ => return Err(Error::malformed(here, "bad xref subsection header")),
            },
            _ => {
                return Err(Error::malformed(
                    here,
                    "expected an xref subsection or 'trailer'",
                ));
            }
        };
        if start < 0
            || count < 0
            || count as u64 > max_objects
            || (start + count) as u64 > u64::from(u32::MAX)
        {
            return Err(Error::malformed(
                here,
                format!("bad xref subsection {start} {count}"),
            ));
        }
        if entries.len() as u64 + count as u64 > max_objects {
            return Err(Error::limit(format!(
                "xref has more than max_objects ({max_objects}) entries"
            ))
            .at(here));
        }
        let mut start = start as u32;
        for i in 0..count as u32 {
            let eat = lx.offset();
            let (Token::Int(off), Token::Int(generation), Token::Keyword(kind)) =
                (lx.next()?, lx.next()?, lx.next()?)
            else {
                return Err(Error::malformed(eat, "bad xref entry"));
            };
            // A common writer bug: the table starts at 1 but holds the
            // entry of object 0 (`0000000000 65535 f`).
            if first_sub && i == 0 && start == 1 && off == 0 && generation == 65535 && kind == b"f"
            {
                start = 0;
            }
            let entry = match kind {
                b"n" if off > 0 => XrefEntry::InFile {
                    offset: off as u64,
                    generation: u16::try_from(generation).unwrap_or(u16::MAX),
                },
                b"n" | b"f" => XrefEntry::Free,
                _ => return Err(Error::malformed(eat, "xref entry type is not 'n' or 'f'")),
            };
            entries.push((start + i, entry));
        }
        first_sub = false;
    }
    let mut p = Parser::new(lx, max_depth);
    let trailer = match p.object()? {
        crate::object::Object::Dict(d) => d,
        _ => {
            return Err(Error::malformed(
                p.lx.offset(),
                "trailer is not a dictionary",
            ));
        }
    };
    Ok((entries, trailer, p.lx.offset()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_with_two_subsections_and_the_off_by_one_fix() {
        let t = b"xref\n1 2\n0000000000 65535 f \n0000000015 00000 n \n5 1\n0000000099 00002 n\r\ntrailer\n<< /Size 6 >>";
        let (e, tr, end) = parse(t, 1000, true, 100, 10).unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!(e[0], (0, XrefEntry::Free));
        assert_eq!(
            e[1],
            (
                1,
                XrefEntry::InFile {
                    offset: 15,
                    generation: 0
                }
            )
        );
        assert_eq!(
            e[2],
            (
                5,
                XrefEntry::InFile {
                    offset: 99,
                    generation: 2
                }
            )
        );
        assert_eq!(tr.int(b"Size"), Some(6));
        assert_eq!(end, 1000 + t.len() as u64);
        assert!(parse(&t[..40], 0, false, 100, 10).unwrap_err().is_eof());
        assert!(parse(b"xref\n0 1\n000 0 x\ntrailer<<>>", 0, true, 100, 10).is_err());
        assert!(parse(b"xref\n0 999999\n", 0, true, 100, 10).is_err());
    }
}
