//! The PDF engine's demo: a small multi-page PDF written deterministically
//! (page dictionaries packed in an object stream, an xref stream, then an
//! incremental update appended by ream itself), read back four ways, then
//! updated in place and rewritten on copies.

use super::{DemoResult, thousands};
use anyhow::{Context, Result, bail};
use ream_pdf::{Pdf, PdfOptions, RewriteOptions, SourceKind};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

/// Pages of the sample.
const PAGES: u32 = 240;
/// Page dictionaries per object stream.
const PER_OBJSTM: u32 = 60;
const TITLE: &str = "ream demo document";
const UPDATED_TITLE: &str = "ream demo document (updated)";

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
    let _ = e.write_all(data);
    e.finish().unwrap_or_default()
}

/// Object numbers: 1 catalog, 2 page tree, 3 Info, 4 font, 10.. pages,
/// 10 + PAGES.. content streams, then object streams and the xref stream.
fn page_num(i: u32) -> u32 {
    10 + i
}

fn content_num(i: u32) -> u32 {
    10 + PAGES + i
}

/// The original revision: catalog, page tree, Info and pages packed into
/// object streams; content streams plain; an xref stream.
fn base_revision() -> Vec<u8> {
    let mut out = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n".to_vec();
    // (num, type, f2, f3) rows of the xref stream.
    let mut rows: Vec<(u32, u8, u64, u64)> = vec![(0, 0, 0, 65535)];
    let put_stream = |out: &mut Vec<u8>, num: u32, dict: &str, data: &[u8]| {
        let _ = write!(
            out,
            "{num} 0 obj\n<< {dict} /Length {} >>\nstream\n",
            data.len()
        );
        out.extend_from_slice(data);
        out.extend_from_slice(b"\nendstream\nendobj\n");
    };
    for i in 0..PAGES {
        rows.push((content_num(i), 1, out.len() as u64, 0));
        let mut text = String::from("BT /F1 24 Tf 72 720 Td ");
        let _ = write!(text, "(Page {} of {PAGES}) Tj ET", i + 1);
        put_stream(
            &mut out,
            content_num(i),
            "/Filter /FlateDecode",
            &zlib(text.as_bytes()),
        );
    }
    let kids: Vec<String> = (0..PAGES).map(|i| format!("{} 0 R", page_num(i))).collect();
    let mut small: Vec<(u32, String)> = vec![
        (1, "<< /Type /Catalog /Pages 2 0 R >>".into()),
        (
            2,
            format!(
                "<< /Type /Pages /Kids [{}] /Count {PAGES} /MediaBox [0 0 612 792] >>",
                kids.join(" ")
            ),
        ),
        (
            3,
            format!(
                "<< /Title ({TITLE}) /Author (ream) /Producer (ream demo) /CreationDate (D:20240101000000Z) >>"
            ),
        ),
        (
            4,
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".into(),
        ),
    ];
    for i in 0..PAGES {
        let extra = match i % 10 {
            0 => " /MediaBox [0 0 595 842]",
            5 => " /Rotate 90",
            _ => "",
        };
        small.push((
            page_num(i),
            format!(
                "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents {} 0 R{extra} >>",
                content_num(i)
            ),
        ));
    }
    let mut next = 10 + 2 * PAGES;
    for chunk in small.chunks(PER_OBJSTM as usize) {
        let num = next;
        next += 1;
        let (mut head, mut body) = (String::new(), String::new());
        for (idx, (n, t)) in chunk.iter().enumerate() {
            let _ = write!(head, "{n} {} ", body.len());
            body.push_str(t);
            body.push('\n');
            rows.push((*n, 2, u64::from(num), idx as u64));
        }
        head.push('\n');
        let first = head.len();
        head.push_str(&body);
        rows.push((num, 1, out.len() as u64, 0));
        put_stream(
            &mut out,
            num,
            &format!(
                "/Type /ObjStm /N {} /First {first} /Filter /FlateDecode",
                chunk.len()
            ),
            &zlib(head.as_bytes()),
        );
    }
    let xref_num = next;
    let xref_at = out.len() as u64;
    rows.push((xref_num, 1, xref_at, 0));
    rows.sort_unstable();
    let mut data = Vec::new();
    for &(_, t, f2, f3) in &rows {
        data.push(t);
        data.extend_from_slice(&(f2 as u32).to_be_bytes());
        data.extend_from_slice(&(f3 as u16).to_be_bytes());
    }
    let index: Vec<String> = rows.iter().map(|r| format!("{} 1", r.0)).collect();
    put_stream(
        &mut out,
        xref_num,
        &format!(
            "/Type /XRef /Size {} /W [1 4 2] /Index [{}] /Root 1 0 R /Info 3 0 R /ID [<52454D44454D4F000000000000000001> <52454D44454D4F000000000000000001>] /Filter /FlateDecode",
            xref_num + 1,
            index.join(" ")
        ),
        &zlib(&data),
    );
    let _ = write!(out, "startxref\n{xref_at}\n%%EOF\n");
    out
}

/// Writes the sample: the original revision, then an update appended by
/// ream (new Title and ModDate).
pub fn write_sample(path: &Path) -> Result<()> {
    std::fs::write(path, base_revision()).with_context(|| format!("writing {}", path.display()))?;
    let pdf = Pdf::open(path, &PdfOptions::new().strict(true))?;
    let mut u = pdf.update();
    u.set_info("Title", UPDATED_TITLE)
        .set_info("ModDate", "D:20240201000000Z");
    u.write_to(path)?;
    Ok(())
}

fn secs(t: Instant) -> String {
    let s = t.elapsed().as_secs_f64();
    if s < 0.01 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.3} s")
    }
}

/// Generates `demo.pdf` in `dir` and runs the PDF engine on it.
pub fn demo_pdf(dir: &Path) -> Result<DemoResult> {
    let path = dir.join("demo.pdf");
    write_sample(&path)?;
    let size = std::fs::metadata(&path)?.len();
    let mut warnings = Vec::new();

    let t = Instant::now();
    let pdf = Pdf::open(&path, &PdfOptions::new())?;
    let count = pdf.page_count()?;
    let info = pdf.info()?;
    let count_t = secs(t);
    let c = pdf.io_counters();
    let t = Instant::now();
    let pages = pdf.pages()?;
    let walk_t = secs(t);
    let (hits, misses) = pdf.objstm_cache_stats();
    let rotated = pages.iter().filter(|p| p.rotate != 0).count();
    let a4 = pages
        .iter()
        .filter(|p| p.media_box == Some([0.0, 0.0, 595.0, 842.0]))
        .count();
    let title = info
        .iter()
        .find(|(k, _)| k == "Title")
        .map(|(_, v)| v.to_string())
        .unwrap_or_default();
    if count != u64::from(PAGES) || pages.len() != PAGES as usize {
        warnings.push(format!(
            "pages: expected {PAGES}, /Count says {count}, walk found {}",
            pages.len()
        ));
    }
    if title != UPDATED_TITLE {
        warnings.push(format!("Title: expected {UPDATED_TITLE:?}, read {title:?}"));
    }
    let revs: Vec<String> = pdf
        .revisions()
        .iter()
        .map(|r| {
            format!(
                "{} ({}, {} objects)",
                thousands(r.size()),
                r.kind.as_str(),
                r.objects
            )
        })
        .collect();

    // The sliding window and the per-object baseline on the same walk.
    let mut by_source = Vec::new();
    for kind in [SourceKind::Window, SourceKind::Pread] {
        let p = Pdf::open(&path, &PdfOptions::new().source(kind).window_size(4096))?;
        let n = p.pages()?.len();
        let c = p.io_counters();
        if n != pages.len() {
            warnings.push(format!("{kind}: walk found {n} pages"));
        }
        let label = match kind {
            SourceKind::Window => "window (4 KiB views)",
            _ => "pread (one read per request)",
        };
        by_source.push(format!(
            "{label}: {} syscalls ({} maps, {} reads)",
            c.syscalls, c.maps, c.reads
        ));
    }

    // An incremental update in place on a copy, and a rewrite.
    let copy = dir.join("demo-updated.pdf");
    std::fs::copy(&path, &copy)?;
    let t = Instant::now();
    let cp = Pdf::open(&copy, &PdfOptions::new())?;
    let mut u = cp.update();
    u.set_info("Subject", "updated in place by ream demo");
    let rep = u.write_in_place()?;
    let update_t = secs(t);
    drop(cp);
    let again = Pdf::open(&copy, &PdfOptions::new().strict(true))?;
    let subject = again
        .info()?
        .into_iter()
        .find(|(k, _)| k == "Subject")
        .map(|(_, v)| v.to_string());
    if subject.as_deref() != Some("updated in place by ream demo") || again.page_count()? != count {
        warnings.push("the in-place update did not read back".to_string());
    }
    let original = std::fs::read(&path)?;
    let updated = std::fs::read(&copy)?;
    if updated.get(..original.len()) != Some(original.as_slice()) {
        bail!("the in-place update changed original bytes");
    }
    let rewritten = dir.join("demo-rewritten.pdf");
    let t = Instant::now();
    let rw = again.rewrite(
        &rewritten,
        &RewriteOptions {
            object_streams: true,
            ..RewriteOptions::default()
        },
    )?;
    let rewrite_t = secs(t);
    let back = Pdf::open(&rewritten, &PdfOptions::new().strict(true))?;
    if back.pages()?.len() != pages.len() {
        warnings.push("the rewrite lost pages".to_string());
    }

    let p = path.display();
    let lines = vec![
        (
            "file",
            format!(
                "{} bytes, PDF {}, {} objects, revisions: {}",
                thousands(size),
                pdf.version(),
                thousands(pdf.object_numbers().len() as u64),
                revs.join(" + ")
            ),
        ),
        (
            "count+info",
            format!(
                "{count} pages (trusted /Count), Title {title:?}, {} Info entries in {count_t}; {} requests, {} bytes mapped",
                info.len(),
                c.requests,
                thousands(c.bytes_mapped)
            ),
        ),
        (
            "walk",
            format!(
                "{} pages verified ({rotated} rotated, {a4} A4 by own MediaBox) in {walk_t}; object streams {misses} decoded, {hits} cache hits",
                pages.len()
            ),
        ),
        ("sources", by_source.join("; ")),
        (
            "update",
            format!(
                "in place on {}: +{} bytes (xref {}), original bytes untouched, in {update_t}",
                copy.display(),
                thousands(rep.appended),
                rep.xref_kind.as_str()
            ),
        ),
        (
            "rewrite",
            format!(
                "{}: {} bytes, {} objects in {} object streams, in {rewrite_t}",
                rewritten.display(),
                thousands(rw.bytes),
                rw.objects,
                rw.object_streams
            ),
        ),
    ];
    let hints = vec![
        format!("ream pdf info {p} --verify-pages"),
        format!("ream pdf revisions {p}"),
        format!("ream pdf pages {p} | head"),
        format!("ream pdf update {p} --set-info Title=Mine -o mine.pdf"),
        format!("ream pdf rewrite {p} compact.pdf --object-streams --stats"),
    ];
    Ok(DemoResult {
        engine: "pdf",
        file: path,
        lines,
        hints,
        warnings,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    #[test]
    fn sample_is_deterministic_and_reads_back() {
        let dir = std::env::temp_dir().join(format!("ream-demo-pdf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a.pdf");
        let b = dir.join("b.pdf");
        super::write_sample(&a).unwrap();
        super::write_sample(&b).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        let r = super::demo_pdf(&dir).unwrap();
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
