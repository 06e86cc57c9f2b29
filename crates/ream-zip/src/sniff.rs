//! Container detection from leading bytes.

use crate::Container;
use memchr::memmem;

const CFB_MAGIC: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";
/// "EncryptedPackage" in UTF-16LE: the stream name an encrypted OOXML
/// package uses inside its CFB wrapper.
const ENCRYPTED_PACKAGE: &[u8] = b"E\0n\0c\0r\0y\0p\0t\0e\0d\0P\0a\0c\0k\0a\0g\0e\0";
/// How far into the file `%PDF-` may start (readers tolerate junk before it).
const PDF_WINDOW: usize = 1024;

/// Guesses the container type of `data`.
///
/// * `PK\x03\x04` (or `PK\x05\x06`, an empty archive) at byte 0: [`Container::Zip`].
/// * The CFB/OLE2 magic `D0 CF 11 E0 A1 B1 1A E1` at byte 0:
///   [`Container::EncryptedOoxml`] when the file holds the UTF-16LE stream
///   name `EncryptedPackage` anywhere (a linear `memmem` scan), otherwise
///   [`Container::Cfb`].
/// * `%PDF-` within the first 1,024 bytes: [`Container::Pdf`].
/// * Anything else: [`Container::Unknown`].
pub fn sniff(data: &[u8]) -> Container {
    if data.starts_with(b"PK\x03\x04") || data.starts_with(b"PK\x05\x06") {
        return Container::Zip;
    }
    if data.starts_with(CFB_MAGIC) {
        return if memmem::find(data, ENCRYPTED_PACKAGE).is_some() {
            Container::EncryptedOoxml
        } else {
            Container::Cfb
        };
    }
    let head = data.get(..PDF_WINDOW).unwrap_or(data);
    if memmem::find(head, b"%PDF-").is_some() {
        return Container::Pdf;
    }
    Container::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_container() {
        assert_eq!(sniff(b"PK\x03\x04rest"), Container::Zip);
        assert_eq!(sniff(b"PK\x05\x06\0\0"), Container::Zip);
        assert_eq!(sniff(b"%PDF-1.7\n"), Container::Pdf);
        let mut late = vec![b' '; 1000];
        late.extend_from_slice(b"%PDF-1.4");
        assert_eq!(sniff(&late), Container::Pdf);
        let mut too_late = vec![b' '; 1020];
        too_late.extend_from_slice(b"%PDF-1.4");
        assert_eq!(sniff(&too_late), Container::Unknown);
        let mut cfb = CFB_MAGIC.to_vec();
        cfb.resize(600, 0);
        assert_eq!(sniff(&cfb), Container::Cfb);
        cfb.extend_from_slice(ENCRYPTED_PACKAGE);
        assert_eq!(sniff(&cfb), Container::EncryptedOoxml);
        assert_eq!(sniff(b""), Container::Unknown);
        assert_eq!(sniff(b"PK"), Container::Unknown);
        assert_eq!(sniff(b"hello"), Container::Unknown);
    }
}
