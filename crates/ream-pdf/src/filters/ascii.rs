//! ASCIIHexDecode and ASCII85Decode.

use super::Sink;
use crate::error::{Error, Result};
use crate::lexer::{hex_val, is_ws};
use ream_io::ErrorKind;

/// ASCIIHexDecode: pairs of hex digits up to `>`, whitespace ignored, an
/// odd last digit padded with 0.
pub(crate) fn hex(input: &[u8], budget: u64) -> Result<Vec<u8>> {
    let mut sink = Sink::new(budget, input.len() / 2);
    let mut hi = None;
    for &b in input {
        if b == b'>' {
            break;
        }
        if is_ws(b) {
            continue;
        }
        let v = hex_val(b).ok_or_else(|| {
            Error::new(
                ErrorKind::Malformed,
                format!("ASCIIHex: bad digit {b:#04x}"),
            )
        })?;
        match hi.take() {
            Some(h) => sink.push(h << 4 | v)?,
            None => hi = Some(v),
        }
    }
    if let Some(h) = hi {
        sink.push(h << 4)?;
    }
    Ok(sink.out)
}

/// ASCII85Decode: groups of five `!`..`u`, `z` for four zeros, up to `~>`.
pub(crate) fn a85(input: &[u8], budget: u64) -> Result<Vec<u8>> {
    let mut sink = Sink::new(budget, input.len() / 5 * 4 + 4);
    let body = input.strip_prefix(b"<~").unwrap_or(input);
    let mut group = [0u32; 5];
    let mut n = 0usize;
    for &b in body {
        if b == b'~' {
            break;
        }
        if is_ws(b) {
            continue;
        }
        if b == b'z' && n == 0 {
            sink.extend(&[0, 0, 0, 0])?;
            continue;
        }
        if !(b'!'..=b'u').contains(&b) {
            return Err(Error::new(
                ErrorKind::Malformed,
                format!("ASCII85: bad character {b:#04x}"),
            ));
        }
        if let Some(slot) = group.get_mut(n) {
            *slot = u32::from(b - b'!');
        }
        n += 1;
        if n == 5 {
            sink.extend(&value(&group)?.to_be_bytes())?;
            n = 0;
        }
    }
    if n == 1 {
        return Err(Error::new(
            ErrorKind::Malformed,
            "ASCII85: a final group of one character",
        ));
    }
    if n > 1 {
        for slot in group.iter_mut().skip(n) {
            *slot = 84;
        }
        let bytes = value(&group)?.to_be_bytes();
        sink.extend(bytes.get(..n - 1).unwrap_or_default())?;
    }
    Ok(sink.out)
}

fn value(g: &[u32; 5]) -> Result<u32> {
    let v = g.iter().fold(0u64, |acc, &d| acc * 85 + u64::from(d));
    u32::try_from(v).map_err(|_| Error::new(ErrorKind::Malformed, "ASCII85: group overflows"))
}

/// Encodes ASCII85 (tests and fixtures).
#[cfg(test)]
pub(crate) fn a85_encode(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in data.chunks(4) {
        let mut b = [0u8; 4];
        b[..chunk.len()].copy_from_slice(chunk);
        let mut v = u32::from_be_bytes(b);
        let mut g = [0u8; 5];
        for i in (0..5).rev() {
            g[i] = (v % 85) as u8 + b'!';
            v /= 85;
        }
        out.extend_from_slice(&g[..chunk.len() + 1]);
    }
    out.extend_from_slice(b"~>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_and_85() {
        assert_eq!(hex(b"48 65 6c6C6f7>", 100).unwrap(), b"Hello\x70");
        assert!(hex(b"4x", 100).is_err());
        let data = b"The quick brown fox jumps".to_vec();
        assert_eq!(a85(&a85_encode(&data), 100).unwrap(), data);
        assert_eq!(a85(b"z~>", 100).unwrap(), vec![0, 0, 0, 0]);
        assert_eq!(
            a85(b"zzzz~>", 8).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
        assert!(a85(b"uuuuu~>", 100).is_err());
    }
}
