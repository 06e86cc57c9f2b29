//! BIFF12 record framing: a record type (1-2 byte varint, 7 bits a byte,
//! high bit = more), a size (1-4 byte varint), then `size` bytes. Every
//! read is bounds-checked; a framing fault is an error naming the part
//! and the byte offset.

use crate::error::{Error, Result};

/// One record: its type, its payload and the byte offset of its header.
#[derive(Debug, Clone, Copy)]
pub(super) struct Record<'a> {
    pub typ: u16,
    pub data: &'a [u8],
    pub offset: usize,
}

/// The records of one part, in order.
pub(super) struct Records<'a> {
    buf: &'a [u8],
    pos: usize,
    part: &'a str,
    /// Added to the offsets of records and errors (`buf` starts there in
    /// the part).
    base: usize,
}

/// The type and whole length (header included) of the record at the
/// start of `buf`, `None` when `buf` does not hold all of it yet (or its
/// header is malformed: [`Records`] then names the fault).
pub(super) fn record_head(buf: &[u8]) -> Option<(u16, usize)> {
    let b0 = *buf.first()?;
    let mut p = 1;
    let mut typ = u16::from(b0 & 0x7F);
    if b0 & 0x80 != 0 {
        let b1 = *buf.get(1)?;
        if b1 & 0x80 != 0 {
            return None;
        }
        typ |= u16::from(b1) << 7;
        p = 2;
    }
    let mut size = 0usize;
    for k in 0..4 {
        let b = *buf.get(p)?;
        p += 1;
        size |= usize::from(b & 0x7F) << (7 * k);
        if b & 0x80 == 0 {
            break;
        }
        if k == 3 {
            return None;
        }
    }
    let total = p.checked_add(size)?;
    (total <= buf.len()).then_some((typ, total))
}

/// A malformed-input error in `part` at byte `offset`.
pub(super) fn malformed(part: &str, msg: impl Into<String>, offset: usize) -> Error {
    Error::malformed(msg).in_part(part).at_offset(offset as u64)
}

impl<'a> Records<'a> {
    pub fn new(buf: &'a [u8], part: &'a str) -> Records<'a> {
        Records::with_base(buf, part, 0)
    }

    /// Records of `buf`, which starts at byte `base` of the part.
    pub fn with_base(buf: &'a [u8], part: &'a str, base: usize) -> Records<'a> {
        Records {
            buf,
            pos: 0,
            part,
            base,
        }
    }

    /// The next record, `None` at the end of the part.
    pub fn next_record(&mut self) -> Result<Option<Record<'a>>> {
        let start = self.pos;
        let Some(&b0) = self.buf.get(start) else {
            return Ok(None);
        };
        let mut p = start + 1;
        let mut typ = u16::from(b0 & 0x7F);
        if b0 & 0x80 != 0 {
            let b1 = self.byte(p, start, "record type")?;
            if b1 & 0x80 != 0 {
                return Err(malformed(
                    self.part,
                    "a record type longer than 2 bytes",
                    start + self.base,
                ));
            }
            typ |= u16::from(b1) << 7;
            p += 1;
        }
        let mut size: usize = 0;
        for k in 0..4 {
            let b = self.byte(p, start, "record size")?;
            p += 1;
            size |= usize::from(b & 0x7F) << (7 * k);
            if b & 0x80 == 0 {
                break;
            }
            if k == 3 {
                return Err(malformed(
                    self.part,
                    format!("record 0x{typ:04X}: a size longer than 4 bytes"),
                    start + self.base,
                ));
            }
        }
        let left = self.buf.len() - p.min(self.buf.len());
        if size > left {
            return Err(malformed(
                self.part,
                format!(
                    "record 0x{typ:04X} declares {size} bytes but only {left} are left in the part"
                ),
                start + self.base,
            ));
        }
        let data = self.buf.get(p..p + size).unwrap_or(&[]);
        self.pos = p + size;
        Ok(Some(Record {
            typ,
            data,
            offset: start + self.base,
        }))
    }

    fn byte(&self, p: usize, start: usize, what: &str) -> Result<u8> {
        self.buf.get(p).copied().ok_or_else(|| {
            malformed(
                self.part,
                format!("the {what} of the record runs past the end of the part"),
                start + self.base,
            )
        })
    }
}

/// Little-endian readers: missing bytes read as zero (short records are
/// tolerated like Excel does; strings are checked strictly).
pub(super) fn u8_at(d: &[u8], i: usize) -> u8 {
    d.get(i).copied().unwrap_or(0)
}

pub(super) fn u16_at(d: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([u8_at(d, i), u8_at(d, i + 1)])
}

pub(super) fn u32_at(d: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([
        u8_at(d, i),
        u8_at(d, i + 1),
        u8_at(d, i + 2),
        u8_at(d, i + 3),
    ])
}

pub(super) fn f64_at(d: &[u8], i: usize) -> f64 {
    let lo = u64::from(u32_at(d, i));
    let hi = u64::from(u32_at(d, i + 4));
    f64::from_bits((hi << 32) | lo)
}

/// Why a string could not be read.
#[derive(Debug)]
pub(super) enum StrError {
    /// It declares more characters than the record holds.
    Truncated { chars: u32, at: usize },
    /// It is longer than `max_string_chars`.
    TooLong { chars: u32 },
}

impl StrError {
    /// The error in `part`, for the record at `offset`.
    pub fn into_error(self, part: &str, offset: usize) -> Error {
        match self {
            StrError::Truncated { chars, at } => malformed(
                part,
                format!(
                    "a string of {chars} characters at byte {at} of its record runs past the record"
                ),
                offset,
            ),
            StrError::TooLong { chars } => Error::limit(format!(
                "a string of {chars} characters, more than max_string_chars"
            ))
            .in_part(part)
            .at_offset(offset as u64),
        }
    }
}

/// Appends the XLWideString at `d[at..]` (u32 character count, UTF-16LE)
/// to `out`; returns the offset after it. A count of 0xFFFFFFFF (a null
/// XLNullableWideString) reads as empty.
pub(super) fn wide_string(
    d: &[u8],
    at: usize,
    max_chars: usize,
    out: &mut String,
) -> std::result::Result<usize, StrError> {
    let chars = u32_at(d, at);
    if chars == u32::MAX {
        return Ok(at + 4);
    }
    if d.len() < at + 4 {
        return Err(StrError::Truncated { chars, at });
    }
    if chars as usize > max_chars {
        return Err(StrError::TooLong { chars });
    }
    let start = at + 4;
    let end = (chars as usize)
        .checked_mul(2)
        .and_then(|n| n.checked_add(start))
        .filter(|&e| e <= d.len())
        .ok_or(StrError::Truncated { chars, at })?;
    let units = d
        .get(start..end)
        .unwrap_or(&[])
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([u8_at(c, 0), u8_at(c, 1)]));
    out.extend(char::decode_utf16(units).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)));
    Ok(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_varints() {
        // type 0x0181 (2 bytes: 0x81 0x03), size 130 (0x82 0x01), then a 1-byte record.
        let mut buf = vec![0x81, 0x03, 0x82, 0x01];
        buf.extend(std::iter::repeat_n(7u8, 130));
        buf.extend([0x05, 0x01, 0xAA]);
        let mut r = Records::new(&buf, "p");
        let a = r.next_record().unwrap().unwrap();
        assert_eq!((a.typ, a.data.len(), a.offset), (0x181, 130, 0));
        let b = r.next_record().unwrap().unwrap();
        assert_eq!((b.typ, b.data, b.offset), (5, &[0xAA][..], 134));
        assert!(r.next_record().unwrap().is_none());
    }

    #[test]
    fn framing_faults() {
        for bad in [
            &[0x80][..],
            &[0x05][..],
            &[0x05, 0x80, 0x80, 0x80, 0x80],
            &[0x05, 0x09, 1],
        ] {
            let e = Records::new(bad, "xl/p.bin").next_record().unwrap_err();
            assert_eq!(e.part(), Some("xl/p.bin"));
            assert_eq!(e.offset(), Some(0));
        }
    }

    #[test]
    fn strings() {
        let mut d = 3u32.to_le_bytes().to_vec();
        d.extend("aé€".encode_utf16().flat_map(u16::to_le_bytes));
        let mut s = String::new();
        assert_eq!(wide_string(&d, 0, 100, &mut s).unwrap(), 10);
        assert_eq!(s, "aé€");
        assert!(matches!(
            wide_string(&d, 0, 2, &mut s),
            Err(StrError::TooLong { .. })
        ));
        d.truncate(8);
        assert!(matches!(
            wide_string(&d, 0, 100, &mut s),
            Err(StrError::Truncated { .. })
        ));
    }
}
