//! Each format's engine and summary through a batch.

use crate::{pdf, records, run, temp_dir, xlsx};
use ream_batch::{BatchOptions, DocFormat};
use serde_json::Value;

fn cfb(stream: &str) -> Vec<u8> {
    let mut b = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1".to_vec();
    b.resize(512, 0);
    b.extend(stream.encode_utf16().flat_map(u16::to_le_bytes));
    b.extend_from_slice(&[0, 0]);
    b.resize(1024, 0);
    b
}

#[test]
fn every_format_gets_its_summary() {
    let dir = temp_dir("formats");
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    xlsx(&d.join("book.xlsx"), 5);
    pdf(&d.join("doc.pdf"), "Hello");
    std::fs::write(d.join("data.csv"), "city;temp\nOslo;1\nRome;2\nOslo;3\n").unwrap();
    std::fs::write(d.join("empty.dat"), b"").unwrap();
    std::fs::write(d.join("blob.bin"), b"\x00\x01\x02binary").unwrap();
    std::fs::write(d.join("old.xls"), cfb("Workbook")).unwrap();
    std::fs::write(d.join("locked.xlsx"), cfb("EncryptedPackage")).unwrap();
    std::fs::write(d.join("broken.pdf"), b"%PDF-1.7\ngarbage").unwrap();
    let report = dir.join("r.jsonl");
    let s = run(&[d], BatchOptions::new().jobs(2), &report);
    let recs = records(&report);
    assert_eq!(recs.len(), 8);
    let get = |name: &str| -> Value {
        recs.iter()
            .find(|r| r["path"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("{name}"))
            .clone()
    };
    let b = get("book.xlsx");
    assert_eq!(b["format"], "xlsx");
    assert_eq!(b["outcome"], "ok");
    assert_eq!(b["summary"]["sheets"][0]["name"], "Data");
    assert_eq!(b["summary"]["sheets"][0]["cells"], 10);
    assert_eq!(b["summary"]["sheets"][0]["dimensions"], "A1:B5");
    assert_eq!(b["summary"]["sheets"][1]["index"], 1);
    assert_eq!(b["warning_count"], 0);
    assert_eq!(b["warnings"], serde_json::json!([]));
    assert_eq!(b["summary"]["sheets"][1]["cells"], 0);
    assert!(b["size"].as_u64().unwrap() > 0);
    assert!(b["mtime"].as_i64().unwrap() > 1_500_000_000_000_000_000);

    let p = get("doc.pdf");
    assert_eq!(p["format"], "pdf");
    assert_eq!(p["outcome"], "ok", "{p}");
    assert_eq!(p["summary"]["pages"], 1);
    assert_eq!(p["summary"]["version"], "1.4");
    assert_eq!(p["summary"]["info"]["Title"], "Hello");
    assert_eq!(p["summary"]["revisions"], 1);

    let t = get("data.csv");
    assert_eq!(t["format"], "text");
    assert_eq!(t["summary"]["rows"], 4);
    assert_eq!(t["summary"]["columns"], 2);
    assert_eq!(t["summary"]["delimiter"], ";");
    assert_eq!(t["summary"]["keys"], 3);

    let e = get("empty.dat");
    assert_eq!(e["format"], "unknown");
    assert_eq!(e["outcome"]["error"], "unsupported");
    assert!(e["outcome"]["message"].as_str().unwrap().contains("empty"));
    let u = get("blob.bin");
    assert!(
        u["outcome"]["message"]
            .as_str()
            .unwrap()
            .contains("00010262"),
        "{u}"
    );
    assert_eq!(get("old.xls")["format"], "xls");
    // A CFB header with nothing valid behind it: read as XLS, malformed.
    assert_eq!(get("old.xls")["outcome"]["error"], "malformed");
    assert_eq!(get("locked.xlsx")["format"], "encrypted-ooxml");
    assert_eq!(get("locked.xlsx")["outcome"]["error"], "encrypted");
    let bp = get("broken.pdf");
    assert_eq!(bp["format"], "pdf");
    assert!(
        bp["outcome"].get("error").is_some() || bp["summary"]["repaired"] == true,
        "{bp}"
    );

    assert_eq!(s.per_format[&DocFormat::Xlsx].ok, 1);
    assert_eq!(s.per_format[&DocFormat::Unknown].errors, 2);
    let table = s.table();
    for f in [
        "xlsx",
        "pdf",
        "text",
        "xls",
        "encrypted-ooxml",
        "unknown",
        "total",
    ] {
        assert!(table.contains(f), "{table}");
    }
}

#[test]
fn sniffing_ignores_file_names() {
    let dir = temp_dir("names");
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    xlsx(&d.join("really-a-workbook.pdf"), 1);
    std::fs::write(d.join("notes.xlsx"), "just text\n").unwrap();
    let report = dir.join("r.jsonl");
    run(&[d], BatchOptions::new(), &report);
    let recs = records(&report);
    let fmt = |name: &str| {
        recs.iter()
            .find(|r| r["path"].as_str().unwrap().ends_with(name))
            .unwrap()["format"]
            .clone()
    };
    assert_eq!(fmt("really-a-workbook.pdf"), "xlsx");
    assert_eq!(fmt("notes.xlsx"), "text");
}

/// A ZIP of stored (uncompressed) entries, CRCs included.
fn stored_zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let offset = out.len() as u32;
        let (crc, len) = (ream_zip::crc32(data), data.len() as u32);
        let header = |central: bool| {
            let mut h = Vec::new();
            let sig: u32 = if central { 0x0201_4b50 } else { 0x0403_4b50 };
            h.extend_from_slice(&sig.to_le_bytes());
            if central {
                h.extend_from_slice(&20u16.to_le_bytes());
            }
            h.extend_from_slice(&20u16.to_le_bytes());
            h.extend_from_slice(&[0; 8]); // flags, method (stored), time, date
            h.extend_from_slice(&crc.to_le_bytes());
            h.extend_from_slice(&len.to_le_bytes());
            h.extend_from_slice(&len.to_le_bytes());
            h.extend_from_slice(&(name.len() as u16).to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes());
            if central {
                h.extend_from_slice(&[0; 10]); // comment, disk, attributes
                h.extend_from_slice(&offset.to_le_bytes());
            }
            h.extend_from_slice(name.as_bytes());
            h
        };
        out.extend(header(false));
        out.extend_from_slice(data);
        central.extend(header(true));
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

/// An ODS package with a broken `content.xml`, one cut short after its
/// `mimetype` entry and one without `content.xml` are ODS files that are
/// malformed, with a message saying what is wrong, not unsupported ones.
#[test]
fn malformed_ods_is_malformed() {
    let dir = temp_dir("ods-malformed");
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    let mime: &[u8] = b"application/vnd.oasis.opendocument.spreadsheet";
    let content = br#"<office:document-content><office:body><office:spreadsheet><table:table table:name="S"><table:table-row><table:table-cell office:value-type="float" office:value="1">"#;
    let zip = stored_zip(&[("mimetype", mime), ("content.xml", content)]);
    std::fs::write(d.join("broken.ods"), &zip).unwrap();
    let cut = 30 + "mimetype".len() + mime.len() + 40;
    std::fs::write(d.join("cut.ods"), &zip[..cut]).unwrap();
    std::fs::write(d.join("empty.ods"), stored_zip(&[("mimetype", mime)])).unwrap();
    let report = dir.join("r.jsonl");
    let s = run(std::slice::from_ref(&d), BatchOptions::new(), &report);
    assert_eq!(s.per_format[&DocFormat::Ods].errors, 3);
    let recs = records(&report);
    for (name, says) in [
        ("broken.ods", "ends"),
        ("cut.ods", "end-of-central-directory"),
        ("empty.ods", "missing content.xml"),
    ] {
        let r = recs
            .iter()
            .find(|r| r["path"].as_str().unwrap().ends_with(name))
            .unwrap();
        assert_eq!(r["format"], "ods", "{r}");
        assert_eq!(r["outcome"]["error"], "malformed", "{r}");
        let msg = r["outcome"]["message"].as_str().unwrap();
        assert!(msg.contains(says), "{r}");
        assert!(!msg.contains("cannot read"), "{r}");
    }
}
