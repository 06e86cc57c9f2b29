//! Limits and bad calls: clear errors naming the sheet and cell, the
//! sheet still usable after a refused row.

use ream_write::{Cell, ErrorKind, Value, WorkbookWriter, WriteOptions};

fn sheet() -> (WorkbookWriter, ream_write::SheetWriter) {
    let mut wb = WorkbookWriter::new(WriteOptions::default());
    let s = wb.add_sheet("Data").unwrap();
    (wb, s)
}

#[test]
fn grid_limits_name_the_cell() {
    let (_wb, mut s) = sheet();
    let e = s
        .write_row(1_048_576, &[Cell::new(0, Value::Number(1.0))])
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    assert!(e.to_string().contains("sheet \"Data\""), "{e}");
    assert!(e.to_string().contains("A1048577"), "{e}");
    let e = s
        .write_row(3, &[Cell::new(16_384, Value::Bool(true))])
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    assert!(e.to_string().contains("XFE4"), "{e}");
    // The last row and column are fine.
    s.write_row(1_048_575, &[Cell::new(16_383, Value::Number(1.0))])
        .unwrap();
}

#[test]
fn long_text_and_formula_are_refused() {
    let (_wb, mut s) = sheet();
    let long = "x".repeat(32_768);
    let e = s
        .write_row(0, &[Cell::new(2, Value::String(&long))])
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    assert!(
        e.to_string().contains("C1") && e.to_string().contains("32768"),
        "{e}"
    );
    let ok = "x".repeat(32_767);
    s.write_row(0, &[Cell::new(2, Value::String(&ok))]).unwrap();
    let f = "1+".repeat(5000);
    let e = s
        .write_row(1, &[Cell::formula(0, &f, Value::Number(0.0))])
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
}

#[test]
fn order_and_numbers_are_checked() {
    let (wb, mut s) = sheet();
    s.write_row(5, &[Cell::new(0, Value::Number(1.0))]).unwrap();
    let e = s
        .write_row(5, &[Cell::new(0, Value::Number(1.0))])
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Usage);
    let e = s
        .write_row(
            6,
            &[
                Cell::new(3, Value::Number(1.0)),
                Cell::new(1, Value::Number(2.0)),
            ],
        )
        .unwrap_err();
    assert!(e.to_string().contains("B7"), "{e}");
    let e = s
        .write_row(6, &[Cell::new(0, Value::Number(f64::NAN))])
        .unwrap_err();
    assert!(
        e.to_string().contains("A7") && e.to_string().contains("NaN"),
        "{e}"
    );
    // A refused row leaves nothing: row 6 can still be written.
    s.write_row(6, &[Cell::new(0, Value::Number(2.0))]).unwrap();
    s.finish().unwrap();
    let mut out = Vec::new();
    wb.save(&mut out).unwrap();
    let book = crate::util::open(out);
    let cells: Vec<_> = book.sheets()[0].cells().map(|c| (c.row, c.col)).collect();
    assert_eq!(cells, vec![(5, 0), (6, 0)]);
}

#[test]
fn workbook_level_mistakes() {
    let wb = WorkbookWriter::new(WriteOptions::default());
    assert_eq!(wb.save(Vec::new()).unwrap_err().kind(), ErrorKind::Usage);
    let mut wb = WorkbookWriter::new(WriteOptions::default());
    let _s = wb.add_sheet("A").unwrap();
    assert!(wb.add_sheet("a").is_err());
    assert!(wb.add_sheet("bad:name").is_err());
    assert!(wb.define_name("X", "A!$A$1", Some(3), false).is_err());
    assert!(wb.define_name("B2", "A!$A$1", None, false).is_err());
    let e = wb.save(Vec::new()).unwrap_err();
    assert!(e.to_string().contains("still alive"), "{e}");

    let mut wb = WorkbookWriter::new(WriteOptions::default());
    let s = wb.add_sheet("Only").unwrap();
    drop(s);
    let e = wb.save(Vec::new()).unwrap_err();
    assert!(
        e.to_string().contains("not finished") && e.to_string().contains("Only"),
        "{e}"
    );

    let mut wb = WorkbookWriter::new(WriteOptions::default());
    let mut s = wb.add_sheet("Hidden").unwrap();
    s.set_visibility(ream_write::Visibility::Hidden);
    s.finish().unwrap();
    let e = wb.save(Vec::new()).unwrap_err();
    assert!(e.to_string().contains("visible"), "{e}");
}

#[test]
fn a_failing_sheet_stops_write_parallel() {
    let mut wb = WorkbookWriter::new(WriteOptions::default());
    let sheets = (0..4)
        .map(|i| wb.add_sheet(&format!("S{i}")).unwrap())
        .collect();
    let e = ream_write::write_parallel(sheets, 2, |s| {
        if s.index() == 1 {
            s.write_row(0, &[Cell::new(20_000, Value::Number(1.0))])?;
        }
        Ok(())
    })
    .unwrap_err();
    assert!(e.to_string().contains("S1"), "{e}");
}

#[test]
fn column_widths_are_checked() {
    let (_wb, mut s) = sheet();
    assert!(s.set_column_width(3, 1, 10.0).is_err());
    assert!(s.set_column_width(0, 16_384, 10.0).is_err());
    assert!(s.set_column_width(0, 0, 300.0).is_err());
    assert!(s.freeze_rows(1_048_576).is_err());
}
