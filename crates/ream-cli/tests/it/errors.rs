//! Inputs the spreadsheet commands cannot read: each error names the file
//! and says what it is, the same from every command.

use super::ods::stored_zip;
use super::{ream, stderr, temp_dir};
use std::path::Path;

const COMMANDS: [&str; 4] = ["sheets", "cat", "stats", "profile"];

/// Runs every spreadsheet command on `name` in `dir`: each exits `code`
/// with the same message, which holds the file name and `expected`.
fn same_error_everywhere(dir: &Path, name: &str, code: i32, expected: &str) -> String {
    let mut first: Option<String> = None;
    for cmd in COMMANDS {
        let o = ream(&[cmd, name], dir);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(code), "{cmd} {name}: {err}");
        assert!(
            err.starts_with("ream: ") && err.contains(name),
            "{cmd}: {err}"
        );
        assert!(err.contains(expected), "{cmd} {name}: {err}");
        if let Some(f) = &first {
            assert_eq!(&err, f, "{cmd} gives another message");
        }
        first = Some(err);
    }
    first.unwrap_or_default()
}

#[test]
fn a_directory_is_named_as_such() {
    let dir = temp_dir("err-dir");
    std::fs::create_dir_all(dir.join("folder")).unwrap();
    let err = same_error_everywhere(&dir, "folder", 1, "folder: is a directory, not a file");
    assert!(!err.contains("os error"), "{err}");
}

#[test]
fn a_pdf_points_to_ream_pdf() {
    let dir = temp_dir("err-pdf");
    std::fs::write(dir.join("doc.pdf"), b"%PDF-1.7\n1 0 obj<<>>endobj\n%%EOF\n").unwrap();
    same_error_everywhere(
        &dir,
        "doc.pdf",
        1,
        "this is a PDF document, not a spreadsheet: use `ream pdf`",
    );
}

#[test]
fn broken_xlsb_and_xls_are_reported_from_every_command() {
    let dir = temp_dir("err-xlsb");
    let types = r#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.bin" ContentType="application/vnd.ms-excel.sheet.binary.macroEnabled.main"/></Types>"#;
    let rels = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.bin"/></Relationships>"#;
    let zip = stored_zip(&[
        ("[Content_Types].xml", types.as_bytes()),
        ("_rels/.rels", rels.as_bytes()),
        ("xl/workbook.bin", b"\x83\x01\x00\x80\x01\x00\xff\xfe"),
    ]);
    std::fs::write(dir.join("book.xlsb"), zip).unwrap();
    // Read as XLSB: the third record's type runs past 2 bytes.
    let err = same_error_everywhere(&dir, "book.xlsb", 1, "record type longer than 2 bytes");
    assert!(err.contains("xl/workbook.bin"), "{err}");
    assert!(
        !err.contains("UTF-8") && !err.contains("unsupported"),
        "{err}"
    );

    let mut xls = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1".to_vec();
    xls.resize(512, 0);
    xls.extend("Workbook".encode_utf16().flat_map(u16::to_le_bytes));
    xls.resize(1024, 0);
    std::fs::write(dir.join("old.xls"), xls).unwrap();
    // A CFB header and nothing valid behind it: read as XLS, reported broken.
    same_error_everywhere(&dir, "old.xls", 1, "the CFB (OLE2) container is broken");
}

#[test]
fn an_encrypted_ods_is_called_encrypted() {
    let dir = temp_dir("err-ods");
    let manifest = r#"<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"><manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="AAAA"><manifest:algorithm manifest:algorithm-name="Blowfish CFB" manifest:initialisation-vector="AAAA"/><manifest:key-derivation manifest:key-derivation-name="PBKDF2" manifest:iteration-count="1024" manifest:salt="AAAA"/></manifest:encryption-data></manifest:file-entry></manifest:manifest>"#;
    let zip = stored_zip(&[
        (
            "mimetype",
            b"application/vnd.oasis.opendocument.spreadsheet",
        ),
        ("META-INF/manifest.xml", manifest.as_bytes()),
        ("content.xml", b"\x8f\x13\x00\xa7 encrypted bytes"),
    ]);
    std::fs::write(dir.join("locked.ods"), zip).unwrap();
    let err = same_error_everywhere(&dir, "locked.ods", 4, "password-protected");
    assert!(err.contains("encrypted"), "{err}");
    assert!(!err.contains("cannot read yet"), "{err}");
}

/// The `mimetype` entry of an ODS package.
const ODS_MIMETYPE: (&str, &[u8]) = (
    "mimetype",
    b"application/vnd.oasis.opendocument.spreadsheet",
);

#[test]
fn a_malformed_ods_is_called_malformed() {
    let dir = temp_dir("err-ods-malformed");
    let content = br#"<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"><office:body><office:spreadsheet><table:table table:name="S"><table:table-row><table:table-cell office:value-type="float" office:value="1">"#;
    let zip = stored_zip(&[ODS_MIMETYPE, ("content.xml", content)]);
    std::fs::write(dir.join("broken.ods"), &zip).unwrap();
    let broken = same_error_everywhere(&dir, "broken.ods", 1, "malformed");
    assert!(broken.contains("content.xml"), "{broken}");
    assert!(broken.contains("ends"), "says what is wrong: {broken}");
    // Streamed, the error comes from the rows: it names the file too.
    for args in [
        ["profile", "--stream", "broken.ods"].as_slice(),
        &[
            "cat",
            "--format",
            "parquet",
            "-o",
            "out.parquet",
            "broken.ods",
        ],
    ] {
        let o = ream(args, &dir);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.starts_with("ream: broken.ods: malformed"),
            "{args:?}: {err}"
        );
    }

    // Cut inside content.xml: no central directory, but the first entry
    // still says ODS.
    let mimetype_end = 30 + "mimetype".len() + ODS_MIMETYPE.1.len();
    std::fs::write(dir.join("cut.ods"), &zip[..mimetype_end + 40]).unwrap();
    let cut = same_error_everywhere(&dir, "cut.ods", 1, "malformed");
    assert!(cut.contains("end-of-central-directory"), "{cut}");

    for err in [broken, cut] {
        assert!(!err.contains("cannot read"), "{err}");
        assert!(!err.contains("not a recognised"), "{err}");
        assert!(!err.contains("unsupported"), "{err}");
    }
}
