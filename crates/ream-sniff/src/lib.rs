//! Format detection: which ream engine, if any, reads some bytes.
//!
//! [`sniff`], [`sniff_bytes`] and [`sniff_path`] tell the document formats
//! apart ([`Format`]) from the container (ZIP, OLE2/CFB, PDF) and, for a
//! ZIP, its central directory and a few small parts. The facade crate
//! `ream` re-exports all of it; the batch runner uses it to pick an engine.

use ream_io::{Bytes, MapMode};
use ream_zip::{Archive, Container};
use std::path::Path;

/// Parts larger than this are not inflated while sniffing.
const SMALL_PART_MAX: u64 = 1 << 20;

/// The document formats [`sniff`] tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// An Office Open XML workbook (`.xlsx`, or an `.xltx` template).
    Xlsx,
    /// A macro-enabled OOXML workbook (`.xlsm`, `.xltm`).
    Xlsm,
    /// An OpenDocument spreadsheet (`.ods`).
    Ods,
    /// A legacy BIFF workbook in an OLE2/CFB compound file (`.xls`).
    Xls,
    /// A binary OOXML workbook (`.xlsb`).
    Xlsb,
    /// A PDF document.
    Pdf,
    /// A password-protected OOXML package (CFB wrapper with an
    /// `EncryptedPackage` stream).
    EncryptedOoxml,
    /// None of the above (text, an unrelated ZIP or CFB file, empty input).
    Unknown,
}

impl Format {
    /// A short lower-case name for output: `xlsx`, `xlsm`, `ods`, `xls`,
    /// `xlsb`, `pdf`, `encrypted-ooxml`, `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Xlsx => "xlsx",
            Format::Xlsm => "xlsm",
            Format::Ods => "ods",
            Format::Xls => "xls",
            Format::Xlsb => "xlsb",
            Format::Pdf => "pdf",
            Format::EncryptedOoxml => "encrypted-ooxml",
            Format::Unknown => "unknown",
        }
    }
    /// True for the formats ream's spreadsheet engine (`ream::sheet`)
    /// reads: XLSX, XLSM, XLSB, ODS and XLS (BIFF5 to BIFF8). PDF,
    /// encrypted packages and unknown bytes are false.
    pub fn is_readable_workbook(self) -> bool {
        matches!(
            self,
            Format::Xlsx | Format::Xlsm | Format::Xlsb | Format::Ods | Format::Xls
        )
    }
    /// What the format is, in words, for messages: `an XLSX workbook`,
    /// `a binary Excel workbook (.xlsb)`, `a PDF document`, ...
    pub fn description(self) -> &'static str {
        match self {
            Format::Xlsx => "an XLSX workbook",
            Format::Xlsm => "a macro-enabled XLSX workbook (.xlsm)",
            Format::Ods => "an OpenDocument spreadsheet (.ods)",
            Format::Xls => "a legacy Excel 97-2003 workbook (.xls)",
            Format::Xlsb => "a binary Excel workbook (.xlsb)",
            Format::Pdf => "a PDF document",
            Format::EncryptedOoxml => "a password-protected (encrypted) Office file",
            Format::Unknown => "not a recognised document format",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Guesses the format of `data` (a file's full contents).
///
/// The container comes from [`ream_zip::sniff`]; a ZIP is then looked into
/// (central directory only, plus small parts): a `mimetype` entry naming
/// `application/vnd.oasis.opendocument.spreadsheet` is ODS,
/// `xl/workbook.bin` is XLSB, a `[Content_Types].xml` declaring a
/// `macroEnabled` workbook is XLSM, and `xl/workbook.xml` (or a
/// spreadsheetml workbook content type) is XLSX. A ZIP whose central
/// directory cannot be read (a truncated or damaged file) is ODS when its
/// first local entry is the stored `mimetype` naming an OpenDocument
/// spreadsheet (the ODF package rule), so a broken `.ods` still goes to
/// the spreadsheet engine, which says what is wrong with it. A CFB file
/// holding a `Workbook` or `Book` stream is XLS. Never fails: anything
/// else unreadable is [`Format::Unknown`].
///
/// A ZIP given as a slice is copied once into an owned buffer to be
/// parsed; use [`sniff_bytes`] or [`sniff_path`] to avoid the copy.
pub fn sniff(data: &[u8]) -> Format {
    match ream_zip::sniff(data) {
        Container::Zip => sniff_zip(Bytes::from_vec(data.to_vec())),
        other => from_container(other, data),
    }
}

/// Like [`sniff`], over a shared byte source (no copy).
pub fn sniff_bytes(data: &Bytes) -> Format {
    match ream_zip::sniff(data) {
        Container::Zip => sniff_zip(data.clone()),
        other => from_container(other, data),
    }
}

/// Like [`sniff`], for the file at `path` (memory-mapped). Fails only when
/// the file cannot be opened or mapped.
pub fn sniff_path(path: impl AsRef<Path>) -> std::io::Result<Format> {
    let bytes = Bytes::open(path, MapMode::Map)?;
    Ok(sniff_bytes(&bytes))
}

fn from_container(c: Container, data: &[u8]) -> Format {
    match c {
        Container::Pdf => Format::Pdf,
        Container::EncryptedOoxml => Format::EncryptedOoxml,
        Container::Cfb if has_cfb_stream(data, "Workbook") || has_cfb_stream(data, "Book") => {
            Format::Xls
        }
        Container::Unknown if is_biff_stream(data) => Format::Xls,
        Container::Zip | Container::Cfb | Container::Unknown => Format::Unknown,
    }
}

/// Whether the UTF-16LE directory name `name` (followed by its NUL
/// terminator) occurs in a CFB file, in any ASCII case (CFB compares names
/// case-insensitively: `WORKBOOK` is the workbook stream too).
fn has_cfb_stream(data: &[u8], name: &str) -> bool {
    let mut needle: Vec<u8> = name.encode_utf16().flat_map(u16::to_le_bytes).collect();
    needle.extend_from_slice(&[0, 0]);
    let Some(&first) = needle.first() else {
        return false;
    };
    let (lower, upper) = (first.to_ascii_lowercase(), first.to_ascii_uppercase());
    memchr::memchr2_iter(lower, upper, data).any(|at| {
        data.get(at..at + needle.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(&needle))
    })
}

/// Whether `data` starts like a bare BIFF2-BIFF4 worksheet stream (Excel
/// 2.x-4.x `.xls` files have no CFB container): a BOF record, id 0x0009,
/// 0x0209, 0x0409 or 0x0809, with a body of 4 to 20 bytes.
fn is_biff_stream(data: &[u8]) -> bool {
    match data.get(..4) {
        Some(&[0x09, version, len, 0]) => {
            matches!(version, 0x00 | 0x02 | 0x04 | 0x08) && (4..=20).contains(&len)
        }
        _ => false,
    }
}

fn memchr_find(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

/// The MIME type an ODS package's `mimetype` entry starts with.
const ODS_MIMETYPE: &[u8] = b"application/vnd.oasis.opendocument.spreadsheet";

fn sniff_zip(data: Bytes) -> Format {
    let archive = match Archive::new(data.clone(), ream_zip::Limits::default()) {
        Ok(a) => a,
        Err(_) if first_entry_is_ods_mimetype(&data) => return Format::Ods,
        Err(_) => return Format::Unknown,
    };
    if let Some(m) = small_part(&archive, "mimetype")
        && m.trim_ascii().starts_with(ODS_MIMETYPE)
    {
        return Format::Ods;
    }
    let types = small_part(&archive, "[Content_Types].xml").unwrap_or_default();
    let types_has = |s: &str| memchr_find(&types, s.as_bytes());
    if archive.find("xl/workbook.bin").is_some() || types_has("sheet.binary.macroEnabled.main") {
        return Format::Xlsb;
    }
    if types_has("macroEnabled.main+xml") {
        return Format::Xlsm;
    }
    if archive.find("xl/workbook.xml").is_some()
        || types_has("spreadsheetml.sheet.main+xml")
        || types_has("spreadsheetml.template.main+xml")
    {
        return Format::Xlsx;
    }
    Format::Unknown
}

/// Whether the ZIP's first local file header (at offset 0) is an entry
/// named `mimetype`, stored (method 0), whose data starts with
/// [`ODS_MIMETYPE`]: the ODF rule for the first entry of a package, read
/// without the central directory. The data is taken as far as the file
/// goes (a file cut inside it is not ODS).
fn first_entry_is_ods_mimetype(data: &[u8]) -> bool {
    let u16_at = |at: usize| {
        data.get(at..at + 2)
            .map(|b| b.iter().rev().fold(0usize, |n, &x| n << 8 | usize::from(x)))
    };
    if !data.starts_with(b"PK\x03\x04") || u16_at(8) != Some(0) {
        return false;
    }
    let (Some(name_len), Some(extra_len)) = (u16_at(26), u16_at(28)) else {
        return false;
    };
    let name_end = 30 + name_len;
    if data.get(30..name_end) != Some(b"mimetype".as_slice()) {
        return false;
    }
    data.get(name_end + extra_len..)
        .is_some_and(|body| body.starts_with(ODS_MIMETYPE))
}

fn small_part(archive: &Archive, name: &str) -> Option<Vec<u8>> {
    let e = archive.find(name)?;
    if e.uncompressed_size > SMALL_PART_MAX {
        return None;
    }
    archive.read(e).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_zip_formats() {
        assert_eq!(sniff(b""), Format::Unknown);
        assert_eq!(sniff(b"a,b\n1,2\n"), Format::Unknown);
        assert_eq!(sniff(b"%PDF-1.7\n"), Format::Pdf);
        let mut cfb = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1".to_vec();
        cfb.resize(512, 0);
        assert_eq!(sniff(&cfb), Format::Unknown);
        let mut xls = cfb.clone();
        xls.extend("Workbook".encode_utf16().flat_map(u16::to_le_bytes));
        xls.extend_from_slice(&[0, 0]);
        assert_eq!(sniff(&xls), Format::Xls);
        let mut caps = cfb.clone();
        caps.extend("WORKBOOK".encode_utf16().flat_map(u16::to_le_bytes));
        caps.extend_from_slice(&[0, 0]);
        assert_eq!(sniff(&caps), Format::Xls);
        assert_eq!(sniff(b"\x09\x04\x06\x00\x00\x00\x10\x00rest"), Format::Xls);
        assert_eq!(sniff(b"\x09\x04\x60\x00"), Format::Unknown);
        cfb.extend("EncryptedPackage".encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(sniff(&cfb), Format::EncryptedOoxml);
        assert_eq!(sniff(b"PK\x03\x04garbage"), Format::Unknown);
    }

    /// The first local header of an ODS package: `mimetype`, stored, with
    /// `mime` as its data, then `rest`; no central directory.
    fn local_mimetype(method: u16, name: &[u8], mime: &[u8], rest: &[u8]) -> Vec<u8> {
        let mut z = b"PK\x03\x04\x14\x00\x00\x00".to_vec();
        z.extend_from_slice(&method.to_le_bytes());
        z.extend_from_slice(&[0; 8]); // time, date, CRC
        let len = (mime.len() as u32).to_le_bytes();
        z.extend_from_slice(&len);
        z.extend_from_slice(&len);
        z.extend_from_slice(&(name.len() as u16).to_le_bytes());
        z.extend_from_slice(&0u16.to_le_bytes());
        z.extend_from_slice(name);
        z.extend_from_slice(mime);
        z.extend_from_slice(rest);
        z
    }

    #[test]
    fn truncated_ods_by_its_first_entry() {
        let mime = b"application/vnd.oasis.opendocument.spreadsheet";
        let cut = local_mimetype(0, b"mimetype", mime, b"PK\x03\x04\x14\x00");
        assert_eq!(sniff(&cut), Format::Ods);
        assert_eq!(sniff_bytes(&Bytes::from_vec(cut.clone())), Format::Ods);
        // Cut inside the MIME type, compressed, another name or another
        // OpenDocument type: not ODS.
        let short = cut.get(..cut.len() - 20).unwrap_or_default();
        assert_eq!(sniff(short), Format::Unknown);
        assert_eq!(
            sniff(&local_mimetype(8, b"mimetype", mime, b"")),
            Format::Unknown
        );
        assert_eq!(
            sniff(&local_mimetype(0, b"mimetypes", mime, b"")),
            Format::Unknown
        );
        let text = b"application/vnd.oasis.opendocument.text";
        assert_eq!(
            sniff(&local_mimetype(0, b"mimetype", text, b"")),
            Format::Unknown
        );
    }

    #[test]
    fn xlsx_from_writer() -> Result<(), rust_xlsxwriter::XlsxError> {
        let mut wb = rust_xlsxwriter::Workbook::new();
        wb.add_worksheet().write_number(0, 0, 1.0)?;
        let buf = wb.save_to_buffer()?;
        assert_eq!(sniff(&buf), Format::Xlsx);
        assert_eq!(sniff_bytes(&Bytes::from_vec(buf)), Format::Xlsx);
        assert!(Format::Xlsx.is_readable_workbook());
        assert!(Format::Ods.is_readable_workbook());
        assert!(Format::Xlsb.is_readable_workbook());
        assert!(!Format::Pdf.is_readable_workbook());
        assert_eq!(
            Format::Xlsb.description(),
            "a binary Excel workbook (.xlsb)"
        );
        assert_eq!(Format::EncryptedOoxml.to_string(), "encrypted-ooxml");
        Ok(())
    }
}
