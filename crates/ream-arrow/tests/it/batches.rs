//! `iter_batches`: concatenated batches equal `read_sheet`; sampled types
//! that a later value does not fit are errors.

use crate::common::{both, no_header, xlsx};
use arrow_array::Array;
use proptest::prelude::*;
use ream_arrow::{ColumnSel, DType, ReadOptions, iter_batches, read_sheet, sheet_schema};
use rust_xlsxwriter::{ExcelDateTime, Format};

/// One generated cell.
#[derive(Debug, Clone)]
enum Gen {
    Int(i32),
    Float(f64),
    Text(String),
    Bool(bool),
    Date(u8),
}

fn gen_cell() -> impl Strategy<Value = Option<Gen>> {
    prop_oneof![
        3 => Just(None),
        3 => any::<i32>().prop_map(|i| Some(Gen::Int(i))),
        1 => (-1e6..1e6f64).prop_map(|f| Some(Gen::Float(f))),
        1 => "[a-z]{0,3}".prop_map(|s| Some(Gen::Text(s))),
        1 => any::<bool>().prop_map(|b| Some(Gen::Bool(b))),
        1 => (1u8..28).prop_map(|d| Some(Gen::Date(d))),
    ]
}

fn write(grid: &[Vec<Option<Gen>>]) -> Vec<u8> {
    let date = Format::new().set_num_format("yyyy-mm-dd");
    xlsx(|ws| {
        for (r, row) in grid.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                let (r, c) = (r as u32, c as u16);
                let res = match cell {
                    None => continue,
                    Some(Gen::Int(i)) => ws.write_number(r, c, f64::from(*i)),
                    Some(Gen::Float(f)) => ws.write_number(r, c, *f),
                    Some(Gen::Text(s)) => ws.write_string(r, c, s),
                    Some(Gen::Bool(b)) => ws.write_boolean(r, c, *b),
                    Some(Gen::Date(d)) => {
                        let d = ExcelDateTime::from_ymd(2024, 5, *d).unwrap();
                        ws.write_datetime_with_format(r, c, &d, &date)
                    }
                };
                res.unwrap();
            }
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn batches_concatenate_to_the_sheet(
        grid in prop::collection::vec(prop::collection::vec(gen_cell(), 0..5), 0..12),
        batch_rows in 1usize..6,
        header in any::<bool>(),
    ) {
        let bytes = write(&grid);
        let opts = if header { ReadOptions::default() } else { no_header() };
        for wb in both(&bytes) {
            let whole = read_sheet(&wb, 0, &opts).unwrap();
            let all = &whole.batches[0];
            let it = iter_batches(&wb, 0, &opts, batch_rows).unwrap();
            prop_assert_eq!(it.schema(), whole.schema.clone());
            let mut at = 0;
            for b in it {
                let b = b.unwrap();
                prop_assert!(b.num_rows() <= batch_rows && b.num_rows() > 0);
                prop_assert_eq!(&b, &all.slice(at, b.num_rows()));
                at += b.num_rows();
            }
            prop_assert_eq!(at, all.num_rows());
            // The schema alone (what ream.ray plans with) is the read's,
            // and a read with every column typed and selected by index
            // (what its read tasks run, with no inference pass) gives
            // the same batches.
            let (cols, warnings) = sheet_schema(&wb, 0, &opts).unwrap();
            let names: Vec<&str> = whole.schema.fields().iter().map(|f| f.name().as_str()).collect();
            prop_assert_eq!(cols.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), names);
            for ((_, t), f) in cols.iter().zip(whole.schema.fields()) {
                prop_assert_eq!(&t.arrow_type(), f.data_type());
            }
            prop_assert_eq!(warnings, whole.warnings.clone());
            if !cols.is_empty() {
                let typed = ReadOptions {
                    dtypes: cols.clone(),
                    columns: Some((0..cols.len()).map(ColumnSel::Index).collect()),
                    ..opts.clone()
                };
                let mut at = 0;
                for b in iter_batches(&wb, 0, &typed, batch_rows).unwrap() {
                    let b = b.unwrap();
                    prop_assert_eq!(&b, &all.slice(at, b.num_rows()));
                    at += b.num_rows();
                }
                prop_assert_eq!(at, all.num_rows());
            }
            if !header {
                // Never lose a value: every non-empty cell is a non-null value.
                let cells = grid.iter().flatten().filter(|c| match c {
                    Some(Gen::Text(s)) => !s.is_empty(),
                    c => c.is_some(),
                }).count();
                let values: usize = all.columns().iter().map(|c| c.len() - c.logical_null_count()).sum();
                prop_assert_eq!(values, cells);
            }
        }
    }
}

#[test]
fn a_sampled_type_that_a_later_value_breaks_is_an_error() {
    let bytes = xlsx(|ws| {
        ws.write_string(0, 0, "n").unwrap();
        for r in 1..=10u32 {
            ws.write_number(r, 0, f64::from(r)).unwrap();
        }
        ws.write_string(11, 0, "late").unwrap();
    });
    let opts = ReadOptions {
        infer_rows: Some(5),
        ..ReadOptions::default()
    };
    for wb in both(&bytes) {
        let mut it = iter_batches(&wb, 0, &opts, 4).unwrap();
        assert_eq!(it.schema().field(0).data_type(), &DType::Int64.arrow_type());
        let err = it.find_map(Result::err).unwrap();
        let msg = err.to_string();
        assert!(
            msg.contains("'Data'") && msg.contains("A12") && msg.contains("first 5 data rows"),
            "{msg}"
        );
        assert!(it.next().is_none());
    }
}

#[test]
fn covered_dtypes_skip_inference_and_still_catch_bad_values() {
    let bytes = xlsx(|ws| {
        ws.write_string(0, 0, "n").unwrap();
        ws.write_number(1, 0, 1.0).unwrap();
        ws.write_string(2, 0, "x").unwrap();
        ws.write_number(3, 1, 5.0).unwrap();
    });
    let opts = ReadOptions {
        dtypes: vec![("n".into(), DType::Int64)],
        ..ReadOptions::default()
    };
    for wb in both(&bytes) {
        let errs: Vec<String> = iter_batches(&wb, 0, &opts, 100)
            .unwrap()
            .filter_map(Result::err)
            .map(|e| e.to_string())
            .collect();
        assert_eq!(errs.len(), 1);
        assert!(
            errs[0].contains("A3") && errs[0].contains("as asked in dtypes"),
            "{errs:?}"
        );
    }
}

#[test]
fn a_cell_past_the_sampled_columns_is_an_error() {
    let bytes = xlsx(|ws| {
        ws.write_number(0, 0, 1.0).unwrap();
        ws.write_number(1, 0, 2.0).unwrap();
        ws.write_number(2, 3, 3.0).unwrap();
    });
    let opts = ReadOptions {
        infer_rows: Some(2),
        ..no_header()
    };
    for wb in both(&bytes) {
        let err = iter_batches(&wb, 0, &opts, 10)
            .unwrap()
            .find_map(Result::err)
            .unwrap();
        let msg = err.to_string();
        assert!(
            msg.contains("D3") && msg.contains("past the last column (1)"),
            "{msg}"
        );
    }
}

#[test]
fn a_selected_index_past_the_sheet_limit_is_an_error() {
    let opts = ReadOptions {
        columns: Some(vec![ream_arrow::ColumnSel::Index(20_000)]),
        ..ReadOptions::default()
    };
    let [wb, _] = both(&xlsx(|_| {}));
    let msg = read_sheet(&wb, 0, &opts).unwrap_err().to_string();
    assert!(
        msg.contains("column index 20000 is past the last column"),
        "{msg}"
    );
}
