//! Text decoding: entities and character references, straight into a
//! caller-owned buffer.

use crate::{XmlError, err};
use memchr::{memchr, memchr2};

/// Trims XML whitespace (space, tab, CR, LF) from both ends.
#[inline]
pub fn trim_xml_ws(b: &[u8]) -> &[u8] {
    let is_ws = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    // Most values have no white space at either end: two byte tests
    // instead of two searches (26 instructions a number on seed.ods).
    if let (Some(first), Some(last)) = (b.first(), b.last())
        && !is_ws(first)
        && !is_ws(last)
    {
        return b;
    }
    let start = b.iter().position(|c| !is_ws(c)).unwrap_or(b.len());
    let end = b.iter().rposition(|c| !is_ws(c)).map_or(start, |e| e + 1);
    b.get(start..end).unwrap_or_default()
}

/// Upper bound of the decoded length of `raw` (decoding never grows text).
#[inline]
pub fn unescape_len_hint(raw: &[u8]) -> usize {
    raw.len()
}

/// Appends `raw` to `out` with `&lt; &gt; &amp; &quot; &apos;` and
/// `&#N;` / `&#xH;` resolved, and line ends normalised as XML requires
/// (a literal CR LF or lone CR becomes LF; `&#13;` stays a CR). Any other
/// entity is an error (no DTDs, so no other entity can be defined).
/// Offsets in errors are relative to `raw`. The fast path (no `&`, no CR)
/// is one `memchr2` and one copy.
#[inline]
pub fn unescape_into(raw: &[u8], out: &mut Vec<u8>) -> Result<(), XmlError> {
    // Short text (most cell strings) is searched byte by byte: `memchr2`'s
    // call and setup cost more than a 16-byte loop.
    let first = if raw.len() <= 16 {
        raw.iter().position(|&c| c == b'&' || c == b'\r')
    } else {
        memchr2(b'&', b'\r', raw)
    };
    let Some(first) = first else {
        out.extend_from_slice(raw);
        return Ok(());
    };
    let mut pos = 0;
    let mut at = first;
    loop {
        out.extend_from_slice(raw.get(pos..at).unwrap_or_default());
        if raw.get(at) == Some(&b'\r') {
            out.push(b'\n');
            pos = at + 1;
            if raw.get(pos) == Some(&b'\n') {
                pos += 1;
            }
        } else {
            let rest = raw.get(at + 1..).unwrap_or_default();
            let semi = memchr(b';', rest).ok_or(err(at, "unterminated entity reference"))?;
            let name = rest.get(..semi).unwrap_or_default();
            match name {
                b"lt" => out.push(b'<'),
                b"gt" => out.push(b'>'),
                b"amp" => out.push(b'&'),
                b"quot" => out.push(b'"'),
                b"apos" => out.push(b'\''),
                _ => {
                    let code = match name {
                        [b'#', b'x' | b'X', hex @ ..] => parse_radix(hex, 16),
                        [b'#', dec @ ..] => parse_radix(dec, 10),
                        _ => return Err(err(at, "unknown entity reference")),
                    };
                    let ch = code
                        .and_then(char::from_u32)
                        .ok_or(err(at, "invalid character reference"))?;
                    let mut tmp = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
                }
            }
            pos = at + 1 + semi + 1;
        }
        match raw.get(pos..).and_then(|r| memchr2(b'&', b'\r', r)) {
            Some(next) => at = pos + next,
            None => {
                out.extend_from_slice(raw.get(pos..).unwrap_or_default());
                return Ok(());
            }
        }
    }
}

fn parse_radix(digits: &[u8], radix: u32) -> Option<u32> {
    if digits.is_empty() || digits.len() > 8 {
        return None;
    }
    let s = std::str::from_utf8(digits).ok()?;
    u32::from_str_radix(s, radix).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn un(s: &str) -> Result<String, XmlError> {
        let mut v = Vec::new();
        unescape_into(s.as_bytes(), &mut v)?;
        Ok(String::from_utf8(v).unwrap())
    }

    #[test]
    fn entities() {
        assert_eq!(un("plain").unwrap(), "plain");
        assert_eq!(un("a&lt;b&gt;c&amp;d&quot;e&apos;").unwrap(), "a<b>c&d\"e'");
        assert_eq!(un("&#65;&#x42;&#X43;z").unwrap(), "ABCz");
        assert_eq!(un("&#x1F600;").unwrap(), "\u{1F600}");
        assert_eq!(un("a\r\nb\rc\n&#13;\r").unwrap(), "a\nb\nc\n\r\n");
        assert!(un("&bogus;").is_err());
        assert!(un("&amp").is_err());
        assert!(un("&#xD800;").is_err());
        assert!(un("&#;").is_err());
    }

    #[test]
    fn trims() {
        assert_eq!(trim_xml_ws(b" \r\n a b\t"), b"a b");
        assert_eq!(trim_xml_ws(b"   "), b"");
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            let mut v = Vec::new();
            let _ = unescape_into(&s, &mut v);
            let mut pos = 0;
            while let Ok(Some(t)) = crate::next_tag(&s, pos) {
                let _ = t.attributes().count();
                pos = t.end;
            }
        }
    }
}
