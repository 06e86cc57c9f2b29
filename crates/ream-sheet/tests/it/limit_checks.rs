//! Limits from the review in LIMITS.md ("All limits at a glance") that had
//! no test exceeding them: each test here crosses one and checks the error.

use crate::zipkit::{Entry, Zip, minimal};
use ream_sheet::{ErrorKind, Limits, OpenOptions, Workbook};

const ODS_MIME: &str = "application/vnd.oasis.opendocument.spreadsheet";

/// An ODS package whose `office:spreadsheet` holds `body`.
fn ods(body: &str) -> Vec<u8> {
    let content = ods_content(body);
    let mut mime = Entry::new("mimetype", ODS_MIME);
    mime.stored = true;
    Zip { entries: vec![] }
        .push(mime)
        .push(Entry::new("content.xml", content))
        .build()
}

/// `content.xml` of a spreadsheet whose `office:spreadsheet` holds `body`.
fn ods_content(body: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" office:version="1.3"><office:body><office:spreadsheet>{body}</office:spreadsheet></office:body></office:document-content>"#
    )
}

fn open_err(bytes: Vec<u8>, limits: Limits) -> ream_sheet::Error {
    Workbook::from_bytes(bytes, &OpenOptions::new().limits(limits)).unwrap_err()
}

#[test]
fn defaults_are_documented_values() {
    let l = Limits::default();
    assert_eq!(l.max_inflated_bytes, 16 << 30);
    assert_eq!(l.max_inflate_ratio, 1_000);
    assert_eq!(l.max_cells_per_sheet, 400_000_000);
    assert_eq!(l.max_string_chars, 16 << 20);
    assert_eq!(l.max_xml_depth, 256);
    assert_eq!(l.max_zip_entries, 100_000);
    assert_eq!(l.max_formula_bytes, 1 << 30);
    let o = OpenOptions::default();
    assert_eq!((o.parallel, o.threads, o.load_cells), (true, 0, true));
    assert_eq!(o.map_mode, ream_sheet::MapMode::Map);
    assert_eq!(o.sheets_needed, None);
    assert_eq!(o.sheet_needed_named, None);
    assert_eq!(o.cells_of, None);
    // One builder method per limit.
    let b = Limits::default()
        .max_inflated_bytes(1)
        .max_inflate_ratio(2)
        .max_cells_per_sheet(3)
        .max_string_chars(4)
        .max_xml_depth(5)
        .max_zip_entries(6)
        .max_formula_bytes(7);
    let got = (
        b.max_inflated_bytes,
        b.max_inflate_ratio,
        b.max_cells_per_sheet,
        b.max_string_chars,
        b.max_xml_depth,
        b.max_zip_entries,
        b.max_formula_bytes,
    );
    assert_eq!(got, (1, 2, 3, 4, 5, 6, 7));
}

#[test]
fn ods_more_than_65536_tables_is_a_limit_error() {
    let body = r#"<table:table table:name="t"/>"#.repeat(65_537);
    let e = open_err(ods(&body), Limits::default());
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert_eq!(e.part(), Some("content.xml"));
    assert!(
        e.to_string()
            .contains("content.xml holds more than 65536 tables"),
        "{e}"
    );
    let at = ods_content("").find("</office:spreadsheet>").unwrap() + body.len() / 65_537 * 65_536;
    assert_eq!(e.offset(), Some(at as u64), "{e}");
    // 65,536 empty tables are fine.
    let body = r#"<table:table table:name="t"/>"#.repeat(65_536);
    let wb = Workbook::from_bytes(ods(&body), &OpenOptions::new()).unwrap();
    assert_eq!(wb.sheets().len(), 65_536);
}

#[test]
fn ods_string_longer_than_max_string_chars() {
    let cell = |n: usize| {
        format!(
            r#"<table:table table:name="S"><table:table-row><table:table-cell office:value-type="string"><text:p>{}</text:p></table:table-cell></table:table-row></table:table>"#,
            "é".repeat(n)
        )
    };
    let limits = Limits::default().max_string_chars(100);
    let wb = Workbook::from_bytes(ods(&cell(100)), &OpenOptions::new().limits(limits)).unwrap();
    assert_eq!(wb.sheets()[0].cell_count(), 1);
    let e = open_err(ods(&cell(101)), limits);
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert_eq!((e.sheet(), e.cell()), (Some("S"), Some((0, 0))));
    assert!(
        e.to_string()
            .contains("101 characters exceeds the limit of 100"),
        "{e}"
    );
    // The default (16 Mi characters), reached with repeated spaces.
    let spaces = |n: usize| {
        format!(
            r#"<table:table table:name="S"><table:table-row><table:table-cell office:value-type="string"><text:p><text:s text:c="{n}"/>x</text:p></table:table-cell></table:table-row></table:table>"#
        )
    };
    let max = Limits::default().max_string_chars;
    let wb = Workbook::from_bytes(ods(&spaces(max - 1)), &OpenOptions::new()).unwrap();
    match wb.sheets()[0].get(0, 0).unwrap().value {
        ream_sheet::Value::String(s) => assert_eq!(s.len(), max),
        other => panic!("{other:?}"),
    }
    let e = open_err(ods(&spaces(max)), Limits::default());
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert_eq!((e.sheet(), e.cell()), (Some("S"), Some((0, 0))));
}

#[test]
fn ods_formula_text_over_max_formula_bytes() {
    let row = r#"<table:table-row table:number-rows-repeated="1"><table:table-cell table:formula="of:=[.A2]+[.B2]" office:value-type="float" office:value="1"/></table:table-row>"#;
    let body = format!(
        r#"<table:table table:name="F">{}</table:table>"#,
        row.repeat(20)
    );
    let limits = Limits::default().max_formula_bytes(100);
    let e = open_err(ods(&body), limits);
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert_eq!(e.sheet(), Some("F"));
    assert!(
        e.to_string()
            .contains("more than 100 bytes of formula text"),
        "{e}"
    );
}

#[test]
fn shared_formula_index_past_the_fixed_bound() {
    // Masters live in a vector indexed by `si`; 1,048,576 is the largest
    // index accepted, so a tiny file cannot make it allocate gigabytes.
    let sheet = |si: u64| {
        crate::zipkit::sheet(&format!(
            r#"<row r="1"><c r="A1"><f t="shared" ref="A1:A2" si="{si}">B1+1</f><v>1</v></c></row>"#
        ))
    };
    let wb = Workbook::from_bytes(minimal(&sheet(1 << 20)), &OpenOptions::new()).unwrap();
    assert_eq!(wb.sheets()[0].cells().next().unwrap().formula, Some("B1+1"));
    let e = open_err(minimal(&sheet((1 << 20) + 1)), Limits::default());
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert!(
        e.to_string()
            .contains("shared formula index 1048577 exceeds 1048576"),
        "{e}"
    );
}
