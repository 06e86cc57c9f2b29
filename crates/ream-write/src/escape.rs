//! XML escaping of cell text, formulas and attribute values.
//!
//! `&`, `<`, `>` (and `"` in attributes) become entities. Characters XML
//! 1.0 cannot hold (controls other than tab and line feed, U+FFFE, U+FFFF)
//! and carriage returns are written as OOXML `_xHHHH_` escapes, and a
//! literal `_xHHHH_` in the text is protected as `_x005F_xHHHH_`, so
//! readers give back exactly the text written.

/// Bytes that may need escaping: entities, controls, `_`, and 0xEF (the
/// lead byte of U+FFFE / U+FFFF).
#[inline]
fn special(c: u8) -> bool {
    matches!(c, 0x00..=0x08 | 0x0B..=0x1F | b'&' | b'<' | b'>' | b'"' | b'_' | 0xEF)
}

/// True when `b` starts with `_xHHHH_` (hex digits of either case).
fn is_escape_at(b: &[u8]) -> bool {
    matches!(b, [b'_', b'x', h1, h2, h3, h4, b'_', ..]
        if [h1, h2, h3, h4].iter().all(|h| h.is_ascii_hexdigit()))
}

/// Appends `text` escaped for element content (`attr` false) or a
/// double-quoted attribute value (`attr` true).
pub(crate) fn escape_into(out: &mut Vec<u8>, text: &str, attr: bool) {
    let b = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b.get(i).copied().unwrap_or(0);
        if !special(c) {
            i += 1;
            continue;
        }
        let rest = b.get(i..).unwrap_or_default();
        let (rep, used): (&[u8], usize) = match c {
            b'&' => (b"&amp;", 1),
            b'<' => (b"&lt;", 1),
            b'>' => (b"&gt;", 1),
            b'"' if attr => (b"&quot;", 1),
            b'_' if is_escape_at(rest) => (b"_x005F_", 1),
            0xEF if rest.starts_with(&[0xEF, 0xBF, 0xBE]) => (b"_xFFFE_", 3),
            0xEF if rest.starts_with(&[0xEF, 0xBF, 0xBF]) => (b"_xFFFF_", 3),
            c if c < 0x20 => {
                out.extend_from_slice(b.get(start..i).unwrap_or_default());
                push_x_escape(out, c);
                i += 1;
                start = i;
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        };
        out.extend_from_slice(b.get(start..i).unwrap_or_default());
        out.extend_from_slice(rep);
        i += used;
        start = i;
    }
    out.extend_from_slice(b.get(start..).unwrap_or_default());
}

/// Writes `_x00HH_` for a control byte.
fn push_x_escape(out: &mut Vec<u8>, c: u8) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.extend_from_slice(b"_x00");
    let hex = |n: u8| HEX.get(usize::from(n & 0xF)).copied().unwrap_or(b'0');
    out.push(hex(c >> 4));
    out.push(hex(c));
    out.push(b'_');
}

/// True when text needs `xml:space="preserve"` to keep its spaces: it
/// starts or ends with whitespace.
pub(crate) fn needs_preserve(text: &str) -> bool {
    let b = text.as_bytes();
    let ws = |c: Option<&u8>| matches!(c, Some(b' ' | b'\t' | b'\n' | b'\r'));
    ws(b.first()) || ws(b.last())
}

/// Characters of `text` as Excel counts them (UTF-16 code units).
pub(crate) fn excel_len(text: &str) -> usize {
    text.encode_utf16().count()
}

/// True when `text` is longer than a cell may hold (32,767 UTF-16 units).
pub(crate) fn too_long(text: &str) -> bool {
    // Every UTF-16 unit takes at least one UTF-8 byte: short texts need no
    // count.
    text.len() > crate::limits::MAX_TEXT_CHARS && excel_len(text) > crate::limits::MAX_TEXT_CHARS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(s: &str, attr: bool) -> String {
        let mut v = Vec::new();
        escape_into(&mut v, s, attr);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn entities_controls_and_escapes() {
        assert_eq!(esc("a<b>&c\"", false), "a&lt;b&gt;&amp;c\"");
        assert_eq!(esc("a\"b", true), "a&quot;b");
        assert_eq!(esc("x\r\ny\u{1}\tz", false), "x_x000D_\ny_x0001_\tz");
        assert_eq!(esc("_x000D_ and _x1_", false), "_x005F_x000D_ and _x1_");
        assert_eq!(
            esc("\u{FFFE}\u{FFFF}é\u{FFFD}", false),
            "_xFFFE__xFFFF_é\u{FFFD}"
        );
        assert_eq!(esc("plain", false), "plain");
    }

    #[test]
    fn preserve_and_len() {
        assert!(needs_preserve(" a"));
        assert!(needs_preserve("a\n"));
        assert!(!needs_preserve("a b"));
        assert_eq!(excel_len("héllo"), 5);
        assert_eq!(excel_len(&"😀".repeat(20_000)), 40_000);
        assert!(too_long(&"😀".repeat(20_000)));
        assert!(!too_long(&"é".repeat(32_767)));
    }
}
