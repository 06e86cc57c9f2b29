//! Hyperlinks (HLINK) and comments (NOTE, with their text from the OBJ /
//! TXO / CONTINUE records of the sheet's drawing) of a worksheet
//! substream. Every structure is read within its record's bytes; a
//! hyperlink moniker ream does not know keeps the link's range without a
//! target.

use super::records::{Text, u16_at, u32_at};
use crate::model::{CellRange, Hyperlink};

/// The URL moniker's class id, {79EAC9E0-BAF9-11CE-8C82-00AA004BA90B}.
const URL_MONIKER: [u8; 16] = [
    0xE0, 0xC9, 0xEA, 0x79, 0xF9, 0xBA, 0xCE, 0x11, 0x8C, 0x82, 0x00, 0xAA, 0x00, 0x4B, 0xA9, 0x0B,
];
/// The file moniker's class id, {00000303-0000-0000-C000-000000000046}.
const FILE_MONIKER: [u8; 16] = [0x03, 0x03, 0, 0, 0, 0, 0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 0x46];

/// UTF-16LE bytes as text, up to the first NUL.
fn utf16z(b: &[u8]) -> String {
    let units = b
        .chunks_exact(2)
        .map(|c| u16_at(c, 0))
        .take_while(|&u| u != 0);
    char::decode_utf16(units)
        .map(|c| c.unwrap_or('\u{FFFD}'))
        .collect()
}

/// A cursor over one record's bytes; every read past the end is `None`.
struct Cursor<'a> {
    d: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let b = self.d.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(b)
    }

    fn u32(&mut self) -> Option<u32> {
        self.bytes(4).map(|b| u32_at(b, 0))
    }

    fn u16(&mut self) -> Option<u16> {
        self.bytes(2).map(|b| u16_at(b, 0))
    }

    /// HyperlinkString: a character count (with the final NUL), UTF-16.
    fn hyperlink_string(&mut self) -> Option<String> {
        let n = self.u32()? as usize;
        Some(utf16z(self.bytes(n.checked_mul(2)?)?))
    }
}

/// An HLINK record: the cell range, and what can be read of the target
/// (URL or file), the location inside the workbook and the display text.
pub(super) fn hyperlink(d: &[u8]) -> Option<Hyperlink> {
    if d.len() < 32 {
        return None;
    }
    let (r0, r1, c0, c1) = (u16_at(d, 0), u16_at(d, 2), u16_at(d, 4), u16_at(d, 6));
    let mut link = Hyperlink {
        range: CellRange {
            first_row: u32::from(r0.min(r1)),
            last_row: u32::from(r0.max(r1)),
            first_col: u32::from(c0.min(c1)),
            last_col: u32::from(c0.max(c1)),
        },
        target: None,
        location: None,
        display: None,
    };
    let flags = u32_at(d, 28);
    let mut c = Cursor { d, at: 32 };
    let _ = read_strings(&mut c, flags, &mut link);
    Some(link)
}

/// The optional parts of a Hyperlink object, in their order; stops (the
/// range kept) at the first one that does not read.
fn read_strings(c: &mut Cursor<'_>, flags: u32, link: &mut Hyperlink) -> Option<()> {
    let has_moniker = flags & 0x01 != 0;
    if flags & 0x10 != 0 {
        link.display = Some(c.hyperlink_string()?).filter(|s| !s.is_empty());
    }
    if flags & 0x80 != 0 {
        c.hyperlink_string()?;
    }
    if has_moniker {
        if flags & 0x100 != 0 {
            link.target = Some(c.hyperlink_string()?);
        } else {
            link.target = moniker(c);
            link.target.as_ref()?;
        }
    }
    if flags & 0x08 != 0 {
        link.location = Some(c.hyperlink_string()?).filter(|s| !s.is_empty());
    }
    Some(())
}

/// A URL or file moniker's target; `None` for other monikers (their
/// length is not known, so nothing after them is read).
fn moniker(c: &mut Cursor<'_>) -> Option<String> {
    let clsid = c.bytes(16)?;
    if clsid == URL_MONIKER {
        let n = c.u32()? as usize;
        return Some(utf16z(c.bytes(n)?));
    }
    if clsid == FILE_MONIKER {
        let up = usize::from(c.u16()?);
        let n = c.u32()? as usize;
        let ansi = c.bytes(n)?;
        c.bytes(2 + 2 + 16 + 4)?;
        let cb = c.u32()? as usize;
        let mut path = "../".repeat(up.min(64));
        if cb > 0 {
            let bytes = c.u32()? as usize;
            c.u16()?;
            path.push_str(&utf16z(c.bytes(bytes)?));
        } else {
            path.extend(ansi.iter().take_while(|&&b| b != 0).map(|&b| char::from(b)));
        }
        return Some(path);
    }
    None
}

/// The object id of an OBJ record whose first field is a comment's
/// common object data (ftCmo, object type 0x19 Note).
pub(super) fn note_object_id(d: &[u8]) -> Option<u16> {
    (u16_at(d, 0) == 0x15 && u16_at(d, 4) == 0x19).then(|| u16_at(d, 6))
}

/// The text of a TXO record from its CONTINUE records: `cchText` characters,
/// each segment starting with its own width flag.
pub(super) fn txo_text(txo: &[u8], continues: &[&[u8]], max_chars: usize) -> String {
    let mut left = usize::from(u16_at(txo, 10)).min(max_chars);
    let mut out = String::new();
    for seg in continues {
        if left == 0 {
            break;
        }
        let high = seg.first().copied().unwrap_or(0) & 1 != 0;
        let body = seg.get(1..).unwrap_or_default();
        if high {
            let n = left.min(body.len() / 2);
            out.push_str(&utf16z_all(body.get(..n * 2).unwrap_or_default()));
            left -= n;
        } else {
            let n = left.min(body.len());
            out.extend(body.iter().take(n).map(|&b| char::from(b)));
            left -= n;
        }
    }
    out
}

/// UTF-16LE bytes as text (NULs kept).
fn utf16z_all(b: &[u8]) -> String {
    let units = b.chunks_exact(2).map(|c| u16_at(c, 0));
    char::decode_utf16(units)
        .map(|c| c.unwrap_or('\u{FFFD}'))
        .collect()
}

/// A BIFF8 NOTE: the cell, the comment object's id and the author.
pub(super) fn note(d: &[u8], text: &Text) -> (u32, u32, u16, String) {
    let mut author = String::new();
    text.long_string(d.get(8..).unwrap_or_default(), &mut author);
    (
        u32::from(u16_at(d, 0)),
        u32::from(u16_at(d, 2)),
        u16_at(d, 6),
        author,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hstr(s: &str) -> Vec<u8> {
        let mut v = ((s.encode_utf16().count() + 1) as u32)
            .to_le_bytes()
            .to_vec();
        v.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
        v.extend([0, 0]);
        v
    }

    fn head(flags: u32) -> Vec<u8> {
        let mut d = vec![1, 0, 2, 0, 0, 0, 1, 0];
        d.extend([0u8; 16]);
        d.extend(2u32.to_le_bytes());
        d.extend(flags.to_le_bytes());
        d
    }

    #[test]
    fn url_file_and_location_links() {
        // URL with display text.
        let mut d = head(0x01 | 0x02 | 0x10);
        d.extend(hstr("Click"));
        d.extend(URL_MONIKER);
        let url: Vec<u8> = "https://x.test/\0"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        d.extend((url.len() as u32).to_le_bytes());
        d.extend(url);
        let l = hyperlink(&d).unwrap();
        assert_eq!(l.target.as_deref(), Some("https://x.test/"));
        assert_eq!(l.display.as_deref(), Some("Click"));
        assert_eq!(
            (l.range.first_row, l.range.last_row, l.range.last_col),
            (1, 2, 1)
        );
        // A location in the workbook.
        let mut d = head(0x08);
        d.extend(hstr("Sheet2!A1"));
        assert_eq!(
            hyperlink(&d).unwrap().location.as_deref(),
            Some("Sheet2!A1")
        );
        // A file moniker, ANSI path, one level up.
        let mut d = head(0x01);
        d.extend(FILE_MONIKER);
        d.extend(1u16.to_le_bytes());
        d.extend(6u32.to_le_bytes());
        d.extend(b"a.xls\0");
        d.extend([0u8; 24]);
        d.extend(0u32.to_le_bytes());
        assert_eq!(hyperlink(&d).unwrap().target.as_deref(), Some("../a.xls"));
        // An unknown moniker and a cut-off string keep the range.
        let mut d = head(0x01 | 0x08);
        d.extend([7u8; 16]);
        let l = hyperlink(&d).unwrap();
        assert_eq!((l.target, l.location), (None, None));
        let mut d = head(0x10);
        d.extend(1000u32.to_le_bytes());
        assert_eq!(hyperlink(&d).unwrap().display, None);
        assert!(hyperlink(&[0; 10]).is_none());
    }

    #[test]
    fn comment_text_across_continues() {
        let mut txo = vec![0u8; 18];
        txo[10] = 5;
        let a: &[u8] = &[0, b'a', b'b'];
        let b: &[u8] = &[1, b'c', 0, 0xB1, 0x03, b'z', 0];
        assert_eq!(txo_text(&txo, &[a, b, &[0, 9, 9]], 100), "abc\u{3b1}z");
        assert_eq!(txo_text(&txo, &[a], 100), "ab");
        assert_eq!(txo_text(&txo, &[a, b], 2), "ab");
    }
}
