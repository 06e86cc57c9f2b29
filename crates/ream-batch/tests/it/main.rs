//! Integration tests of ream-batch: the dispatcher in-process (injected
//! analyzers and test engines), formats, inputs, resume. Process isolation
//! is tested in ream-cli, which has the worker binary.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod dispatch;
mod formats;
mod inputs;
mod records;
mod resume;

use ream_batch::{BatchOptions, BatchSummary, NoProgress, run_batch};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A fresh empty folder for one test.
pub fn temp_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("ream-batch-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs a batch over `inputs` into `report`.
pub fn run(inputs: &[PathBuf], opts: BatchOptions, report: &Path) -> BatchSummary {
    run_batch(inputs, &opts.report(report), &mut NoProgress).unwrap()
}

/// The report's records; every line must be one whole JSON object.
pub fn records(report: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(report).unwrap();
    assert!(text.is_empty() || text.ends_with('\n'), "partial last line");
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A small XLSX with two sheets.
pub fn xlsx(path: &Path, rows: u32) {
    let mut wb = rust_xlsxwriter::Workbook::new();
    let ws = wb.add_worksheet().set_name("Data").unwrap();
    for r in 0..rows {
        ws.write_number(r, 0, f64::from(r)).unwrap();
        ws.write_string(r, 1, "text").unwrap();
    }
    wb.add_worksheet().set_name("Empty").unwrap();
    wb.save(path).unwrap();
}

/// A one-page PDF with a classic xref table and an Info dictionary.
pub fn pdf(path: &Path, title: &str) {
    std::fs::write(path, pdf_bytes(title, PdfKind::Plain)).unwrap();
}

/// What [`pdf_bytes`] writes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum PdfKind {
    /// A well-formed file.
    Plain,
    /// `/Encrypt` in the trailer (a standard-handler dictionary).
    Encrypted,
    /// `startxref` points nowhere: the reader rebuilds the xref, with
    /// warnings.
    BadStartxref,
}

/// The bytes of a one-page PDF of `kind`.
pub fn pdf_bytes(title: &str, kind: PdfKind) -> Vec<u8> {
    let objs = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>".to_string(),
        format!("<< /Title ({title}) >>"),
        "<< /Filter /Standard /V 1 /R 2 /P -4 /O <00> /U <00> >>".to_string(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objs.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objs.len() + 1).as_bytes());
    for off in offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    let encrypt = if kind == PdfKind::Encrypted {
        " /Encrypt 5 0 R"
    } else {
        ""
    };
    let start = if kind == PdfKind::BadStartxref {
        99_999
    } else {
        xref
    };
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R /Info 4 0 R{encrypt} >>\nstartxref\n{start}\n%%EOF\n",
            objs.len() + 1
        )
        .as_bytes(),
    );
    out
}
