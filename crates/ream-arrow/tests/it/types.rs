//! The type rules, mixed columns, dtypes, on_error and errors_as.

use crate::common::{batch, read, xlsx};
use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, DurationMillisecondType, Float64Type, Int64Type, TimestampMillisecondType,
};
use arrow_schema::{DataType, TimeUnit};
use ream::sheet::{OpenOptions, Workbook};
use ream_arrow::{DType, ErrorsAs, OnError, ReadOptions, Warning, read_sheet};
use rust_xlsxwriter::{ExcelDateTime, Format, Formula};

fn date_fmt() -> Format {
    Format::new().set_num_format("yyyy-mm-dd")
}

#[test]
fn every_type_rule() {
    let bytes = xlsx(|ws| {
        let heads = [
            "int", "float", "bool", "text", "date", "datetime", "dur", "time", "none", "big",
        ];
        for (c, h) in heads.iter().enumerate() {
            ws.write_string(0, c as u16, *h).unwrap();
        }
        let dt = Format::new().set_num_format("yyyy-mm-dd hh:mm");
        let dur = Format::new().set_num_format("[h]:mm:ss");
        let time = Format::new().set_num_format("hh:mm:ss");
        for r in 1..=3u32 {
            let f = f64::from(r);
            ws.write_number(r, 0, f).unwrap();
            ws.write_number(r, 1, f + 0.5).unwrap();
            ws.write_boolean(r, 2, r % 2 == 0).unwrap();
            ws.write_string(r, 3, format!("t{r}")).unwrap();
            let d = ExcelDateTime::from_ymd(2024, 1, r as u8).unwrap();
            ws.write_datetime_with_format(r, 4, &d, &date_fmt())
                .unwrap();
            ws.write_number_with_format(r, 5, 45292.25 + f, &dt)
                .unwrap();
            ws.write_number_with_format(r, 6, 1.5 * f, &dur).unwrap();
            ws.write_number_with_format(r, 7, 0.25, &time).unwrap();
            ws.write_number(r, 9, 1e19 * f).unwrap();
        }
    });
    let t = read(&bytes, &ReadOptions::default());
    let b = batch(&t);
    let types: Vec<DataType> = t
        .schema
        .fields()
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    assert_eq!(
        types,
        [
            DataType::Int64,
            DataType::Float64,
            DataType::Boolean,
            DataType::Utf8,
            DataType::Date32,
            DataType::Timestamp(TimeUnit::Millisecond, None),
            DataType::Duration(TimeUnit::Millisecond),
            DataType::Duration(TimeUnit::Millisecond),
            DataType::Null,
            DataType::Float64,
        ]
    );
    assert_eq!(b.num_rows(), 3);
    assert_eq!(b.column(0).as_primitive::<Int64Type>().values(), &[1, 2, 3]);
    assert_eq!(b.column(1).as_primitive::<Float64Type>().value(0), 1.5);
    assert!(b.column(2).as_boolean().value(1));
    assert_eq!(b.column(3).as_string::<i32>().value(2), "t3");
    assert_eq!(b.column(4).as_primitive::<Date32Type>().value(0), 19723);
    let ts = b
        .column(5)
        .as_primitive::<TimestampMillisecondType>()
        .value(0);
    assert_eq!(ts, (19723 + 1) * 86_400_000 + 6 * 3_600_000);
    let dur = b
        .column(6)
        .as_primitive::<DurationMillisecondType>()
        .value(0);
    assert_eq!(dur, 36 * 3_600_000);
    let time = b
        .column(7)
        .as_primitive::<DurationMillisecondType>()
        .value(0);
    assert_eq!(time, 6 * 3_600_000);
    assert_eq!(b.column(8).logical_null_count(), 3);
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
}

#[test]
fn integers_then_one_text_keep_every_value() {
    let n = 100_000u32;
    let bytes = xlsx(|ws| {
        ws.write_string(0, 0, "n").unwrap();
        for r in 1..=n {
            ws.write_number(r, 0, f64::from(r)).unwrap();
        }
        ws.write_string(n + 1, 0, "oops").unwrap();
    });
    let t = read(&bytes, &ReadOptions::default());
    let col = batch(&t).column(0).as_string::<i32>().clone();
    assert_eq!((col.len(), col.null_count()), (n as usize + 1, 0));
    assert_eq!(col.value(0), "1");
    assert_eq!(col.value(99_999), "100000");
    assert_eq!(col.value(100_000), "oops");
    let want = Warning::MixedTypes {
        sheet: "Data".into(),
        column: "n".into(),
        cell: "A100002".into(),
        found: "string",
        kind: DType::Int64,
    };
    assert_eq!(t.warnings, std::slice::from_ref(&want));
    let shown = want.to_string();
    assert!(
        shown.contains("'Data'") && shown.contains("A100002") && shown.contains("int64"),
        "{shown}"
    );
}

#[test]
fn dates_then_one_text_keep_every_value() {
    let bytes = xlsx(|ws| {
        ws.write_string(0, 0, "when").unwrap();
        for r in 1..=3u32 {
            let d = ExcelDateTime::from_ymd(2024, 3, r as u8).unwrap();
            ws.write_datetime_with_format(r, 0, &d, &date_fmt())
                .unwrap();
        }
        ws.write_string(4, 0, "unknown").unwrap();
        ws.write_number(5, 0, 2.5).unwrap();
    });
    let t = read(&bytes, &ReadOptions::default());
    let col = batch(&t).column(0).as_string::<i32>().clone();
    let vals: Vec<&str> = col.iter().map(Option::unwrap).collect();
    assert_eq!(
        vals,
        ["2024-03-01", "2024-03-02", "2024-03-03", "unknown", "2.5"]
    );
    assert!(matches!(
        &t.warnings[..],
        [Warning::MixedTypes { cell, found: "string", kind: DType::Date, .. }] if cell == "A5"
    ));
}

fn with_bad_value() -> Vec<u8> {
    xlsx(|ws| {
        ws.write_string(0, 0, "n").unwrap();
        ws.write_number(1, 0, 1.0).unwrap();
        ws.write_string(2, 0, "x").unwrap();
        ws.write_string(3, 0, "7").unwrap();
        ws.write_number(4, 0, 2.5).unwrap();
    })
}

#[test]
fn dtypes_override_and_bad_values() {
    let bytes = with_bad_value();
    let wb = Workbook::from_bytes(bytes.clone(), &OpenOptions::new()).unwrap();
    let mut opts = ReadOptions {
        dtypes: vec![("n".into(), DType::Float64)],
        ..ReadOptions::default()
    };
    let e = read_sheet(&wb, 0, &opts).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("'Data'") && msg.contains("A3") && msg.contains("float64"),
        "{msg}"
    );
    assert_eq!((e.sheet(), e.cell()), (Some("Data"), Some((2, 0))));
    opts.on_error = OnError::Null;
    let t = read(&bytes, &opts);
    let col = batch(&t).column(0).as_primitive::<Float64Type>().clone();
    assert_eq!(
        col.iter().collect::<Vec<_>>(),
        [Some(1.0), None, Some(7.0), Some(2.5)]
    );
    assert_eq!(
        t.warnings,
        [Warning::NullsFromBadValues {
            sheet: "Data".into(),
            column: "n".into(),
            count: 1
        }]
    );
    opts.dtypes = vec![("n".into(), DType::String)];
    let t = read(&bytes, &opts);
    let col = batch(&t).column(0).as_string::<i32>().clone();
    assert_eq!(
        col.iter().collect::<Vec<_>>(),
        [Some("1"), Some("x"), Some("7"), Some("2.5")]
    );
    assert!(t.warnings.is_empty());
    opts.dtypes = vec![("n".into(), DType::Int64)];
    let t = read(&bytes, &opts);
    let col = batch(&t).column(0).as_primitive::<Int64Type>().clone();
    assert_eq!(
        col.iter().collect::<Vec<_>>(),
        [Some(1), None, Some(7), None]
    );
    assert!(matches!(
        &t.warnings[..],
        [Warning::NullsFromBadValues { count: 2, .. }]
    ));
}

#[test]
fn dtypes_naming_no_column_is_an_error() {
    let wb = Workbook::from_bytes(with_bad_value(), &OpenOptions::new()).unwrap();
    let opts = ReadOptions {
        dtypes: vec![("m".into(), DType::Int64)],
        ..ReadOptions::default()
    };
    let msg = read_sheet(&wb, 0, &opts).unwrap_err().to_string();
    assert!(
        msg.contains("'m'") && msg.contains("'Data'") && msg.contains("columns: n"),
        "{msg}"
    );
}

fn with_errors() -> Vec<u8> {
    xlsx(|ws| {
        ws.write_string(0, 0, "v").unwrap();
        ws.write_number(1, 0, 1.0).unwrap();
        ws.write_formula(2, 0, Formula::new("=NA()").set_result("#N/A"))
            .unwrap();
        ws.write_number(3, 0, 3.0).unwrap();
    })
}

#[test]
fn error_cells_become_null_with_a_warning() {
    let t = read(&with_errors(), &ReadOptions::default());
    let col = batch(&t).column(0).as_primitive::<Int64Type>().clone();
    assert_eq!(col.iter().collect::<Vec<_>>(), [Some(1), None, Some(3)]);
    assert_eq!(
        t.warnings,
        [Warning::NullsFromErrors {
            sheet: "Data".into(),
            column: "v".into(),
            count: 1
        }]
    );
}

#[test]
fn error_cells_as_text() {
    let opts = ReadOptions {
        errors_as: ErrorsAs::String,
        ..ReadOptions::default()
    };
    let t = read(&with_errors(), &opts);
    let col = batch(&t).column(0).as_string::<i32>().clone();
    assert_eq!(
        col.iter().collect::<Vec<_>>(),
        [Some("1"), Some("#N/A"), Some("3")]
    );
    assert!(matches!(
        &t.warnings[..],
        [Warning::MixedTypes { found: "error", .. }]
    ));
}
