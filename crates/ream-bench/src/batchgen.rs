//! Deterministic generator of the `ream-bench batch` tree:
//! 20,000 small files of mixed formats plus 100 bigger ones, in
//! `bench-data/batch/`.
//!
//! Small files, by index: 30 % XLSX (rust_xlsxwriter, 1-3 sheets, 5-40
//! rows), 10 % ODS (our own tiny writer), 20 % PDF (1-6 pages, classic
//! xref, an Info dictionary), 40 % CSV (20-370 rows); 500 per folder.
//! Big files: 25 each of XLSX (20,000 rows x 4), ODS (10,000 rows x 4),
//! PDF (3,000 pages) and CSV (about 4 MB). Every file's content comes from
//! a SplitMix64 seeded with its index; fixed creation dates, so reruns
//! write identical bytes. A `.complete` marker is written last, so an
//! interrupted generation is redone, never half-used.

use crate::prng::SplitMix64;
use anyhow::{Context, Result};
use rust_xlsxwriter::{DocProperties, ExcelDateTime, Workbook};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

/// Small files in the tree.
pub const SMALL: usize = 20_000;
/// Big files in the tree.
pub const BIG: usize = 100;
/// Small files per folder.
const PER_DIR: usize = 500;
/// Marker file name, written after every data file.
const MARKER: &str = ".complete";

const CITIES: [&str; 12] = [
    "Oslo", "Rome", "Lima", "Kyiv", "Cairo", "Hanoi", "Quito", "Perth", "Dakar", "Minsk", "Sofia",
    "Tunis",
];

/// What [`generate`] produced or found.
#[derive(Debug)]
pub struct Tree {
    /// The tree's root.
    pub root: PathBuf,
    /// Seconds spent writing (0 when it existed).
    pub secs: f64,
}

/// Writes the tree into `dir/batch` unless a complete one is there (or
/// `force`).
pub fn generate(dir: &Path, force: bool) -> Result<Tree> {
    let root = dir.join("batch");
    if root.join(MARKER).is_file() && !force {
        return Ok(Tree { root, secs: 0.0 });
    }
    let t0 = Instant::now();
    if root.exists() {
        std::fs::remove_dir_all(&root).with_context(|| format!("clearing {}", root.display()))?;
    }
    for i in 0..SMALL {
        let sub = root.join(format!("small/{:03}", i / PER_DIR));
        if i % PER_DIR == 0 {
            std::fs::create_dir_all(&sub).with_context(|| format!("creating {}", sub.display()))?;
        }
        let mut rng = SplitMix64::new(0xBA7C_0000 + i as u64);
        let stem = sub.join(format!("f{i:05}"));
        let (a, b) = (rng_below(&mut rng, 3), rng_below(&mut rng, 36));
        match i % 10 {
            0..=2 => xlsx(&stem.with_extension("xlsx"), &mut rng, 1 + a, 5 + b)?,
            3 => ods(&stem.with_extension("ods"), &mut rng, 5 + b)?,
            4 | 5 => pdf(&stem.with_extension("pdf"), &mut rng, 1 + a * 2 + b % 2)?,
            _ => csv(&stem.with_extension("csv"), &mut rng, 20 + b * 10)?,
        }
    }
    let big = root.join("big");
    std::fs::create_dir_all(&big).with_context(|| format!("creating {}", big.display()))?;
    for i in 0..BIG {
        let mut rng = SplitMix64::new(0xB16_0000 + i as u64);
        let stem = big.join(format!("b{i:03}"));
        match i % 4 {
            0 => xlsx(&stem.with_extension("xlsx"), &mut rng, 1, 20_000)?,
            1 => ods(&stem.with_extension("ods"), &mut rng, 10_000)?,
            2 => pdf(&stem.with_extension("pdf"), &mut rng, 3_000)?,
            _ => csv(&stem.with_extension("csv"), &mut rng, 300_000)?,
        }
    }
    std::fs::write(root.join(MARKER), b"")?;
    Ok(Tree {
        root,
        secs: t0.elapsed().as_secs_f64(),
    })
}

fn rng_below(rng: &mut SplitMix64, n: u64) -> u32 {
    u32::try_from(rng.below(n)).unwrap_or(0)
}

fn city(rng: &mut SplitMix64) -> &'static str {
    CITIES
        .get(usize::try_from(rng.below(CITIES.len() as u64)).unwrap_or(0))
        .copied()
        .unwrap_or("Oslo")
}

fn xlsx(path: &Path, rng: &mut SplitMix64, sheets: u32, rows: u32) -> Result<()> {
    let mut wb = Workbook::new();
    let created = ExcelDateTime::from_ymd(2024, 1, 1)?;
    wb.set_properties(&DocProperties::new().set_creation_datetime(&created));
    for s in 0..sheets {
        let ws = wb.add_worksheet();
        ws.set_name(format!("S{s}"))?;
        ws.write_row(0, 0, ["city", "temp", "count", "note"])?;
        for r in 1..=rows {
            ws.write_string(r, 0, city(rng))?;
            ws.write_number(r, 1, (rng.unit() * 600.0).round() / 10.0 - 20.0)?;
            ws.write_number(r, 2, f64::from(rng_below(rng, 1000)))?;
            if rng.chance(0.2) {
                ws.write_string(r, 3, format!("note {}", rng.below(100)))?;
            }
        }
    }
    wb.save(path)
        .with_context(|| format!("saving {}", path.display()))?;
    Ok(())
}

fn ods(path: &Path, rng: &mut SplitMix64, rows: u32) -> Result<()> {
    const MIME: &str = "application/vnd.oasis.opendocument.spreadsheet";
    let mut content = String::from(concat!(
        r#"<?xml version="1.0" encoding="UTF-8"?>"#,
        r#"<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0""#,
        r#" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0""#,
        r#" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.3">"#,
        r#"<office:body><office:spreadsheet><table:table table:name="Data">"#
    ));
    for _ in 0..rows {
        let v = (rng.unit() * 600.0).round() / 10.0 - 20.0;
        let n = rng.below(1000);
        let _ = write!(
            content,
            r#"<table:table-row><table:table-cell office:value-type="string"><text:p>{}</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="{v}"><text:p>{v}</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="{n}"><text:p>{n}</text:p></table:table-cell></table:table-row>"#,
            city(rng)
        );
    }
    content.push_str("</table:table></office:spreadsheet></office:body></office:document-content>");
    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut zw = ZipWriter::new(std::io::BufWriter::new(file));
    let stored = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Stored)
        .last_modified_time(DateTime::default());
    let deflated = stored.compression_method(CompressionMethod::Deflated);
    zw.start_file("mimetype", stored)?;
    zw.write_all(MIME.as_bytes())?;
    zw.start_file("META-INF/manifest.xml", deflated)?;
    zw.write_all(
        concat!(
            r#"<?xml version="1.0" encoding="UTF-8"?>"#,
            r#"<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">"#,
            r#"<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>"#,
            r#"<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>"#,
            "</manifest:manifest>"
        )
        .as_bytes(),
    )?;
    zw.start_file("content.xml", deflated)?;
    zw.write_all(content.as_bytes())?;
    zw.finish()?.flush()?;
    Ok(())
}

/// A classic-xref PDF: catalog, one flat page tree, `pages` pages with a
/// short content stream each, an Info dictionary.
fn pdf(path: &Path, rng: &mut SplitMix64, pages: u32) -> Result<()> {
    let mut out: Vec<u8> = b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".to_vec();
    let mut offsets: Vec<usize> = Vec::new();
    let mut obj = |out: &mut Vec<u8>, body: &str| {
        offsets.push(out.len());
        let _ = write!(out, "{} 0 obj\n{body}\nendobj\n", offsets.len());
    };
    // 1 catalog, 2 pages, 3 info, then (page, content) pairs from 4.
    obj(&mut out, "<< /Type /Catalog /Pages 2 0 R >>");
    let kids: String = (0..pages).map(|p| format!("{} 0 R ", 4 + 2 * p)).collect();
    obj(
        &mut out,
        &format!("<< /Type /Pages /Kids [{kids}] /Count {pages} >>"),
    );
    obj(
        &mut out,
        &format!(
            "<< /Title (Report {}) /Author ({}) /Producer (ream-bench batchgen) >>",
            rng.below(100_000),
            city(rng)
        ),
    );
    for p in 0..pages {
        obj(
            &mut out,
            &format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {} 0 R >>",
                5 + 2 * p
            ),
        );
        let text = format!("BT /F1 12 Tf 72 720 Td (Page {p} {}) Tj ET", city(rng));
        obj(
            &mut out,
            &format!("<< /Length {} >>\nstream\n{text}\nendstream", text.len()),
        );
    }
    let xref = out.len();
    let _ = write!(out, "xref\n0 {}\n0000000000 65535 f \n", offsets.len() + 1);
    for off in &offsets {
        let _ = writeln!(out, "{off:010} 00000 n ");
    }
    let _ = write!(
        out,
        "trailer\n<< /Size {} /Root 1 0 R /Info 3 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        offsets.len() + 1
    );
    std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))
}

fn csv(path: &Path, rng: &mut SplitMix64, rows: u32) -> Result<()> {
    let mut s = String::from("city;temp;count\n");
    for _ in 0..rows {
        let v = (rng.unit() * 600.0).round() / 10.0 - 20.0;
        let _ = writeln!(s, "{};{v:.1};{}", city(rng), rng.below(1000));
    }
    std::fs::write(path, s).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ream_batch::{Analyzer, DocFormat, Outcome, StandardAnalyzer, Summary};

    #[test]
    fn every_generated_kind_reads_back() {
        let dir = std::env::temp_dir().join(format!("ream-bench-batchgen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut rng = SplitMix64::new(1);
        let cases = [
            ("a.xlsx", DocFormat::Xlsx),
            ("a.ods", DocFormat::Ods),
            ("a.pdf", DocFormat::Pdf),
            ("a.csv", DocFormat::Text),
        ];
        xlsx(&dir.join("a.xlsx"), &mut rng, 2, 7).unwrap();
        ods(&dir.join("a.ods"), &mut rng, 7).unwrap();
        pdf(&dir.join("a.pdf"), &mut rng, 3).unwrap();
        csv(&dir.join("a.csv"), &mut rng, 7).unwrap();
        for (name, format) in cases {
            let a = StandardAnalyzer::default().analyze(&dir.join(name), 1);
            assert_eq!((a.format, &a.outcome), (format, &Outcome::Ok), "{name}");
            match a.summary.unwrap() {
                Summary::Workbook(w) => assert!(w.sheets[0].cells >= 7 * 3, "{name}"),
                Summary::Pdf(p) => assert_eq!(p.pages, Some(3)),
                Summary::Text(t) => assert_eq!(t.rows, 8),
            }
        }
        // Same seed, same bytes.
        xlsx(&dir.join("b.xlsx"), &mut SplitMix64::new(9), 1, 5).unwrap();
        xlsx(&dir.join("c.xlsx"), &mut SplitMix64::new(9), 1, 5).unwrap();
        assert_eq!(
            std::fs::read(dir.join("b.xlsx")).unwrap(),
            std::fs::read(dir.join("c.xlsx")).unwrap()
        );
    }
}
