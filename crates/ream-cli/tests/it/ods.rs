//! `ream cat` on an OpenDocument spreadsheet: the default sheet is listed
//! and streamed without reading the sheets after it; named sheets and
//! `all` still see every sheet.

use super::{assert_ok, ream, stdout, temp_dir};
use std::path::{Path, PathBuf};

/// CRC-32 (IEEE), bit by bit: enough for a test's few kilobytes.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A ZIP of stored (uncompressed) entries.
pub(crate) fn stored_zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let offset = out.len() as u32;
        let (crc, len, nlen) = (crc32(data), data.len() as u32, name.len() as u16);
        let header = |sig: u32, central: bool| {
            let mut h = Vec::new();
            h.extend_from_slice(&sig.to_le_bytes());
            if central {
                h.extend_from_slice(&20u16.to_le_bytes());
            }
            h.extend_from_slice(&20u16.to_le_bytes());
            h.extend_from_slice(&[0; 8]); // flags, method, time, date
            h.extend_from_slice(&crc.to_le_bytes());
            h.extend_from_slice(&len.to_le_bytes());
            h.extend_from_slice(&len.to_le_bytes());
            h.extend_from_slice(&nlen.to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes());
            if central {
                h.extend_from_slice(&[0; 10]); // comment, disk, attributes
                h.extend_from_slice(&offset.to_le_bytes());
            }
            h.extend_from_slice(name.as_bytes());
            h
        };
        out.extend(header(0x0403_4b50, false));
        out.extend_from_slice(data);
        central.extend(header(0x0201_4b50, true));
    }
    let (at, size, n) = (out.len() as u32, central.len() as u32, entries.len() as u16);
    out.extend(central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// `book.ods` with sheets `First`, `Second` (rows `i, "s<i>"`, 100 each)
/// and `Third`.
fn ods_fixture(dir: &Path) -> PathBuf {
    let rows = |tag: &str| -> String {
        (0..100)
            .map(|i| {
                format!(
                    r#"<table:table-row><table:table-cell office:value-type="float" office:value="{i}"><text:p>{i}</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>{tag}{i}</text:p></table:table-cell></table:table-row>"#
                )
            })
            .collect()
    };
    let content = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.3"><office:body><office:spreadsheet><table:table table:name="First">{}</table:table><table:table table:name="Second">{}</table:table><table:table table:name="Third">{}</table:table></office:spreadsheet></office:body></office:document-content>"#,
        rows("f"),
        rows("s"),
        rows("t")
    );
    let zip = stored_zip(&[
        (
            "mimetype",
            b"application/vnd.oasis.opendocument.spreadsheet",
        ),
        ("content.xml", content.as_bytes()),
    ]);
    let path = dir.join("book.ods");
    std::fs::write(&path, zip).unwrap();
    path
}

#[test]
fn cat_reads_ods_sheets() {
    let dir = temp_dir("cat-ods");
    let f = ods_fixture(&dir);
    let file = f.to_str().unwrap();
    let o = ream(&["cat", file, "--n-rows", "2"], &dir);
    assert_ok(&o);
    assert_eq!(stdout(&o), "0,f0\n1,f1\n");
    let o = ream(&["cat", file, "--skip-rows", "98"], &dir);
    assert_ok(&o);
    assert_eq!(stdout(&o), "98,f98\n99,f99\n");
    let o = ream(&["cat", file, "-s", "Second", "--n-rows", "1"], &dir);
    assert_ok(&o);
    assert_eq!(stdout(&o), "0,s0\n");
    // No sheet is named exactly so: the listing runs to the end and the
    // case-insensitive match applies.
    let o = ream(&["cat", file, "-s", "second", "--n-rows", "1"], &dir);
    assert_ok(&o);
    assert_eq!(stdout(&o), "0,s0\n");
    let o = ream(
        &["cat", file, "-s", "2", "--n-rows", "1", "-f", "jsonl"],
        &dir,
    );
    assert_ok(&o);
    assert_eq!(
        stdout(&o),
        "{\"sheet\":\"Third\",\"row\":0,\"values\":[0,\"t0\"]}\n"
    );
    let o = ream(&["cat", file, "-s", "all", "--n-rows", "1"], &dir);
    assert_ok(&o);
    assert_eq!(stdout(&o), "First,0,f0\nSecond,0,s0\nThird,0,t0\n");
}
