//! Escapes in cell values: OOXML's `_xHHHH_` in cell text, and XML
//! references in values that must decode (numbers, booleans, dates).

#[inline]
fn hex(b: u8) -> Option<u32> {
    match b {
        b'0'..=b'9' => Some(u32::from(b - b'0')),
        b'a'..=b'f' => Some(u32::from(b - b'a' + 10)),
        b'A'..=b'F' => Some(u32::from(b - b'A' + 10)),
        _ => None,
    }
}

/// The code unit of an escape `_xHHHH_` at the start of `b`.
fn escape_at(b: &[u8]) -> Option<u32> {
    match b {
        [b'_', b'x', h1, h2, h3, h4, b'_', ..] => {
            Some(hex(*h1)? << 12 | hex(*h2)? << 8 | hex(*h3)? << 4 | hex(*h4)?)
        }
        _ => None,
    }
}

/// Decodes `_xHHHH_` escapes in `buf[off..]` in place (the text only
/// shrinks). `_x005F_` escapes a literal underscore, so `_x005F_x000D_`
/// stays as the text `_x000D_`. Surrogate pairs written as two escapes are
/// joined; invalid escapes stay as written.
pub(crate) fn decode_xhhhh_in_place(buf: &mut Vec<u8>, off: usize) {
    let mut r = off;
    let mut w = off;
    let len = buf.len();
    while r < len {
        let rest = buf.get(r..).unwrap_or_default();
        if let Some(code) = escape_at(rest) {
            let mut consumed = 7;
            let ch = if (0xD800..0xDC00).contains(&code) {
                match rest.get(7..).and_then(escape_at) {
                    Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                        consumed = 14;
                        char::from_u32(0x10000 + ((code - 0xD800) << 10) + (lo - 0xDC00))
                    }
                    _ => None,
                }
            } else {
                char::from_u32(code)
            };
            if let Some(ch) = ch {
                let mut tmp = [0u8; 4];
                let enc = ch.encode_utf8(&mut tmp).as_bytes();
                for &b in enc {
                    if let Some(slot) = buf.get_mut(w) {
                        *slot = b;
                    }
                    w += 1;
                }
                r += consumed;
                if code == 0x5F {
                    // `_x005F_` protects the following text from decoding:
                    // copy the next 7 bytes verbatim if they form an escape.
                    let next = buf.get(r..).unwrap_or_default();
                    if escape_at(next).is_some() {
                        for k in 0..7 {
                            let b = buf.get(r + k).copied().unwrap_or(b'_');
                            if let Some(slot) = buf.get_mut(w) {
                                *slot = b;
                            }
                            w += 1;
                        }
                        r += 7;
                    }
                }
                continue;
            }
        }
        let b = buf.get(r).copied().unwrap_or(0);
        if let Some(slot) = buf.get_mut(w) {
            *slot = b;
        }
        w += 1;
        r += 1;
    }
    buf.truncate(w);
}

/// A cell value written with entity or character references (legal XML,
/// e.g. `&#49;2` for 12; rare in practice), resolved; `None` when
/// it has none, or when resolving leaves an `&` (a value is resolved once,
/// never twice). Only called after the raw value failed to read.
#[cold]
pub(crate) fn resolved(raw: &[u8]) -> Option<Vec<u8>> {
    if !raw.contains(&b'&') {
        return None;
    }
    let mut out = Vec::with_capacity(raw.len());
    ream_xml::unescape_into(raw, &mut out).ok()?;
    (!out.contains(&b'&')).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> String {
        let mut v = b"pre".to_vec();
        v.extend_from_slice(s.as_bytes());
        decode_xhhhh_in_place(&mut v, 3);
        String::from_utf8(v[3..].to_vec()).unwrap()
    }

    #[test]
    fn decodes() {
        assert_eq!(dec("a_x000D_b"), "a\rb");
        assert_eq!(dec("_x005F_x000D_"), "_x000D_");
        assert_eq!(dec("_x00e9_"), "é");
        assert_eq!(dec("_xD83D__xDE00_"), "\u{1F600}");
        assert_eq!(dec("_x12G4_ _x12"), "_x12G4_ _x12");
        assert_eq!(dec("plain_text"), "plain_text");
    }
}
