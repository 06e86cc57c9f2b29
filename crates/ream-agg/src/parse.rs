//! Value parsing: the strict 1BRC form as integer tenths (a SWAR fast path
//! on one 8-byte load, and a scalar check for the slow path), and general
//! decimals through [`crate::decimal`].

use crate::decimal::Dec;
use crate::error::Problem;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Bit 7 of each byte of `w` equal to `b` is set (`splat` = `b` in every
/// byte). Bits above the first match may be spurious; the lowest is exact.
#[inline(always)]
pub(crate) fn match_byte(w: u64, splat: u64) -> u64 {
    let x = w ^ splat;
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// `b` repeated in all 8 bytes.
pub(crate) const fn splat(b: u8) -> u64 {
    ONES * b as u64
}

/// Masks for one layout of the strict form: fixed bytes (sign, dot,
/// newline) and digit bytes.
#[derive(Clone, Copy)]
struct Layout {
    fixed_mask: u64,
    fixed: u64,
    digits: u64,
}

/// A layout that never matches (`fixed_mask` 0 but `fixed` 1).
const NEVER: Layout = Layout {
    fixed_mask: 0,
    fixed: 1,
    digits: 0,
};

/// Byte `i` of a word set to `b`.
const fn at(i: u32, b: u8) -> u64 {
    (b as u64) << (8 * i)
}

/// Byte `i` of a word all ones.
const fn byte(i: u32) -> u64 {
    0xFF << (8 * i)
}

/// Indexed by `negative * 4 + dot_index`: `d.d\n`, `dd.d\n`, `-d.d\n`,
/// `-dd.d\n`; every other combination never matches.
const LAYOUTS: [Layout; 8] = [
    NEVER,
    Layout {
        fixed_mask: byte(1) | byte(3),
        fixed: at(1, b'.') | at(3, b'\n'),
        digits: byte(0) | byte(2),
    },
    Layout {
        fixed_mask: byte(2) | byte(4),
        fixed: at(2, b'.') | at(4, b'\n'),
        digits: byte(0) | byte(1) | byte(3),
    },
    NEVER,
    NEVER,
    NEVER,
    Layout {
        fixed_mask: byte(0) | byte(2) | byte(4),
        fixed: at(0, b'-') | at(2, b'.') | at(4, b'\n'),
        digits: byte(1) | byte(3),
    },
    Layout {
        fixed_mask: byte(0) | byte(3) | byte(5),
        fixed: at(0, b'-') | at(3, b'.') | at(5, b'\n'),
        digits: byte(1) | byte(2) | byte(4),
    },
];

/// [`LAYOUTS`] with `\r\n` line ends: the `\n` byte becomes `\r` and the
/// byte after it must be `\n` (the longest, `-dd.d\r\n`, still fits 8
/// bytes).
// Const evaluation: an out-of-range index would fail the build, not run.
#[allow(clippy::indexing_slicing)]
const LAYOUTS_CRLF: [Layout; 8] = {
    let mut t = LAYOUTS;
    let mut i = 0;
    while i < 8 {
        let l = LAYOUTS[i];
        if l.fixed_mask != 0 {
            // The newline is the highest fixed byte.
            let nl = (63 - l.fixed_mask.leading_zeros()) / 8;
            t[i] = Layout {
                fixed_mask: l.fixed_mask | byte(nl + 1),
                fixed: (l.fixed & !byte(nl)) | at(nl, b'\r') | at(nl + 1, b'\n'),
                digits: l.digits,
            };
        }
        i += 1;
    }
    t
};

/// Parses a strict 1BRC value followed by `\n` from the 8 bytes at its
/// start (`w`, little-endian): returns the value in tenths and the bytes it
/// takes with its newline, or `None` when the bytes are anything else.
///
/// The dot is the first of bytes 1..=3 with bit 4 clear (digits have it
/// set); the digits are shifted into fixed places and combined with one
/// multiplication (the technique of Quan Anh Mai's 1BRC entry). The layout
/// check makes it exact: every byte it relies on is validated.
#[inline(always)]
pub(crate) fn fast_value(w: u64) -> Option<(i16, usize)> {
    value_in(w, &LAYOUTS, 3)
}

/// [`fast_value`] for a value followed by `\r\n`.
#[inline(always)]
pub(crate) fn fast_value_crlf(w: u64) -> Option<(i16, usize)> {
    value_in(w, &LAYOUTS_CRLF, 4)
}

/// The value of `w` if it matches one of `layouts`; `extra` is the bytes
/// after the dot (digit and line break).
#[inline(always)]
fn value_in(w: u64, layouts: &[Layout; 8], extra: usize) -> Option<(i16, usize)> {
    let dot = (!w & 0x1010_1000).trailing_zeros();
    let negative = (!w & 0x10) >> 4;
    let layout = layouts.get((negative * 4) as usize + (dot >> 3) as usize)?;
    let x = (w ^ splat(b'0')) & layout.digits;
    let bad_digit = ((x & !HIGHS).wrapping_add(splat(0x76)) | x) & HIGHS;
    if (w & layout.fixed_mask) != layout.fixed || bad_digit != 0 {
        return None;
    }
    // `dot` is 12, 20 or 28 here (bytes 1..=3), so the shift is in 0..=16.
    let sign = 0u64.wrapping_sub(negative);
    let unsigned = w & !(sign & 0xFF);
    let digits = (unsigned << (28 - dot)) & 0x0F_000F_0F00;
    let abs = (digits.wrapping_mul(0x640A_0001) >> 32) & 0x3FF;
    let value = ((abs ^ sign).wrapping_sub(sign)) as i64;
    Some((value as i16, (dot >> 3) as usize + extra))
}

/// Parses the strict 1BRC form `-?d?d.d` (the whole slice) as tenths.
pub(crate) fn tenths(v: &[u8]) -> Option<i16> {
    let (neg, rest) = match v.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, v),
    };
    let d = |b: u8| b.is_ascii_digit().then(|| i16::from(b - b'0'));
    let abs = match *rest {
        [a, b'.', c] => d(a)? * 10 + d(c)?,
        [a, b, b'.', c] => d(a)? * 100 + d(b)? * 10 + d(c)?,
        _ => return None,
    };
    Some(if neg { -abs } else { abs })
}

/// A parsed value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Value {
    /// Strict 1BRC form, exact, in tenths.
    Tenths(i16),
    /// Any other decimal number, exact.
    Dec(Dec),
}

/// Parses a value field (line break already removed). The strict form gives
/// exact tenths; otherwise (unless `strict`) a decimal number with optional
/// sign, fraction and exponent gives an exact [`Dec`] (see
/// [`crate::decimal::parse`] for its errors).
pub(crate) fn value(v: &[u8], strict: bool) -> Result<Value, Problem> {
    if let Some(t) = tenths(v) {
        return Ok(Value::Tenths(t));
    }
    if strict {
        return Err(Problem::BadValue);
    }
    crate::decimal::parse(v).map(Value::Dec)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(s: &[u8]) -> u64 {
        let mut b = [0u8; 8];
        for (d, s) in b.iter_mut().zip(s) {
            *d = *s;
        }
        u64::from_le_bytes(b)
    }

    #[test]
    fn fast_value_agrees_with_the_scalar_parser() {
        for t in -999i16..=999 {
            let a = t.unsigned_abs();
            let text = format!("{}{}.{}", if t < 0 { "-" } else { "" }, a / 10, a % 10);
            let line = format!("{text}\nAb");
            assert_eq!(
                fast_value(word(line.as_bytes())),
                Some((t, text.len() + 1)),
                "{text}"
            );
            assert_eq!(tenths(text.as_bytes()), Some(t));
        }
        assert_eq!(fast_value(word(b"-0.0\n")), Some((0, 5)));
        for t in -999i16..=999 {
            let a = t.unsigned_abs();
            let text = format!("{}{}.{}", if t < 0 { "-" } else { "" }, a / 10, a % 10);
            let line = format!("{text}\r\n");
            assert_eq!(
                fast_value_crlf(word(line.as_bytes())),
                Some((t, text.len() + 2))
            );
            assert_eq!(fast_value(word(line.as_bytes())), None);
        }
        for bad in [&b"1.2\r\r"[..], b"1.2\n\n", b"1.2\rx", b"12.3\r"] {
            assert_eq!(fast_value_crlf(word(bad)), None);
        }
    }

    #[test]
    fn fast_value_rejects_everything_else() {
        for bad in [
            &b"1.2\r\n"[..],
            b"1.23\n",
            b"123.4\n",
            b"-.5\n",
            b".5\n",
            b"1.\n",
            b"1\n",
            b"a.5\n",
            b"1.a\n",
            b"1a.5\n",
            b"+1.5\n",
            b"--1.5\n",
            b"1,5\n",
            b"1.5;x\n",
            b"\xb1.5\n",
            b"1.\xb5\n",
            b"",
        ] {
            assert_eq!(
                fast_value(word(bad)),
                None,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn every_byte_pair_is_checked() {
        // Exhaustive over two bytes of `Xd.d\n` and `dX.d\n`: only digits pass.
        for x in 0..=255u8 {
            for pos in 0..2 {
                let mut s = *b"12.3\n";
                s[pos] = x;
                let fast = fast_value(word(&s)).map(|v| v.0);
                let slow = tenths(&s[..4]);
                assert_eq!(fast, slow, "{x} at {pos}");
            }
        }
    }

    #[test]
    fn general_values() {
        let dec = |m, scale| Ok(Value::Dec(Dec { m, scale }));
        assert_eq!(value(b"12.3", false), Ok(Value::Tenths(123)));
        assert_eq!(value(b"12.3", true), Ok(Value::Tenths(123)));
        assert_eq!(value(b"123.45", false), dec(12345, 2));
        assert_eq!(value(b"1e3", false), dec(1000, 0));
        assert_eq!(value(b"-.5", false), dec(-5, 1));
        assert_eq!(value(b"+7", false), dec(7, 0));
        assert_eq!(value(b"123.45", true), Err(Problem::BadValue));
        for bad in [
            &b""[..],
            b"-",
            b"abc",
            b"inf",
            b"nan",
            b"-inf",
            b"1.2.3",
            b"0x10",
            b" 1.0",
            b"1.0 ",
        ] {
            assert_eq!(value(bad, false), Err(Problem::BadValue), "{bad:?}");
        }
        assert_eq!(value(b"1e400", false), Err(Problem::ValueOutOfRange));
    }
}
