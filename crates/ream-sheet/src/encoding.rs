//! Parts written in UTF-16 (rare, but legal XML) are converted to UTF-8
//! before parsing; every parser in this crate reads UTF-8 only.

use crate::error::{Error, Result};

/// Which UTF-16 byte order a part uses, judged by its BOM or by the
/// `<` that must start an XML document without one.
fn utf16_order(b: &[u8]) -> Option<bool> {
    match b {
        [0xFF, 0xFE, ..] | [b'<', 0, b'?' | b'x' | b'X', 0, ..] => Some(false),
        [0xFE, 0xFF, ..] | [0, b'<', 0, b'?' | b'x' | b'X', ..] => Some(true),
        _ => None,
    }
}

/// True when `head` (the first bytes of a part) is UTF-16 XML. The
/// streaming and chunked parsers read UTF-8 only; they hand such a part to
/// [`ensure_utf8`] whole.
pub(crate) fn is_utf16(head: &[u8]) -> bool {
    utf16_order(head).is_some()
}

/// Converts UTF-16 XML in `buf` to UTF-8 in place; UTF-8 is left alone.
pub(crate) fn ensure_utf8(buf: &mut Vec<u8>) -> Result<()> {
    let Some(big_endian) = utf16_order(buf) else {
        return Ok(());
    };
    let units = buf.chunks_exact(2).map(|p| match p {
        [a, b] if big_endian => u16::from_be_bytes([*a, *b]),
        [a, b] => u16::from_le_bytes([*a, *b]),
        _ => 0,
    });
    let mut out = String::with_capacity(buf.len() / 2);
    for (i, c) in char::decode_utf16(units).enumerate() {
        match c {
            Ok('\u{FEFF}') if i == 0 => {}
            Ok(c) => out.push(c),
            Err(_) => {
                return Err(
                    Error::malformed("invalid UTF-16 in an XML part").at_offset(i as u64 * 2)
                );
            }
        }
    }
    *buf = out.into_bytes();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_both_orders() {
        let text = "<?xml version=\"1.0\"?><a>é</a>";
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        for mut v in [le, be] {
            assert!(utf16_order(&v).is_some());
            ensure_utf8(&mut v).unwrap();
            assert_eq!(v, text.as_bytes());
        }
        let mut plain = text.as_bytes().to_vec();
        ensure_utf8(&mut plain).unwrap();
        assert_eq!(plain, text.as_bytes());
        let mut bad = vec![0xFF, 0xFE, 0x00, 0xD8, b'<', 0];
        assert!(ensure_utf8(&mut bad).is_err());
    }
}
