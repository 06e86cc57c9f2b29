//! Hostile input: every test ends in a correct result or an error of the
//! right kind that says what and where, in bounded time and memory.
//!
//! Tests that fail because of a library bug are `#[ignore = "BUG: ..."]`.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use crate::zipkit::*;
use ream_sheet::{Error, ErrorKind, Limits, OpenOptions, Value, Workbook};

fn open(bytes: Vec<u8>) -> Result<Workbook, Error> {
    Workbook::from_bytes(bytes, &OpenOptions::new())
}

fn open_limits(bytes: Vec<u8>, limits: Limits) -> Result<Workbook, Error> {
    Workbook::from_bytes(bytes, &OpenOptions::new().limits(limits))
}

fn fail(bytes: Vec<u8>) -> Error {
    open(bytes).unwrap_err()
}

/// The error of a one-sheet workbook whose `<sheetData>` holds `rows`.
fn rows_err(rows: &str) -> Error {
    fail(minimal(&sheet(rows)))
}

fn rows_ok(rows: &str) -> Workbook {
    open(minimal(&sheet(rows))).unwrap()
}

/// `(row, col, value)` of every cell of the first sheet, in order.
fn cells(wb: &Workbook) -> Vec<(u32, u32, String)> {
    wb.sheet(0)
        .unwrap()
        .cells()
        .map(|c| (c.row, c.col, format!("{:?}", c.value)))
        .collect()
}

/// Asserts kind, part and that the message contains `needle` (any case).
#[track_caller]
fn check(e: &Error, kind: ErrorKind, part: Option<&str>, needle: &str) {
    assert_eq!(e.kind(), kind, "{e}");
    assert_eq!(e.part(), part, "{e}");
    let msg = e.message().to_lowercase();
    assert!(
        msg.contains(&needle.to_lowercase()),
        "message lacks {needle:?}: {e}"
    );
}

fn limits() -> Limits {
    Limits::default()
}

// ---------------------------------------------------------------- container

#[test]
fn truncated_zip_every_cut_is_an_error() {
    let full = minimal_sst(
        &sheet(r#"<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>1</v></c></row>"#),
        &sst(&["x"]),
    );
    assert!(open(full.clone()).is_ok());
    for cut in 0..full.len() {
        let e = fail(full[..cut].to_vec());
        assert_eq!(e.kind(), ErrorKind::Malformed, "cut {cut}: {e}");
        assert!(!e.message().is_empty());
    }
}

#[test]
fn zip_with_a_chunk_cut_out_is_an_error() {
    let full = minimal(&sheet(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#));
    for at in (0..full.len() - 8).step_by(5) {
        let mut v = full.clone();
        v.drain(at..at + 8);
        assert!(open(v).is_err(), "8 bytes cut at {at}");
    }
}

#[test]
fn bad_crc_names_the_part() {
    let rows = sheet(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#);
    for part in [SHEET, WORKBOOK] {
        let zip = Zip::minimal(&rows, None).with(part, |e| e.crc = Some(0xDEAD_BEEF));
        let e = fail(zip.build());
        check(&e, ErrorKind::Malformed, Some(part), "CRC");
        assert!(e.offset().is_some(), "{e}");
    }
}

#[test]
fn declared_size_bigger_than_the_data() {
    let xml = sheet(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#);
    let n = xml.len() as u64;
    let e = fail(
        Zip::minimal(&xml, None)
            .with(SHEET, |e| e.size = Some(n + 10))
            .build(),
    );
    check(&e, ErrorKind::Malformed, Some(SHEET), "declared size");
    assert!(e.offset().is_some());
}

#[test]
fn declared_size_smaller_than_the_data() {
    let xml = sheet(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#);
    let n = xml.len() as u64;
    let e = fail(
        Zip::minimal(&xml, None)
            .with(SHEET, |e| e.size = Some(n - 10))
            .build(),
    );
    check(&e, ErrorKind::Malformed, Some(SHEET), "declared size");
}

#[test]
fn stored_entry_with_lying_size() {
    let xml = sheet(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#);
    let n = xml.len() as u64;
    for lie in [n - 1, n + 1] {
        let zip = Zip::minimal(&xml, None).with(SHEET, |e| {
            e.stored = true;
            e.size = Some(lie);
        });
        check(
            &fail(zip.build()),
            ErrorKind::Malformed,
            Some(SHEET),
            "declared size",
        );
    }
    // Stored and honest: fine.
    let ok = Zip::minimal(&xml, None).with(SHEET, |e| e.stored = true);
    assert_eq!(
        cells(&open(ok.build()).unwrap()),
        [(0, 0, "Number(1.0)".into())]
    );
}

#[test]
fn declared_compressed_size_lies() {
    let xml = sheet(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#);
    // Bigger: the data would run into the next entry / the directory.
    let e = fail(
        Zip::minimal(&xml, None)
            .with(SHEET, |e| e.csize = Some(1 << 20))
            .build(),
    );
    check(
        &e,
        ErrorKind::Malformed,
        Some(SHEET),
        "past the central directory",
    );
    // Smaller: the deflate stream is cut short.
    let e = fail(
        Zip::minimal(&xml, None)
            .with(SHEET, |e| e.csize = Some(5))
            .build(),
    );
    assert_eq!(e.kind(), ErrorKind::Malformed, "{e}");
    assert_eq!(e.part(), Some(SHEET), "{e}");
}

#[test]
fn garbage_deflate_data() {
    let xml = sheet("");
    let zip = Zip::minimal(&xml, None).with(SHEET, |e| e.raw = Some(vec![0xFF; 64]));
    check(
        &fail(zip.build()),
        ErrorKind::Malformed,
        Some(SHEET),
        "deflate",
    );
}

#[test]
fn unsupported_compression_method_and_encrypted_entry() {
    let xml = sheet("");
    let mut bytes = Zip::minimal(&xml, None)
        .with(SHEET, |e| e.stored = true)
        .build();
    // Patch the method (stored, 0) of the sheet's central entry to 14 (LZMA).
    let name = SHEET.as_bytes();
    let cd = (0..bytes.len() - 4)
        .rev()
        .find(|&i| bytes[i..].starts_with(b"PK\x01\x02") && bytes[i + 46..].starts_with(name))
        .unwrap();
    bytes[cd + 10] = 14;
    check(
        &fail(bytes),
        ErrorKind::Unsupported,
        Some(SHEET),
        "compression method 14",
    );
    let enc = Zip::minimal(&xml, None).with(SHEET, |e| e.flags = 1);
    let e = fail(enc.build());
    assert_eq!(e.kind(), ErrorKind::Encrypted, "{e}");
    assert_eq!(e.part(), Some(SHEET), "{e}");
}

/// About 2 MiB of repeated rows: deflates at several hundred to one.
fn compressible_sheet() -> String {
    sheet(&r#"<row><c t="str"><v>bomb</v></c></row>"#.repeat(50_000))
}

#[test]
fn zip_bomb_over_the_ratio_limit() {
    let bytes = minimal(&compressible_sheet());
    let small = limits().max_inflate_ratio(20);
    let e = open_limits(bytes.clone(), small).unwrap_err();
    check(&e, ErrorKind::LimitExceeded, Some(SHEET), "ratio");
    // The same workbook opens when the ratio is allowed.
    let loose = limits().max_inflate_ratio(1_000_000);
    assert_eq!(
        open_limits(bytes, loose)
            .unwrap()
            .sheet(0)
            .unwrap()
            .cell_count(),
        50_000
    );
}

#[test]
fn zip_bomb_over_the_inflated_bytes_budget() {
    // 256 MiB of spaces declared honestly (ratio 159:1, under the default
    // 1,000): the budget refuses it before anything is allocated.
    let rle = Rle::new()
        .lit(b"<worksheet><sheetData>")
        .run(b' ', 256 << 20)
        .lit(b"</sheetData></worksheet>");
    let zip = Zip::minimal("", None)
        .remove(SHEET)
        .push(Entry::rle(SHEET, rle));
    let small = limits().max_inflated_bytes(64 << 20);
    let e = open_limits(zip.build(), small).unwrap_err();
    check(&e, ErrorKind::LimitExceeded, Some(SHEET), "budget");
}

#[test]
fn one_part_listed_as_many_sheets_is_charged_each_time() {
    // 200 sheets all pointing at one 1 MiB part: 200 MiB from a tiny file.
    let mut wb = String::from(r#"<workbook xmlns:r="r"><sheets>"#);
    for i in 0..200 {
        wb.push_str(&format!(
            r#"<sheet name="S{i}" sheetId="{i}" r:id="rId1"/>"#
        ));
    }
    wb.push_str("</sheets></workbook>");
    let big = sheet(&format!("<row>{}</row>", " ".repeat(1 << 20)));
    let zip = Zip::minimal(&big, None).set(WORKBOOK, wb);
    let small = limits().max_inflated_bytes(32 << 20);
    let e = open_limits(zip.build(), small).unwrap_err();
    check(&e, ErrorKind::LimitExceeded, Some(SHEET), "budget");
}

#[test]
fn bomb_declaring_a_small_size_stops_at_that_size() {
    // 64 MiB of spaces declared as 4 KiB: inflating stops at 4 KiB.
    let rle = Rle::new()
        .lit(b"<worksheet><sheetData>")
        .run(b' ', 64 << 20);
    let zip = Zip::minimal("", None)
        .remove(SHEET)
        .push(Entry::rle(SHEET, rle))
        .with(SHEET, |e| e.size = Some(4096));
    let e = fail(zip.build());
    check(&e, ErrorKind::Malformed, Some(SHEET), "declared size 4096");
}

#[test]
fn overlapping_entries() {
    let xml = sheet(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#);
    // A second central entry reusing the sheet's local header and data.
    let mut zip = Zip::minimal(&xml, None);
    let i = zip.entries.iter().position(|e| e.name == SHEET).unwrap();
    let mut twin = Entry::new("xl/worksheets/sheet2.xml", xml.as_bytes());
    twin.header_of = Some(i);
    zip = zip.push(twin);
    check(
        &fail(zip.build()),
        ErrorKind::Malformed,
        Some("xl/worksheets/sheet2.xml"),
        "overlap",
    );
}

#[test]
fn local_header_offset_out_of_bounds_or_wrong() {
    let xml = sheet("");
    let e = fail(
        Zip::minimal(&xml, None)
            .with(SHEET, |e| e.header_offset = Some(0x00FF_FFFF))
            .build(),
    );
    check(&e, ErrorKind::Malformed, Some(SHEET), "out of bounds");
    // Pointing at the middle of the first entry: no local header there.
    let e = fail(
        Zip::minimal(&xml, None)
            .with(SHEET, |e| e.header_offset = Some(7))
            .build(),
    );
    check(&e, ErrorKind::Malformed, Some(SHEET), "local file header");
}

#[test]
fn duplicate_entry_names() {
    // Two copies of one part: the last copy is read (as other readers do)
    // and the workbook carries a warning naming the part.
    let xml = sheet(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#);
    let other = sheet(r#"<row r="1"><c r="A1"><v>2</v></c></row>"#);
    let dup = Zip::minimal(&xml, None).push(Entry::new(SHEET, other.as_bytes()));
    let wb = open(dup.build()).unwrap();
    assert_eq!(cells(&wb), vec![(0, 0, "Number(2.0)".to_string())]);
    check(
        &wb.warnings()[0],
        ErrorKind::Malformed,
        Some(SHEET),
        "more than once",
    );
    // The same name spelled with backslashes and a leading slash.
    let alias = r"/xl\worksheets\sheet1.xml";
    let dup = Zip::minimal(&xml, None).push(Entry::new(alias, other.as_bytes()));
    let wb = open(dup.build()).unwrap();
    assert_eq!(cells(&wb), vec![(0, 0, "Number(2.0)".to_string())]);
    assert_eq!(wb.warnings().len(), 1);
}

#[test]
fn too_many_zip_entries() {
    let mut zip = Zip::minimal(&sheet(""), None);
    for i in 0..20 {
        zip = zip.push(Entry::new(&format!("junk/{i}.bin"), vec![]));
    }
    let small = limits().max_zip_entries(10);
    let e = open_limits(zip.build(), small).unwrap_err();
    check(&e, ErrorKind::LimitExceeded, None, "entries");
}

// ---------------------------------------------------------- package parts

#[test]
fn missing_workbook_part() {
    let zip = Zip::minimal(&sheet(""), None).remove(WORKBOOK);
    check(
        &fail(zip.build()),
        ErrorKind::Malformed,
        Some(WORKBOOK),
        "missing workbook part xl/workbook.xml",
    );
}

#[test]

fn missing_workbook_part_is_named_in_part() {
    let zip = Zip::minimal(&sheet(""), None).remove(WORKBOOK);
    assert_eq!(fail(zip.build()).part(), Some(WORKBOOK));
}

#[test]
fn zip_that_is_not_a_workbook() {
    let e = fail(xlsx(&[("readme.txt", "hello")]));
    check(
        &e,
        ErrorKind::Malformed,
        Some(WORKBOOK),
        "not an XLSX package",
    );
    let ods = xlsx(&[
        ("mimetype", "application/vnd.oasis.opendocument.spreadsheet"),
        ("content.xml", "<x/>"),
    ]);
    check(
        &fail(ods),
        ErrorKind::Unsupported,
        Some("content.xml"),
        "ODS",
    );
}

#[test]
fn missing_sheet_part() {
    let zip = Zip::minimal(&sheet(""), None).remove(SHEET);
    let e = fail(zip.build());
    check(&e, ErrorKind::Malformed, Some(SHEET), "missing");
    assert!(e.message().contains("Sheet1"), "{e}");
}

#[test]
fn sheet_without_a_relationship() {
    // The sheet is skipped with a warning; the workbook still opens.
    let wb = WORKBOOK_XML.replace(r#"r:id="rId1""#, r#"r:id="rId9""#);
    let wb = open(Zip::minimal(&sheet(""), None).set(WORKBOOK, wb).build()).unwrap();
    assert!(wb.sheets().is_empty());
    check(
        &wb.warnings()[0],
        ErrorKind::Malformed,
        Some(WORKBOOK),
        "rId9",
    );
}

#[test]
fn shared_string_cell_without_shared_strings() {
    // The cell is left empty, the rest of the sheet is kept, and a warning
    // names the sheet part and the first such cell.
    let wb = rows_ok(r#"<row r="2"><c r="A2"><v>5</v></c><c r="B2" t="s"><v>0</v></c></row>"#);
    assert_eq!(cells(&wb), vec![(1, 0, "Number(5.0)".to_string())]);
    let w = &wb.warnings()[0];
    check(
        w,
        ErrorKind::Malformed,
        Some(SHEET),
        "missing from the table",
    );
    assert_eq!(w.cell(), Some((1, 1)));
}

#[test]
fn shared_string_index_out_of_range() {
    // Past the table: the cell is left empty with a warning naming it.
    let xml = sheet(
        r#"<row r="3"><c r="B3" t="s"><v>1</v></c><c r="C3" t="s"><v>7</v></c><c r="D3" t="s"><v>9</v></c></row>"#,
    );
    let wb = open(minimal_sst(&xml, &sst(&["a", "b"]))).unwrap();
    assert_eq!(cells(&wb), vec![(2, 1, "String(\"b\")".to_string())]);
    let w = &wb.warnings()[0];
    check(
        w,
        ErrorKind::Malformed,
        Some(SHEET),
        "2 cells refer to shared strings",
    );
    assert!(w.message().contains("index 7"), "{w}");
    assert_eq!(w.cell(), Some((2, 2)));
    // Slow path (a formula before the value) names the cell too.
    let xml = sheet(r#"<row r="3"><c r="C3" t="s"><f>X</f><v>7</v><extLst/></c></row>"#);
    let wb = open(minimal_sst(&xml, &sst(&["a", "b"]))).unwrap();
    assert_eq!(wb.warnings()[0].cell(), Some((2, 2)));
    // Not a number at all.
    let xml = sheet(r#"<row r="3"><c r="C3" t="s"><v>-1</v></c></row>"#);
    let e = fail(minimal_sst(&xml, &sst(&["a"])));
    check(
        &e,
        ErrorKind::Malformed,
        Some(SHEET),
        "bad shared string index '-1'",
    );
}

#[test]
fn the_broken_sheet_of_many_is_named_on_every_thread_count() {
    let good = sheet(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#);
    let bad = sheet(r#"<row r="1"><c r="A1"><v>1</v></c><c r="B1" t="b"><v>7</v></c></row>"#);
    let mut wb = String::from(r#"<workbook xmlns:r="r"><sheets>"#);
    let mut rels = String::from("<Relationships>");
    let mut zip = Zip::minimal(&good, None);
    for i in 1..=6 {
        wb.push_str(&format!(
            r#"<sheet name="S{i}" sheetId="{i}" r:id="rId{i}"/>"#
        ));
        rels.push_str(&format!(
            r#"<Relationship Id="rId{i}" Type="x/worksheet" Target="worksheets/s{i}.xml"/>"#
        ));
        // Sheets 4 and 6 are broken; the error must always be sheet 4's.
        zip = zip.set(
            &format!("xl/worksheets/s{i}.xml"),
            if i % 2 == 0 && i > 2 {
                bad.clone()
            } else {
                good.clone()
            },
        );
    }
    wb.push_str("</sheets></workbook>");
    rels.push_str("</Relationships>");
    let bytes = zip
        .set(WORKBOOK, wb)
        .set("xl/_rels/workbook.xml.rels", rels)
        .build();
    for threads in [1, 2, 4, 8] {
        let opts = OpenOptions::new().threads(threads);
        let e = Workbook::from_bytes(bytes.clone(), &opts).unwrap_err();
        check(
            &e,
            ErrorKind::Malformed,
            Some("xl/worksheets/s4.xml"),
            "bad boolean '7'",
        );
        assert_eq!(e.cell(), Some((0, 1)));
    }
}

// ------------------------------------------------------------- references

#[test]
fn garbage_cell_references() {
    for r in [
        "1A", "ZZZZ1", "A0", "XFE1", "A1048577", "", "A-1", "A1 ", "$$A1",
    ] {
        let e = rows_err(&format!(r#"<row r="1"><c r="{r}"><v>1</v></c></row>"#));
        check(
            &e,
            ErrorKind::Malformed,
            Some(SHEET),
            &format!("bad cell reference '{r}'"),
        );
        assert!(e.offset().is_some() && e.cell().is_some(), "{e}");
    }
}

#[test]
fn garbage_row_numbers() {
    for r in ["0", "1048577", "abc", "-1", "99999999999"] {
        let e = rows_err(&format!(r#"<row r="{r}"><c><v>1</v></c></row>"#));
        check(
            &e,
            ErrorKind::Malformed,
            Some(SHEET),
            &format!("bad row number '{r}'"),
        );
        assert!(e.offset().is_some(), "{e}");
    }
}

#[test]
fn rows_and_cells_out_of_order_are_sorted() {
    let wb = rows_ok(
        r#"<row r="3"><c r="B3"><v>6</v></c><c r="A3"><v>5</v></c></row>
           <row r="1"><c r="C1"><v>3</v></c><c r="A1"><v>1</v></c><c r="B1"><v>2</v></c></row>
           <row r="2"><c r="A2"><v>4</v></c></row>"#,
    );
    let got: Vec<_> = cells(&wb).into_iter().map(|(r, c, _)| (r, c)).collect();
    assert_eq!(got, [(0, 0), (0, 1), (0, 2), (1, 0), (2, 0), (2, 1)]);
    let s = wb.sheet(0).unwrap();
    assert_eq!(s.get(2, 1).unwrap().value, Value::Number(6.0));
    assert_eq!(s.get(0, 2).unwrap().value, Value::Number(3.0));
}

#[test]
fn duplicate_cells_last_wins() {
    let wb = rows_ok(
        r#"<row r="1"><c r="A1"><f>1+1</f><v>2</v></c><c r="A1"><v>5</v></c><c r="B1"><v>1</v></c></row>
           <row r="1"><c r="B1" t="str"><v>last</v></c></row>"#,
    );
    let s = wb.sheet(0).unwrap();
    assert_eq!(s.cell_count(), 2);
    let a1 = s.get(0, 0).unwrap();
    assert_eq!((a1.value, a1.formula), (Value::Number(5.0), None));
    assert_eq!(s.get(0, 1).unwrap().value, Value::String("last"));
}

#[test]
fn cells_and_rows_without_r_are_numbered_consecutively() {
    let wb = rows_ok(
        r#"<row><c><v>1</v></c><c><v>2</v></c></row>
           <row><c r="C2"><v>3</v></c><c><v>4</v></c></row>
           <row r="5"><c><v>5</v></c></row><row><c t="b"><v>1</v></c></row>"#,
    );
    assert_eq!(
        cells(&wb),
        [
            (0, 0, "Number(1.0)".into()),
            (0, 1, "Number(2.0)".into()),
            (1, 2, "Number(3.0)".into()),
            (1, 3, "Number(4.0)".into()),
            (4, 0, "Number(5.0)".into()),
            (5, 0, "Bool(true)".into()),
        ]
    );
}

#[test]

fn implicit_column_past_xfd_is_an_error() {
    let e = rows_err(r#"<row r="1"><c r="XFD1"><v>1</v></c><c><v>2</v></c></row>"#);
    assert_eq!(e.kind(), ErrorKind::Malformed, "{e}");
}

#[test]

fn implicit_columns_do_not_wrap_onto_a1() {
    let mut row = String::from(r#"<row r="1"><c t="str"><v>first</v></c>"#);
    row.push_str(&"<c><v>0</v></c>".repeat(65_536));
    row.push_str("</row>");
    match open(minimal(&sheet(&row))) {
        Err(e) => assert_eq!(e.kind(), ErrorKind::Malformed, "{e}"),
        Ok(wb) => assert_eq!(
            wb.sheet(0).unwrap().get(0, 0).unwrap().value,
            Value::String("first")
        ),
    }
}

#[test]

fn implicit_row_past_the_last_row_is_an_error() {
    let e = rows_err(
        r#"<row r="1048576"><c r="A1048576"><v>1</v></c></row><row><c><v>2</v></c></row>"#,
    );
    assert_eq!(e.kind(), ErrorKind::Malformed, "{e}");
}

#[test]
fn prefixed_elements() {
    let xml = r#"<?xml version="1.0"?>
<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:dimension ref="A1:C2"/><x:sheetData>
<x:row r="1"><x:c r="A1" t="s"><x:v>0</x:v></x:c><x:c r="B1"><x:f>1+2</x:f><x:v>3</x:v></x:c></x:row>
<x:row r="2"><x:c r="C2" t="inlineStr"><x:is><x:t>inline</x:t></x:is></x:c><x:c r="A2" t="b"><x:v>0</x:v></x:c></x:row>
</x:sheetData></x:worksheet>"#;
    let wb = open(minimal_sst(xml, &sst(&["shared"]))).unwrap();
    let s = wb.sheet(0).unwrap();
    assert_eq!(s.cell_count(), 4);
    assert_eq!(s.get(0, 0).unwrap().value, Value::String("shared"));
    let b1 = s.get(0, 1).unwrap();
    assert_eq!((b1.value, b1.formula), (Value::Number(3.0), Some("1+2")));
    assert_eq!(s.get(1, 2).unwrap().value, Value::String("inline"));
    assert_eq!(s.get(1, 0).unwrap().value, Value::Bool(false));
}

// --------------------------------------------------------- far & sparse

#[test]
fn far_away_cell_allocates_nothing_dense() {
    let wb = rows_ok(
        r#"<row r="1"><c r="A1"><v>1</v></c></row><row r="1048576"><c r="XFD1048576"><v>2</v></c></row>"#,
    );
    let s = wb.sheet(0).unwrap();
    assert_eq!(s.cell_count(), 2);
    assert_eq!(s.get(1_048_575, 16_383).unwrap().value, Value::Number(2.0));
    assert!(s.heap_bytes() < 4096, "heap {}", s.heap_bytes());
}

#[test]
fn huge_declared_dimension_allocates_nothing_dense() {
    let xml = r#"<worksheet><dimension ref="A1:XFD1048576"/><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>"#;
    let wb = open(minimal(xml)).unwrap();
    let s = wb.sheet(0).unwrap();
    assert_eq!(s.cell_count(), 1);
    assert_eq!(s.declared_dimension().unwrap().to_string(), "A1:XFD1048576");
    assert!(s.heap_bytes() < 4096, "heap {}", s.heap_bytes());
}

#[test]
fn max_cells_per_sheet() {
    let rows = r#"<row r="1"><c r="A1"><v>1</v></c><c r="B1"><v>2</v></c><c r="C1"><v>3</v></c><c r="D1"><v>4</v></c></row>"#;
    let three = limits().max_cells_per_sheet(3);
    let e = open_limits(minimal(&sheet(rows)), three).unwrap_err();
    check(
        &e,
        ErrorKind::LimitExceeded,
        Some(SHEET),
        "more than 3 cells",
    );
    assert_eq!(e.cell(), Some((0, 3)));
    let four = limits().max_cells_per_sheet(4);
    assert_eq!(
        open_limits(minimal(&sheet(rows)), four)
            .unwrap()
            .sheet(0)
            .unwrap()
            .cell_count(),
        4
    );
}

// --------------------------------------------------------------- strings

fn inline(text: &str) -> String {
    sheet(&format!(
        r#"<row r="1"><c r="A1" t="inlineStr"><is><t>{text}</t></is></c></row>"#
    ))
}

/// `Limits::max_string_chars` by default.
const MAX_CHARS: usize = 16 << 20;

/// A package with the sheet `rows` and, when given, the shared strings
/// `sst_xml`, both stored: a long run of one letter deflates past the
/// inflate-ratio limit.
fn stored(rows: &str, sst_xml: Option<&str>) -> Vec<u8> {
    let zip = Zip::minimal(&sheet(rows), sst_xml).with(SHEET, |e| e.stored = true);
    match sst_xml {
        Some(_) => zip.with(SST, |e| e.stored = true).build(),
        None => zip.build(),
    }
}

/// The value of A1, owned.
fn a1(wb: &Workbook) -> String {
    let Value::String(s) = wb.sheet(0).unwrap().get(0, 0).unwrap().value else {
        panic!("A1 is not a string")
    };
    s.to_string()
}

#[test]
fn string_longer_than_max_string_chars() {
    let inline_rows = |n: usize| {
        format!(
            r#"<row r="1"><c r="A1" t="inlineStr"><is><t>{}</t></is></c></row>"#,
            "a".repeat(n)
        )
    };
    let e = open(stored(&inline_rows(MAX_CHARS + 1), None)).unwrap_err();
    check(
        &e,
        ErrorKind::LimitExceeded,
        Some(SHEET),
        "string of 16777217 characters exceeds the limit of 16777216",
    );
    assert_eq!(e.cell(), Some((0, 0)));
    let wb = open(stored(&inline_rows(MAX_CHARS), None)).unwrap();
    assert_eq!(a1(&wb).len(), MAX_CHARS);
    let xml = r#"<row r="1"><c r="A1" t="s"><v>0</v></c></row>"#;
    let e = open(stored(xml, Some(&sst(&[&"c".repeat(MAX_CHARS + 1)])))).unwrap_err();
    check(
        &e,
        ErrorKind::LimitExceeded,
        Some(SST),
        "16777217 characters",
    );
    // A lower limit holds for `t="str"` values and shared strings too.
    let small = limits().max_string_chars(100);
    let str_cell = sheet(&format!(
        r#"<row r="1"><c r="B1" t="str"><v>{}</v></c></row>"#,
        "b".repeat(101)
    ));
    let e = open_limits(minimal(&str_cell), small).unwrap_err();
    check(
        &e,
        ErrorKind::LimitExceeded,
        Some(SHEET),
        "string of 101 characters exceeds the limit of 100",
    );
    assert_eq!(e.cell(), Some((0, 1)));
    let e = open_limits(minimal_sst(&sheet(xml), &sst(&[&"c".repeat(101)])), small).unwrap_err();
    check(&e, ErrorKind::LimitExceeded, Some(SST), "101 characters");
}

#[test]
fn string_of_exactly_max_string_chars_is_fine() {
    let max = limits().max_string_chars(1_000);
    for text in ["a".repeat(1_000), "é".repeat(1_000), "&amp;".repeat(1_000)] {
        let wb = open_limits(minimal(&inline(&text)), max).unwrap();
        assert_eq!(a1(&wb).chars().count(), 1_000);
    }
    // `_xHHHH_` escapes count once decoded.
    let xml = sheet(&format!(
        r#"<row r="1"><c r="A1" t="str"><v>{}</v></c></row>"#,
        "_x0041_".repeat(1_000)
    ));
    let wb = open_limits(minimal(&xml), max).unwrap();
    assert_eq!(a1(&wb), "A".repeat(1_000));
}

/// Longer than Excel's 32,767-character cell-editing limit, which is not a
/// limit of the file format: other readers read such strings, and so does
/// this one, loaded, streamed and as an inline string alike.
#[test]
fn shared_string_of_40000_chars_reads_intact() {
    let want = format!("{}xé&<", "ab".repeat(19_998));
    assert_eq!(want.chars().count(), 40_000);
    let raw = want.replace('&', "&amp;").replace('<', "&lt;");
    let xml = sheet(r#"<row r="1"><c r="A1" t="s"><v>0</v></c></row>"#);
    let bytes = minimal_sst(&xml, &sst(&[&raw]));
    let wb = open(bytes.clone()).unwrap();
    assert_eq!(a1(&wb), want);
    let wb = Workbook::from_bytes(bytes, &OpenOptions::new().load_cells(false)).unwrap();
    let row = wb.rows(0).unwrap().next().unwrap().unwrap();
    assert_eq!(
        row.cells[0].value,
        ream_sheet::OwnedValue::String(want.clone())
    );
    let wb = open(minimal(&inline(&raw))).unwrap();
    assert_eq!(a1(&wb), want);
}

#[test]

fn inline_string_with_escapes() {
    let wb = rows_ok(
        r#"<row r="1"><c r="A1" t="inlineStr"><is><t>a_x000D_b</t></is></c><c r="B1" t="inlineStr"><is><t>XYZ</t></is></c></row>"#,
    );
    let s = wb.sheet(0).unwrap();
    assert_eq!(s.get(0, 0).unwrap().value, Value::String("a\rb"));
    assert_eq!(s.get(0, 1).unwrap().value, Value::String("XYZ"));
}

#[test]
fn unknown_entity() {
    let e = fail(minimal(&inline("x&foo;y")));
    check(&e, ErrorKind::Malformed, Some(SHEET), "entity");
    assert_eq!(e.cell(), Some((0, 0)));
    let e = rows_err(r#"<row r="1"><c r="B1" t="str"><v>&foo;</v></c></row>"#);
    check(&e, ErrorKind::Malformed, Some(SHEET), "entity");
    assert_eq!(e.cell(), Some((0, 1)));
    let xml = sheet(r#"<row r="1"><c r="A1" t="s"><v>0</v></c></row>"#);
    let e = fail(minimal_sst(&xml, &sst(&["&foo;"])));
    check(&e, ErrorKind::Malformed, Some(SST), "entity");
    let wb = WORKBOOK_XML.replace(r#"name="Sheet1""#, r#"name="S&foo;""#);
    let e = fail(Zip::minimal(&sheet(""), None).set(WORKBOOK, wb).build());
    assert_eq!(
        (e.kind(), e.part()),
        (ErrorKind::Malformed, Some(WORKBOOK)),
        "{e}"
    );
    assert!(e.message().contains("foo"), "{e}");
}

#[test]
fn invalid_utf8_in_cells_and_shared_strings() {
    for bad in [&b"\xFF"[..], b"\xC3", b"\xED\xA0\x80", b"\xC0\xAF"] {
        for t in ["inlineStr", "str"] {
            let mut xml = br#"<worksheet><sheetData><row r="1"><c r="A1" t=""#.to_vec();
            xml.extend_from_slice(t.as_bytes());
            let (open_t, close_t) = if t == "str" {
                ("<v>", "</v>")
            } else {
                ("<is><t>", "</t></is>")
            };
            xml.extend_from_slice(format!(r#""><f>"x"</f>{open_t}ok"#).as_bytes());
            xml.extend_from_slice(bad);
            xml.extend_from_slice(
                format!("{close_t}</c></row></sheetData></worksheet>").as_bytes(),
            );
            let e = fail(Zip::minimal("", None).set(SHEET, xml).build());
            check(&e, ErrorKind::Malformed, Some(SHEET), "UTF-8");
            assert_eq!(e.cell(), Some((0, 0)), "{e}");
        }
        let mut s = b"<sst><si><t>ok".to_vec();
        s.extend_from_slice(bad);
        s.extend_from_slice(b"</t></si></sst>");
        let xml = sheet(r#"<row r="1"><c r="A1" t="s"><v>0</v></c></row>"#);
        let e = fail(Zip::minimal(&xml, None).set(SST, s).build());
        check(&e, ErrorKind::Malformed, Some(SST), "UTF-8");
    }
}

// ------------------------------------------------------------ DTD & depth

/// The billion-laughs document type declaration.
fn laughs() -> String {
    let mut d = String::from(r#"<!DOCTYPE lolz [<!ENTITY lol "lol">"#);
    for i in 2..=9 {
        let prev = if i == 2 {
            "lol".to_string()
        } else {
            format!("lol{}", i - 1)
        };
        d.push_str(&format!(
            r#"<!ENTITY lol{i} "{}">"#,
            format!("&{prev};").repeat(10)
        ));
    }
    d.push_str("]>");
    d
}

#[test]
fn billion_laughs_is_rejected_everywhere() {
    let dtd = laughs();
    let cell = r#"<row r="1"><c r="A1" t="inlineStr"><is><t>&lol9;</t></is></c></row>"#;
    let sheet_xml = format!(
        r#"<?xml version="1.0"?>{dtd}<worksheet><sheetData>{cell}</sheetData></worksheet>"#
    );
    let e = fail(minimal(&sheet_xml));
    check(&e, ErrorKind::Malformed, Some(SHEET), "DTD");
    assert!(e.offset().is_some());
    // A declaration in the middle of the cell data.
    let e = rows_err(&format!(
        r#"<row r="1"><c r="A1"><v>1</v></c></row>{dtd}{cell}"#
    ));
    check(&e, ErrorKind::Malformed, Some(SHEET), "DTD");
    let sst_xml = format!(r#"<?xml version="1.0"?>{dtd}<sst><si><t>&lol9;</t></si></sst>"#);
    let e = fail(minimal_sst(&sheet(""), &sst_xml));
    check(&e, ErrorKind::Malformed, Some(SST), "DTD");
    let wb = WORKBOOK_XML
        .replace("<workbook ", &format!("{dtd}<workbook "))
        .replace("Sheet1", "&lol9;");
    let e = fail(Zip::minimal(&sheet(""), None).set(WORKBOOK, wb).build());
    check(&e, ErrorKind::Malformed, Some(WORKBOOK), "DTD");
    let rels = ROOT_RELS.replace("<Relationships ", &format!("{dtd}<Relationships "));
    let e = fail(
        Zip::minimal(&sheet(""), None)
            .set("_rels/.rels", rels)
            .build(),
    );
    check(&e, ErrorKind::Malformed, Some("_rels/.rels"), "DTD");
    let styles = format!("{dtd}<styleSheet/>");
    let e = fail(
        Zip::minimal(&sheet(""), None)
            .set("xl/styles.xml", styles)
            .build(),
    );
    check(&e, ErrorKind::Malformed, Some("xl/styles.xml"), "DTD");
}

#[test]
fn deep_nesting_inside_an_inline_string() {
    let deep = format!("{}<t>x</t>{}", "<r>".repeat(40), "</r>".repeat(40));
    let xml = sheet(&format!(
        r#"<row r="1"><c r="A1" t="inlineStr"><is>{deep}</is></c></row>"#
    ));
    let small = limits().max_xml_depth(16);
    let e = open_limits(minimal(&xml), small).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert_eq!((e.part(), e.cell()), (Some(SHEET), Some((0, 0))), "{e}");
    assert!(e.message().contains("nesting"), "{e}");
}

#[test]
fn deep_nesting_in_the_sheet_head_and_data() {
    let deep = format!("{}{}", "<a>".repeat(300), "</a>".repeat(300));
    let head = format!("<worksheet>{deep}<sheetData/></worksheet>");
    let e = fail(minimal(&head));
    check(&e, ErrorKind::LimitExceeded, Some(SHEET), "nesting");
    assert!(e.offset().is_some());
    // Unknown elements between rows and inside a cell.
    let e = rows_err(&format!(r#"<row r="1"><c r="A1"><v>1</v></c></row>{deep}"#));
    check(&e, ErrorKind::LimitExceeded, Some(SHEET), "nesting");
    let e = rows_err(&format!(
        r#"<row r="1"><c r="A1"><extLst>{deep}</extLst><v>1</v></c></row>"#
    ));
    check(&e, ErrorKind::LimitExceeded, Some(SHEET), "nesting");
    // Workbook-level parts.
    let wb = WORKBOOK_XML.replace("<sheets>", &format!("{deep}<sheets>"));
    let e = fail(Zip::minimal(&sheet(""), None).set(WORKBOOK, wb).build());
    check(&e, ErrorKind::LimitExceeded, Some(WORKBOOK), "nested");
}

#[test]

fn nested_markup_in_a_formula_is_not_a_depth_limit() {
    match open(minimal(&sheet(
        r#"<row r="1"><c r="A1"><f>1+1<x><y><z/></y></x></f><v>2</v></c></row>"#,
    ))) {
        Ok(_) => {}
        Err(e) => assert_eq!(e.kind(), ErrorKind::Malformed, "{e}"),
    }
}

// ---------------------------------------------------------- not an XLSX

#[test]
fn empty_file() {
    check(&fail(Vec::new()), ErrorKind::Malformed, None, "empty");
}

/// A CFB (OLE2) file: the magic, a 512-byte header and a directory entry.
fn cfb(stream_name: &str) -> Vec<u8> {
    let mut v = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1".to_vec();
    v.resize(1024, 0);
    for u in stream_name.encode_utf16() {
        v.extend_from_slice(&u.to_le_bytes());
    }
    v.resize(2048, 0);
    v
}

#[test]
fn encrypted_workbook() {
    let e = fail(cfb("EncryptedPackage"));
    assert_eq!(e.kind(), ErrorKind::Encrypted, "{e}");
    assert!(e.message().contains("password"), "{e}");
}

#[test]
fn legacy_xls_renamed() {
    // A CFB header with nothing valid behind it is read as XLS (by content,
    // not by name) and reported as a broken container.
    let e = fail(cfb("Workbook"));
    check(
        &e,
        ErrorKind::Malformed,
        Some("CFB container"),
        "CFB (OLE2) container is broken",
    );
}

#[test]
fn pdf_given_as_xlsx() {
    let e = fail(
        b"%PDF-1.7\n%\xE2\xE3\xCF\xD3\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n".to_vec(),
    );
    check(&e, ErrorKind::Unsupported, None, "PDF");
}

#[test]
fn plain_text_given_as_xlsx() {
    for text in [
        "hello, world\n",
        "a,b,c\n1,2,3\n",
        "<html><body>PK</body></html>",
        "PK",
    ] {
        let e = fail(text.as_bytes().to_vec());
        check(&e, ErrorKind::Malformed, None, "not a ZIP archive");
    }
}

// ------------------------------------------------------ broken sheet XML

#[test]
fn truncated_worksheet_xml() {
    let rows =
        r#"<row r="1"><c r="A1"><v>1</v></c></row><row r="2"><c r="A2"><v>2</v></c><c r="B2"><v>3"#;
    let xml = format!("<worksheet><sheetData>{rows}");
    let e = fail(minimal(&xml));
    check(&e, ErrorKind::Malformed, Some(SHEET), "ends early");
    assert_eq!(e.cell(), Some((1, 1)));
    assert!(e.offset().is_some());
}

#[test]
fn worksheet_cut_anywhere_inside_sheet_data_is_an_error() {
    let xml = sheet(
        r#"<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><f>A1</f><v>2</v></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>x</t></is></c></row>"#,
    );
    let start = xml.find("<sheetData>").unwrap() + "<sheetData>".len();
    let end = xml.find("</sheetData>").unwrap();
    for cut in start..end {
        let e = fail(minimal_sst(&xml[..cut], &sst(&["s"])));
        assert_eq!(
            (e.kind(), e.part()),
            (ErrorKind::Malformed, Some(SHEET)),
            "cut {cut}: {e}"
        );
    }
}

#[test]

fn worksheet_cut_anywhere_is_an_error() {
    let xml = r#"<worksheet><dimension ref="A1:B2"/><sheetViews><sheetView workbookViewId="0"/></sheetViews><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData><mergeCells count="1"><mergeCell ref="A1:B1"/></mergeCells></worksheet>"#;
    for cut in 1..xml.len() {
        assert!(
            open(minimal(&xml[..cut])).is_err(),
            "cut at {cut} opens: {:?}",
            &xml[..cut]
        );
    }
}

#[test]
fn garbage_number() {
    for v in ["abc", "1,5", "0x10", "1e", "--1"] {
        let e = rows_err(&format!(r#"<row r="4"><c r="D4"><v>{v}</v></c></row>"#));
        check(
            &e,
            ErrorKind::Malformed,
            Some(SHEET),
            &format!("not a number: '{v}'"),
        );
        assert_eq!(e.cell(), Some((3, 3)), "{e}");
    }
}

/// Values written with character or entity references are legal XML and
/// read resolved (`&#49;2` is 12), on the fast cell path and the general
/// one alike; a value that is still no number once resolved is an error
/// naming the cell and the raw text.
#[test]
fn values_with_character_references_read_resolved() {
    let rows = concat!(
        r#"<row r="1"><c r="A1"><v>&#49;2</v></c><c t="n" r="B1" s="0"><v>&#x33;.5</v></c>"#,
        r#"<c r="C1" t="b"><v>&#49;</v></c><c r="D1" t="e"><v>#N&#47;A</v></c>"#,
        r#"<c r="E1" t="d"><v>2020&#45;01&#45;02</v></c></row>"#,
    );
    let wb = rows_ok(rows);
    let got: Vec<String> = cells(&wb).into_iter().map(|c| c.2).collect();
    assert_eq!(
        &got[..4],
        ["Number(12.0)", "Number(3.5)", "Bool(true)", "Error(NA)"]
    );
    assert!(
        got[4].starts_with("DateTime(ExcelDateTime { serial: 43832.0"),
        "{got:?}"
    );
    for v in ["1&amp;2", "&amp;#49;", "&#x41;"] {
        let e = rows_err(&format!(r#"<row r="4"><c r="D4"><v>{v}</v></c></row>"#));
        check(&e, ErrorKind::Malformed, Some(SHEET), "not a number");
        assert_eq!(e.cell(), Some((3, 3)), "{e}");
    }
}

#[test]

fn nan_and_infinity_are_not_numbers() {
    for v in ["NaN", "inf", "-infinity", "1e999"] {
        let e = rows_err(&format!(r#"<row r="1"><c r="A1"><v>{v}</v></c></row>"#));
        assert_eq!(e.kind(), ErrorKind::Malformed, "{v}: {e}");
    }
}

#[test]
fn bad_boolean() {
    for v in ["2", "yes", "TRUE1"] {
        let e = rows_err(&format!(
            r#"<row r="1"><c r="B1" t="b"><v>{v}</v></c></row>"#
        ));
        check(
            &e,
            ErrorKind::Malformed,
            Some(SHEET),
            &format!("bad boolean '{v}'"),
        );
        assert_eq!(e.cell(), Some((0, 1)), "{e}");
    }
}

#[test]
fn garbage_attributes_that_are_ignored() {
    let wb = rows_ok(
        r#"<row r="1" spans="x:y" ht="-5"><c r="A1" s="99999999999"><v>1</v></c><c r="B1" s="-1" t="e"><v>#BOGUS!</v></c><c r="C1" t="bogus"><v>3</v></c></row>"#,
    );
    let s = wb.sheet(0).unwrap();
    assert_eq!(s.get(0, 0).unwrap().value, Value::Number(1.0));
    assert_eq!(s.get(0, 1).unwrap().value.type_name(), "error");
    assert_eq!(s.get(0, 2).unwrap().value, Value::Number(3.0));
}

#[test]

fn garbage_iso_date_is_an_error() {
    for v in [
        "not-a-date",
        "99999-99-99",
        "2024-02-30",
        "2024-01-01T25:61:61",
    ] {
        let e = rows_err(&format!(
            r#"<row r="1"><c r="C1" t="d"><v>{v}</v></c></row>"#
        ));
        assert_eq!(
            (e.kind(), e.cell()),
            (ErrorKind::Malformed, Some((0, 2))),
            "{v}: {e}"
        );
    }
}

#[test]

fn shared_formula_expansion_is_bounded() {
    // One 8 KB master expanded into 2,000 cells would store 16 MB of
    // formula text from 140 KB of XML: max_formula_bytes bounds it.
    let master = format!("{}A1", "1+".repeat(4_000));
    let mut rows = format!(
        r#"<row r="1"><c r="B1"><f t="shared" si="0" ref="B1:B2000">{master}</f><v>1</v></c></row>"#
    );
    for r in 2..=2000 {
        rows.push_str(&format!(
            r#"<row r="{r}"><c r="B{r}"><f t="shared" si="0"/><v>1</v></c></row>"#
        ));
    }
    let xml = sheet(&rows);
    let small = limits().max_formula_bytes(1 << 20);
    let e = open_limits(minimal(&xml), small).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert!(e.to_string().contains("formula"), "{e}");
    // Under the default limit the same file opens, fully expanded.
    let wb = open(minimal(&xml)).unwrap();
    assert_eq!(
        wb.sheet(0).unwrap().get(1999, 1).unwrap().formula,
        Some(format!("{}A2000", "1+".repeat(4_000)).as_str())
    );
}

#[test]

fn many_shared_formula_masters_are_not_quadratic() {
    // 50,000 masters (distinct si), then 50,000 children of the first one.
    let n = 50_000;
    let mut rows = String::new();
    for r in 1..=n {
        rows.push_str(&format!(
            r#"<row r="{r}"><c r="A{r}"><f t="shared" si="{r}" ref="A{r}">1</f><v>1</v></c></row>"#
        ));
    }
    for r in n + 1..=2 * n {
        rows.push_str(&format!(
            r#"<row r="{r}"><c r="A{r}"><f t="shared" si="1"/><v>1</v></c></row>"#
        ));
    }
    let bytes = minimal(&sheet(&rows));
    let t = std::time::Instant::now();
    assert_eq!(open(bytes).unwrap().sheet(0).unwrap().cell_count(), 100_000);
    assert!(t.elapsed().as_secs() < 10, "took {:?}", t.elapsed());
}

// ---------------------------------------------------------- small parts

const SHEET_RELS: &str = "xl/worksheets/_rels/sheet1.xml.rels";

fn sheet_rels(kind: &str, target: &str) -> String {
    format!(
        r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/{kind}" Target="{target}"/></Relationships>"#
    )
}

#[test]
fn broken_comments_part_is_a_warning() {
    let xml = sheet(r#"<row r="1"><c r="A1"><v>1</v></c><c r="B1"><v>2</v></c></row>"#);
    for garbage in [
        "<comments><commentList><comment ref=\"A1\"><text><t>oops</comment>",
        "\0\u{1}<<<>>>",
    ] {
        let zip = Zip::minimal(&xml, None)
            .set(SHEET_RELS, sheet_rels("comments", "../comments1.xml"))
            .set("xl/comments1.xml", garbage);
        let wb = open(zip.build()).unwrap();
        assert_eq!(wb.sheet(0).unwrap().cell_count(), 2);
        assert!(wb.sheet(0).unwrap().comments().is_empty());
        let w: Vec<_> = wb.warnings().iter().map(|w| (w.kind(), w.part())).collect();
        assert_eq!(
            w,
            [(ErrorKind::Malformed, Some("xl/comments1.xml"))],
            "{garbage:?}"
        );
    }
}

#[test]
fn broken_table_part_is_a_warning() {
    let xml = r#"<worksheet xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData><tableParts count="1"><tablePart r:id="rId1"/></tableParts></worksheet>"#;
    let zip = Zip::minimal(xml, None)
        .set(SHEET_RELS, sheet_rels("table", "../tables/table1.xml"))
        .set(
            "xl/tables/table1.xml",
            "<table ref=\"A1:B2\"><tableColumns><tableColumn name=\"a\"></table>",
        );
    let wb = open(zip.build()).unwrap();
    assert_eq!(wb.sheet(0).unwrap().cell_count(), 1);
    assert!(wb.sheet(0).unwrap().tables().is_empty());
    let w = &wb.warnings()[0];
    assert_eq!(
        (w.kind(), w.part()),
        (ErrorKind::Malformed, Some("xl/tables/table1.xml")),
        "{w}"
    );
    assert_eq!(wb.warnings().len(), 1);
}

#[test]
fn broken_small_part_with_a_dtd_or_bad_crc_is_a_warning() {
    let xml = sheet(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#);
    let dtd = format!("{}<comments/>", laughs());
    let zip = Zip::minimal(&xml, None)
        .set(SHEET_RELS, sheet_rels("comments", "../comments1.xml"))
        .set("xl/comments1.xml", dtd);
    let wb = open(zip.clone().build()).unwrap();
    assert_eq!(wb.sheet(0).unwrap().cell_count(), 1);
    assert!(
        wb.warnings()[0].message().contains("DTD"),
        "{}",
        wb.warnings()[0]
    );
    let wb = open(zip.with("xl/comments1.xml", |e| e.crc = Some(1)).build()).unwrap();
    assert_eq!(wb.sheet(0).unwrap().cell_count(), 1);
    check(
        &wb.warnings()[0],
        ErrorKind::Malformed,
        Some("xl/comments1.xml"),
        "CRC",
    );
}

#[test]
fn broken_sheet_rels_is_a_warning() {
    let xml = sheet(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#);
    let zip = Zip::minimal(&xml, None).set(SHEET_RELS, "<Relationships><Relationship Id=");
    let wb = open(zip.build()).unwrap();
    assert_eq!(wb.sheet(0).unwrap().cell_count(), 1);
    assert_eq!(
        wb.warnings()[0].part(),
        Some(SHEET_RELS),
        "{}",
        wb.warnings()[0]
    );
}

// ------------------------------------------------------------ streaming

#[test]

fn streaming_row_end_inside_a_comment() {
    // A valid sheet over the 64 MiB one-shot limit: rows separated by
    // 1 MiB of spaces, one comment holding `</row>` followed by 8 MiB of
    // spaces, so that some block ends inside the comment.
    let mut rle = Rle::new().lit(b"<worksheet><sheetData>");
    for _ in 0..66 {
        rle = rle.lit(b"<row></row>").run(b' ', 1 << 20);
    }
    rle = rle.lit(b"<!-- </row> ").run(b' ', 8 << 20).lit(b"-->");
    rle = rle.lit(br#"<row r="100"><c r="A100"><v>7</v></c></row></sheetData></worksheet>"#);
    let zip = Zip::minimal("", None)
        .remove(SHEET)
        .push(Entry::rle(SHEET, rle));
    let wb = open(zip.build()).unwrap();
    assert_eq!(
        wb.sheet(0).unwrap().get(99, 0).unwrap().value,
        Value::Number(7.0)
    );
}

// -------------------------------------------------------------- fuzzing

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    const BASE_SST: &str =
        r#"<sst><si><t>one</t></si><si><r><t>tw</t></r><r><t>o</t></r></si></sst>"#;

    const BASE_STYLES: &str = r#"<styleSheet><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd;@"/></numFmts><cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="20"/></cellXfs></styleSheet>"#;

    fn base_sheet() -> String {
        r#"<?xml version="1.0" encoding="UTF-8"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><dimension ref="A1:D3"/><cols><col min="2" max="2" hidden="1"/></cols><sheetData>
<row r="1" hidden="1"><c r="A1" t="s"><v>0</v></c><c r="B1" s="1"><v>45000.5</v></c><c r="C1" t="b"><v>1</v></c><c r="D1" t="e"><v>#N/A</v></c></row>
<row r="2"><c r="A2"><f t="shared" si="0" ref="A2:A3">B1*2</f><v>3</v></c><c r="B2" t="inlineStr"><is><r><t>in</t></r><r><t>line &amp;</t></r></is></c><c r="C2" t="str"><f>"x"</f><v>x</v></c></row>
<row r="3"><c r="A3"><f t="shared" si="0"/><v>3</v></c><c r="B3" t="s"><v>1</v></c><c r="D3" t="d"><v>2024-01-02T03:04:05</v></c></row>
</sheetData><mergeCells count="1"><mergeCell ref="A1:B1"/></mergeCells></worksheet>"#
            .to_string()
    }

    #[derive(Debug, Clone)]
    enum Op {
        Flip(usize, u8),
        Truncate(usize),
        Insert(usize, Vec<u8>),
        Delete(usize, usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Op::Flip(i, b)),
            1 => any::<usize>().prop_map(Op::Truncate),
            3 => (any::<usize>(), prop::collection::vec(
                prop_oneof![Just(b'<'), Just(b'>'), Just(b'/'), Just(b'"'), Just(b'&'), Just(b';'), any::<u8>()],
                1..8,
            )).prop_map(|(i, v)| Op::Insert(i, v)),
            2 => (any::<usize>(), 1usize..16).prop_map(|(i, n)| Op::Delete(i, n)),
        ]
    }

    fn apply(xml: &mut Vec<u8>, op: &Op) {
        let at = |i: usize, len: usize| if len == 0 { 0 } else { i % len };
        match op {
            Op::Flip(i, b) => {
                let n = xml.len();
                if n > 0 {
                    xml[at(*i, n)] ^= b | 1;
                }
            }
            Op::Truncate(i) => {
                let n = xml.len();
                xml.truncate(at(*i, n + 1));
            }
            Op::Insert(i, bytes) => {
                let k = at(*i, xml.len() + 1);
                xml.splice(k..k, bytes.iter().copied());
            }
            Op::Delete(i, n) => {
                let k = at(*i, xml.len() + 1);
                let end = (k + n).min(xml.len());
                xml.drain(k..end);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        #[test]
        fn mutated_sheet_xml_never_panics(ops in prop::collection::vec(op(), 1..6)) {
            let mut xml = base_sheet().into_bytes();
            for o in &ops {
                apply(&mut xml, o);
            }
            let zip = Zip::minimal("", Some(BASE_SST)).set(SHEET, xml);
            let small = Limits::default().max_xml_depth(32);
            match open_limits(zip.build(), small) {
                Ok(wb) => {
                    let s = wb.sheet(0).unwrap();
                    prop_assert!(s.cell_count() <= 64);
                    for c in s.cells() {
                        let _ = format!("{:?}{:?}", c.value, c.formula);
                    }
                }
                Err(e) => {
                    prop_assert_eq!(e.part(), Some(SHEET), "{}", e);
                    prop_assert!(!e.message().is_empty());
                }
            }
        }

        #[test]
        fn mutated_package_parts_never_panic(which in 0usize..5, ops in prop::collection::vec(op(), 1..6)) {
            let xml = base_sheet();
            let mut zip = Zip::minimal(&xml, Some(BASE_SST)).set("xl/styles.xml", BASE_STYLES);
            let name = ["xl/styles.xml", SST, WORKBOOK, "xl/_rels/workbook.xml.rels", "_rels/.rels"][which];
            let mut part = zip.entries.iter().find(|e| e.name == name).unwrap().data.clone();
            for o in &ops {
                apply(&mut part, o);
            }
            zip = zip.set(name, part);
            if let Err(e) = open(zip.build()) {
                prop_assert!(!e.message().is_empty());
                prop_assert!(e.part().is_some() || e.message().contains("missing workbook part"), "{}", e);
            }
        }

        #[test]
        fn mutated_zip_bytes_never_panic(ops in prop::collection::vec(op(), 1..4)) {
            let mut bytes = Zip::minimal(&base_sheet(), Some(BASE_SST)).build();
            for o in &ops {
                apply(&mut bytes, o);
            }
            if let Err(e) = open(bytes) {
                prop_assert!(!e.to_string().is_empty());
            }
        }
    }
}
