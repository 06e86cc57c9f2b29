//! Headers, column selection and the row window.

use crate::common::{batch, no_header, read, xlsx};
use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use ream::sheet::{OpenOptions, Workbook};
use ream_arrow::{ColumnSel, ReadOptions, parse_columns, read_sheet};

fn names(t: &ream_arrow::Table) -> Vec<String> {
    t.schema.fields().iter().map(|f| f.name().clone()).collect()
}

/// Header `a, a, (empty), b, a_1` over rows 10*r + c.
fn grid() -> Vec<u8> {
    xlsx(|ws| {
        for (c, h) in ["a", "a", "", "b", "a_1"].iter().enumerate() {
            if !h.is_empty() {
                ws.write_string(0, c as u16, *h).unwrap();
            }
        }
        for r in 1..=4u32 {
            for c in 0..5u16 {
                ws.write_number(r, c, f64::from(10 * r + u32::from(c)))
                    .unwrap();
            }
        }
    })
}

#[test]
fn header_duplicates_and_empty_names() {
    let t = read(&grid(), &ReadOptions::default());
    assert_eq!(names(&t), ["a", "a_1", "__UNNAMED__2", "b", "a_1_1"]);
    let t = read(&grid(), &no_header());
    assert_eq!(
        names(&t),
        ["column_0", "column_1", "column_2", "column_3", "column_4"]
    );
    assert_eq!(batch(&t).num_rows(), 5);
    assert_eq!(batch(&t).column(0).as_string::<i32>().value(0), "a");
}

#[test]
fn columns_by_name_index_and_letters() {
    let opts = ReadOptions {
        columns: Some(vec![ColumnSel::Name("b".into()), ColumnSel::Index(0)]),
        ..ReadOptions::default()
    };
    let t = read(&grid(), &opts);
    assert_eq!(names(&t), ["b", "a"]);
    let b = batch(&t);
    assert_eq!(
        b.column(0).as_primitive::<Int64Type>().values(),
        &[13, 23, 33, 43]
    );
    let opts = ReadOptions {
        columns: Some(parse_columns("B:C,E").unwrap()),
        ..ReadOptions::default()
    };
    assert_eq!(
        names(&read(&grid(), &opts)),
        ["a_1", "__UNNAMED__2", "a_1_1"]
    );
    let opts = ReadOptions {
        columns: Some(vec![ColumnSel::Index(7)]),
        ..ReadOptions::default()
    };
    let t = read(&grid(), &opts);
    assert_eq!(names(&t), ["__UNNAMED__7"]);
    assert_eq!(batch(&t).column(0).logical_null_count(), 4);
}

#[test]
fn bad_selections_are_errors() {
    let wb = Workbook::from_bytes(grid(), &OpenOptions::new()).unwrap();
    let opts = ReadOptions {
        columns: Some(vec![ColumnSel::Name("zz".into())]),
        ..ReadOptions::default()
    };
    let msg = read_sheet(&wb, 0, &opts).unwrap_err().to_string();
    assert!(
        msg.contains("no column named 'zz' in sheet 'Data'"),
        "{msg}"
    );
    let opts = ReadOptions {
        columns: Some(vec![ColumnSel::Index(1), ColumnSel::Name("a_1".into())]),
        ..ReadOptions::default()
    };
    let msg = read_sheet(&wb, 0, &opts).unwrap_err().to_string();
    assert!(
        msg.contains("column B of sheet 'Data' is selected twice"),
        "{msg}"
    );
    let msg = read_sheet(&wb, 3, &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(msg.contains("no sheet 3"), "{msg}");
}

#[test]
fn skip_rows_and_n_rows() {
    let opts = ReadOptions {
        skip_rows: 1,
        n_rows: Some(2),
        ..ReadOptions::default()
    };
    let t = read(&grid(), &opts);
    let b = batch(&t);
    assert_eq!(b.column(0).as_primitive::<Int64Type>().values(), &[20, 30]);
    let opts = ReadOptions {
        header_row: Some(2),
        ..ReadOptions::default()
    };
    let t = read(&grid(), &opts);
    assert_eq!(names(&t)[0], "20");
    assert_eq!(batch(&t).num_rows(), 2);
}

#[test]
fn empty_rows_inside_are_null_rows() {
    let bytes = xlsx(|ws| {
        ws.write_number(0, 0, 1.0).unwrap();
        ws.write_number(3, 1, 2.0).unwrap();
    });
    let t = read(&bytes, &no_header());
    let b = batch(&t);
    assert_eq!(b.num_rows(), 4);
    let a = b.column(0).as_primitive::<Int64Type>();
    assert_eq!(a.iter().collect::<Vec<_>>(), [Some(1), None, None, None]);
    let t = read(&xlsx(|_| {}), &no_header());
    assert_eq!((batch(&t).num_rows(), t.schema.fields().len()), (0, 0));
}
