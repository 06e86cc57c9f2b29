//! A minimal streaming ODS (OpenDocument spreadsheet) writer for the
//! benchmark datasets.
//!
//! No ODS writer crate is relied on: the package is a ZIP written with the
//! `zip` crate — `mimetype` first and stored (uncompressed, no extra field,
//! as ODF 1.3 part 2 §3.3 requires), `META-INF/manifest.xml`, and
//! `content.xml` holding `office:spreadsheet` / `table:table` /
//! `table:table-row` / `table:table-cell` with `office:value-type` float,
//! string, date and boolean (formula cells carry `table:formula` plus the
//! cached value). Rows are appended to a small buffer and handed to the
//! deflater in 256 KiB slices, so a 10-million-cell sheet is written in
//! constant memory. Cells are written back to back without whitespace (as
//! LibreOffice does), every row has all its cells, no repeat counts.

use crate::datagen::{Pools, Spec, Val, row_values};
use crate::prng::SplitMix64;
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

/// The ODS media type, the whole content of the `mimetype` entry.
pub const MIME: &str = "application/vnd.oasis.opendocument.spreadsheet";

const MANIFEST: &str = concat!(
    r#"<?xml version="1.0" encoding="UTF-8"?>"#,
    "\n",
    r#"<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">"#,
    r#"<manifest:file-entry manifest:full-path="/" manifest:version="1.3" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>"#,
    r#"<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>"#,
    "</manifest:manifest>\n"
);

const CONTENT_HEAD: &str = concat!(
    r#"<?xml version="1.0" encoding="UTF-8"?>"#,
    "\n",
    r#"<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0""#,
    r#" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0""#,
    r#" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0""#,
    r#" xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" office:version="1.3">"#,
    "<office:body><office:spreadsheet>"
);

const CONTENT_TAIL: &str = "</office:spreadsheet></office:body></office:document-content>\n";

/// Bytes of XML handed to the deflater at a time.
const FLUSH_AT: usize = 256 << 10;

/// Writes `sp` at `scale` as an ODS package to `out`.
pub fn write_ods(out: &Path, sp: &Spec, scale: f64) -> Result<()> {
    let file = File::create(out).with_context(|| format!("creating {}", out.display()))?;
    let mut zw = ZipWriter::new(BufWriter::with_capacity(1 << 20, file));
    let stored = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Stored)
        .last_modified_time(DateTime::default());
    let deflated = stored.compression_method(CompressionMethod::Deflated);
    zw.start_file("mimetype", stored)?;
    zw.write_all(MIME.as_bytes())?;
    zw.start_file("META-INF/manifest.xml", deflated)?;
    zw.write_all(MANIFEST.as_bytes())?;
    // ZIP64 only when the XML could pass 4 GiB (about 150 bytes a cell).
    let large = sp.cells(scale).saturating_mul(150) > u64::from(u32::MAX);
    zw.start_file("content.xml", deflated.large_file(large))?;
    zw.write_all(CONTENT_HEAD.as_bytes())?;
    let pools = Pools::new();
    let mut vals = Vec::new();
    let mut buf = String::with_capacity(FLUSH_AT + (64 << 10));
    for (s, rows) in (0u32..).zip(sp.sheet_rows(scale)) {
        let mut rng = SplitMix64::new(sp.sheet_seed(s));
        let _ = write!(
            buf,
            r#"<table:table table:name="Sheet{}"><table:table-column table:number-columns-repeated="{}"/>"#,
            s + 1,
            sp.layout.cols()
        );
        for r in 0..rows {
            row_values(sp.layout, &mut rng, &pools, &mut vals);
            push_row(&mut buf, r, &vals);
            if buf.len() >= FLUSH_AT {
                zw.write_all(buf.as_bytes())?;
                buf.clear();
            }
        }
        buf.push_str("</table:table>");
    }
    buf.push_str(CONTENT_TAIL);
    zw.write_all(buf.as_bytes())?;
    let mut w = zw.finish().context("finishing the ODS package")?;
    w.flush()?;
    Ok(())
}

/// Appends one `table:table-row` to `out`. `r` is the 0-based row (used in
/// formula references).
pub fn push_row(out: &mut String, r: u32, vals: &[Val<'_>]) {
    let row = u64::from(r) + 1;
    out.push_str("<table:table-row>");
    for v in vals {
        let _ = match v {
            Val::Num(x) => write!(
                out,
                r#"<table:table-cell office:value-type="float" office:value="{x}"><text:p>{x}</text:p></table:table-cell>"#
            ),
            Val::Money(x) => write!(
                out,
                r#"<table:table-cell office:value-type="float" office:value="{x}"><text:p>{x:.2}</text:p></table:table-cell>"#
            ),
            Val::Date(d) => {
                let iso = iso_date(*d);
                write!(
                    out,
                    r#"<table:table-cell office:value-type="date" office:date-value="{iso}"><text:p>{iso}</text:p></table:table-cell>"#
                )
            }
            Val::DateTime(d, secs) => {
                let iso = iso_date(*d);
                let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
                write!(
                    out,
                    r#"<table:table-cell office:value-type="date" office:date-value="{iso}T{h:02}:{m:02}:{s:02}"><text:p>{iso} {h:02}:{m:02}:{s:02}</text:p></table:table-cell>"#
                )
            }
            Val::Str(s) => write_text_cell(out, s),
            Val::Text(s) => write_text_cell(out, s),
            Val::Bool(b) => {
                let (v, t) = if *b {
                    ("true", "TRUE")
                } else {
                    ("false", "FALSE")
                };
                write!(
                    out,
                    r#"<table:table-cell office:value-type="boolean" office:boolean-value="{v}"><text:p>{t}</text:p></table:table-cell>"#
                )
            }
            Val::Sum(x) => write!(
                out,
                r#"<table:table-cell table:formula="of:=[.A{row}]+[.F{row}]" office:value-type="float" office:value="{x}"><text:p>{x}</text:p></table:table-cell>"#
            ),
            Val::Upper(s) => {
                let e = escape(s);
                write!(
                    out,
                    r#"<table:table-cell table:formula="of:=UPPER([.C{row}])" office:value-type="string" office:string-value="{e}"><text:p>{e}</text:p></table:table-cell>"#
                )
            }
        };
    }
    out.push_str("</table:table-row>");
}

fn write_text_cell(out: &mut String, s: &str) -> std::fmt::Result {
    write!(
        out,
        r#"<table:table-cell office:value-type="string"><text:p>{}</text:p></table:table-cell>"#,
        escape(s)
    )
}

/// XML-escapes text for element content and double-quoted attributes.
pub fn escape(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(['&', '<', '>', '"']) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut o = String::with_capacity(s.len() + 8);
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            c => o.push(c),
        }
    }
    std::borrow::Cow::Owned(o)
}

/// `YYYY-MM-DD` of a 1900-system serial day (day 25569 = 1970-01-01).
pub fn iso_date(serial: f64) -> String {
    let (y, m, d) = civil_from_days(serial.floor() as i64 - 25_569);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's
/// `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagen::{FileKind, Layout, generate, spec};
    use calamine::{Data, Ods, Reader, open_workbook};

    #[test]
    fn dates() {
        assert_eq!(iso_date(36_526.0), "2000-01-01");
        assert_eq!(iso_date(25_569.0), "1970-01-01");
        assert_eq!(iso_date(45_351.0), "2024-02-29");
        assert_eq!(iso_date(36_585.0), "2000-02-29");
        assert_eq!(escape("a<&\"b"), "a&lt;&amp;&quot;b");
    }

    /// Writes small ODS files of two layouts and reads them back with
    /// calamine's `Ods`: sheet count, cell count and every value.
    #[test]
    fn calamine_reads_generated_ods() {
        let dir = std::env::temp_dir().join(format!("ream-bench-ods-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let specs = [
            Spec {
                groups: &[(2, 40), (1, 7)],
                layout: Layout::Mixed10,
                seed: 1,
                kind: FileKind::Ods,
                stem: "t1",
                converted_from: None,
            },
            Spec {
                groups: &[(3, 25)],
                layout: Layout::Unique5,
                seed: 2,
                kind: FileKind::Ods,
                stem: "t2",
                converted_from: None,
            },
            spec("seed_ods").unwrap(),
        ];
        let pools = Pools::new();
        for (i, sp) in specs.iter().enumerate() {
            let scale = if sp.stem == "seed" { 0.01 } else { 1.0 };
            let path = dir.join(format!("t{i}.ods"));
            write_ods(&path, sp, scale).unwrap();
            // mimetype is the first entry, stored.
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(&bytes[30..38], b"mimetype");
            assert_eq!(&bytes[38..38 + MIME.len()], MIME.as_bytes());
            let mut ods: Ods<_> = open_workbook(&path).unwrap();
            let names = ods.sheet_names();
            let rows = sp.sheet_rows(scale);
            assert_eq!(names.len(), rows.len());
            let mut cells = 0u64;
            let mut vals = Vec::new();
            for (s, (name, &n)) in names.iter().zip(&rows).enumerate() {
                assert_eq!(name, &format!("Sheet{}", s + 1));
                let range = ods.worksheet_range(name).unwrap();
                cells += range.used_cells().count() as u64;
                assert_eq!(range.start(), Some((0, 0)));
                let mut rng = SplitMix64::new(sp.sheet_seed(s as u32));
                for r in 0..n {
                    row_values(sp.layout, &mut rng, &pools, &mut vals);
                    for (c, v) in vals.iter().enumerate() {
                        let got = range.get_value((r, c as u32)).unwrap();
                        let ok = match (v, got) {
                            (Val::Num(a) | Val::Money(a) | Val::Sum(a), Data::Float(b)) => a == b,
                            (Val::Str(a), Data::String(b)) => a == b,
                            (Val::Text(a) | Val::Upper(a), Data::String(b)) => a == b,
                            (Val::Bool(a), Data::Bool(b)) => a == b,
                            (Val::Date(d), Data::DateTimeIso(b)) => &iso_date(*d) == b,
                            (Val::DateTime(d, _), Data::DateTimeIso(b)) => {
                                b.starts_with(&iso_date(*d)) && b.len() == 19
                            }
                            _ => false,
                        };
                        assert!(ok, "sheet {s} r{r} c{c}: wrote {v:?}, read {got:?}");
                    }
                }
            }
            assert_eq!(cells, sp.cells(scale));
        }
        // Formula text survives too.
        let mut ods: Ods<_> = open_workbook(dir.join("t0.ods")).unwrap();
        let f = ods.worksheet_formula("Sheet1").unwrap();
        assert_eq!(
            f.get_value((0, 7)).map(String::as_str),
            Some("of:=[.A1]+[.F1]")
        );
        assert_eq!(
            f.get_value((1, 9)).map(String::as_str),
            Some("of:=UPPER([.C2])")
        );
        // And through the public entry point, named like the datasets.
        let g = generate(&dir, "giant_ods", 0.0001, true).unwrap();
        assert_eq!(g.path, dir.join("giant-s0.0001.ods"));
        let mut ods: Ods<_> = open_workbook(&g.path).unwrap();
        let r = ods.worksheet_range("Sheet1").unwrap();
        assert_eq!(r.used_cells().count() as u64, g.cells);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
