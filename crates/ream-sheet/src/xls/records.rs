//! BIFF records: the `(type, length, data)` units of a `Workbook` stream,
//! the bytes of a record and its CONTINUE records read as one, and the
//! string forms BIFF5 and BIFF8 store.

use crate::error::{Error, Result};
use encoding_rs::Encoding;

/// CONTINUE: more data of the record before it.
pub(super) const CONTINUE: u16 = 0x003C;
/// Most bytes a record's data may hold (Excel writes at most 8,224).
const MAX_RECORD: usize = 8_228;

/// One record: its type, its data and the stream offset of its header.
#[derive(Debug, Clone, Copy)]
pub(super) struct Record<'a> {
    pub typ: u16,
    pub data: &'a [u8],
    pub offset: usize,
}

/// Records of `stream` from byte `at`, in order. A header or data past the
/// end of the stream, or a length over the BIFF limit, is an error naming
/// the record and its offset; nothing is read past it.
pub(super) struct Records<'a> {
    stream: &'a [u8],
    at: usize,
}

impl<'a> Records<'a> {
    pub(super) fn new(stream: &'a [u8], at: usize) -> Records<'a> {
        Records { stream, at }
    }

    /// The stream offset of the next record.
    pub(super) fn position(&self) -> usize {
        self.at
    }

    /// Goes back to a position from [`position`](Self::position).
    pub(super) fn set_position(&mut self, at: usize) {
        self.at = at;
    }

    /// The next record, `None` at the end of the stream.
    pub(super) fn next_record(&mut self) -> Result<Option<Record<'a>>> {
        let Some(head) = self.stream.get(self.at..self.at.saturating_add(4)) else {
            return Ok(None);
        };
        let typ = u16_at(head, 0);
        let len = usize::from(u16_at(head, 2));
        let offset = self.at;
        if len > MAX_RECORD {
            return Err(malformed(
                format!("record 0x{typ:04X} declares {len} bytes (at most {MAX_RECORD})"),
                offset,
            ));
        }
        let data = self
            .stream
            .get(offset + 4..offset + 4 + len)
            .ok_or_else(|| {
                malformed(
                    format!("record 0x{typ:04X} of {len} bytes runs past the end of the stream"),
                    offset,
                )
            })?;
        self.at = offset + 4 + len;
        Ok(Some(Record { typ, data, offset }))
    }

    /// The CONTINUE records that follow, their data appended to `first`'s
    /// as segments of one logical record.
    pub(super) fn with_continues(&mut self, first: Record<'a>) -> Result<Vec<&'a [u8]>> {
        let mut parts = vec![first.data];
        loop {
            let save = self.at;
            match self.next_record()? {
                Some(r) if r.typ == CONTINUE => parts.push(r.data),
                _ => {
                    self.at = save;
                    return Ok(parts);
                }
            }
        }
    }
}

/// A malformed-record error at stream offset `offset`.
pub(super) fn malformed(msg: String, offset: usize) -> Error {
    Error::malformed(msg)
        .in_part("Workbook")
        .at_offset(offset as u64)
}

pub(super) fn u16_at(b: &[u8], i: usize) -> u16 {
    match b.get(i..i + 2) {
        Some(&[x, y]) => u16::from_le_bytes([x, y]),
        _ => 0,
    }
}

pub(super) fn u32_at(b: &[u8], i: usize) -> u32 {
    match b.get(i..i + 4) {
        Some(&[a, c, d, e]) => u32::from_le_bytes([a, c, d, e]),
        _ => 0,
    }
}

pub(super) fn f64_at(b: &[u8], i: usize) -> f64 {
    b.get(i..i + 8)
        .and_then(|s| <[u8; 8]>::try_from(s).ok())
        .map_or(0.0, f64::from_le_bytes)
}

/// How strings are stored: BIFF8 (UTF-16 or "compressed" Latin-1 with a
/// flags byte) or BIFF5/7 (8-bit text in the workbook's code page).
#[derive(Debug, Clone, Copy)]
pub(super) struct Text {
    pub biff8: bool,
    pub encoding: &'static Encoding,
}

impl Text {
    /// Appends `n` characters of a BIFF8 string body (`high`: UTF-16LE,
    /// else one byte each, U+0000..U+00FF) from `b`; returns the bytes used.
    fn push_chars(out: &mut String, b: &[u8], n: usize, high: bool) -> usize {
        if high {
            let bytes = b.get(..n * 2).unwrap_or(b);
            let units = bytes.chunks_exact(2).map(|c| u16_at(c, 0));
            out.extend(char::decode_utf16(units).map(|c| c.unwrap_or('\u{FFFD}')));
            bytes.len()
        } else {
            let bytes = b.get(..n).unwrap_or(b);
            out.extend(bytes.iter().map(|&c| char::from(c)));
            bytes.len()
        }
    }

    /// Appends 8-bit text in the workbook's code page.
    pub(super) fn push_8bit(&self, out: &mut String, b: &[u8]) {
        let (text, _, _) = self.encoding.decode(b);
        out.push_str(&text);
    }

    /// A string with a 16-bit length as LABEL and STRING records hold it
    /// (BIFF8: XLUnicodeString; BIFF5: length and code-page bytes), and the
    /// bytes it took.
    pub(super) fn long_string(&self, b: &[u8], out: &mut String) -> usize {
        let n = usize::from(u16_at(b, 0));
        self.string_body(b, 2, n, out)
    }

    /// A string with an 8-bit length (BOUNDSHEET names, BIFF5 FORMAT).
    pub(super) fn short_string(&self, b: &[u8], out: &mut String) -> usize {
        let n = usize::from(b.first().copied().unwrap_or(0));
        self.string_body(b, 1, n, out)
    }

    fn string_body(&self, b: &[u8], at: usize, n: usize, out: &mut String) -> usize {
        if !self.biff8 {
            let body = b.get(at..).unwrap_or(&[]);
            let body = body.get(..n).unwrap_or(body);
            self.push_8bit(out, body);
            return at + body.len();
        }
        let flags = b.get(at).copied().unwrap_or(0);
        let high = flags & 1 != 0;
        let mut at = at + 1;
        let runs = if flags & 8 != 0 {
            let r = usize::from(u16_at(b, at));
            at += 2;
            r
        } else {
            0
        };
        let ext = if flags & 4 != 0 {
            let e = u32_at(b, at) as usize;
            at += 4;
            e
        } else {
            0
        };
        let used = Text::push_chars(out, b.get(at..).unwrap_or(&[]), n, high);
        at + used + runs * 4 + ext
    }
}

/// A reader over the segments of a record and its CONTINUE records, for
/// the shared-string table: a string's characters may cross into the next
/// segment, which then starts with a new flags byte.
pub(super) struct Segments<'a> {
    parts: Vec<&'a [u8]>,
    part: usize,
    at: usize,
}

impl<'a> Segments<'a> {
    pub(super) fn new(parts: Vec<&'a [u8]>) -> Segments<'a> {
        Segments {
            parts,
            part: 0,
            at: 0,
        }
    }

    fn current(&self) -> &'a [u8] {
        let p: &'a [u8] = self.parts.get(self.part).copied().unwrap_or(&[]);
        p.get(self.at..).unwrap_or(&[])
    }

    /// Moves to the next segment when this one is used up; false at the end.
    fn ensure(&mut self) -> bool {
        while self.current().is_empty() {
            if self.part + 1 >= self.parts.len() {
                return false;
            }
            self.part += 1;
            self.at = 0;
        }
        true
    }

    /// `n` bytes, crossing segments; `None` past the end.
    fn take(&mut self, mut n: usize, mut sink: impl FnMut(&[u8])) -> Option<()> {
        while n > 0 {
            if !self.ensure() {
                return None;
            }
            let cur = self.current();
            let k = n.min(cur.len());
            sink(cur.get(..k)?);
            self.at += k;
            n -= k;
        }
        Some(())
    }

    fn u8(&mut self) -> Option<u8> {
        let mut v = None;
        self.take(1, |b| v = b.first().copied())?;
        v
    }

    fn u16(&mut self) -> Option<u16> {
        let mut v = [0u8; 2];
        let mut i = 0;
        self.take(2, |b| {
            for &x in b {
                if let Some(slot) = v.get_mut(i) {
                    *slot = x;
                }
                i += 1;
            }
        })?;
        Some(u16::from_le_bytes(v))
    }

    fn u32(&mut self) -> Option<u32> {
        let lo = u32::from(self.u16()?);
        let hi = u32::from(self.u16()?);
        Some(lo | hi << 16)
    }

    /// One XLUnicodeRichExtendedString into `out`; `None` when the data
    /// ends inside it.
    pub(super) fn rich_string(&mut self, out: &mut String) -> Option<()> {
        let n = usize::from(self.u16()?);
        let flags = self.u8()?;
        let mut high = flags & 1 != 0;
        let runs = if flags & 8 != 0 { self.u16()? } else { 0 };
        let ext = if flags & 4 != 0 { self.u32()? } else { 0 };
        let mut left = n;
        while left > 0 {
            if self.current().is_empty() {
                // Characters continue in the next segment, which starts
                // with its own flags byte.
                if !self.ensure() {
                    return None;
                }
                high = self.u8()? & 1 != 0;
                continue;
            }
            let cur = self.current();
            let width = if high { 2 } else { 1 };
            let k = left.min(cur.len() / width);
            if k == 0 {
                return None; // half a UTF-16 unit at a segment's end
            }
            let used = Text::push_chars(out, cur, k, high);
            self.at += used;
            left -= k;
        }
        self.take(usize::from(runs) * 4, |_| {})?;
        self.take(ext as usize, |_| {})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text8() -> Text {
        Text {
            biff8: true,
            encoding: encoding_rs::WINDOWS_1252,
        }
    }

    #[test]
    fn records_stop_at_a_length_past_the_end() {
        let stream = [0x09, 0x08, 0x02, 0x00, 0x00, 0x06, 0x0A, 0x00, 0x10, 0x00];
        let mut r = Records::new(&stream, 0);
        let first = r.next_record().unwrap().unwrap();
        assert_eq!((first.typ, first.data), (0x0809, &[0x00, 0x06][..]));
        let e = r.next_record().unwrap_err();
        assert!(e.to_string().contains("runs past the end"), "{e}");
        assert_eq!(e.offset(), Some(6));
    }

    #[test]
    fn strings_of_both_widths() {
        let mut s = String::new();
        let used = text8().long_string(&[3, 0, 0, b'a', 0xE9, b'c'], &mut s);
        assert_eq!((s.as_str(), used), ("a\u{e9}c", 6));
        let mut s = String::new();
        text8().long_string(&[2, 0, 1, 0x3A, 0x04, 0x42, 0x04], &mut s);
        assert_eq!(s, "\u{43a}\u{442}");
        let biff5 = Text {
            biff8: false,
            encoding: encoding_rs::WINDOWS_1251,
        };
        let mut s = String::new();
        assert_eq!(biff5.long_string(&[2, 0, 0xEA, 0xF2], &mut s), 4);
        assert_eq!(s, "\u{43a}\u{442}");
    }

    #[test]
    fn a_shared_string_crossing_a_continue_switches_width() {
        // "ab" compressed in the first segment, then a flags byte saying
        // UTF-16 and "\u{3b1}" in the CONTINUE.
        let first: &[u8] = &[3, 0, 0, b'a', b'b'];
        let second: &[u8] = &[1, 0xB1, 0x03, 1, 0, 0, b'z'];
        let mut seg = Segments::new(vec![first, second]);
        let mut s = String::new();
        seg.rich_string(&mut s).unwrap();
        assert_eq!(s, "ab\u{3b1}");
        let mut t = String::new();
        seg.rich_string(&mut t).unwrap();
        assert_eq!(t, "z");
        let mut u = String::new();
        assert!(seg.rich_string(&mut u).is_none());
    }
}
