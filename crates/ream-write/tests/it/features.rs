//! Sheet and workbook features: widths, frozen header, autofilter,
//! visibility, defined names, 1904 dates.

use crate::util::{open, part};
use ream_sheet::Visibility;
use ream_write::{CellRange, Value, WorkbookWriter, WriteOptions};

#[test]
fn features_land_in_the_package() {
    let mut wb = WorkbookWriter::new(WriteOptions {
        date_1904: true,
        ..WriteOptions::default()
    });
    let mut a = wb.add_sheet("Data & more").unwrap();
    a.set_autofit(true);
    let mut b = wb.add_sheet("Secret").unwrap();
    wb.define_name("Totals", "='Data & more'!$B$2:$B$3", None, false)
        .unwrap();
    wb.define_name("Local", "Secret!$A$1", Some(1), true)
        .unwrap();
    a.append_row(&[Value::String("name"), Value::String("amount")])
        .unwrap();
    a.append_row(&[Value::String("a long piece of text"), Value::Number(1.0)])
        .unwrap();
    a.append_row(&[Value::String("b"), Value::Number(2.0)])
        .unwrap();
    a.freeze_rows(1).unwrap();
    a.autofilter_used_range();
    a.set_column_width(1, 1, 20.5).unwrap();
    a.finish().unwrap();
    b.set_visibility(Visibility::Hidden);
    b.set_autofilter(CellRange::parse("A1:C1").unwrap());
    b.finish().unwrap();
    let mut out = Vec::new();
    wb.save(&mut out).unwrap();

    let ws = part(&out, "xl/worksheets/sheet1.xml");
    assert!(ws.contains("<dimension ref=\"A1:B3\"/>"), "{ws}");
    assert!(ws.contains("ySplit=\"1\"") && ws.contains("state=\"frozen\""));
    assert!(ws.contains("<autoFilter ref=\"A1:B3\"/>"));
    assert!(ws.contains("<col min=\"1\" max=\"1\" width=\"24\""), "{ws}");
    assert!(
        ws.contains("<col min=\"2\" max=\"2\" width=\"20.5\""),
        "{ws}"
    );
    let book = part(&out, "xl/workbook.xml");
    assert!(book.contains("date1904=\"1\""));
    assert!(book.contains("name=\"Data &amp; more\""));

    let wb = open(out);
    assert!(wb.is_1904());
    assert_eq!(wb.sheets()[1].visibility(), Visibility::Hidden);
    let names: Vec<_> = wb
        .defined_names()
        .iter()
        .map(|d| (d.name.as_str(), d.formula.as_str(), d.local_sheet, d.hidden))
        .collect();
    assert!(names.contains(&("Totals", "'Data & more'!$B$2:$B$3", None, false)));
    assert!(names.contains(&("Local", "Secret!$A$1", Some(1), true)));
    assert!(names.contains(&(
        "_xlnm._FilterDatabase",
        "'Data & more'!$A$1:$B$3",
        Some(0),
        true
    )));
    let dim = wb.sheets()[0].declared_dimension();
    assert_eq!(dim, CellRange::parse("A1:B3"));
}

#[test]
fn empty_sheet_and_zip64_free_small_file() {
    let mut wb = WorkbookWriter::new(WriteOptions::default());
    wb.add_sheet("Empty").unwrap().finish().unwrap();
    let mut out = Vec::new();
    let n = wb.save(&mut out).unwrap();
    assert_eq!(n, out.len() as u64);
    let ws = part(&out, "xl/worksheets/sheet1.xml");
    assert!(ws.contains("<dimension ref=\"A1\"/>") && ws.contains("<sheetData></sheetData>"));
    let wb = open(out);
    assert_eq!(wb.sheets()[0].cells().count(), 0);
}
