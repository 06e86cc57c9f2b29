//! PDF text strings: UTF-16BE (with BOM), UTF-8 (with BOM), PDFDocEncoding.

/// PDFDocEncoding for 0x18..=0x1F.
const LOW: [char; 8] = [
    '\u{02D8}', '\u{02C7}', '\u{02C6}', '\u{02D9}', '\u{02DD}', '\u{02DB}', '\u{02DA}', '\u{02DC}',
];

/// PDFDocEncoding for 0x80..=0xA0 (0x9F is undefined and kept as U+009F).
const HIGH: [char; 33] = [
    '\u{2022}', '\u{2020}', '\u{2021}', '\u{2026}', '\u{2014}', '\u{2013}', '\u{0192}', '\u{2044}',
    '\u{2039}', '\u{203A}', '\u{2212}', '\u{2030}', '\u{201E}', '\u{201C}', '\u{201D}', '\u{2018}',
    '\u{2019}', '\u{201A}', '\u{2122}', '\u{FB01}', '\u{FB02}', '\u{0141}', '\u{0152}', '\u{0160}',
    '\u{0178}', '\u{017D}', '\u{0131}', '\u{0142}', '\u{0153}', '\u{0161}', '\u{017E}', '\u{009F}',
    '\u{20AC}',
];

/// Decodes a PDF text string: UTF-16BE after `FE FF`, UTF-16LE after
/// `FF FE` (a common writer mistake), UTF-8 after `EF BB BF`, otherwise
/// PDFDocEncoding. Invalid sequences become U+FFFD; language escapes
/// (`ESC .. ESC` in UTF-16) are dropped.
pub fn decode_text(b: &[u8]) -> String {
    if let Some(rest) = b.strip_prefix(&[0xFE, 0xFF]) {
        return utf16(rest, u16::from_be_bytes);
    }
    if let Some(rest) = b.strip_prefix(&[0xFF, 0xFE]) {
        return utf16(rest, u16::from_le_bytes);
    }
    if let Some(rest) = b.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return String::from_utf8_lossy(rest).into_owned();
    }
    b.iter().map(|&c| pdfdoc(c)).collect()
}

fn utf16(b: &[u8], f: fn([u8; 2]) -> u16) -> String {
    let units: Vec<u16> = b
        .chunks_exact(2)
        .map(|p| {
            f([
                p.first().copied().unwrap_or(0),
                p.get(1).copied().unwrap_or(0),
            ])
        })
        .collect();
    let mut out = String::with_capacity(units.len());
    let mut in_escape = false;
    for c in char::decode_utf16(units) {
        let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
        if c == '\u{1B}' {
            in_escape = !in_escape;
            continue;
        }
        if !in_escape {
            out.push(c);
        }
    }
    out
}

/// `s` in PDFDocEncoding, or `None` when a character has no code there.
/// ASCII (control characters included) maps to itself.
pub(crate) fn encode_pdfdoc(s: &str) -> Option<Vec<u8>> {
    s.chars()
        .map(|c| match u32::from(c) {
            n @ (0..=0x7F | 0xA1..=0xFF) => u8::try_from(n).ok(),
            _ => LOW
                .iter()
                .position(|&x| x == c)
                .map(|i| 0x18 + i as u8)
                .or_else(|| HIGH.iter().position(|&x| x == c).map(|i| 0x80 + i as u8))
                .filter(|&b| b != 0x9F),
        })
        .collect()
}

/// One PDFDocEncoding byte.
fn pdfdoc(c: u8) -> char {
    match c {
        0x18..=0x1F => LOW
            .get(usize::from(c - 0x18))
            .copied()
            .unwrap_or('\u{FFFD}'),
        0x80..=0xA0 => HIGH
            .get(usize::from(c - 0x80))
            .copied()
            .unwrap_or('\u{FFFD}'),
        _ => char::from(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings() {
        assert_eq!(decode_text(b"\xfe\xff\x00A\xd8\x3d\xde\x00"), "A\u{1F600}");
        assert_eq!(
            decode_text(b"caf\xe9 \x80 \x18"),
            "caf\u{e9} \u{2022} \u{2d8}"
        );
        assert_eq!(decode_text(b"\xef\xbb\xbf\xc5\x82"), "\u{142}");
        assert_eq!(decode_text(b"\xfe\xff\x00\x1bde\x00\x1b\x00x"), "x");
        assert_eq!(decode_text(b"\xff\xfeA\x00"), "A");
    }
}
