//! Workbooks written with rust_xlsxwriter, read back and checked cell by cell.

use ream_sheet::{CellError, OpenOptions, Value, Workbook};
use rust_xlsxwriter::{ExcelDateTime, Format, Formula, Workbook as XWorkbook};

/// A small workbook exercising every cell type.
pub fn typed_workbook() -> Vec<u8> {
    let mut wb = XWorkbook::new();
    let date = Format::new().set_num_format("yyyy-mm-dd");
    let time = Format::new().set_num_format("hh:mm:ss");
    let dur = Format::new().set_num_format("[h]:mm:ss");
    let ws = wb.add_worksheet();
    ws.set_name("Typed").unwrap();
    ws.write_number(0, 0, 1.5).unwrap();
    ws.write_string(0, 1, "shared & <escaped>").unwrap();
    ws.write_boolean(0, 2, true).unwrap();
    ws.write_formula(0, 3, Formula::new("=1/0").set_result("#DIV/0!"))
        .unwrap();
    let d = ExcelDateTime::from_ymd(2024, 2, 29).unwrap();
    ws.write_datetime_with_format(1, 0, &d, &date).unwrap();
    ws.write_number_with_format(1, 1, 0.75, &time).unwrap();
    ws.write_number_with_format(1, 2, 1.5, &dur).unwrap();
    ws.write_formula(2, 0, Formula::new("=A1*2").set_result("3"))
        .unwrap();
    ws.write_string(3, 5, "far").unwrap();
    ws.write_number(4, 0, -42.0).unwrap();
    let ws2 = wb.add_worksheet();
    ws2.set_name("Second").unwrap();
    ws2.set_hidden(true);
    for r in 0..50u32 {
        ws2.write_number(r, 0, f64::from(r)).unwrap();
        ws2.write_string(r, 1, format!("row {r}")).unwrap();
    }
    wb.save_to_buffer().unwrap()
}

#[test]
fn reads_every_type() {
    let wb = Workbook::from_bytes(typed_workbook(), &OpenOptions::new()).unwrap();
    assert_eq!(wb.sheets().len(), 2);
    let s = wb.sheet_by_name("Typed").unwrap();
    assert_eq!(s.get(0, 0).unwrap().value, Value::Number(1.5));
    assert_eq!(
        s.get(0, 1).unwrap().value,
        Value::String("shared & <escaped>")
    );
    assert_eq!(s.get(0, 2).unwrap().value, Value::Bool(true));
    let err = s.get(0, 3).unwrap();
    assert_eq!(err.value, Value::Error(CellError::Div0));
    assert_eq!(err.formula, Some("1/0"));
    let Value::DateTime(d) = s.get(1, 0).unwrap().value else {
        panic!("not a date")
    };
    assert_eq!(d.to_iso(), "2024-02-29");
    assert_eq!(s.get(1, 1).unwrap().value.type_name(), "time");
    assert_eq!(s.get(1, 2).unwrap().value.type_name(), "duration");
    let f = s.get(2, 0).unwrap();
    assert_eq!(f.value, Value::Number(3.0));
    assert_eq!(f.formula, Some("A1*2"));
    assert_eq!(s.get(3, 5).unwrap().value, Value::String("far"));
    assert_eq!(s.get(4, 0).unwrap().value, Value::Number(-42.0));
    assert_eq!(s.cell_count(), 10);
    let second = wb.sheet(1).unwrap();
    assert_eq!(second.visibility(), ream_sheet::Visibility::Hidden);
    assert_eq!(second.cell_count(), 100);
    assert_eq!(second.get(49, 1).unwrap().value, Value::String("row 49"));
}
