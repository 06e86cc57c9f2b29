//! Number and string formatting for the writers.

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

    #[test]
    fn tenths() {
        for (t, want) in [(-123, "-12.3"), (-3, "-0.3"), (0, "0.0"), (999, "99.9")] {
            let mut v = Vec::new();
            push_tenths(&mut v, t);
            assert_eq!(v, want.as_bytes());
        }
    }

    #[test]
    fn json_strings() {
        let mut v = Vec::new();
        push_json_string(&mut v, "a\"b\\c\n\u{1}é");
        assert_eq!(String::from_utf8(v).unwrap(), r#""a\"b\\c\n\u0001é""#);
    }
}
