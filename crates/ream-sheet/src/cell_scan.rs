//! The byte loops of the worksheet scanner's hot path: the one-pass cell
//! reader, start-tag attribute parsing, references, numbers.
//!
//! Hand-written because this is where a worksheet's bytes are spent: a
//! generic attribute iterator followed by separate reference and number
//! parsers costs about twice the instructions per cell (measured with
//! callgrind on the `many` benchmark workbook).

use crate::refs::{MAX_COL, MAX_ROW};

/// Parses a decimal u32 (no sign, no spaces; leading zeros allowed, as
/// `str::parse` allows them: a shared-string index `00000000000` is 0).
#[inline]
pub(crate) fn parse_u32(b: &[u8]) -> Option<u32> {
    if b.is_empty() {
        return None;
    }
    let zeros = b.iter().take_while(|&&c| c == b'0').count();
    let b = b.get(zeros.min(b.len() - 1)..)?;
    if b.len() > 10 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u64::from(c - b'0');
    }
    u32::try_from(v).ok()
}

/// Exact powers of ten representable in f64.
pub(crate) const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// `m / 10^k` for an exact `m < 2^53`, correctly rounded. An integer
/// (`k == 0`) skips the division, whose latency is the hottest spot of
/// the XLSX cell scan where it runs (`perf annotate`, giant.xlsx, 1
/// thread): dividing by 1.0 gives the same value.
#[inline(always)]
fn scaled(m: u64, k: usize) -> f64 {
    if k == 0 {
        m as f64
    } else {
        m as f64 / POW10.get(k).copied().unwrap_or(1.0)
    }
}

/// Parses a cell number. Fast path (most cells): an optional `-`, then at
/// most 15 digits with an optional decimal point; the digits form an exact
/// integer m < 2^53 and the result m / 10^k is one correctly rounded IEEE
/// division of two exact values, so it equals the correctly rounded
/// decimal (Clinger's fast path). Everything else (exponents, 16+ digits)
/// goes through fast-float2, which beats `str::parse::<f64>` by 2-3x.
#[inline]
pub(crate) fn parse_number(b: &[u8]) -> Option<f64> {
    let (neg, digits) = match b.first() {
        Some(b'-') => (true, b.get(1..).unwrap_or_default()),
        _ => (false, b),
    };
    if let Some(v) = short_decimal(digits) {
        return Some(if neg { -v } else { v });
    }
    if !digits.is_empty() && digits.len() <= 16 {
        let mut m: u64 = 0;
        let mut n_digits = 0;
        let mut frac: Option<usize> = None;
        let mut ok = true;
        for (i, &c) in digits.iter().enumerate() {
            if c.is_ascii_digit() {
                m = m * 10 + u64::from(c - b'0');
                n_digits += 1;
            } else if c == b'.' && frac.is_none() {
                frac = Some(i);
            } else {
                ok = false;
                break;
            }
        }
        if ok && n_digits > 0 && n_digits <= 15 {
            let k = frac.map_or(0, |i| digits.len() - i - 1);
            let v = scaled(m, k);
            return Some(if neg { -v } else { v });
        }
    }
    let v: f64 = fast_float2::parse(b).ok()?;
    // NaN and infinities are not numbers a cell can hold.
    v.is_finite().then_some(v)
}

/// The common number shapes, eight digits at a time ([`digits8`]): up to
/// eight digits, optionally a point and up to eight more (at most 15 in
/// all). `None` for anything else, which the caller reads digit by digit
/// with the same result. The byte loop cost ~126 instructions a value
/// on seed.ods (callgrind), where the ODS reader calls this per number.
#[inline(always)]
fn short_decimal(digits: &[u8]) -> Option<f64> {
    let n = digits.len();
    if n == 0 || n > 17 {
        return None;
    }
    // Padded with a byte that is neither a digit nor a point.
    let mut buf = [b' '; 24];
    buf.get_mut(..n)?.copy_from_slice(digits);
    let (int, n_int) = digits8(bytes_at(&buf, 0)?);
    if n_int == n {
        return Some(int as f64);
    }
    if buf.get(n_int) != Some(&b'.') || n_int == 8 {
        return None;
    }
    let (frac, n_frac) = digits8(bytes_at(&buf, n_int + 1)?);
    if n_int + 1 + n_frac != n || n_int + n_frac == 0 || n_int + n_frac > 15 {
        return None;
    }
    let m = int * POW10_U64.get(n_frac).copied()? + frac;
    Some(scaled(m, n_frac))
}

/// The `N` bytes of `b` at `at`, if there are that many.
#[inline(always)]
pub(crate) fn bytes_at<const N: usize>(b: &[u8], at: usize) -> Option<[u8; N]> {
    b.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// `10^n` for `n` in `0..=8` (the digit counts [`digits8`] returns).
const POW10_U64: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// Reads the leading decimal digits of eight bytes at once: returns their
/// value and count (0 to 8). SWAR instead of a byte loop: a byte loop costs
/// about seven instructions a digit (test, multiply-add, count, bounds),
/// this about twenty for up to eight digits (callgrind, giant.xlsx).
#[inline(always)]
pub(crate) fn digits8(bytes: [u8; 8]) -> (u64, usize) {
    let x = u64::from_le_bytes(bytes);
    // Each byte minus '0': a digit becomes 0..=9; a byte below '0' wraps
    // to >= 0xd0 (high bit set), one above '9' becomes >= 10, which the
    // `+ 0x76` pushes to >= 0x80. Borrows and carries only move upwards,
    // i.e. past the first non-digit, so the lowest flagged byte is exact.
    let sub = x.wrapping_sub(0x3030_3030_3030_3030);
    let flags = (sub | sub.wrapping_add(0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080;
    let n = (flags.trailing_zeros() / 8) as usize;
    if n == 0 {
        return (0, 0);
    }
    // Keep the n digits, most significant first in the low byte, as the
    // top n bytes (the bytes below become leading zeros), then combine
    // pairs, quads and halves with one multiply each.
    let v = sub << (8 * (8 - n));
    let v = (v.wrapping_mul(10 * 256 + 1) >> 8) & 0x00ff_00ff_00ff_00ff;
    let v = (v.wrapping_mul(100 * 65_536 + 1) >> 16) & 0x0000_ffff_0000_ffff;
    let v = v.wrapping_mul(10_000 * (1 << 32) + 1) >> 32;
    (v, n)
}

/// Whether every byte of `text` is printable ASCII (0x20..=0x7e) other
/// than `&` and `_`: text that needs no entity or `_xHHHH_` decoding and
/// is valid UTF-8 as it is. Eight bytes a test (a byte loop costs about
/// six instructions a byte; formulas and `t="str"` values are mostly 5 to
/// 20 bytes).
#[inline]
pub(crate) fn is_plain_ascii(text: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    /// No byte below 0x20, above 0x7e, `&` or `_` (each test is exact
    /// about whether some byte matches, which is all that is asked).
    fn plain8(x: u64) -> bool {
        let below = x.wrapping_sub(ONES * 0x20) & !x;
        let above = x.wrapping_add(ONES) | x;
        let amp = x ^ (ONES * u64::from(b'&'));
        let und = x ^ (ONES * u64::from(b'_'));
        let zero = (amp.wrapping_sub(ONES) & !amp) | (und.wrapping_sub(ONES) & !und);
        (below | above | zero) & HIGH == 0
    }
    let n = text.len();
    let word = |at: usize| bytes_at(text, at).map(u64::from_le_bytes);
    let half = |at: usize| bytes_at(text, at).map(|b| u64::from(u32::from_le_bytes(b)));
    if n >= 8 {
        // Whole words, then the last eight bytes (overlapping).
        let mut at = 0;
        while at + 8 <= n {
            if !word(at).is_some_and(plain8) {
                return false;
            }
            at += 8;
        }
        at == n || word(n - 8).is_some_and(plain8)
    } else if n >= 4 {
        // The first and the last four bytes (overlapping) as one word.
        match (half(0), half(n - 4)) {
            (Some(a), Some(b)) => plain8(a | (b << 32)),
            _ => false,
        }
    } else {
        text.iter()
            .all(|&b| (0x20..0x7f).contains(&b) && b != b'&' && b != b'_')
    }
}

/// Where a cell's start tag lies.
pub(crate) struct CellTagPos {
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// The attributes of a `<c>` start tag that matter.
pub(crate) struct CellHead<'a> {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) empty: bool,
    /// The raw `r` attribute (for error messages and the slow path).
    pub(crate) r: Option<&'a [u8]>,
    /// `r` already decoded by the byte loop, when it was a plain A1 ref.
    pub(crate) rc: Option<(u32, u32)>,
    /// The `t` attribute as a one-byte code (see [`type_code`]).
    pub(crate) t: u8,
    pub(crate) style: u32,
}

/// One-byte codes of the `t` attribute: `n` number (default), `s` shared
/// string, `b` bool, `e` error, `d` ISO date, `S` formula string (`str`),
/// `i` inline string, `?` anything else (read as a number).
#[inline]
pub(crate) fn type_code(t: &[u8]) -> u8 {
    match t {
        b"n" => b'n',
        b"s" => b's',
        b"b" => b'b',
        b"e" => b'e',
        b"d" => b'd',
        b"str" => b'S',
        b"inlineStr" => b'i',
        _ => b'?',
    }
}

/// Decodes an unprefixed plain reference (`AB12`, no `$`) in one pass;
/// `None` sends anything else to [`parse_a1`], which reports errors.
#[inline]
pub(crate) fn quick_a1(v: &[u8]) -> Option<(u32, u32)> {
    let mut i = 0;
    let mut col: u32 = 0;
    while let Some(&b) = v.get(i) {
        if !b.is_ascii_uppercase() {
            break;
        }
        col = col * 26 + u32::from(b - b'A') + 1;
        i += 1;
        if i > 3 {
            return None;
        }
    }
    let digits = v.get(i..)?;
    if i == 0 || digits.is_empty() || digits.len() > 7 {
        return None;
    }
    let mut row: u32 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        row = row * 10 + u32::from(d - b'0');
    }
    if row == 0 || row > MAX_ROW + 1 || col > MAX_COL + 1 {
        return None;
    }
    Some((row - 1, col - 1))
}

/// Finds the next `<` at or after `from`. Values and gaps between tags
/// are short in worksheet XML, so a plain loop over the first bytes beats a
/// `memchr` call (whose setup dominates for spans under ~16 bytes); longer
/// spans fall back to `memchr`.
#[inline]
pub(crate) fn find_lt(buf: &[u8], from: usize) -> Option<usize> {
    let rest = buf.get(from..)?;
    for (i, &b) in rest.iter().take(16).enumerate() {
        if b == b'<' {
            return Some(from + i);
        }
    }
    memchr::memchr(b'<', rest.get(16..)?).map(|i| from + 16 + i)
}

/// Parses an unprefixed `<c ...>` start tag at `lt` with a byte loop.
/// Returns `None` for anything unusual (the generic walker takes over).
#[inline]
pub(crate) fn parse_cell_start(buf: &[u8], lt: usize) -> Option<CellHead<'_>> {
    let mut i = lt + 2;
    let mut head = CellHead {
        start: lt,
        end: 0,
        empty: false,
        r: None,
        rc: None,
        t: b'n',
        style: 0,
    };
    loop {
        let mut b = *buf.get(i)?;
        while b == b' ' {
            i += 1;
            b = *buf.get(i)?;
        }
        match b {
            b'>' => {
                head.end = i + 1;
                return Some(head);
            }
            b'/' => {
                if buf.get(i + 1) != Some(&b'>') {
                    return None;
                }
                head.end = i + 2;
                head.empty = true;
                return Some(head);
            }
            _ => {}
        }
        // Name characters only: any other byte (`>`, a quote, a tab) is
        // left to the generic walker, so this scan never reads past the
        // `>` where that walker ends the tag (fuzz finding, test
        // `fuzz_regressions::an_attribute_name_never_runs_past_the_cell_tag`).
        let name_start = i;
        loop {
            match *buf.get(i)? {
                b'=' if i > name_start => break,
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'-' | b'.' | b':' => i += 1,
                _ => return None,
            }
            if i - name_start > 32 {
                return None;
            }
        }
        let name = buf.get(name_start..i)?;
        let q = *buf.get(i + 1)?;
        if q != b'"' && q != b'\'' {
            return None;
        }
        let vstart = i + 2;
        let mut j = vstart;
        while *buf.get(j)? != q {
            j += 1;
        }
        let value = buf.get(vstart..j)?;
        match name {
            b"r" => {
                head.r = Some(value);
                head.rc = quick_a1(value);
            }
            b"t" => head.t = type_code(value),
            b"s" => head.style = parse_u32(value).unwrap_or(0),
            _ if name.contains(&b':') => return None,
            _ => {}
        }
        i = j + 1;
    }
}

/// What [`fast_cell`] read from one cell of the dominant shape.
pub(crate) struct FastCell {
    /// Offset past `</c>`.
    pub(crate) end: usize,
    pub(crate) row: u32,
    pub(crate) col: u32,
    pub(crate) style: u32,
    /// Type code (see [`type_code`]).
    pub(crate) t: u8,
    /// Span of a plain `<f>` formula's raw text.
    pub(crate) f: Option<(usize, usize)>,
    /// Span of the raw `<v>` text.
    pub(crate) v: (usize, usize),
    /// The value as a number when it is a plain decimal of at most 15
    /// digits (exact via [`POW10`]), computed during the scan.
    pub(crate) num: Option<f64>,
    /// The value as an integer (valid when `num` is an unsigned integer).
    pub(crate) index: u32,
}

/// One pass over the dominant cell shape that writers emit:
/// `<c r="A1"[ s="N"][ t="X"]>[<f>text</f>]<v>text</v></c>`, reading the
/// reference, style, type and a decimal value in the same loop that finds
/// the delimiters. Anything else (other attribute order, quotes, entities,
/// namespace prefixes, inline strings, empty cells) returns `None` and takes
/// the general path. On worksheet XML this halves the instructions per cell
/// compared with the attribute iterator followed by separate reference and
/// number parsers.
#[inline]
pub(crate) fn fast_cell(buf: &[u8], lt: usize) -> Option<FastCell> {
    let w = buf.get(lt..)?;
    if w.get(..6)? != b"<c r=\"" {
        return None;
    }
    let mut i = 6;
    let mut col: u32 = 0;
    while let Some(&b) = w.get(i) {
        if !b.is_ascii_uppercase() {
            break;
        }
        col = col * 26 + u32::from(b - b'A') + 1;
        i += 1;
        if i > 9 {
            return None;
        }
    }
    let digits_at = i;
    let mut row: u32 = 0;
    if let Some(chunk) = bytes_at(w, i) {
        // The row number's digits in one step (at most 7 of them).
        let (v, n) = digits8(chunk);
        if n == 8 {
            return None;
        }
        row = v as u32;
        i += n;
    } else {
        while let Some(&b) = w.get(i) {
            if !b.is_ascii_digit() {
                break;
            }
            row = row * 10 + u32::from(b - b'0');
            i += 1;
            if i - digits_at > 7 {
                return None;
            }
        }
    }
    // Out-of-grid references go to the general path, which names them.
    if col == 0
        || col > MAX_COL + 1
        || row == 0
        || row > MAX_ROW + 1
        || i == digits_at
        || *w.get(i)? != b'"'
    {
        return None;
    }
    i += 1;
    let mut style: u32 = 0;
    if w.get(i..i + 4)? == b" s=\"" {
        i += 4;
        let start = i;
        while let Some(&b) = w.get(i) {
            if !b.is_ascii_digit() {
                break;
            }
            style = style.wrapping_mul(10).wrapping_add(u32::from(b - b'0'));
            i += 1;
        }
        if i == start || i - start > 9 || *w.get(i)? != b'"' {
            return None;
        }
        i += 1;
    }
    let mut t = b'n';
    if w.get(i..i + 4)? == b" t=\"" {
        i += 4;
        // One-letter types (`s`, `b`, `e`, `n`, `d`) without the calls into
        // `memchr` and `type_code` (one cell in four on seed.xlsx is `t="s"`).
        t = match w.get(i..i + 2)? {
            [c, b'"'] if *c != b'"' => {
                i += 2;
                match c {
                    b'n' | b's' | b'b' | b'e' | b'd' => *c,
                    _ => b'?',
                }
            }
            _ => {
                let q = memchr::memchr(b'"', w.get(i..(i + 12).min(w.len()))?)?;
                let t = type_code(w.get(i..i + q)?);
                i += q + 1;
                t
            }
        };
    }
    if *w.get(i)? != b'>' {
        return None;
    }
    i += 1;
    let mut f = None;
    if w.get(i..i + 3)? == b"<f>" {
        let fs = i + 3;
        let fe = fs + memchr::memchr(b'<', w.get(fs..)?)?;
        if w.get(fe..fe + 4)? != b"</f>" {
            return None;
        }
        f = Some((lt + fs, lt + fe));
        i = fe + 4;
    }
    if w.get(i..i + 3)? != b"<v>" {
        return None;
    }
    i += 3;
    let vs = i;
    let neg = w.get(i) == Some(&b'-');
    if neg {
        i += 1;
    }
    let mut m: u64 = 0;
    let mut n_digits = 0usize;
    let mut frac: Option<usize> = None;
    let mut plain = true;
    loop {
        // Eight digits at a time while the value stays within 16 digits
        // (the byte loop below caps the mantissa at the first 16).
        if n_digits <= 8
            && let Some(chunk) = bytes_at(w, i)
        {
            let (v, n) = digits8(chunk);
            m = m * POW10_U64.get(n).copied().unwrap_or(1) + v;
            n_digits += n;
            i += n;
            if n == 8 {
                continue;
            }
        }
        let b = *w.get(i)?;
        match b {
            b'0'..=b'9' => {
                if n_digits < 16 {
                    m = m * 10 + u64::from(b - b'0');
                }
                n_digits += 1;
            }
            b'.' if frac.is_none() => frac = Some(i),
            b'<' => break,
            _ => plain = false,
        }
        i += 1;
    }
    let ve = i;
    if w.get(i..i + 8)? != b"</v></c>" {
        return None;
    }
    let num = if plain && (1..=15).contains(&n_digits) {
        let k = frac.map_or(0, |p| ve - p - 1);
        let v = scaled(m, k);
        Some(if neg { -v } else { v })
    } else {
        None
    };
    let index = if !neg && frac.is_none() {
        u32::try_from(m).unwrap_or(u32::MAX)
    } else {
        u32::MAX
    };
    Some(FastCell {
        end: lt + i + 8,
        row: row - 1,
        col: col - 1,
        style,
        t,
        f,
        v: (lt + vs, lt + ve),
        num,
        index,
    })
}

#[cfg(test)]
mod number_tests {
    use super::parse_number;

    #[test]
    fn fast_path_matches_std() {
        for s in [
            "0",
            "-0",
            "1",
            "2635.96",
            "0.1",
            "-42.5",
            "123456789012345",
            "1.5",
            ".5",
            "5.",
            "0.000000000000001",
            "99999999999999.9",
            "1234567890123456",
            "1e5",
            "1.5E-3",
            "-7.25e10",
        ] {
            let want: f64 = s.parse().unwrap();
            assert_eq!(
                parse_number(s.as_bytes()).unwrap().to_bits(),
                want.to_bits(),
                "{s}"
            );
        }
        for s in ["", "-", ".", "1..2", "abc", "NaN", "inf", "1e999", "--1"] {
            assert_eq!(parse_number(s.as_bytes()), None, "{s}");
        }
    }

    /// The leading digits of `b` read one byte at a time.
    fn naive_digits(b: [u8; 8]) -> (u64, usize) {
        let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
        let v = b[..n]
            .iter()
            .fold(0u64, |v, &c| v * 10 + u64::from(c - b'0'));
        (v, n)
    }

    #[test]
    fn parse_u32_takes_leading_zeros() {
        use super::parse_u32;
        assert_eq!(parse_u32(b"00000000000"), Some(0));
        assert_eq!(parse_u32(b"0000000000000000000042"), Some(42));
        assert_eq!(parse_u32(b"04294967295"), Some(u32::MAX));
        assert_eq!(parse_u32(b"4294967296"), None);
        assert_eq!(parse_u32(b"0x1"), None);
        assert_eq!(parse_u32(b""), None);
    }

    #[test]
    fn digits8_edges() {
        for s in [
            *b"00000000",
            *b"99999999",
            *b"12345678",
            *b"1234567<",
            *b"7<\0\0\0\0\0\0",
            *b"<1234567",
            *b"/1234567",
            *b":1234567",
            *b"12/45678",
            *b"12:45678",
            *b"9\xff999999",
            *b"9\x00999999",
            *b"0.5</v><",
            *b"42103.64",
            *b"\xb0\xb9\x30\x3a1234",
        ] {
            assert_eq!(super::digits8(s), naive_digits(s), "{s:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn plain_ascii_test_reads_as_the_byte_loop(
            mut text in proptest::collection::vec(0x20u8..0x7f, 0..40),
            odd in proptest::option::of((0usize..40, proptest::prop_oneof![
                proptest::num::u8::ANY,
                proptest::sample::select(vec![b'&', b'_', 0x1f, 0x7f, 0x80, 0xff, b'%', b'^', b'`'])
            ])),
        ) {
            if let Some((at, b)) = odd {
                let at = at.min(text.len());
                text.insert(at, b);
            }
            let naive = text.iter().all(|&b| (0x20..0x7f).contains(&b) && b != b'&' && b != b'_');
            proptest::prop_assert_eq!(super::is_plain_ascii(&text), naive);
        }

        #[test]
        fn digits8_reads_as_the_byte_loop(
            b in proptest::array::uniform8(proptest::prop_oneof![
                b'0'..=b'9', proptest::num::u8::ANY, proptest::sample::select(vec![b'/', b':', b'.', b'<', 0xb0, 0xb9])
            ])
        ) {
            proptest::prop_assert_eq!(super::digits8(b), naive_digits(b));
        }

        /// Short shapes (the eight-at-a-time path and its edges: eight
        /// or nine digits, leading zeros, a bare point, a stray byte).
        #[test]
        fn short_shapes_agree_with_std(s in "-?[0-9]{0,9}(\\.[0-9]{0,9})?[x.]?") {
            let want = s.parse::<f64>().ok();
            proptest::prop_assert_eq!(parse_number(s.as_bytes()).map(f64::to_bits), want.map(f64::to_bits), "{}", s);
        }

        #[test]
        fn agrees_with_std(m in 0u64..1_000_000_000_000_000, k in 0usize..16, neg: bool) {
            let digits = m.to_string();
            let s = if k == 0 || k >= digits.len() {
                digits.clone()
            } else {
                format!("{}.{}", &digits[..digits.len() - k], &digits[digits.len() - k..])
            };
            let s = if neg { format!("-{s}") } else { s };
            let want: f64 = s.parse().unwrap();
            proptest::prop_assert_eq!(parse_number(s.as_bytes()).unwrap().to_bits(), want.to_bits());
        }
    }
}

#[cfg(test)]
mod cell_start_tests {
    use super::{parse_cell_start, parse_u32, type_code};
    use ream_xml::{TagKind, next_tag};

    proptest::proptest! {
        /// Whenever the byte loop reads a `<c` start tag, it ends the tag
        /// where the generic walker does and reads the same `r`, `t` and
        /// `s`, on any mix of names, quotes, `>`, `/` and whitespace. The
        /// buffer cut anywhere gives the same tag or none (a stream block
        /// may end inside the tag).
        #[test]
        fn cell_start_reads_like_the_generic_walker(
            attrs in proptest::collection::vec((
                proptest::sample::select(vec![" ", "\t", "\n", "", "  "]),
                proptest::sample::select(vec!["r", "s", "t", "v", "x:r", "a>b", "r\"", "", "r ", "/"]),
                proptest::sample::select(vec!["=", " =", "", "=="]),
                proptest::sample::select(vec![
                    "\"A1\"", "'B2'", "\"7\"", "\"s\"", "\"x>y\"", "\"", "'", "", "\"str\"",
                ]),
            ), 0..5),
            end in proptest::sample::select(vec![">", "/>", "", " >", "/ >", "<"]),
            cut in 0usize..64,
        ) {
            let mut buf = b"<c".to_vec();
            for (gap, name, eq, value) in &attrs {
                buf.extend_from_slice([*gap, *name, *eq, *value].concat().as_bytes());
            }
            buf.extend_from_slice(end.as_bytes());
            buf.extend_from_slice(b"<v>1</v></c>");
            // The caller's gate (`worksheet::data_rows`): `<c` then a
            // space, `>` or `/`.
            if !matches!(buf.get(2), Some(b' ' | b'>' | b'/')) {
                return Ok(());
            }
            let Some(head) = parse_cell_start(&buf, 0) else {
                return Ok(());
            };
            let tag = next_tag(&buf, 0).ok().flatten();
            proptest::prop_assert!(tag.is_some(), "{:?}", String::from_utf8_lossy(&buf));
            let tag = tag.unwrap();
            proptest::prop_assert_eq!(tag.end, head.end);
            proptest::prop_assert_eq!(tag.kind == TagKind::Empty, head.empty);
            let (mut r, mut t, mut s) = (None, b'n', 0);
            for (name, value) in tag.attributes() {
                match name {
                    b"r" => r = Some(value),
                    b"t" => t = type_code(value),
                    b"s" => s = parse_u32(value).unwrap_or(0),
                    _ => {}
                }
            }
            proptest::prop_assert_eq!((r, t, s), (head.r, head.t, head.style));
            let short = &buf[..cut.min(buf.len())];
            if let Some(h) = parse_cell_start(short, 0) {
                proptest::prop_assert_eq!(h.end, head.end);
            }
        }
    }
}
