//! Number and string formatting for the writers.

/// A number as a writer prints it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Num {
    /// Integer tenths, printed with one decimal.
    Tenths(i64),
    /// An `f64` printed as the shortest text that reads back the same.
    Float(f64),
}

impl Num {
    /// `x` rounded half up to tenths (`floor(x * 10 + 0.5)` in `f64`), or
    /// the float itself when that does not fit an `i64`.
    pub fn round_tenths(x: f64) -> Num {
        let t = (x * 10.0 + 0.5).floor();
        if t.is_finite() && t.abs() < 9.0e18 {
            Num::Tenths(t as i64)
        } else {
            Num::Float(x)
        }
    }

    /// Appends the text form (`inf`/`-inf` for an overflowed sum).
    pub fn push(self, out: &mut Vec<u8>) {
        match self {
            Num::Tenths(t) => push_tenths(out, t),
            Num::Float(x) => out.extend_from_slice(format!("{x:?}").as_bytes()),
        }
    }

    /// Appends the JSON form (`null` for an infinite value).
    pub fn push_json(self, out: &mut Vec<u8>) {
        match self {
            Num::Float(x) if !x.is_finite() => out.extend_from_slice(b"null"),
            n => n.push(out),
        }
    }
}

/// Appends `t` tenths with one decimal: `-12.3`, `0.0`, `5.0`.
pub(crate) fn push_tenths(out: &mut Vec<u8>, t: i64) {
    if t < 0 {
        out.push(b'-');
    }
    let a = t.unsigned_abs();
    out.extend_from_slice((a / 10).to_string().as_bytes());
    out.push(b'.');
    out.push(b'0' + (a % 10) as u8);
}

/// Appends `s` as a JSON string literal.
pub(crate) fn push_json_string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            c if (c as u32) < 0x20 => {
                out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes());
            }
            c => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: Num) -> String {
        let mut v = Vec::new();
        n.push(&mut v);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn tenths_and_rounding() {
        assert_eq!(text(Num::Tenths(-123)), "-12.3");
        assert_eq!(text(Num::Tenths(-3)), "-0.3");
        assert_eq!(text(Num::Tenths(0)), "0.0");
        assert_eq!(text(Num::Tenths(999)), "99.9");
        assert_eq!(text(Num::round_tenths(-0.04)), "0.0");
        assert_eq!(text(Num::round_tenths(-0.05)), "0.0");
        assert_eq!(text(Num::round_tenths(-0.06)), "-0.1");
        assert_eq!(text(Num::round_tenths(2.25)), "2.3");
        assert_eq!(text(Num::round_tenths(1e300)), "1e300");
        assert_eq!(text(Num::Float(0.1)), "0.1");
        assert_eq!(text(Num::Float(1000.0)), "1000.0");
        let mut v = Vec::new();
        Num::Float(f64::INFINITY).push_json(&mut v);
        assert_eq!(v, b"null");
    }

    #[test]
    fn json_strings() {
        let mut v = Vec::new();
        push_json_string(&mut v, "a\"b\\c\n\u{1}é");
        assert_eq!(String::from_utf8(v).unwrap(), r#""a\"b\\c\n\u0001é""#);
    }
}
