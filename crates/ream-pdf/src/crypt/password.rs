//! Passwords and the bytes each revision hashes: SASLprep'd UTF-8 for
//! revisions 5 and 6 (ISO 32000-2 §7.6.4.3.3), PDFDocEncoding for
//! revisions 2 to 4.

/// Longest password used (revisions 5 and 6 truncate to 127 bytes; the
/// older ones use 32).
pub const MAX_PASSWORD: usize = 127;

/// Longest input kept: 127 characters of up to 4 UTF-8 bytes each, so
/// that SASLprep (which may shorten the text) sees enough of it.
const STORED: usize = 4 * MAX_PASSWORD;

/// A password given to open an encrypted PDF, kept inline (up to 508
/// bytes) so that [`PdfOptions`](crate::PdfOptions) stays `Copy`.
///
/// A password given as text is hashed as revisions 5 and 6 require: its
/// SASLprep (RFC 4013) form as UTF-8, truncated to 127 bytes, and then,
/// when that differs and fails, its UTF-8 bytes unprepared (some writers
/// skip SASLprep). Revisions 2 to 4 hash its PDFDocEncoding bytes (Latin-1
/// for U+00A1 to U+00FF, plus the PDFDocEncoding codes 0x80 to 0xA0 for
/// the bullet, dashes, quotes, € and the like), and then its UTF-8 bytes
/// when they differ; only the first 32 bytes count. A password given as
/// bytes is used as given for every revision.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Password {
    bytes: [u8; STORED],
    len: u16,
    text: bool,
}

impl Password {
    /// The password `text`, kept up to 508 bytes (cut at a character
    /// boundary).
    pub fn new(text: &str) -> Password {
        let mut end = text.len().min(STORED);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let mut p = Password::store(text.as_bytes().get(..end).unwrap_or_default());
        p.text = true;
        p
    }

    /// A password given as raw bytes, used as given for every revision
    /// (PDFDocEncoding for revisions 2 to 4, UTF-8 for 5 and 6), truncated
    /// to 127 bytes.
    pub fn from_bytes(b: &[u8]) -> Password {
        Password::store(b.get(..b.len().min(MAX_PASSWORD)).unwrap_or_default())
    }

    /// `b` (at most 508 bytes kept) as a byte password.
    fn store(b: &[u8]) -> Password {
        let mut bytes = [0u8; STORED];
        let n = b.len().min(STORED);
        for (d, s) in bytes.iter_mut().zip(b.iter()).take(n) {
            *d = *s;
        }
        Password {
            bytes,
            len: n as u16,
            text: false,
        }
    }

    /// The password as given: UTF-8 text or raw bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.len)).unwrap_or_default()
    }

    /// The byte strings to try for revision `r`, best first (see the type's
    /// documentation).
    pub(crate) fn candidates(&self, r: i64) -> Vec<Vec<u8>> {
        let raw = self.as_bytes();
        let text = if self.text {
            std::str::from_utf8(raw).ok()
        } else {
            None
        };
        let mut out: Vec<Vec<u8>> = Vec::with_capacity(2);
        match text {
            Some(t) if r >= 5 => {
                if let Ok(p) = stringprep::saslprep(t) {
                    out.push(truncate(p.as_bytes()));
                }
                out.push(truncate(raw));
            }
            Some(t) => {
                if let Some(b) = crate::text::encode_pdfdoc(t) {
                    out.push(b);
                }
                out.push(raw.to_vec());
            }
            None => out.push(truncate(raw)),
        }
        out.dedup();
        out
    }
}

/// The first 127 bytes.
fn truncate(b: &[u8]) -> Vec<u8> {
    b.get(..b.len().min(MAX_PASSWORD))
        .unwrap_or_default()
        .to_vec()
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Password({} bytes)", self.len)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn candidates_per_revision() {
        // SASLprep maps U+00A0 to a space and drops U+00AD.
        let p = Password::new("p\u{a0}w\u{ad}d");
        assert_eq!(
            p.candidates(6),
            vec![b"p wd".to_vec(), "p\u{a0}w\u{ad}d".as_bytes().to_vec()]
        );
        // U+00A0 has no PDFDocEncoding code (0xA0 is the euro sign).
        assert_eq!(p.candidates(4), vec!["p\u{a0}w\u{ad}d".as_bytes().to_vec()]);
        let p = Password::new("caf\u{e9}\u{ad}");
        assert_eq!(
            p.candidates(4),
            vec![
                b"caf\xe9\xad".to_vec(),
                "caf\u{e9}\u{ad}".as_bytes().to_vec()
            ]
        );
        // PDFDocEncoding codes for the bullet and the euro sign.
        let p = Password::new("\u{2022}\u{20ac}");
        assert_eq!(p.candidates(3)[0], vec![0x80, 0xA0]);
        // Not in PDFDocEncoding: UTF-8 only.
        let p = Password::new("\u{4e2d}");
        assert_eq!(p.candidates(3), vec!["\u{4e2d}".as_bytes().to_vec()]);
        // Prohibited in SASLprep (a control character): UTF-8 only.
        let p = Password::new("a\u{7}");
        assert_eq!(p.candidates(6), vec![b"a\x07".to_vec()]);
        assert_eq!(
            Password::new("plain").candidates(6),
            vec![b"plain".to_vec()]
        );
        // Bytes are used as given.
        assert_eq!(
            Password::from_bytes(b"\xff\xfe").candidates(6),
            vec![b"\xff\xfe".to_vec()]
        );
        // Long text: cut at a character boundary, prepared, then 127 bytes.
        let long = "\u{e9}".repeat(300);
        let c = Password::new(&long).candidates(6);
        assert_eq!(c[0].len(), 127);
        assert_eq!(Password::new(&long).as_bytes().len(), 508);
    }
}
