//! The ODS reader: small packages built in each test (so every test shows
//! its input), a cross-check with calamine on a generated file, hostile
//! inputs, and the conformance corpus (`shared/corpus/ods`) against the
//! python-calamine goldens.

use crate::zipkit::{Entry, Zip};
use ream_sheet::{
    CellError, CellRange, DateKind, DrawingKind, ErrorKind, Limits, OpenOptions, Value, Workbook,
};
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const MIME: &str = "application/vnd.oasis.opendocument.spreadsheet";
const MANIFEST: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>"#;

/// `content.xml` with `styles` as automatic styles and `body` inside
/// `<office:spreadsheet>`.
pub(crate) fn content(styles: &str, body: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" xmlns:calcext="urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0" office:version="1.3"><office:automatic-styles>{styles}</office:automatic-styles><office:body><office:spreadsheet>{body}</office:spreadsheet></office:body></office:document-content>"#
    )
}

/// An ODS package: stored `mimetype` first, the manifest and `content`.
pub(crate) fn package(content: &str) -> Vec<u8> {
    let mut mime = Entry::new("mimetype", MIME);
    mime.stored = true;
    Zip { entries: vec![] }
        .push(mime)
        .push(Entry::new("META-INF/manifest.xml", MANIFEST))
        .push(Entry::new("content.xml", content))
        .build()
}

/// One table named `name` holding `rows`.
pub(crate) fn table(name: &str, rows: &str) -> String {
    format!(r#"<table:table table:name="{name}">{rows}</table:table>"#)
}

/// The serial reference: one parser, and a first block (512 KiB at most)
/// that holds a test fixture whole.
pub(crate) fn serial_opts() -> OpenOptions {
    OpenOptions::new()
        .parallel(false)
        .tune_stream_block(1 << 30)
}

fn open(bytes: Vec<u8>) -> ream_sheet::Result<Workbook> {
    Workbook::from_bytes(bytes, &OpenOptions::new())
}

fn one_sheet(rows: &str) -> Workbook {
    open(package(&content("", &table("S", rows)))).unwrap()
}

pub(crate) fn float(v: &str) -> String {
    format!(
        r#"<table:table-cell office:value-type="float" office:value="{v}"><text:p>{v}</text:p></table:table-cell>"#
    )
}

pub(crate) fn string(t: &str) -> String {
    format!(
        r#"<table:table-cell office:value-type="string"><text:p>{t}</text:p></table:table-cell>"#
    )
}

/// Every cell as `sheet!row:col=value f=formula`.
pub(crate) fn dump(wb: &Workbook) -> Vec<String> {
    let mut out = Vec::new();
    for s in wb.sheets() {
        for c in s.cells() {
            out.push(format!(
                "{}!{}:{}={:?} f={:?}",
                s.name(),
                c.row,
                c.col,
                c.value,
                c.formula
            ));
        }
        out.push(format!(
            "{} merged={:?} comments={:?} hidden={:?}/{:?} vis={:?}",
            s.name(),
            s.merged(),
            s.comments(),
            s.hidden_rows(),
            s.hidden_cols(),
            s.visibility()
        ));
    }
    out.push(format!("names={:?}", wb.defined_names()));
    out
}

#[test]
fn typed_values() {
    let rows = [
        float("1.5"),
        r#"<table:table-cell office:value-type="percentage" office:value="0.25"><text:p>25%</text:p></table:table-cell>"#.into(),
        r#"<table:table-cell office:value-type="currency" office:currency="EUR" office:value="-3"><text:p>-3 €</text:p></table:table-cell>"#.into(),
        r#"<table:table-cell office:value-type="boolean" office:boolean-value="true"><text:p>TRUE</text:p></table:table-cell>"#.into(),
        r#"<table:table-cell office:value-type="date" office:date-value="2024-02-29"><text:p>29/02/24</text:p></table:table-cell>"#.into(),
        r#"<table:table-cell office:value-type="date" office:date-value="2021-01-01T10:10:10"/>"#.into(),
        r#"<table:table-cell office:value-type="time" office:time-value="PT10H10M10S"/>"#.into(),
        r#"<table:table-cell office:value-type="time" office:time-value="PT288H00M00S"/>"#.into(),
    ]
    .concat();
    let row2 = [
        r#"<table:table-cell office:value-type="string"><text:p>Split</text:p><text:p>Line <text:s text:c="2"/>x<text:tab/>y<text:line-break/>z</text:p></table:table-cell>"#,
        r#"<table:table-cell office:value-type="string"><text:p><text:span>a &amp; </text:span><text:a xlink:href="https://example.com/">link</text:a></text:p></table:table-cell>"#,
        r#"<table:table-cell table:formula="of:=[.A1]*2" office:value-type="float" office:value="3"><text:p>3</text:p></table:table-cell>"#,
        r#"<table:table-cell table:formula="of:=1/0" office:value-type="string" office:string-value="" calcext:value-type="error"><text:p>#DIV/0!</text:p></table:table-cell>"#,
        r#"<table:table-cell office:value-type="string" office:string-value="attr wins"><text:p>ignored</text:p></table:table-cell>"#,
        r#"<table:table-cell office:value-type="string"><text:p/></table:table-cell>"#,
        r#"<table:table-cell><text:p>no type: empty</text:p></table:table-cell>"#,
        &float("7"),
    ]
    .concat();
    let wb = one_sheet(&format!(
        "<table:table-row>{rows}</table:table-row><table:table-row>{row2}</table:table-row>"
    ));
    let s = wb.sheet(0).unwrap();
    assert_eq!(s.name(), "S");
    assert_eq!(s.part(), "content.xml");
    let v = |r, c| s.get(r, c).map(|c| c.value);
    assert_eq!(v(0, 0), Some(Value::Number(1.5)));
    assert_eq!(v(0, 1), Some(Value::Number(0.25)));
    assert_eq!(v(0, 2), Some(Value::Number(-3.0)));
    assert_eq!(v(0, 3), Some(Value::Bool(true)));
    let date = |r, c| match v(r, c) {
        Some(Value::DateTime(d)) => (d.kind, d.to_iso()),
        other => panic!("not a date: {other:?}"),
    };
    assert_eq!(date(0, 4), (DateKind::DateTime, "2024-02-29".into()));
    assert_eq!(
        date(0, 5),
        (DateKind::DateTime, "2021-01-01T10:10:10".into())
    );
    assert_eq!(date(0, 6), (DateKind::Time, "10:10:10".into()));
    assert_eq!(date(0, 7).0, DateKind::Duration);
    let Some(Value::DateTime(d)) = v(0, 7) else {
        panic!()
    };
    assert_eq!(d.as_seconds(), 288.0 * 3600.0);
    assert_eq!(v(1, 0), Some(Value::String("Split\nLine   x\ty\nz")));
    assert_eq!(v(1, 1), Some(Value::String("a & link")));
    let f = s.get(1, 2).unwrap();
    assert_eq!((f.value, f.formula), (Value::Number(3.0), Some("[.A1]*2")));
    let e = s.get(1, 3).unwrap();
    assert_eq!(
        (e.value, e.formula),
        (Value::Error(CellError::Div0), Some("1/0"))
    );
    assert_eq!(v(1, 4), Some(Value::String("attr wins")));
    assert_eq!(v(1, 5), None, "an empty string is an empty cell");
    assert_eq!(v(1, 6), None, "text without a value type is no value");
    assert_eq!(v(1, 7), Some(Value::Number(7.0)));
    assert_eq!(s.cell_count(), 14);
    let link = &s.hyperlinks()[0];
    assert_eq!(link.range, CellRange::parse("B2").unwrap());
    assert_eq!(link.target.as_deref(), Some("https://example.com/"));
}

#[test]
fn repeats_are_counted_not_stored() {
    // LibreOffice's trailers: 16,384 columns and 1,048,576 rows of nothing.
    let rows = format!(
        r#"<table:table-column table:number-columns-repeated="16384"/><table:table-row>{a}<table:table-cell table:number-columns-repeated="3"/>{b}<table:table-cell table:number-columns-repeated="16379"/></table:table-row><table:table-row table:number-rows-repeated="1048574"><table:table-cell table:number-columns-repeated="16384"/></table:table-row><table:table-row>{c}</table:table-row>"#,
        a = float("1"),
        b = r#"<table:table-cell office:value-type="string" table:number-columns-repeated="2"><text:p>rep</text:p></table:table-cell>"#,
        c = float("9"),
    );
    let t = Instant::now();
    let wb = one_sheet(&rows);
    assert!(t.elapsed() < Duration::from_secs(5));
    let s = wb.sheet(0).unwrap();
    let cells: Vec<_> = s.cells().map(|c| (c.row, c.col, c.value)).collect();
    assert_eq!(
        cells,
        vec![
            (0, 0, Value::Number(1.0)),
            (0, 4, Value::String("rep")),
            (0, 5, Value::String("rep")),
            (1_048_575, 0, Value::Number(9.0)),
        ]
    );
    assert!(s.heap_bytes() < 4096, "{}", s.heap_bytes());
    // A repeated row with content is stored once per repetition.
    let wb = one_sheet(&format!(
        r#"<table:table-row table:number-rows-repeated="3">{}{}</table:table-row><table:table-row>{}</table:table-row>"#,
        float("5"),
        r#"<table:table-cell table:formula="of:=1+1" office:value-type="float" office:value="2" table:number-columns-repeated="2"/>"#,
        string("end")
    ));
    let s = wb.sheet(0).unwrap();
    assert_eq!(s.cell_count(), 10);
    assert_eq!(s.get(2, 2).unwrap().formula, Some("1+1"));
    assert_eq!(s.get(2, 0).unwrap().value, Value::Number(5.0));
    assert_eq!(s.get(3, 0).unwrap().value, Value::String("end"));
}

#[test]
fn spans_covered_cells_and_annotations() {
    let rows = format!(
        r#"<table:table-row><table:table-cell table:number-columns-spanned="2" table:number-rows-spanned="2" office:value-type="string"><text:p>merged</text:p></table:table-cell><table:covered-table-cell office:value-type="float" office:value="4"/>{}</table:table-row><table:table-row><table:covered-table-cell table:number-columns-repeated="2"/><table:table-cell><office:annotation><dc:creator>Ann</dc:creator><dc:date>2024-01-01T00:00:00</dc:date><text:p>first</text:p><text:p>second</text:p></office:annotation></table:table-cell><table:table-cell office:value-type="float" office:value="8"><office:annotation><text:p>on a value</text:p></office:annotation><text:p>8</text:p></table:table-cell></table:table-row>"#,
        float("3")
    );
    let wb = one_sheet(&rows);
    let s = wb.sheet(0).unwrap();
    assert_eq!(s.merged(), &[CellRange::parse("A1:B2").unwrap()]);
    assert_eq!(s.get(0, 0).unwrap().value, Value::String("merged"));
    // A covered cell keeps its own value (calamine reads it too).
    assert_eq!(s.get(0, 1).unwrap().value, Value::Number(4.0));
    assert_eq!(s.get(0, 2).unwrap().value, Value::Number(3.0));
    assert_eq!(s.get(1, 2), None, "a comment alone is not a value");
    assert_eq!(s.get(1, 3).unwrap().value, Value::Number(8.0));
    let comments: Vec<_> = s
        .comments()
        .iter()
        .map(|c| (c.row, c.col, c.author.as_str(), c.text.as_str()))
        .collect();
    assert_eq!(
        comments,
        vec![(1, 2, "Ann", "first\nsecond"), (1, 3, "", "on a value")]
    );
}

#[test]
fn hidden_rows_columns_and_sheets() {
    let styles = r#"<style:style style:name="ta1" style:family="table"><style:table-properties table:display="true"/></style:style><style:style style:name="ta2" style:family="table"><style:table-properties table:display="false"/></style:style>"#;
    let rows = format!(
        r#"<table:table-column/><table:table-column table:visibility="collapse" table:number-columns-repeated="2"/><table:table-column table:number-columns-repeated="16381" table:visibility="collapse"/><table:table-header-rows><table:table-row>{a}</table:table-row></table:table-header-rows><table:table-row table:visibility="collapse" table:number-rows-repeated="2">{a}</table:table-row><table:table-row-group><table:table-row table:visibility="filter">{a}</table:table-row><table:table-row>{a}</table:table-row></table:table-row-group><table:table-row table:visibility="collapse" table:number-rows-repeated="2"><table:table-cell table:number-columns-repeated="5"/>{a}</table:table-row><table:table-row table:visibility="collapse" table:number-rows-repeated="1048568"><table:table-cell/></table:table-row>"#,
        a = float("1")
    );
    let body = format!(
        r#"<table:table table:name="Shown" table:style-name="ta1">{rows}</table:table><table:table table:name="Hidden" table:style-name="ta2"><table:table-row>{}</table:table-row></table:table>"#,
        float("2")
    );
    let wb = open(package(&content(styles, &body))).unwrap();
    let s = wb.sheet(0).unwrap();
    assert_eq!(s.visibility(), ream_sheet::Visibility::Visible);
    assert_eq!(
        wb.sheet(1).unwrap().visibility(),
        ream_sheet::Visibility::Hidden
    );
    // Hidden rows and columns are listed within the used range (cells up
    // to row 6 and column F), not through the million-row trailer.
    assert_eq!(s.hidden_rows(), &[1, 2, 3, 5, 6]);
    assert_eq!(s.hidden_cols(), &[1, 2, 3, 4, 5]);
    assert_eq!(s.cell_count(), 7);
    assert_eq!(s.get(4, 0).unwrap().value, Value::Number(1.0));
    assert_eq!(s.get(6, 5).unwrap().value, Value::Number(1.0));
}

#[test]
fn named_ranges_and_drawings() {
    let body = format!(
        r#"<table:table table:name="apo'strophe"><table:shapes><draw:frame><draw:object xlink:href="./Object 1"/></draw:frame></table:shapes><table:table-row>{}<table:table-cell><draw:frame><draw:image xlink:href="Pictures/p.png"/></draw:frame></table:table-cell></table:table-row><table:named-expressions><table:named-range table:name="Local" table:base-cell-address="$'apo''strophe'.$A$1" table:cell-range-address="$'apo''strophe'.$A$1"/></table:named-expressions></table:table><table:named-expressions><table:named-range table:name="Both" table:base-cell-address="$'apo''strophe'.$A$1" table:cell-range-address="$'apo''strophe'.$A$1:.$B$2"/><table:named-expression table:name="Twice" table:base-cell-address="$'apo''strophe'.$A$1" table:expression="of:=[.A1]*2"/></table:named-expressions>"#,
        float("1")
    );
    let wb = open(package(&content("", &body))).unwrap();
    let names: Vec<_> = wb
        .defined_names()
        .iter()
        .map(|n| (n.name.as_str(), n.formula.as_str(), n.local_sheet))
        .collect();
    assert_eq!(
        names,
        vec![
            ("Local", "'apo''strophe'!$A$1", Some(0)),
            ("Both", "'apo''strophe'!$A$1:$B$2", None),
            ("Twice", "[.A1]*2", None),
        ]
    );
    let d: Vec<_> = wb
        .sheet(0)
        .unwrap()
        .drawings()
        .iter()
        .map(|d| (d.kind, d.anchor, d.part.as_str()))
        .collect();
    assert_eq!(
        d,
        vec![
            (DrawingKind::Chart, None, "Object 1/content.xml"),
            (DrawingKind::Image, Some((0, 1)), "Pictures/p.png"),
        ]
    );
}

/// A workbook of `sheets` tables with mixed cells.
fn generated(sheets: usize, rows: usize) -> String {
    let mut body = String::new();
    for s in 0..sheets {
        let mut t = String::new();
        for r in 0..rows + s * 7 {
            t.push_str("<table:table-row>");
            t.push_str(&float(&format!("{}", r as f64 * 1.25 - s as f64)));
            t.push_str(&string(&format!("s{s} r{r} &lt;x&gt;")));
            if r % 3 == 0 {
                t.push_str(r#"<table:table-cell table:number-columns-repeated="2"/>"#);
                t.push_str(r#"<table:table-cell office:value-type="boolean" office:boolean-value="false"><text:p>FALSE</text:p></table:table-cell>"#);
            }
            if r % 5 == 0 {
                t.push_str(&format!(r#"<table:table-cell office:value-type="date" office:date-value="20{:02}-0{}-1{}"/>"#, r % 100, 1 + r % 9, r % 10));
                t.push_str(&format!(r#"<table:table-cell office:value-type="time" office:time-value="PT{}H{}M{}S"/>"#, r % 24, r % 60, r % 60));
            }
            t.push_str("</table:table-row>");
            if r % 11 == 0 {
                t.push_str(r#"<table:table-row table:number-rows-repeated="4"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>"#);
            }
        }
        body.push_str(&table(&format!("Sheet {s}"), &t));
    }
    content("", &body)
}

#[test]
fn parallel_serial_and_thread_counts_agree() {
    let bytes = package(&generated(6, 60));
    let reference =
        dump(&Workbook::from_bytes(bytes.clone(), &OpenOptions::new().parallel(false)).unwrap());
    assert!(reference.len() > 6 * 60);
    for parallel in [false, true] {
        for threads in 0..=8 {
            let opts = OpenOptions::new().parallel(parallel).threads(threads);
            let wb = Workbook::from_bytes(bytes.clone(), &opts).unwrap();
            assert_eq!(
                dump(&wb),
                reference,
                "parallel={parallel} threads={threads}"
            );
            // Tables this small are parsed in place: no worker starts.
            assert_eq!(wb.stats().threads, 1);
            assert_eq!(
                wb.stats().cells,
                wb.sheets()
                    .iter()
                    .map(|s| s.cell_count() as u64)
                    .sum::<u64>()
            );
        }
    }
    let dir = std::env::temp_dir().join(format!("ream-ods-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("gen.ods");
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(
        dump(&Workbook::open(&path, &OpenOptions::new()).unwrap()),
        reference
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn one_big_table_is_parsed_in_chunks_like_serially() {
    // Over 8 MiB of one table: cut into row chunks parsed on the pool.
    let mut rows = String::new();
    let mut r = 0u32;
    while rows.len() < 9 << 20 {
        rows.push_str("<table:table-row>");
        rows.push_str(&float(&format!("{r}.5")));
        rows.push_str(&string(&format!("row {r} &amp; more text to fill")));
        if r.is_multiple_of(1000) {
            rows.push_str(r#"<table:table-cell table:number-columns-spanned="2" table:formula="of:=[.A1]" office:value-type="float" office:value="1"><office:annotation><text:p>note</text:p></office:annotation></table:table-cell>"#);
        }
        rows.push_str("</table:table-row>");
        if r.is_multiple_of(777) {
            rows.push_str(r#"<table:table-row table:number-rows-repeated="3" table:visibility="collapse"><table:table-cell/></table:table-row>"#);
        }
        r += 1;
    }
    let body = format!(
        "{}{}",
        table("Big", &rows),
        table(
            "Small",
            "<table:table-row><table:table-cell office:value-type=\"float\" office:value=\"1\"/></table:table-row>"
        )
    );
    let bytes = package(&content("", &body));
    // One parser on the window (and one inflater from 2 threads on), then
    // 1 to 6 more parsers taking its row chunks (4 MiB by default), on 8
    // cores assumed; threads are capped at the cores.
    let serial = dump(&Workbook::from_bytes(bytes.clone(), &serial_opts()).unwrap());
    assert!(serial.len() > 50_000);
    for (threads, cores) in (1..=8).map(|t| (t, 8)).chain([(4, 2), (8, 1)]) {
        let opts = OpenOptions::new().threads(threads).tune_cores(cores);
        let wb = Workbook::from_bytes(bytes.clone(), &opts).unwrap();
        let st = wb.stats();
        let pool = threads.min(cores) > 2;
        let ctx = format!("threads={threads} cores={cores}: {st:?}");
        assert!(st.windowed, "{ctx}");
        assert!(st.threads < threads.min(cores).max(2), "{ctx}");
        assert_eq!(st.threads > 1, pool, "{ctx}");
        assert_eq!(st.chunks > 0, pool, "{ctx}");
        assert_eq!(dump(&wb), serial, "{ctx}");
    }
}

/// A cell in a common vocabulary for ream and calamine.
/// Per sheet: name and (row, col, value as text).
type Dumped = Vec<(String, Vec<(u32, u32, String)>)>;

fn ream_cells(wb: &Workbook) -> Dumped {
    wb.sheets()
        .iter()
        .map(|s| {
            let cells = s
                .cells()
                .map(|c| {
                    let v = match c.value {
                        Value::Number(n) => format!("n {n}"),
                        Value::String(t) => format!("s {t}"),
                        Value::Bool(b) => format!("b {b}"),
                        Value::Error(e) => format!("e {e}"),
                        Value::DateTime(d) if d.kind == DateKind::DateTime => {
                            format!("d {}", d.to_iso())
                        }
                        Value::DateTime(d) => format!("dur {}", d.as_seconds().round()),
                        Value::Empty => "empty".to_string(),
                    };
                    (c.row, c.col, v)
                })
                .collect();
            (s.name().to_string(), cells)
        })
        .collect()
}

/// Seconds of a `PTnHnMnS` duration (test oracle, whole seconds).
fn iso_duration_seconds(t: &str) -> i64 {
    let mut secs = 0.0;
    let mut num = String::new();
    for ch in t.trim_start_matches("PT").chars() {
        match ch {
            'H' | 'M' | 'S' => {
                let scale = [('H', 3600.0), ('M', 60.0), ('S', 1.0)]
                    .iter()
                    .find(|u| u.0 == ch)
                    .unwrap()
                    .1;
                secs += num.parse::<f64>().unwrap() * scale;
                num.clear();
            }
            _ => num.push(ch),
        }
    }
    secs.round() as i64
}

#[test]
fn agrees_with_calamine_on_a_generated_file() {
    use calamine::{Data, Reader};
    let bytes = package(&generated(3, 40));
    let wb = open(bytes.clone()).unwrap();
    let mut cal = calamine::Ods::new(std::io::Cursor::new(bytes)).unwrap();
    let mut theirs = Vec::new();
    for name in cal.sheet_names() {
        let range = cal.worksheet_range(&name).unwrap();
        let mut cells = Vec::new();
        for (r, c, d) in range.used_cells() {
            let (r, c) = (
                r as u32 + range.start().unwrap().0,
                c as u32 + range.start().unwrap().1,
            );
            let v = match d {
                Data::Float(n) => format!("n {n}"),
                Data::Int(n) => format!("n {n}"),
                Data::String(t) => format!("s {t}"),
                Data::Bool(b) => format!("b {b}"),
                Data::DateTimeIso(t) => format!("d {t}"),
                Data::DurationIso(t) => {
                    format!("dur {} ({t})", iso_duration_seconds(t))
                }
                other => format!("? {other:?}"),
            };
            cells.push((r, c, v));
        }
        theirs.push((name, cells));
    }
    let ours = ream_cells(&wb);
    assert_eq!(ours.len(), theirs.len());
    let mut compared = 0;
    for ((n1, c1), (n2, c2)) in ours.iter().zip(&theirs) {
        assert_eq!(n1, n2);
        assert_eq!(c1.len(), c2.len(), "sheet {n1}");
        for (a, b) in c1.iter().zip(c2) {
            assert_eq!((a.0, a.1), (b.0, b.1));
            let same = a.2 == b.2
                || (a.2.starts_with("dur ") && b.2.starts_with(&a.2))
                || (a.2.starts_with("d ") && b.2.starts_with(&a.2));
            assert!(
                same,
                "{n1} ({}, {}): ream {} calamine {}",
                a.0, a.1, a.2, b.2
            );
            compared += 1;
        }
    }
    assert!(compared > 100);
}

fn err(bytes: Vec<u8>) -> ream_sheet::Error {
    open(bytes).unwrap_err()
}

#[test]
fn repeat_bombs_fail_fast() {
    // A billion rows of content, and a huge column repeat, from bytes.
    let t = Instant::now();
    let row_bomb = format!(
        r#"<table:table-row table:number-rows-repeated="1000000000">{}</table:table-row>"#,
        float("1")
    );
    let e = open(package(&content(
        "",
        &table("Bomb", &format!("{row_bomb}{row_bomb}")),
    )))
    .unwrap();
    // Clipped to the grid: 1,048,576 rows (the second run lies beyond).
    let s = e.sheet(0).unwrap();
    assert_eq!(s.cell_count(), 1 << 20);
    assert!(
        e.warnings()
            .iter()
            .any(|w| w.message().contains("beyond the grid"))
    );
    let cell_bomb = r#"<table:table-row table:number-rows-repeated="1048576"><table:table-cell office:value-type="float" office:value="1" table:number-columns-repeated="4000000000"/></table:table-row>"#;
    let e = err(package(&content("", &table("Bomb", cell_bomb))));
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert_eq!(e.part(), Some("content.xml"));
    assert_eq!(e.sheet(), Some("Bomb"));
    assert!(e.offset().is_some());
    // A lower cell limit is honoured before anything is expanded.
    let limits = Limits::default().max_cells_per_sheet(1000);
    let small = OpenOptions::new().limits(limits);
    let rows = format!(
        r#"<table:table-row table:number-rows-repeated="999">{}</table:table-row><table:table-row>{}{}</table:table-row>"#,
        float("1"),
        float("2"),
        float("3")
    );
    let e = Workbook::from_bytes(package(&content("", &table("T", &rows))), &small).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    assert_eq!(e.cell(), Some((999, 1)), "{e}");
    assert!(
        e.to_string()
            .contains("more than 1000 cells in one sheet (repeated cells expanded: 1001 wanted)"),
        "{e}"
    );
    // Empty repeats are free whatever their size.
    let free = r#"<table:table-row table:number-rows-repeated="99999999999999999999"><table:table-cell table:number-columns-repeated="99999999999999"/></table:table-row>"#;
    let wb = open(package(&content("", &table("Free", free)))).unwrap();
    assert_eq!(wb.sheet(0).unwrap().cell_count(), 0);
    assert!(t.elapsed() < Duration::from_secs(20));
}

#[test]
fn repeat_budget_holds_for_the_whole_workbook() {
    // What repeats add counts against one max_cells_per_sheet for the
    // whole workbook, so many small tables cannot multiply it.
    let limits = Limits::default().max_cells_per_sheet(1000);
    let opts = OpenOptions::new().limits(limits);
    let tables = |n: usize, repeat: u32| {
        let row = format!(
            r#"<table:table-row table:number-rows-repeated="{repeat}">{}</table:table-row>"#,
            float("1")
        );
        let body: String = (0..n).map(|i| table(&format!("T{i}"), &row)).collect();
        package(&content("", &body))
    };
    // 4 tables may add 250 each (the repeated row's first copy is free);
    // the first table to pass the total is named, at every thread count.
    let wb = Workbook::from_bytes(tables(4, 251), &opts).unwrap();
    assert_eq!(wb.sheet(3).unwrap().cell_count(), 251);
    for threads in [1, 2, 3, 8] {
        let opts = opts.clone().threads(threads).tune_cores(threads);
        let e = Workbook::from_bytes(tables(4, 252), &opts).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
        assert_eq!((e.sheet(), e.cell()), (Some("T3"), Some((0, 0))), "{e}");
        assert!(e.message().contains("1004 stored cells"), "{e}");
    }
    let e = Workbook::from_bytes(tables(2, 600), &opts).unwrap_err();
    assert_eq!(e.sheet(), Some("T1"), "{e}");
    // Hidden rows made by repeats count too.
    let hidden = format!(
        r#"<table:table-row table:visibility="collapse" table:number-rows-repeated="5000"/><table:table-row>{}</table:table-row>"#,
        float("1")
    );
    let e = Workbook::from_bytes(package(&content("", &table("H", &hidden))), &opts).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    // So do spaces written by text:s (a few bytes of XML each).
    let spaces = string(r#"<text:s text:c="30000"/>x"#);
    let row = format!("<table:table-row>{spaces}{spaces}{spaces}</table:table-row>");
    let e = Workbook::from_bytes(package(&content("", &table("S", &row))), &opts).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    let wb = open(package(&content("", &table("S", &row)))).unwrap();
    let Value::String(t) = wb.sheet(0).unwrap().get(0, 2).unwrap().value else {
        panic!()
    };
    assert_eq!(t.len(), 30_001);
    // Too many table elements are refused outright.
    let many = "<table:table/>".repeat(65_537);
    let e = open(package(&content("", &many))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
}

#[test]
fn hostile_structure_gives_clear_errors() {
    // Deep nesting inside a cell.
    let deep = format!(
        r#"<table:table-row><table:table-cell office:value-type="string"><text:p>{}x</text:p></table:table-cell></table:table-row>"#,
        "<text:span>".repeat(300)
    );
    let e = err(package(&content("", &table("Deep", &deep))));
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert_eq!((e.sheet(), e.cell()), (Some("Deep"), Some((0, 0))));
    // Truncated content.xml, inside a row and after the last table.
    let full = content(
        "",
        &table(
            "Cut",
            &format!(
                "<table:table-row>{}{}</table:table-row>",
                float("1"),
                float("2")
            ),
        ),
    );
    let cut = &full[..full.find("office:value=\"2\"").unwrap()];
    let e = err(package(cut));
    assert_eq!(e.kind(), ErrorKind::Malformed);
    assert_eq!(e.part(), Some("content.xml"));
    assert_eq!(e.sheet(), Some("Cut"));
    assert!(e.to_string().contains("ends"), "{e}");
    let cut = &full[..full.find("</office:spreadsheet>").unwrap()];
    let e = err(package(cut));
    assert!(e.to_string().contains("ends before"), "{e}");
    // A DTD is refused before anything is parsed.
    let dtd = full.replacen(
        "<office:document-content",
        "<!DOCTYPE x [<!ENTITY a 'b'>]><office:document-content",
        1,
    );
    assert_eq!(err(package(&dtd)).kind(), ErrorKind::Malformed);
    // Bad values name the cell and the byte.
    let bad = content(
        "",
        &table(
            "Bad",
            &format!(
                "<table:table-row>{}{}</table:table-row>",
                float("1"),
                float("x1")
            ),
        ),
    );
    let e = err(package(&bad));
    assert_eq!(
        (e.kind(), e.cell(), e.sheet()),
        (ErrorKind::Malformed, Some((0, 1)), Some("Bad"))
    );
    assert_eq!(
        e.offset(),
        Some(bad.rfind("<table:table-cell").unwrap() as u64)
    );
    let rep = content(
        "",
        &table(
            "Rep",
            r#"<table:table-row table:number-rows-repeated="-5"/>"#,
        ),
    );
    assert_eq!(err(package(&rep)).kind(), ErrorKind::Malformed);
    // Missing content.xml, another OpenDocument type, encryption.
    let mut mime = Entry::new("mimetype", MIME);
    mime.stored = true;
    let no_content = Zip { entries: vec![] }
        .push(mime)
        .push(Entry::new("META-INF/manifest.xml", MANIFEST))
        .build();
    let e = err(no_content);
    assert!(e.to_string().contains("missing content.xml"), "{e}");
    let text = Zip { entries: vec![] }
        .push(Entry::new(
            "mimetype",
            "application/vnd.oasis.opendocument.text",
        ))
        .push(Entry::new("content.xml", content("", "")))
        .build();
    assert_eq!(err(text).kind(), ErrorKind::Unsupported);
    let enc = Zip { entries: vec![] }
        .push(Entry::new("mimetype", MIME))
        .push(Entry::new("META-INF/manifest.xml", MANIFEST.replace("<manifest:file-entry manifest:full-path=\"content.xml\" manifest:media-type=\"text/xml\"/>", "<manifest:file-entry manifest:full-path=\"content.xml\"><manifest:encryption-data/></manifest:file-entry>")))
        .push(Entry::new("content.xml", "\u{1}\u{2}garbage"))
        .build();
    assert_eq!(err(enc).kind(), ErrorKind::Encrypted);
    // Arbitrary bytes never panic.
    for cut in (0..full.len()).step_by(37) {
        let _ = open(package(&full[..cut]));
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    /// Any edit of a valid content.xml opens or fails cleanly.
    #[test]
    fn edited_content_never_panics(at in 0usize..4000, len in 0usize..40, junk in proptest::collection::vec(proptest::num::u8::ANY, 0..12)) {
        let rows = format!(
            r#"<table:table-row table:number-rows-repeated="2">{}{}</table:table-row><table:table-row><table:table-cell table:number-columns-spanned="2" office:value-type="string"><office:annotation><text:p>n</text:p></office:annotation><text:p>a<text:s text:c="3"/>b</text:p></table:table-cell></table:table-row>"#,
            float("1"),
            string("x &amp; y")
        );
        let mut xml = content("", &format!("{}{}", table("A", &rows), table("B", &rows))).into_bytes();
        let at = at.min(xml.len());
        let end = (at + len).min(xml.len());
        xml.splice(at..end, junk);
        let text = String::from_utf8_lossy(&xml).into_owned();
        let _ = open(package(&text));
    }
}

#[test]
fn nested_and_unusual_tables() {
    // A table nested in a cell is part of that cell, not a sheet; an empty
    // table element is a sheet; a DDE link's cached table is not.
    let body = format!(
        r#"<table:table table:name="Outer"><table:table-row><table:table-cell><table:table table:name="Inner"><table:table-row>{}</table:table-row></table:table></table:table-cell>{}</table:table-row></table:table><table:table table:name="Empty"/><table:dde-links><table:dde-link><office:dde-source office:dde-application="x"/><table:table><table:table-row>{}</table:table-row></table:table></table:dde-link></table:dde-links>"#,
        float("1"),
        float("2"),
        float("3")
    );
    let wb = open(package(&content("", &body))).unwrap();
    let names: Vec<_> = wb.sheets().iter().map(|s| s.name()).collect();
    assert_eq!(names, vec!["Outer", "Empty"]);
    let s = wb.sheet(0).unwrap();
    assert_eq!(
        s.cells().map(|c| (c.row, c.col)).collect::<Vec<_>>(),
        vec![(0, 1)]
    );
}

// ---------------------------------------------------------------------------
// Conformance corpus.

/// One reader's view of a sheet: name, visibility, cells by (row, col) as
/// (type tag, text, number).
type SheetView = (String, String, BTreeMap<(u32, u32), (String, String, f64)>);

fn iso_seconds(s: &str) -> Option<f64> {
    let (date, time) = s.split_once(['T', ' ']).unwrap_or((s, ""));
    let mut ymd = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, m, d) = (ymd.next()??, ymd.next()??, ymd.next()??);
    let mut secs = 0.0;
    for (part, scale) in time
        .split(':')
        .filter(|p| !p.is_empty())
        .zip([3600.0, 60.0, 1.0])
    {
        secs += part.parse::<f64>().ok()? * scale;
    }
    let y = if m <= 2 { y - 1 } else { y };
    let (era, yoe) = (y.div_euclid(400), y.rem_euclid(400));
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    Some(days as f64 * 86_400.0 + secs)
}

fn ream_view(wb: &Workbook) -> Vec<SheetView> {
    wb.sheets()
        .iter()
        .map(|s| {
            let cells = s
                .cells()
                .map(|c| {
                    let v = match c.value {
                        Value::Number(n) => ("n".into(), format!("{n:?}"), n),
                        Value::String(t) => ("s".into(), t.to_string(), 0.0),
                        Value::Bool(b) => {
                            ("b".into(), if b { "True" } else { "False" }.into(), 0.0)
                        }
                        Value::Error(e) => ("e".into(), e.to_string(), 0.0),
                        Value::Empty => ("empty".into(), String::new(), 0.0),
                        Value::DateTime(d) => match d.kind {
                            DateKind::DateTime => {
                                let iso = d.to_iso();
                                (
                                    "d".into(),
                                    iso.clone(),
                                    iso_seconds(&iso).unwrap_or(f64::NAN),
                                )
                            }
                            DateKind::Time => ("t".into(), d.to_iso(), d.as_seconds()),
                            DateKind::Duration => ("dur".into(), d.to_iso(), d.as_seconds()),
                        },
                    };
                    ((c.row, c.col), v)
                })
                .collect();
            (s.name().into(), s.visibility().as_str().into(), cells)
        })
        .collect()
}

fn golden_view(reader: &Json) -> Vec<SheetView> {
    let text = |v: &Json| v.as_str().unwrap_or_default().to_string();
    let mut out = Vec::new();
    for s in reader["sheets"].as_array().into_iter().flatten() {
        let mut cells = BTreeMap::new();
        for c in s["cells"].as_array().into_iter().flatten() {
            let rc = |i: usize| c[i].as_u64().unwrap_or(u64::MAX) as u32;
            let tag = text(&c[2]);
            let val = match &c[3] {
                Json::Bool(b) => if *b { "True" } else { "False" }.to_string(),
                v => text(v),
            };
            let num = match tag.as_str() {
                "d" => iso_seconds(&val),
                "t" => iso_seconds(&format!("1970-01-01T{val}")),
                _ => val.parse().ok(),
            };
            cells.insert((rc(0), rc(1)), (tag, val, num.unwrap_or(f64::NAN)));
        }
        out.push((text(&s["name"]), text(&s["visible"]), cells));
    }
    out
}

/// Differences of ream from the golden, forgiving python-calamine's blind
/// spots (trimmed strings, error cells shown as empty, long durations as
/// ISO text).
fn differences(golden: &[SheetView], ream: &[SheetView]) -> Vec<String> {
    let mut out = Vec::new();
    let names = |v: &[SheetView]| v.iter().map(|s| s.0.clone()).collect::<Vec<_>>();
    if names(golden) != names(ream) {
        out.push(format!(
            "sheets: golden {:?} ream {:?}",
            names(golden),
            names(ream)
        ));
    }
    for ((gname, gvis, gcells), (_, rvis, rcells)) in golden.iter().zip(ream) {
        if !gvis.eq_ignore_ascii_case(rvis) {
            out.push(format!("{gname}: visibility golden {gvis} ream {rvis}"));
        }
        let keys: std::collections::BTreeSet<_> = gcells.keys().chain(rcells.keys()).collect();
        for k in keys {
            let same = match (gcells.get(k), rcells.get(k)) {
                (Some(g), Some(r)) if g.0 == r.0 => match g.0.as_str() {
                    "n" => g.2 == r.2,
                    "d" | "t" | "dur" => (g.2 - r.2).abs() <= 1e-3 || g.1 == r.1,
                    "s" => g.1.trim() == r.1.trim(),
                    _ => g.1 == r.1,
                },
                // python-calamine gives a duration of a day or more as its
                // raw ISO text (`PT288H00M00S`).
                (Some(g), Some(r)) if g.0 == "s" && g.1.starts_with("PT") && r.0 == "dur" => {
                    iso_duration_seconds(&g.1) as f64 == r.2.round()
                }
                (None, Some(r)) => r.0 == "e" || (r.0 == "s" && r.1.trim().is_empty()),
                _ => false,
            };
            if !same {
                out.push(format!(
                    "{gname}!{k:?}: golden {:?} ream {:?}",
                    gcells.get(k),
                    rcells.get(k)
                ));
            }
        }
    }
    out
}

fn open_guarded(path: &Path) -> Result<Result<Vec<SheetView>, String>, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let p = path.to_path_buf();
    std::thread::spawn(move || {
        let res = std::panic::catch_unwind(|| {
            Workbook::open(&p, &OpenOptions::new())
                .map(|wb| ream_view(&wb))
                .map_err(|e| e.to_string())
        });
        let _ = tx.send(res.map_err(|_| "panicked".to_string()));
    });
    rx.recv_timeout(Duration::from_secs(10))
        .unwrap_or(Err("hung".into()))
}

/// The corpus folder (`$REAM_CORPUS`, else `shared/corpus` beside the
/// checkout) and its `.ods` files, sorted; `None` (with a note) when absent.
pub(crate) fn corpus_ods_files() -> Option<(PathBuf, Vec<PathBuf>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let corpus = std::env::var_os("REAM_CORPUS").map(PathBuf::from);
    let corpus = corpus.unwrap_or_else(|| root.join("../shared/corpus"));
    let Ok(entries) = std::fs::read_dir(corpus.join("ods")) else {
        println!(
            "no corpus at {} (set REAM_CORPUS); skipped",
            corpus.display()
        );
        return None;
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ods"))
        .collect();
    files.sort();
    Some((corpus, files))
}

#[test]
fn ods_corpus() {
    let Some((corpus, files)) = corpus_ods_files() else {
        return;
    };
    let (mut agree, mut compared, mut hard) = (0, 0, Vec::new());
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let golden = std::fs::read_to_string(corpus.join(format!("golden/ods/{name}.json")));
        let golden: Json = serde_json::from_str(&golden.unwrap_or_default()).unwrap_or_default();
        let cal = &golden["readers"]["calamine"];
        let ours = match open_guarded(path) {
            Ok(r) => r,
            Err(e) => {
                hard.push(format!("{name}: {e}"));
                continue;
            }
        };
        let line = match (cal["ok"] == true, &ours) {
            (true, Ok(view)) => {
                compared += 1;
                let d = differences(&golden_view(cal), view);
                agree += usize::from(d.is_empty());
                let cells: usize = view.iter().map(|s| s.2.len()).sum();
                match d.first() {
                    None => format!("agree ({cells} cells)"),
                    Some(first) => format!("DIFFER ({} places), first: {first}", d.len()),
                }
            }
            (true, Err(e)) => {
                compared += 1;
                format!("DIFFER: ream rejects what calamine reads: {e}")
            }
            (false, Ok(_)) => format!("reference rejects ({}); ream reads it", cal["error"]),
            (false, Err(e)) => format!("both reject; ream: {e}"),
        };
        println!("{name}: {line}");
    }
    let pct = 100.0 * agree as f64 / compared.max(1) as f64;
    println!(
        "ods corpus: {agree}/{compared} files agree with python-calamine ({pct:.1}%), {} files",
        files.len()
    );
    assert!(hard.is_empty(), "panics or hangs: {hard:?}");
    assert!(pct >= 100.0, "agreement {pct:.1}% below target");
}

/// A document exercising what the overlapped (progressive) read must get
/// right: a hidden sheet style, header rows, row groups, repeats, spans,
/// annotations, a nested table, named expressions between tables, a DDE
/// cache and an empty table.
pub(crate) fn overlapped_fixture() -> String {
    let big = overlapped_rows(true);
    let plain = overlapped_rows(false);
    let styles = r#"<style:style style:name="ta9" style:family="table"><style:table-properties table:display="false"/></style:style>"#;
    let body = format!(
        r#"<table:table table:name="Big" table:style-name="ta9">{big}</table:table><table:named-expressions><table:named-range table:name="First" table:cell-range-address="$Big.$A$1:.$B$2"/></table:named-expressions>{}<table:table table:name="Empty"/><table:dde-links><table:dde-link><table:table><table:table-row>{}</table:table-row></table:table></table:dde-link></table:dde-links>{}"#,
        table(
            "Small",
            &format!("<table:table-row>{}</table:table-row>", float("3"))
        ),
        float("4"),
        table("Last", &plain),
    );
    content(styles, &body)
}

/// Rows of the fixture's big tables; `odd` adds row groups and nested
/// tables (where chunks cannot be stitched and the table is parsed again
/// serially).
pub(crate) fn overlapped_rows(odd: bool) -> String {
    let mut big = String::from(
        "<table:table-column table:number-columns-repeated=\"2\"/><table:table-header-rows>",
    );
    big.push_str(&format!(
        "<table:table-row>{}</table:table-row></table:table-header-rows>",
        string("head")
    ));
    for r in 0..400u32 {
        if odd && r % 97 == 5 {
            big.push_str(&format!(
                "<table:table-row-group><table:table-row>{}</table:table-row><table:table-row>{}</table:table-row></table:table-row-group>",
                float(&format!("{r}.25")),
                string("grouped")
            ));
        }
        big.push_str("<table:table-row>");
        big.push_str(&float(&format!("{r}.5")));
        big.push_str(&string(&format!("row {r} &amp; text")));
        if r % 50 == 0 {
            big.push_str(r#"<table:table-cell table:number-columns-spanned="2" table:formula="of:=[.A1]" office:value-type="float" office:value="1"><office:annotation><text:p>note</text:p></office:annotation></table:table-cell><table:covered-table-cell/>"#);
        }
        if odd && r % 61 == 0 {
            big.push_str(&format!(
                r#"<table:table-cell><table:table table:name="Nested"><table:table-row>{}</table:table-row></table:table></table:table-cell>"#,
                float("9")
            ));
        }
        big.push_str("</table:table-row>");
        if r % 77 == 0 {
            big.push_str(r#"<table:table-row table:number-rows-repeated="3" table:visibility="collapse"><table:table-cell office:value-type="float" office:value="7"/></table:table-row>"#);
        }
    }
    big
}

#[test]
fn overlapped_read_agrees_with_serial_for_every_chunk_size() {
    let xml = overlapped_fixture();
    let bytes = package(&xml);
    let serial =
        dump(&Workbook::from_bytes(bytes.clone(), &OpenOptions::new().parallel(false)).unwrap());
    assert!(
        serial.iter().any(|l| l.contains("vis=Hidden")),
        "the hidden style is seen"
    );
    let mut sizes = vec![
        1 << 10,
        1500,
        2048,
        3000,
        4096,
        7777,
        16 << 10,
        xml.len() / 4,
    ];
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..12 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        sizes.push(1024 + (seed >> 33) as usize % 40_000);
    }
    for chunk in sizes {
        for threads in 1..=8 {
            let opts = OpenOptions::new()
                .threads(threads)
                .tune_cores(8)
                .tune_chunk_bytes(chunk);
            let wb = Workbook::from_bytes(bytes.clone(), &opts).unwrap();
            assert_eq!(dump(&wb), serial, "chunk_bytes={chunk} threads={threads}");
            let st = wb.stats();
            assert!(st.windowed, "{st:?}");
            // Where Big's row groups and nested tables stop its chunks from
            // stitching, the part is read again with every table parsed in
            // place; one parser hands nothing over.
            assert!(st.chunk_fallbacks <= u64::from(threads > 1), "{st:?}");
            if threads == 1 {
                assert_eq!((st.chunks, st.threads), (0, 1), "{st:?}");
            }
        }
    }
}

#[test]
fn overlapped_read_gives_the_serial_errors() {
    let xml = overlapped_fixture();
    let limits = |cells: u64| Limits::default().max_cells_per_sheet(cells);
    let serial_err = |x: &str, cells: u64| {
        let opts = OpenOptions::new().parallel(false).limits(limits(cells));
        Workbook::from_bytes(package(x), &opts)
            .unwrap_err()
            .to_string()
    };
    let overlapped_err = |x: &str, cells: u64, threads: usize| {
        let opts = OpenOptions::new()
            .threads(threads)
            .tune_cores(8)
            .tune_chunk_bytes(1 << 10)
            .limits(limits(cells));
        Workbook::from_bytes(package(x), &opts)
            .unwrap_err()
            .to_string()
    };
    // A bad value deep in the last table, a truncation inside it, a
    // truncation in the prelude, and repeats past a small cell limit.
    let at = xml.rfind("office:value=\"399.5\"").unwrap();
    let bad = format!("{}office:value=\"x\"{}", &xml[..at], &xml[at + 20..]);
    let cut = &xml[..xml.len() - 5000];
    let prelude_cut = &xml[..xml.find("<office:body>").unwrap() + 3];
    let bomb = xml.replacen(
        "<table:table-row table:number-rows-repeated=\"3\"",
        "<table:table-row table:number-rows-repeated=\"5000\"",
        1,
    );
    for (x, cells) in [
        (bad.as_str(), 1 << 30),
        (cut, 1 << 30),
        (prelude_cut, 1 << 30),
        (bomb.as_str(), 4000),
    ] {
        for threads in 1..=8 {
            assert_eq!(overlapped_err(x, cells, threads), serial_err(x, cells));
        }
    }
    // UTF-16 content.xml is read through the serial plan.
    let pkg = utf16_package(&xml);
    let opts = OpenOptions::new()
        .threads(3)
        .tune_cores(8)
        .tune_chunk_bytes(1 << 10);
    let wb = Workbook::from_bytes(pkg, &opts).unwrap();
    let serial =
        dump(&Workbook::from_bytes(package(&xml), &OpenOptions::new().parallel(false)).unwrap());
    assert_eq!(dump(&wb), serial);
}

/// An ODS package whose `content.xml` is `xml` in UTF-16LE with a BOM.
pub(crate) fn utf16_package(xml: &str) -> Vec<u8> {
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(xml.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let mut mime = Entry::new("mimetype", MIME);
    mime.stored = true;
    Zip { entries: vec![] }
        .push(mime)
        .push(Entry::new("content.xml", utf16))
        .build()
}

/// Every corpus ODS file reads the same (cells, names, errors) through the
/// overlapped read with tiny chunks as through the serial plan.
#[test]
fn ods_corpus_overlapped_equals_serial() {
    let Some((_, paths)) = corpus_ods_files() else {
        return;
    };
    let read = |bytes: &[u8], opts: &OpenOptions| match Workbook::from_bytes(bytes.to_vec(), opts) {
        Ok(wb) => Ok(dump(&wb)),
        Err(e) => Err(e.to_string()),
    };
    let (mut files, mut overlapped) = (0, 0);
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        let serial = read(&bytes, &OpenOptions::new().parallel(false));
        let opts = OpenOptions::new()
            .threads(3)
            .tune_cores(8)
            .tune_chunk_bytes(1 << 10);
        let wb = Workbook::from_bytes(bytes.clone(), &opts);
        overlapped += usize::from(wb.as_ref().is_ok_and(|w| w.stats().chunks > 0));
        assert_eq!(read(&bytes, &opts), serial, "{}", path.display());
        files += 1;
    }
    println!("{files} files, {overlapped} read overlapped in chunks");
}

/// A cell start tag with a value-less attribute (`calcext:x/>`) followed
/// by another table: the one-pass cell scanner looked for the `=` past the
/// tag's end, into the next table's start tag, so the serial parse failed
/// while the overlapped read (whose chunk ends at that table) succeeded
/// (fuzz finding on `ods_content`).
#[test]
fn value_less_attribute_stays_in_its_tag() {
    let pad = format!("<table:table-row>{}</table:table-row>", float("1")).repeat(30);
    let body = format!(
        r#"<table:table table:name="A">{pad}<table:table-row><table:table-cell calcext:x/></table:table-row></table:table><table:table table:name="B"><table:table-row>{}</table:table-row></table:table>"#,
        float("2")
    );
    let bytes = package(&content("", &body));
    let serial = Workbook::from_bytes(bytes.clone(), &OpenOptions::new().parallel(false))
        .map(|w| dump(&w))
        .map_err(|e| e.to_string());
    let opts = OpenOptions::new()
        .threads(3)
        .tune_cores(8)
        .tune_chunk_bytes(1 << 10);
    let overlapped = Workbook::from_bytes(bytes, &opts)
        .map(|w| dump(&w))
        .map_err(|e| e.to_string());
    assert_eq!(overlapped, serial);
    let cells = serial.unwrap();
    assert!(
        cells.iter().any(|l| l.starts_with("B!0:0=Number(2.0)")),
        "{cells:?}"
    );
}

/// Span counts near `u64::MAX` are clipped to the grid, so the end does
/// not wrap round (an overflow panic in checked builds; fuzz finding on
/// `ods_content`).
#[test]
fn huge_spans_are_clipped_to_the_grid() {
    let wb = one_sheet(
        r#"<table:table-row table:number-rows-repeated="2"><table:table-cell/></table:table-row><table:table-row><table:table-cell/><table:table-cell/><table:table-cell table:number-rows-spanned="18446744073709551615" table:number-columns-spanned="18446744073709551615" office:value-type="float" office:value="1"/></table:table-row>"#,
    );
    let s = wb.sheet(0).unwrap();
    assert_eq!(
        s.merged(),
        &[CellRange {
            first_row: 2,
            first_col: 2,
            last_row: 1_048_575,
            last_col: 16_383
        }]
    );
}

/// A damaged `content.xml` (declared size too small or too large, wrong
/// CRC-32) read overlapped fails as a malformed `content.xml`, as the
/// serial read does, and no table parsed from the filled part survives.
#[test]
fn overlapped_read_refuses_a_damaged_part() {
    let xml = overlapped_fixture();
    let len = xml.len() as u64;
    let damaged = |edit: &dyn Fn(&mut Entry)| {
        let mut mime = Entry::new("mimetype", MIME);
        mime.stored = true;
        let mut content = Entry::new("content.xml", xml.as_str());
        edit(&mut content);
        Zip { entries: vec![] }.push(mime).push(content).build()
    };
    type Edit<'a> = &'a dyn Fn(&mut Entry);
    let cases: [(&str, Edit<'_>); 3] = [
        ("short", &|e| e.size = Some(len - 100)),
        ("long", &|e| e.size = Some(len + 100)),
        ("crc", &|e| e.crc = Some(0x1234_5678)),
    ];
    for (what, edit) in cases {
        let bytes = damaged(edit);
        let serial =
            Workbook::from_bytes(bytes.clone(), &OpenOptions::new().parallel(false)).unwrap_err();
        let opts = OpenOptions::new()
            .threads(3)
            .tune_cores(8)
            .tune_chunk_bytes(1 << 10);
        let e = Workbook::from_bytes(bytes, &opts).unwrap_err();
        assert_eq!(e.to_string(), serial.to_string(), "{what}");
        assert_eq!(e.kind(), ErrorKind::Malformed, "{what}: {e}");
        assert_eq!(e.part(), Some("content.xml"), "{what}: {e}");
    }
}

#[test]
fn bad_row_and_column_repeat_counts_are_named() {
    for (rows, what) in [
        (
            r#"<table:table-row table:number-rows-repeated="x"><table:table-cell/></table:table-row>"#,
            "row repeat count",
        ),
        (
            r#"<table:table-column table:number-columns-repeated="-1"/><table:table-row><table:table-cell/></table:table-row>"#,
            "column repeat count",
        ),
    ] {
        let e = err(package(&content("", &table("S", rows))));
        assert_eq!(e.kind(), ErrorKind::Malformed, "{e}");
        assert!(e.to_string().contains(what), "{e}");
        assert_eq!(e.part(), Some("content.xml"));
    }
}

/// Cell text as written: spaces and line ends kept, `text:s` counts,
/// CDATA, notes left out; LibreOffice's attribute spellings read like any
/// other prefix or quote.
#[test]
fn text_details_and_attribute_spellings() {
    let wb = one_sheet(&format!(
        "<table:table-row>{}{}{}{}</table:table-row>",
        string(r#"<text:s text:c="2"/>a <text:s/>"#),
        string("  a \r\n b  "),
        string("<![CDATA[<b>]]><text:note><text:p>no</text:p></text:note>"),
        string("Value <text:s/>With"),
    ));
    let v = |c| wb.sheet(0).unwrap().get(0, c).map(|c| c.value);
    assert_eq!(v(0), Some(Value::String("  a  ")));
    assert_eq!(v(1), Some(Value::String("  a \n b  ")));
    assert_eq!(v(2), Some(Value::String("<b>")));
    assert_eq!(v(3), Some(Value::String("Value  With")));
    let usual = concat!(
        r#"<table:table-cell office:value-type="float" office:value="1.5"><text:p>1.5</text:p></table:table-cell>"#,
        r#"<table:table-cell table:style-name="ce1" office:value-type="date" office:date-value="2020-01-02"><text:p>x</text:p></table:table-cell>"#,
        r#"<table:table-cell office:value-type="time" office:time-value="PT1H"><text:p>x</text:p></table:table-cell>"#,
        r#"<table:table-cell office:value-type="boolean" office:boolean-value="true"><text:p>x</text:p></table:table-cell>"#,
        r#"<table:table-cell table:formula="of:=1" office:value-type="string" office:string-value="s"><text:p>x</text:p></table:table-cell>"#,
        r#"<table:table-cell office:value-type="float" office:value="0" calcext:value-type="error"><text:p>#DIV/0!</text:p></table:table-cell>"#,
        r#"<table:table-cell office:value-type="percentage" office:value="0.5"><text:p>50%</text:p></table:table-cell>"#,
    );
    let other = usual
        .replace("office:", "o:")
        .replace("table:formula", "t:formula")
        .replace("table:style-name=\"ce1\"", "table:style-name='ce1'");
    let cells = |c: &str| {
        dump(&one_sheet(&format!(
            "<table:table-row>{c}</table:table-row>"
        )))
    };
    let want = cells(usual);
    assert_eq!(want.len(), 9, "{want:?}");
    assert_eq!(cells(&other), want);
    assert_eq!(cells(&usual.replace('"', "'")), want);
}

/// Row chunks cut at many places (chunk sizes from 1 KiB on) give the
/// serial read: hidden columns and rows, spans, comments, links, frames,
/// formulas, repeats, grid clipping, header rows and row groups.
#[test]
fn chunk_cuts_anywhere_give_the_serial_table() {
    let cell =
        |v: &str| format!(r#"<table:table-cell office:value-type="float" office:value="{v}"/>"#);
    let mut rows = format!(
        "<table:table-column table:visibility=\"collapse\"/><table:table-header-rows><table:table-row>{}</table:table-row></table:table-header-rows>",
        cell("1")
    );
    for k in 0..300 {
        rows += &[
            format!(r#"<table:table-row table:visibility="collapse"><table:table-cell office:value-type="string" table:number-columns-spanned="2"><text:p>s&amp;t{k}</text:p></table:table-cell><table:covered-table-cell/>{}</table:table-row>"#, cell("2")),
            r#"<table:table-row table:number-rows-repeated="3"><table:table-cell table:formula="of:=1+1" office:value-type="float" office:value="2"><office:annotation><dc:creator>A</dc:creator><text:p>c</text:p></office:annotation></table:table-cell></table:table-row>"#.to_string(),
            "<table:table-row table:number-rows-repeated=\"5\"><table:table-cell/></table:table-row>".to_string(),
            format!("<table:table-row-group><table:table-row>{}</table:table-row><table:table-row>{}</table:table-row></table:table-row-group>", cell("3"), cell("4")),
            r#"<table:table-row><table:table-cell office:value-type="string"><text:p><text:a xlink:href="http://x/">l</text:a></text:p><draw:frame><draw:image xlink:href="Pictures/i.png"/></draw:frame></table:table-cell></table:table-row>"#.to_string(),
            format!("<table:table-row>{}{}</table:table-row>", cell("6"), cell("7")),
            format!(r#"<table:table-row table:visibility="collapse" table:number-rows-repeated="4">{}</table:table-row>"#, cell("8")),
        ]
        .concat();
    }
    rows += r#"<table:table-row table:number-rows-repeated="1048500"><table:table-cell/></table:table-row>"#;
    rows += &format!("<table:table-row>{}</table:table-row>", cell("9"));
    rows += r#"<table:named-expressions><table:named-range table:name="N" table:cell-range-address="$T.$A$1"/></table:named-expressions>"#;
    let bytes = package(&content("", &table("T", &rows)));
    let serial = dump(&Workbook::from_bytes(bytes.clone(), &serial_opts()).unwrap());
    let mut chunked = 0;
    for chunk in (1 << 10..48 << 10).step_by(1536) {
        for threads in [3, 4] {
            let opts = OpenOptions::new()
                .threads(threads)
                .tune_cores(threads)
                .tune_chunk_bytes(chunk)
                .tune_stream_block(1 << 10);
            let wb = Workbook::from_bytes(bytes.clone(), &opts).unwrap();
            assert_eq!(dump(&wb), serial, "chunk_bytes={chunk} threads={threads}");
            chunked += wb.stats().chunks;
        }
    }
    assert!(chunked > 0);
}

#[test]
fn several_big_tables_go_through_the_pool_without_a_second_pass() {
    // Tables of every size next to each other: each one's end tag is
    // found in the window, so a small one is parsed in place, a bigger
    // one sent whole, and one longer than a chunk cut into row chunks.
    let body: String = [3usize, 400, 2_000, 40, 2_500, 1]
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            let rows: String = (0..n)
                .map(|i| {
                    let cells = float(&i.to_string()) + &float(&format!("{k}.5"));
                    format!("<table:table-row>{cells}</table:table-row>")
                })
                .collect();
            table(&format!("T{k}"), &rows)
        })
        .collect();
    let bytes = package(&content("", &body));
    let serial =
        dump(&Workbook::from_bytes(bytes.clone(), &OpenOptions::new().parallel(false)).unwrap());
    for threads in [3, 8] {
        for chunk in [1 << 10, 16 << 10, 1 << 20] {
            let opts = OpenOptions::new()
                .threads(threads)
                .tune_cores(8)
                .tune_chunk_bytes(chunk)
                .tune_stream_block(8 << 10);
            let wb = Workbook::from_bytes(bytes.clone(), &opts).unwrap();
            assert_eq!(dump(&wb), serial, "threads {threads}, chunk {chunk}");
            let st = wb.stats();
            assert_eq!(st.chunk_fallbacks, 0, "{st:?}");
            assert!(st.chunks > 0 && st.threads > 1, "{st:?}");
        }
    }
}

/// Values written with character references are legal XML and read
/// resolved (`office:value="&#49;2"` is 12); a value that still does not
/// decode once resolved is an error naming the cell.
#[test]
fn values_with_character_references_read_resolved() {
    let row = concat!(
        r#"<table:table-row><table:table-cell office:value-type="float" office:value="&#49;2"/>"#,
        r#"<table:table-cell office:value-type="boolean" office:boolean-value="&#116;rue"/>"#,
        r#"<table:table-cell office:value-type="date" office:date-value="2020&#45;01-02"/>"#,
        r#"</table:table-row>"#,
    );
    let wb = one_sheet(row);
    let got: Vec<String> = wb.sheets()[0]
        .cells()
        .map(|c| format!("{:?}", c.value))
        .collect();
    assert_eq!(&got[..2], ["Number(12.0)", "Bool(true)"]);
    assert!(
        got[2].starts_with("DateTime(ExcelDateTime { serial: 43832.0"),
        "{got:?}"
    );
    let bad = r#"<table:table-row><table:table-cell office:value-type="float" office:value="1&amp;2"/></table:table-row>"#;
    let e = err(package(&content("", &table("S", bad))));
    assert!(e.to_string().contains("bad number '1&amp;2'"), "{e}");
    assert_eq!(e.cell(), Some((0, 0)), "{e}");
}
