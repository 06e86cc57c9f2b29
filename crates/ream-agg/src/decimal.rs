//! Exact decimals: parsing a value into fixed point, a 192-bit sum, and
//! the text of a sum over a count rounded to a number of decimals.
//!
//! A value is `mantissa * 10^-scale` with at most [`MAX_DIGITS`]
//! significant digits and decimals, normalised (no trailing fraction
//! zeros), so `0.1`, `0.10` and `1e-1` are the same value. Any value
//! rescaled to a scale of at most 18 is below 10^36 (< 2^120), so a sum of
//! up to 2^64 of them fits 192 bits: sums never overflow.

use crate::error::Problem;

/// Most significant digits, and most decimals, of a value (18): every
/// value is below 10^18 and its mantissa fits an `i64`.
pub const MAX_DIGITS: u32 = 18;

/// A parsed value: `m * 10^-scale`, normalised (`m` not a multiple of 10
/// unless the scale is 0; zero has scale 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dec {
    pub m: i64,
    pub scale: u8,
}

/// `10^k` for `k <= 38`.
pub(crate) fn pow10(k: u32) -> u128 {
    10u128.pow(k.min(38))
}

/// Parses `[+-]? (d+ [. d*] | . d+) ([eE] [+-]? d+)?` exactly. Anything
/// else is [`Problem::BadValue`]; a number with more than [`MAX_DIGITS`]
/// significant digits or decimals, or of 10^18 or more, is
/// [`Problem::ValueOutOfRange`].
pub(crate) fn parse(v: &[u8]) -> Result<Dec, Problem> {
    let (neg, rest) = match v.split_first() {
        Some((b'-', r)) => (true, r),
        Some((b'+', r)) => (false, r),
        _ => (false, v),
    };
    let int_len = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let (int, rest) = rest.split_at(int_len);
    let (frac, rest) = match rest.split_first() {
        Some((b'.', r)) => {
            let n = r.iter().take_while(|b| b.is_ascii_digit()).count();
            r.split_at(n)
        }
        _ => (&[][..], rest),
    };
    if int.is_empty() && frac.is_empty() {
        return Err(Problem::BadValue);
    }
    let exp = match rest.split_first() {
        None => 0i64,
        Some((b'e' | b'E', e)) => exponent(e)?,
        Some(_) => return Err(Problem::BadValue),
    };
    // value = digits * 10^exp10
    let mut exp10 = exp - i64::try_from(frac.len()).unwrap_or(i64::MAX / 4);
    let (mut m, mut nsig, mut zeros) = (0u64, 0u32, 0u32);
    for &b in int.iter().chain(frac) {
        let d = u64::from(b - b'0');
        if d == 0 {
            zeros = zeros.saturating_add(u32::from(nsig > 0));
            continue;
        }
        nsig = nsig.saturating_add(zeros).saturating_add(1);
        if nsig > MAX_DIGITS {
            return Err(Problem::ValueOutOfRange);
        }
        m = m * 10u64.pow(zeros) * 10 + d;
        zeros = 0;
    }
    if m == 0 {
        return Ok(Dec { m: 0, scale: 0 });
    }
    exp10 += i64::from(zeros);
    let (m, scale) = if exp10 >= 0 {
        if i64::from(nsig) + exp10 > i64::from(MAX_DIGITS) {
            return Err(Problem::ValueOutOfRange);
        }
        (m * 10u64.pow(exp10 as u32), 0)
    } else {
        let s = exp10.unsigned_abs();
        if s > u64::from(MAX_DIGITS) {
            return Err(Problem::ValueOutOfRange);
        }
        (m, s as u8)
    };
    let m = i64::try_from(m).map_err(|_| Problem::ValueOutOfRange)?;
    Ok(Dec {
        m: if neg { -m } else { m },
        scale,
    })
}

/// The exponent digits after `e`: `[+-]? d+`, saturated far past any
/// accepted value.
fn exponent(e: &[u8]) -> Result<i64, Problem> {
    let (neg, digits) = match e.split_first() {
        Some((b'-', r)) => (true, r),
        Some((b'+', r)) => (false, r),
        _ => (false, e),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(Problem::BadValue);
    }
    let x = digits
        .iter()
        .fold(0i64, |a, b| (a * 10 + i64::from(b - b'0')).min(1 << 40));
    Ok(if neg { -x } else { x })
}

/// A signed 192-bit integer (two's complement, little-endian limbs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Wide([u64; 3]);

impl Wide {
    pub const ZERO: Wide = Wide([0; 3]);

    /// The little-endian limbs.
    pub fn limbs(self) -> [u64; 3] {
        self.0
    }

    /// The number with these little-endian limbs.
    pub fn from_limbs(l: [u64; 3]) -> Wide {
        Wide(l)
    }

    pub fn from_i128(v: i128) -> Wide {
        let lo = v as u128;
        let hi = if v < 0 { u64::MAX } else { 0 };
        Wide([lo as u64, (lo >> 64) as u64, hi])
    }

    fn is_neg(&self) -> bool {
        let [_, _, hi] = self.0;
        hi >> 63 == 1
    }

    /// `self + o` (wrapping at 192 bits, which the bounds rule out).
    pub fn add(self, o: Wide) -> Wide {
        let mut out = [0u64; 3];
        let mut carry = false;
        for ((d, a), b) in out.iter_mut().zip(self.0).zip(o.0) {
            let (s1, c1) = a.overflowing_add(b);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            *d = s2;
            carry = c1 || c2;
        }
        Wide(out)
    }

    fn neg(self) -> Wide {
        Wide(self.0.map(|l| !l)).add(Wide([1, 0, 0]))
    }

    fn abs(self) -> Wide {
        if self.is_neg() { self.neg() } else { self }
    }

    /// `self * k`.
    pub fn mul(self, k: u64) -> Wide {
        let mut out = [0u64; 3];
        let mut carry = 0u128;
        for (d, a) in out.iter_mut().zip(self.abs().0) {
            let p = u128::from(a) * u128::from(k) + carry;
            *d = p as u64;
            carry = p >> 64;
        }
        let w = Wide(out);
        if self.is_neg() { w.neg() } else { w }
    }

    /// `(negative, |self| / d, |self| % d)`; the quotient saturates at
    /// `u128::MAX` (the bounds keep a mean below 10^36).
    pub fn div_rem(self, d: u64) -> (bool, u128, u64) {
        let d = d.max(1);
        let mut q = [0u64; 3];
        let mut r = 0u64;
        for (ql, a) in q.iter_mut().zip(self.abs().0).rev() {
            let cur = (u128::from(r) << 64) | u128::from(a);
            *ql = (cur / u128::from(d)) as u64;
            r = (cur % u128::from(d)) as u64;
        }
        let [q0, q1, q2] = q;
        let quot = if q2 != 0 {
            u128::MAX
        } else {
            (u128::from(q1) << 64) | u128::from(q0)
        };
        (self.is_neg(), quot, r)
    }
}

/// How a text is rounded to its last decimal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Round {
    /// Half away from zero (`0.25` -> `0.3`, `-0.25` -> `-0.3`).
    HalfAway,
    /// Half up, toward +infinity, as the 1BRC reference (`-0.25` -> `-0.2`).
    HalfUp,
}

/// The text of `sum / count` (a sum at `scale`) rounded to `to` decimals
/// by `round`: `trim` drops trailing fraction zeros (keeping one decimal).
/// Never `-0.0`.
pub(crate) fn ratio_text(
    sum: Wide,
    count: u64,
    scale: u32,
    to: u32,
    round: Round,
    trim: bool,
) -> String {
    let (neg, q, mut r) = sum.div_rem(count);
    let count = count.max(1);
    let scale = scale as usize;
    let to = to as usize;
    let mut digits: Vec<u8> = q
        .to_string()
        .into_bytes()
        .iter()
        .map(|b| b - b'0')
        .collect();
    if digits.len() <= scale {
        let pad = scale + 1 - digits.len();
        digits.splice(0..0, std::iter::repeat_n(0, pad));
    }
    let int_len = digits.len() - scale;
    // Decimals up to `to + 1`, then whether anything past them is non-zero.
    for _ in scale..to + 1 {
        let x = u128::from(r) * 10;
        digits.push((x / u128::from(count)) as u8);
        r = (x % u128::from(count)) as u64;
    }
    let keep = int_len + to;
    let first = digits.get(keep).copied().unwrap_or(0);
    let rest = r != 0
        || digits
            .get(keep + 1..)
            .is_some_and(|d| d.iter().any(|&x| x != 0));
    let up = match round {
        Round::HalfAway => first >= 5,
        Round::HalfUp if neg => first > 5 || (first == 5 && rest),
        Round::HalfUp => first >= 5,
    };
    digits.truncate(keep);
    if up {
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, 1);
                break;
            }
            i -= 1;
            if let Some(d) = digits.get_mut(i) {
                if *d == 9 {
                    *d = 0;
                } else {
                    *d += 1;
                    break;
                }
            }
        }
    }
    let (int, frac) = digits.split_at(digits.len() - to);
    let mut frac = frac.to_vec();
    if trim {
        while frac.len() > 1 && frac.last() == Some(&0) {
            frac.pop();
        }
    }
    let lead = int
        .iter()
        .take_while(|&&d| d == 0)
        .count()
        .min(int.len() - 1);
    let zero = digits.iter().all(|&d| d == 0);
    let mut s = String::with_capacity(digits.len() + 2);
    if neg && !zero {
        s.push('-');
    }
    s.extend(int.iter().skip(lead).map(|d| char::from(b'0' + d)));
    if !frac.is_empty() {
        s.push('.');
        s.extend(frac.iter().map(|d| char::from(b'0' + d)));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<(i64, u8), Problem> {
        parse(s.as_bytes()).map(|d| (d.m, d.scale))
    }

    #[test]
    fn parse_normalises_every_spelling() {
        for s in ["0.1", "0.10", ".1", "+0.100", "1e-1", "1.0E-1", "0.01e1"] {
            assert_eq!(p(s), Ok((1, 1)), "{s}");
        }
        assert_eq!(p("-12.30"), Ok((-123, 1)));
        assert_eq!(p("1e3"), Ok((1000, 0)));
        assert_eq!(p("1."), Ok((1, 0)));
        assert_eq!(p("-0.000"), Ok((0, 0)));
        assert_eq!(p("100"), Ok((100, 0)));
        assert_eq!(p("999999999999999999"), Ok((999_999_999_999_999_999, 0)));
        assert_eq!(p("0.000000000000000001"), Ok((1, 18)));
        assert_eq!(p("1.50000000000000000000000000"), Ok((15, 1)));
        for bad in [
            "", "-", ".", "e5", "1e", "1e+", "1.2.3", "0x1", " 1", "1 ", "inf", "nan",
        ] {
            assert_eq!(p(bad), Err(Problem::BadValue), "{bad}");
        }
        for big in [
            "1000000000000000000",
            "1e18",
            "0.0000000000000000001",
            "1.234567890123456789",
            "1e999999999999999999999",
            "1e-99999999",
        ] {
            assert_eq!(p(big), Err(Problem::ValueOutOfRange), "{big}");
        }
    }

    #[test]
    fn wide_arithmetic() {
        let big = Wide::from_i128(i128::MAX);
        let s = big.add(big).add(Wide::from_i128(2));
        let (neg, q, r) = s.div_rem(2);
        assert_eq!((neg, q, r), (false, i128::MAX as u128 + 1, 0));
        let n = Wide::from_i128(-7).mul(1_000_000_000_000_000_000);
        assert_eq!(n.div_rem(3), (true, 2_333_333_333_333_333_333, 1));
    }

    #[test]
    fn ratio_texts() {
        let t = |s: i128, c, sc, to, r, trim| ratio_text(Wide::from_i128(s), c, sc, to, r, trim);
        assert_eq!(t(3, 2, 1, 7, Round::HalfAway, true), "0.15");
        assert_eq!(t(4, 3, 1, 7, Round::HalfAway, true), "0.1333333");
        assert_eq!(t(-5, 3, 0, 7, Round::HalfAway, true), "-1.6666667");
        assert_eq!(t(120, 1, 1, 1, Round::HalfAway, true), "12.0");
        assert_eq!(t(-225, 1, 2, 1, Round::HalfUp, false), "-2.2");
        assert_eq!(t(225, 1, 2, 1, Round::HalfUp, false), "2.3");
        assert_eq!(t(-2251, 1, 3, 1, Round::HalfUp, false), "-2.3");
        assert_eq!(t(-4, 1, 2, 1, Round::HalfUp, false), "0.0");
        assert_eq!(t(999, 1, 2, 1, Round::HalfUp, false), "10.0");
        assert_eq!(t(0, 5, 0, 7, Round::HalfAway, true), "0.0");
        assert_eq!(
            t(-1, 1, 18, 18, Round::HalfAway, true),
            "-0.000000000000000001"
        );
    }
}
