//! `ream pdf update` and `ream pdf rewrite` on a small hand-written PDF.

use super::{BIN, assert_ok, ream, stderr, stdout, temp_dir};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// A classic-xref PDF: catalog 1, page tree 2, Info 3, `n` pages from 10.
fn minimal_pdf(n: u32) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offs = Vec::new();
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 10 + i)).collect();
    let mut objs = vec![
        (1, "<< /Type /Catalog /Pages 2 0 R >>".to_string()),
        (
            2,
            format!(
                "<< /Type /Pages /Kids [{}] /Count {n} /MediaBox [0 0 612 792] >>",
                kids.join(" ")
            ),
        ),
        (3, "<< /Title (Original) /Author (tests) >>".to_string()),
    ];
    for i in 0..n {
        objs.push((10 + i, "<< /Type /Page /Parent 2 0 R >>".to_string()));
    }
    for (num, body) in &objs {
        offs.push((*num, out.len()));
        out.extend_from_slice(format!("{num} 0 obj\n{body}\nendobj\n").as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(b"xref\n0 1\n0000000000 65535 f \n");
    for (num, off) in &offs {
        out.extend_from_slice(format!("{num} 1\n{off:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R /Info 3 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            10 + n
        )
        .as_bytes(),
    );
    out
}

fn info_json(dir: &Path, file: &str) -> Value {
    let o = ream(&["pdf", "info", file, "--json"], dir);
    assert_ok(&o);
    serde_json::from_str(&stdout(&o)).unwrap()
}

fn qpdf_ok(path: &Path) {
    match Command::new("qpdf").arg("--check").arg(path).output() {
        Ok(o) => assert!(
            o.status.success(),
            "qpdf --check {}: {}",
            path.display(),
            String::from_utf8_lossy(&o.stdout)
        ),
        Err(_) => eprintln!("qpdf not installed: --check skipped"),
    }
}

#[test]
fn pdf_update_to_copy_in_place_and_replace() {
    let dir = temp_dir("pdf-update");
    let original = minimal_pdf(3);
    std::fs::write(dir.join("a.pdf"), &original).unwrap();
    // -o OUT: a copy with the revision; the input untouched.
    let o = ream(
        &[
            "pdf",
            "update",
            "a.pdf",
            "--set-info",
            "Title=Neu Ä",
            "--set-info",
            "Author=",
            "-o",
            "b.pdf",
        ],
        &dir,
    );
    assert_ok(&o);
    assert!(stdout(&o).contains("appended"), "{}", stdout(&o));
    assert_eq!(std::fs::read(dir.join("a.pdf")).unwrap(), original);
    let v = info_json(&dir, "b.pdf");
    assert_eq!(v["pages"], 3);
    assert_eq!(v["info"]["Title"], "Neu Ä");
    assert!(v["info"].get("Author").is_none(), "{v}");
    assert_eq!(v["revisions"].as_array().unwrap().len(), 2);
    qpdf_ok(&dir.join("b.pdf"));
    // --in-place: appended to the file itself.
    let o = ream(
        &[
            "pdf",
            "update",
            "b.pdf",
            "--set-info",
            "Subject=x",
            "--in-place",
            "--json",
        ],
        &dir,
    );
    assert_ok(&o);
    let rep: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(rep["in_place"], true);
    assert!(rep["appended_bytes"].as_u64().unwrap() < 65536);
    let v = info_json(&dir, "b.pdf");
    assert_eq!(v["info"]["Subject"], "x");
    assert_eq!(v["revisions"].as_array().unwrap().len(), 3);
    // No -o: the file is replaced atomically by an updated copy.
    let o = ream(
        &["pdf", "update", "a.pdf", "--set-info", "Title=Replaced"],
        &dir,
    );
    assert_ok(&o);
    let now = std::fs::read(dir.join("a.pdf")).unwrap();
    assert_eq!(&now[..original.len()], &original[..]);
    assert_eq!(info_json(&dir, "a.pdf")["info"]["Title"], "Replaced");
    // No leftovers.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains("ream-tmp")), "{names:?}");
}

#[test]
fn pdf_update_usage_errors() {
    let dir = temp_dir("pdf-usage");
    std::fs::write(dir.join("a.pdf"), minimal_pdf(1)).unwrap();
    for args in [
        &["pdf", "update", "a.pdf"][..],
        &["pdf", "update", "a.pdf", "--set-info", "NoEquals"],
        &[
            "pdf",
            "update",
            "a.pdf",
            "--set-info",
            "T=x",
            "-o",
            "b.pdf",
            "--in-place",
        ],
        &["pdf", "rewrite", "a.pdf"],
    ] {
        let o = ream(args, &dir);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
    let o = ream(&["pdf", "update", "missing.pdf", "--set-info", "T=x"], &dir);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn pdf_rewrite_keeps_pages_and_info() {
    let dir = temp_dir("pdf-rewrite");
    std::fs::write(dir.join("a.pdf"), minimal_pdf(5)).unwrap();
    for extra in [
        &[][..],
        &["--object-streams"],
        &["--direct-io", "--buffer-mb", "1"],
    ] {
        let mut args = vec!["pdf", "rewrite", "a.pdf", "out.pdf", "--json"];
        args.extend_from_slice(extra);
        let o = ream(&args, &dir);
        assert_ok(&o);
        let rep: Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(rep["objects"], 8, "{rep}");
        let v = info_json(&dir, "out.pdf");
        assert_eq!(v["pages"], 5);
        assert_eq!(v["info"]["Title"], "Original");
        let o = ream(&["pdf", "check", "out.pdf"], &dir);
        assert_ok(&o);
        qpdf_ok(&dir.join("out.pdf"));
    }
    assert!(Path::new(BIN).is_file());
}

#[test]
fn pdf_index_counts_objects_by_type() {
    let dir = temp_dir("pdf-index");
    let f = dir.join("idx.pdf");
    std::fs::write(&f, minimal_pdf(7)).unwrap();
    let f = f.to_str().unwrap();
    for threads in ["1", "2"] {
        let o = ream(&["pdf", "index", f, "--threads", threads, "--json"], &dir);
        assert_ok(&o);
        let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(v["objects"], 10, "{v}");
        assert_eq!(v["by_type"]["Page"], 7, "{v}");
        assert_eq!(v["by_type"]["Catalog"], 1, "{v}");
        assert_eq!(v["errors"].as_array().map_or(0, Vec::len), 0, "{v}");
    }
    let o = ream(
        &["pdf", "index", dir.join("missing.pdf").to_str().unwrap()],
        &dir,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}
