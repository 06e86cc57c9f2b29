//! `ream cat` output a script can rely on: fixed-width rows, the `-s all`
//! sheet column, jsonl objects keyed by the header, one number format,
//! durations and times without float noise, range messages.

use super::ods::stored_zip;
use super::{assert_ok, ream, stderr, stdout, temp_dir};
use rust_xlsxwriter::{Format, Formula, Workbook};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// An XLSX holding one sheet `S` whose worksheet XML is `rows` wrapped in
/// `<worksheet>` after `head` (e.g. a `<dimension>`), written by hand.
fn hand_xlsx(dir: &Path, head: &str, rows: &str) -> PathBuf {
    let types = r#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>"#;
    let root = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#;
    let wb = r#"<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>"#;
    let rels = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#;
    let sheet = format!(
        r#"<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">{head}<sheetData>{rows}</sheetData></worksheet>"#
    );
    let zip = stored_zip(&[
        ("[Content_Types].xml", types.as_bytes()),
        ("_rels/.rels", root.as_bytes()),
        ("xl/workbook.xml", wb.as_bytes()),
        ("xl/_rels/workbook.xml.rels", rels.as_bytes()),
        ("xl/worksheets/sheet1.xml", sheet.as_bytes()),
    ]);
    let path = dir.join("hand.xlsx");
    std::fs::write(&path, zip).unwrap();
    path
}

/// Rows of 3, 1, 0 and 2 cells: `a b c` / `1` / (none) / `x y`.
const RAGGED_ROWS: &str = r#"<row r="1"><c r="A1" t="inlineStr"><is><t>a</t></is></c><c r="B1" t="inlineStr"><is><t>b</t></is></c><c r="C1" t="inlineStr"><is><t>c</t></is></c></row><row r="2"><c r="A2"><v>1</v></c></row><row r="4"><c r="A4" t="inlineStr"><is><t>x</t></is></c><c r="B4" t="inlineStr"><is><t>y</t></is></c></row>"#;

#[test]
fn ragged_rows_print_at_the_sheet_width() {
    let dir = temp_dir("cat-ragged");
    // Declared dimension, and none, `A1` or the whole grid (a first pass
    // finds the width).
    for head in [
        r#"<dimension ref="A1:C4"/>"#,
        "",
        r#"<dimension ref="A1"/>"#,
        r#"<dimension ref="A1:XFD1048576"/>"#,
    ] {
        let f = hand_xlsx(&dir, head, RAGGED_ROWS);
        let f = f.to_str().unwrap();
        let o = ream(&["cat", f], &dir);
        assert_ok(&o);
        assert_eq!(stdout(&o), "a,b,c\n1,,\n,,\nx,y,\n", "{head}");
        let o = ream(&["cat", f, "-f", "tsv"], &dir);
        assert_eq!(stdout(&o), "a\tb\tc\n1\t\t\n\t\t\nx\ty\t\n", "{head}");
        let o = ream(&["cat", f, "-f", "jsonl"], &dir);
        let want = "{\"sheet\":\"S\",\"row\":0,\"values\":[\"a\",\"b\",\"c\"]}\n\
                    {\"sheet\":\"S\",\"row\":1,\"values\":[1,null,null]}\n\
                    {\"sheet\":\"S\",\"row\":3,\"values\":[\"x\",\"y\",null]}\n";
        assert_eq!(stdout(&o), want, "{head}");
    }
    // Without a declared dimension the width is that of the rows printed.
    let f = hand_xlsx(&dir, "", RAGGED_ROWS);
    let o = ream(&["cat", f.to_str().unwrap(), "--skip-rows", "1"], &dir);
    assert_eq!(stdout(&o), "1,\n,\nx,y\n");
    let f = hand_xlsx(&dir, r#"<dimension ref="A1:C4"/>"#, RAGGED_ROWS);
    let o = ream(&["cat", f.to_str().unwrap(), "--skip-rows", "1"], &dir);
    assert_eq!(stdout(&o), "1,,\n,,\nx,y,\n");
    // A declared dimension wider than the cells widens every row.
    let f = hand_xlsx(&dir, r#"<dimension ref="A1:D4"/>"#, RAGGED_ROWS);
    let o = ream(&["cat", f.to_str().unwrap()], &dir);
    assert_eq!(stdout(&o), "a,b,c,\n1,,,\n,,,\nx,y,,\n");
}

#[test]
fn rows_wider_than_the_declared_dimension_are_kept_and_warned() {
    let dir = temp_dir("cat-wide");
    let f = hand_xlsx(&dir, r#"<dimension ref="A1:B4"/>"#, RAGGED_ROWS);
    let o = ream(&["cat", f.to_str().unwrap()], &dir);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert_eq!(stdout(&o), "a,b,c\n1,\n,\nx,y\n");
    let err = stderr(&o);
    assert!(err.contains("hand.xlsx"), "{err}");
    assert!(err.contains(r#"sheet "S": row 0 has cells beyond the declared dimension A1:B4 (up to C1): printed with 3 fields instead of 2"#), "{err}");
}

/// `One` (one sheet) and `Two` (sheets `A`, `B`) with a header row `h`.
fn books(dir: &Path) -> (PathBuf, PathBuf) {
    let one = dir.join("one.xlsx");
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet().set_name("Only").unwrap();
    ws.write_string(0, 0, "h").unwrap();
    ws.write_number(1, 0, 1.0).unwrap();
    wb.save(&one).unwrap();
    let two = dir.join("two.xlsx");
    let mut wb = Workbook::new();
    for (name, v) in [("A", 1.0), ("B", 2.0)] {
        let ws = wb.add_worksheet().set_name(name).unwrap();
        ws.write_string(0, 0, "h").unwrap();
        ws.write_number(1, 0, v).unwrap();
    }
    wb.save(&two).unwrap();
    (one, two)
}

#[test]
fn all_sheets_always_have_the_sheet_column() {
    let dir = temp_dir("cat-all");
    let (one, two) = books(&dir);
    let (one, two) = (one.to_str().unwrap(), two.to_str().unwrap());
    let o = ream(&["cat", one, "-s", "all"], &dir);
    assert_ok(&o);
    assert_eq!(stdout(&o), "Only,h\nOnly,1\n");
    let o = ream(&["cat", one, "-s", "all", "--header-row", "0"], &dir);
    assert_eq!(stdout(&o), "sheet,h\nOnly,1\n");
    let o = ream(&["cat", one], &dir);
    assert_eq!(stdout(&o), "h\n1\n", "no sheet column without -s all");
    let o = ream(&["cat", two, "-s", "all"], &dir);
    assert_eq!(stdout(&o), "A,h\nA,1\nB,h\nB,2\n");
    let o = ream(
        &["cat", two, "-s", "all", "--header-row", "0", "-f", "tsv"],
        &dir,
    );
    assert_eq!(stdout(&o), "sheet\th\nA\t1\nsheet\th\nB\t2\n");
    let o = ream(
        &["cat", two, "-s", "all", "--header-row", "0", "-f", "jsonl"],
        &dir,
    );
    assert_eq!(
        stdout(&o),
        "{\"sheet\":\"A\",\"h\":1}\n{\"sheet\":\"B\",\"h\":2}\n"
    );
}

#[test]
fn jsonl_with_a_header_gives_objects() {
    let dir = temp_dir("cat-header");
    let f = dir.join("header.xlsx");
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet().set_name("T").unwrap();
    for (col, name) in ["a", "a", "", "b", "a"].iter().enumerate() {
        if !name.is_empty() {
            ws.write_string(0, col as u16, *name).unwrap();
        }
    }
    ws.write_number(1, 0, 1.0).unwrap();
    ws.write_string(1, 1, "x").unwrap();
    ws.write_formula(1, 3, Formula::new("=1/0").set_result("#DIV/0!"))
        .unwrap();
    ws.write_string(2, 1, "#DIV/0!").unwrap();
    wb.save(&f).unwrap();
    let f = f.to_str().unwrap();
    let o = ream(&["cat", f, "-f", "jsonl", "--header-row", "0"], &dir);
    assert_ok(&o);
    assert_eq!(
        stdout(&o),
        "{\"a\":1,\"a_1\":\"x\",\"__UNNAMED__2\":null,\"b\":{\"error\":\"#DIV/0!\"},\"a_2\":null}\n\
         {\"a\":null,\"a_1\":\"#DIV/0!\",\"__UNNAMED__2\":null,\"b\":null,\"a_2\":null}\n"
    );
    // The error cell is an object in cells too; the text stays a string.
    let o = ream(&["cat", f, "-f", "cells", "--skip-rows", "1"], &dir);
    let cells: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let at = |r: u64, c: u64| {
        cells
            .iter()
            .find(|v| v["row"] == r && v["col"] == c)
            .unwrap()
    };
    assert_eq!(at(1, 3)["value"], json!({"error": "#DIV/0!"}));
    assert_eq!(at(2, 1)["value"], json!("#DIV/0!"));
}

#[test]
fn numbers_durations_and_times_have_one_form() {
    let dir = temp_dir("cat-values");
    let f = dir.join("values.xlsx");
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet();
    ws.write_number(0, 0, 1e308).unwrap();
    ws.write_number(0, 1, -1e-308).unwrap();
    ws.write_number(0, 2, 0.1).unwrap();
    ws.write_number(0, 3, 42.0).unwrap();
    // 255:10:10 as files write it: 15 digits (918610.0000000013 seconds).
    let duration = Format::new().set_num_format("[h]:mm:ss");
    ws.write_number_with_format(1, 0, 10.632_060_185_185_2, &duration)
        .unwrap();
    let time = Format::new().set_num_format("hh:mm:ss.000");
    ws.write_number_with_format(1, 1, 36_610.123_456 / 86_400.0, &time)
        .unwrap();
    ws.write_number_with_format(1, 2, -1.5, &duration).unwrap();
    wb.save(&f).unwrap();
    let f = f.to_str().unwrap();
    let o = ream(&["cat", f], &dir);
    assert_ok(&o);
    assert_eq!(
        stdout(&o),
        "1e+308,-1e-308,0.1,42\n255:10:10,10:10:10.123456,-36:00:00,\n"
    );
    let o = ream(&["cat", f, "-f", "jsonl"], &dir);
    let rows: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows[0]["values"], json!([1e308, -1e-308, 0.1, 42]));
    assert!(stdout(&o).contains("[1e+308,-1e-308,0.1,42]"));
    assert_eq!(
        rows[1]["values"],
        json!(["255:10:10", "10:10:10.123456", "-36:00:00", null])
    );
    let o = ream(&["cat", f, "-f", "cells", "--skip-rows", "1"], &dir);
    assert!(stdout(&o).contains(r#""type":"duration","value":"255:10:10""#));
    assert!(stdout(&o).contains(r#""type":"time","value":"10:10:10.123456""#));
}

#[test]
fn negative_counts_get_range_messages() {
    let dir = temp_dir("cat-range");
    for args in [
        &["cat", "x.xlsx", "--n-rows", "-1"][..],
        &["cat", "x.xlsx", "--skip-rows", "-1"],
        &["cat", "x.xlsx", "--header-row", "-1"],
        &["profile", "x.xlsx", "--threads", "-1"],
        &["stats", "x.xlsx", "--threads", "-1"],
    ] {
        let o = ream(args, &dir);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert!(err.contains("-1 is not in 0..="), "{args:?}: {err}");
    }
    let o = ream(&["cat", "x.xlsx", "--skip-rows", "4294967296"], &dir);
    assert!(stderr(&o).contains("0..=4294967295"), "{}", stderr(&o));
}

#[test]
fn help_describes_formats_and_engines() {
    let dir = temp_dir("cat-help");
    let o = ream(&["cat", "--help"], &dir);
    assert_ok(&o);
    let help = stdout(&o);
    for word in [
        "duration",
        "255:10:10",
        "{\"error\":\"#DIV/0!\"}",
        "TRUE",
        "1e+308",
        "null",
        "__UNNAMED__",
    ] {
        assert!(help.contains(word), "cat --help lacks {word}: {help}");
    }
    let o = ream(&["--help"], &dir);
    let help = stdout(&o);
    for word in ["XLSX", "PDF", "agg", "batch", "profile"] {
        assert!(help.contains(word), "--help lacks {word}: {help}");
    }
    let o = ream(&["profile", "--help"], &dir);
    let help = stdout(&o);
    for word in [
        "Measure the spreadsheet reader",
        "A  map the file",
        "B  inflate",
        "C  the small parts",
        "stats",
    ] {
        assert!(help.contains(word), "profile --help lacks {word}: {help}");
    }
}
