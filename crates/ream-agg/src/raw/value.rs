//! The strict 1BRC value (`-?d?d.d` and its line break) from one 8-byte
//! word, validated with two SIMD byte compares: the parser of the AVX2
//! loop.
//!
//! Where `parse::fast_value` (the portable loops') checks digits and fixed
//! bytes with SWAR masks, this one picks the layout by a 4-bit class of the
//! word and compares all 8 bytes with the layout's byte bounds at once;
//! the table entry also holds the shift, sign and length, so the parse is
//! a handful of integer operations (the loop's bottleneck is the integer
//! ALUs). Measured in the AVX2 loop, one thread, 413 stations: 6.9 ns a
//! row, against 7.4 with the layout found from the dot position.

#![allow(unsafe_code)]

use std::arch::x86_64::{
    __m128i, _mm_cmpgt_epi8, _mm_cvtsi64_si128, _mm_load_si128, _mm_movemask_epi8, _mm_or_si128,
};

/// One layout of the strict form: per-byte signed bounds (byte `i` of the
/// value word must lie in `lo[i]..=hi[i]`; bytes 8..16 are the zero upper
/// half of the loaded word and always pass) and how to read it.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Layout {
    lo: [i8; 16],
    hi: [i8; 16],
    /// Clears the sign byte (all ones when there is none).
    keep: u64,
    /// Left shift that puts the dot at byte 3.
    shift: u64,
    /// -1 or 1.
    factor: i64,
    /// Bytes of the value and its line break.
    len: u64,
}

/// A layout nothing matches: byte 0 must be both `>= 127` and `<= -128`.
const NEVER: Layout = {
    let mut l = Layout {
        lo: [i8::MIN; 16],
        hi: [i8::MAX; 16],
        keep: 0,
        shift: 0,
        factor: 0,
        len: 0,
    };
    l.lo[0] = i8::MAX;
    l.hi[0] = i8::MIN;
    l
};

/// The layout of `pattern`: `d` is a digit, any other byte itself.
// Const evaluation: an out-of-range index fails the build.
#[allow(clippy::indexing_slicing)]
const fn layout(pattern: &[u8]) -> Layout {
    let mut l = Layout {
        lo: [i8::MIN; 16],
        hi: [i8::MAX; 16],
        keep: u64::MAX,
        shift: 0,
        factor: 1,
        len: pattern.len() as u64,
    };
    let mut i = 0;
    while i < pattern.len() {
        let (lo, hi) = match pattern[i] {
            b'd' => (b'0', b'9'),
            c => (c, c),
        };
        l.lo[i] = lo as i8;
        l.hi[i] = hi as i8;
        if pattern[i] == b'.' {
            l.shift = 24 - 8 * i as u64;
        }
        i += 1;
    }
    if pattern[0] == b'-' {
        l.keep = !0xFF;
        l.factor = -1;
    }
    l
}

/// The class of a value word: bit `i` set when byte `i` has bit 4 clear
/// (digits have it set; `-`, `.`, `\r` and `\n` do not), gathered by one
/// multiplication (the four products land on bits 25..=28, no two terms
/// on one bit). `d.d` is 0b1010, `dd.d` 0b0100, `-d.d` 0b0101, `-dd.d`
/// 0b1001, with either line break.
#[inline(always)]
fn class(w: u64) -> usize {
    (((!w & 0x1010_1010).wrapping_mul(0x0020_4081) >> 25) & 15) as usize
}

/// Layouts by class, `[lf, crlf]`.
static LAYOUTS: [[Layout; 16]; 2] = {
    let mut t = [[NEVER; 16]; 2];
    t[0][0b1010] = layout(b"d.d\n");
    t[0][0b0100] = layout(b"dd.d\n");
    t[0][0b0101] = layout(b"-d.d\n");
    t[0][0b1001] = layout(b"-dd.d\n");
    t[1][0b1010] = layout(b"d.d\r\n");
    t[1][0b0100] = layout(b"dd.d\r\n");
    t[1][0b0101] = layout(b"-d.d\r\n");
    t[1][0b1001] = layout(b"-dd.d\r\n");
    t
};

/// Parses a strict 1BRC value and its line break (`\n`, or `\r\n` with
/// `CRLF`) from the 8 bytes at its start (`w`, little-endian): the value in
/// tenths (-999..=999, as `i64` for the sum) and the bytes taken, or `None`
/// for anything else.
///
/// The layout comes from the class of the word ([`class`]); all 8 bytes
/// are checked against its byte bounds with two signed byte compares, so
/// every byte the value relies on is validated, and the table entry gives
/// the shift, sign and length: the digits are shifted into fixed places
/// and combined with one multiplication (the technique of Quan Anh Mai's
/// 1BRC entry).
///
/// # Safety
/// The CPU has SSE2 (every x86-64 CPU). `inline(always)` so that it inlines
/// into the `target_feature` loop of `avx2.rs` (a call a row cost 20
/// instructions there).
#[inline(always)]
pub(crate) unsafe fn strict<const CRLF: bool>(w: u64) -> Option<(i64, usize)> {
    // Both indexes are in range by construction (bool, 4-bit class): the
    // checks fold away.
    let layout = LAYOUTS.get(usize::from(CRLF))?.get(class(w))?;
    // SAFETY: `Layout` is 64-byte aligned, `lo` and `hi` are its first 32
    // bytes; SSE2 is there (the caller's contract).
    let out = unsafe {
        let lo = _mm_load_si128(layout.lo.as_ptr().cast::<__m128i>());
        let hi = _mm_load_si128(layout.hi.as_ptr().cast::<__m128i>());
        let x = _mm_cvtsi64_si128(w as i64);
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpgt_epi8(lo, x), _mm_cmpgt_epi8(x, hi)))
    };
    if out != 0 {
        return None;
    }
    let digits = ((w & layout.keep) << layout.shift) & 0x0F_000F_0F00;
    let abs = (digits.wrapping_mul(0x640A_0001) >> 32) & 0x3FF;
    Some((abs as i64 * layout.factor, layout.len as usize))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::tenths;

    fn word(s: &[u8]) -> u64 {
        let mut b = [0u8; 8];
        for (d, s) in b.iter_mut().zip(s) {
            *d = *s;
        }
        u64::from_le_bytes(b)
    }

    /// What `strict` must answer for the 8 bytes `b`: the value up to the
    /// first `\n` in the strict form, with the wanted line break.
    fn reference(b: &[u8; 8], crlf: bool) -> Option<(i64, usize)> {
        let nl = b.iter().position(|&c| c == b'\n')?;
        let v = if crlf {
            b.get(..nl)?.strip_suffix(b"\r")?
        } else {
            b.get(..nl)?
        };
        Some((tenths(v)?.into(), nl + 1))
    }

    fn both(b: &[u8; 8]) {
        let w = u64::from_le_bytes(*b);
        // SAFETY: x86-64 has SSE2.
        let (lf, crlf) = unsafe { (strict::<false>(w), strict::<true>(w)) };
        assert_eq!(lf, reference(b, false), "{b:?}");
        assert_eq!(crlf, reference(b, true), "{b:?} crlf");
    }

    #[test]
    fn every_value() {
        for t in -999i16..=999 {
            let a = t.unsigned_abs();
            let text = format!("{}{}.{}", if t < 0 { "-" } else { "" }, a / 10, a % 10);
            for end in ["\n", "\r\n"] {
                let line = format!("{text}{end}Xy");
                // SAFETY: x86-64 has SSE2.
                let got = unsafe {
                    (
                        strict::<false>(word(line.as_bytes())),
                        strict::<true>(word(line.as_bytes())),
                    )
                };
                let want = Some((i64::from(t), text.len() + end.len()));
                if end == "\n" {
                    assert_eq!(got, (want, None), "{line:?}");
                } else {
                    assert_eq!(got, (None, want), "{line:?}");
                }
            }
        }
    }

    #[test]
    fn every_byte_in_every_place() {
        // Each valid shape with every possible byte in each of its places
        // (and the place after it).
        for shape in [
            &b"1.2\nAbcd"[..],
            b"12.3\nAbc",
            b"-1.2\nAbc",
            b"-12.3\nAb",
            b"1.2\r\nAbc",
            b"12.3\r\nAb",
            b"-1.2\r\nAb",
            b"-12.3\r\nA",
        ] {
            let mut b = [0u8; 8];
            b.copy_from_slice(shape);
            for place in 0..8 {
                for x in 0..=255u8 {
                    let mut c = b;
                    c[place] = x;
                    both(&c);
                }
            }
        }
    }

    #[test]
    fn small_alphabet_exhaustive() {
        // Every word of the first 6 bytes over an alphabet of the bytes
        // that matter (and near misses), the rest fixed.
        const A: &[u8] = b"-.\n\r09/:,\x00\xad";
        let n = A.len();
        let mut idx = [0usize; 6];
        loop {
            let mut b = *b"000000\nx";
            for (d, &i) in b.iter_mut().zip(&idx) {
                *d = A[i];
            }
            both(&b);
            let mut k = 0;
            while k < 6 {
                idx[k] += 1;
                if idx[k] < n {
                    break;
                }
                idx[k] = 0;
                k += 1;
            }
            if k == 6 {
                break;
            }
        }
    }

    #[test]
    fn rejects() {
        for bad in [
            &b"1.23\n"[..],
            b"123.4\n",
            b"-.5\n",
            b".5\n",
            b"1.\n",
            b"1\n",
            b"+1.5\n",
            b"--1.5\n",
            b"1,5\n",
            b"",
            b"-123.4\n",
            b"012.3\n",
        ] {
            // SAFETY: x86-64 has SSE2.
            assert_eq!(unsafe { strict::<false>(word(bad)) }, None, "{bad:?}");
        }
    }
}
