//! What a record says: encrypted PDFs, warning texts.

use crate::{PdfKind, pdf_bytes, records, run, temp_dir};
use ream_batch::{Analysis, Analyzer, BatchOptions, DocFormat, MAX_WARNINGS, Outcome};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

fn find<'a>(recs: &'a [Value], name: &str) -> &'a Value {
    recs.iter()
        .find(|r| r["path"].as_str().unwrap().ends_with(name))
        .unwrap_or_else(|| panic!("no record for {name}"))
}

#[test]
fn encrypted_pdf_is_an_encrypted_outcome_like_a_workbook() {
    let dir = temp_dir("records-encrypted");
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("locked.pdf"), pdf_bytes("T", PdfKind::Encrypted)).unwrap();
    std::fs::write(d.join("open.pdf"), pdf_bytes("T", PdfKind::Plain)).unwrap();
    // An encrypted OOXML package: a CFB container with an EncryptedPackage stream.
    let mut cfb = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1".to_vec();
    cfb.resize(512, 0);
    cfb.extend("EncryptedPackage".encode_utf16().flat_map(u16::to_le_bytes));
    cfb.resize(1024, 0);
    std::fs::write(d.join("locked.xlsx"), cfb).unwrap();
    let report = dir.join("r.jsonl");
    let s = run(&[d], BatchOptions::new(), &report);
    let recs = records(&report);
    let pdf = find(&recs, "locked.pdf");
    let xlsx = find(&recs, "locked.xlsx");
    assert_eq!(pdf["format"], "pdf");
    assert_eq!(pdf["outcome"]["error"], "encrypted", "{pdf}");
    assert_eq!(pdf["outcome"]["error"], xlsx["outcome"]["error"]);
    let msg = pdf["outcome"]["message"].as_str().unwrap();
    assert!(
        msg.contains("cannot be decrypted") && msg.contains("/Filter /Standard V"),
        "{msg}"
    );
    // The structure that could be read is kept.
    assert_eq!(pdf["summary"]["encrypted"], true);
    assert_eq!(pdf["summary"]["pages"], 1);
    assert_eq!(find(&recs, "open.pdf")["outcome"], "ok");
    let t = s.per_format[&DocFormat::Pdf];
    assert_eq!((t.files, t.ok, t.errors), (2, 1, 1));
}

#[test]
fn a_repaired_pdf_records_its_warning_texts() {
    let dir = temp_dir("records-warnings");
    std::fs::write(dir.join("bad.pdf"), pdf_bytes("T", PdfKind::BadStartxref)).unwrap();
    let report = dir.join("r.jsonl");
    run(&[dir.join("bad.pdf")], BatchOptions::new(), &report);
    let recs = records(&report);
    let r = &recs[0];
    assert_eq!(r["outcome"], "ok", "{r}");
    assert_eq!(r["summary"]["repaired"], true);
    let texts = r["warnings"].as_array().unwrap();
    assert!(!texts.is_empty(), "{r}");
    assert_eq!(r["warning_count"].as_u64().unwrap(), texts.len() as u64);
    assert!(texts.iter().all(|t| !t.as_str().unwrap().is_empty()), "{r}");
}

/// Gives every file 25 warnings, the first with the file's path in front
/// and a line break inside.
struct Noisy;

impl Analyzer for Noisy {
    fn analyze(&self, path: &Path, _threads: usize) -> Analysis {
        let mut all = vec![format!("{}: first\n  warning", path.display())];
        all.extend((1..25).map(|i| format!("warning {i}")));
        Analysis::failed(DocFormat::Text, Outcome::Ok).with_warnings(&all)
    }
}

#[test]
fn warning_texts_are_bounded_normalised_and_shared() {
    let dir = temp_dir("records-warning-bound");
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("a.csv"), "x\n").unwrap();
    std::fs::write(d.join("b.csv"), "y\n").unwrap();
    let report = dir.join("r.jsonl");
    let s = run(&[d], BatchOptions::new().analyzer(Arc::new(Noisy)), &report);
    for r in records(&report) {
        assert_eq!(r["warning_count"], 25);
        let texts = r["warnings"].as_array().unwrap();
        assert_eq!(texts.len(), MAX_WARNINGS);
        assert_eq!(texts[0], "first warning", "path cut, one line: {r}");
        assert_eq!(texts[19], "warning 19");
    }
    let [a, b] = &s.entries[..] else {
        panic!("two entries")
    };
    assert_eq!(a.warning_count, 25);
    assert_eq!(a.warnings.len(), MAX_WARNINGS);
    assert!(Arc::ptr_eq(&a.warnings[1], &b.warnings[1]), "interned");
}

/// A writer that keeps what it is given.
#[derive(Clone, Default)]
struct Shared(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn records_written_to_a_writer_are_the_report_lines() {
    let dir = temp_dir("records-writer");
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    crate::pdf(&d.join("a.pdf"), "A");
    crate::xlsx(&d.join("b.xlsx"), 3);
    let report = dir.join("r.jsonl");
    run(
        std::slice::from_ref(&d),
        BatchOptions::new().jobs(1),
        &report,
    );
    let out = Shared::default();
    let s = ream_batch::run_batch_to(
        std::slice::from_ref(&d),
        &BatchOptions::new().jobs(1),
        &mut ream_batch::NoProgress,
        Box::new(out.clone()),
    )
    .unwrap();
    assert_eq!(s.total().files, 2);
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    let mut got: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut want = records(&report);
    // Everything but the timing is the same.
    for r in got.iter_mut().chain(want.iter_mut()) {
        r["elapsed_ms"] = Value::Null;
    }
    got.sort_by_key(|r| r["path"].to_string());
    want.sort_by_key(|r| r["path"].to_string());
    assert_eq!(got, want);
    // A report file and a writer together are a usage error.
    let e = ream_batch::run_batch_to(
        &[d],
        &BatchOptions::new().report(&report),
        &mut ream_batch::NoProgress,
        Box::new(out),
    )
    .unwrap_err();
    assert!(matches!(e, ream_batch::BatchError::Usage(_)), "{e}");
}
