//! `--format arrow` and `--format parquet` of `ream cat` and `ream agg`:
//! typed columns read back with arrow-rs's IPC and Parquet readers.

use super::{assert_ok, ream, stderr, temp_dir};
use arrow_array::{Array, Decimal128Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use rust_xlsxwriter::Workbook;
use std::path::{Path, PathBuf};

/// Sheet `T`: header `n,t`; column n holds 1..=5 then a text cell, t text.
fn typed_fixture(dir: &Path) -> PathBuf {
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet().set_name("T").unwrap();
    ws.write(0, 0, "n").unwrap();
    ws.write(0, 1, "t").unwrap();
    for r in 1..=5u32 {
        ws.write(r, 0, f64::from(r)).unwrap();
        ws.write(r, 1, format!("row {r}")).unwrap();
    }
    ws.write(6, 0, "six").unwrap();
    ws.write(6, 1, "row 6").unwrap();
    let p = dir.join("typed.xlsx");
    wb.save(&p).unwrap();
    p
}

fn read_parquet(p: &Path) -> Vec<RecordBatch> {
    let f = std::fs::File::open(p).unwrap();
    let r = ParquetRecordBatchReaderBuilder::try_new(f)
        .unwrap()
        .build()
        .unwrap();
    r.map(Result::unwrap).collect()
}

fn read_ipc(bytes: &[u8]) -> Vec<RecordBatch> {
    let r = arrow_ipc::reader::StreamReader::try_new(bytes, None).unwrap();
    r.map(Result::unwrap).collect()
}

#[test]
fn cat_parquet_and_arrow_keep_every_value_typed() {
    let dir = temp_dir("typed-cat");
    let f = typed_fixture(&dir);
    let f = f.to_str().unwrap();
    let out = dir.join("t.parquet");
    let o = ream(
        &[
            "cat",
            f,
            "--header-row",
            "0",
            "-f",
            "parquet",
            "-o",
            out.to_str().unwrap(),
        ],
        &dir,
    );
    // Column n mixes numbers and text: it becomes text, with a warning.
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("column 'n'"), "{}", stderr(&o));
    assert!(stderr(&o).contains("A7"), "{}", stderr(&o));
    let batches = read_parquet(&out);
    let b = batches.first().unwrap();
    assert_eq!(b.num_rows(), 6);
    let n = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
    assert_eq!(n.value(0), "1");
    assert_eq!(n.value(5), "six");
    assert_eq!(n.null_count(), 0);

    // Rows 1-5 only: n is int64 and nothing warns.
    let o = ream(
        &[
            "cat",
            f,
            "--header-row",
            "0",
            "--n-rows",
            "5",
            "-f",
            "arrow",
        ],
        &dir,
    );
    assert_ok(&o);
    let batches = read_ipc(&o.stdout);
    let b = batches.first().unwrap();
    assert_eq!(b.schema().field(0).name(), "n");
    let n = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
    assert_eq!(n.values().to_vec(), vec![1, 2, 3, 4, 5]);

    // No header: column_0, column_1, and row 0's text is data.
    let o = ream(&["cat", f, "-f", "arrow"], &dir);
    let batches = read_ipc(&o.stdout);
    let b = batches.first().unwrap();
    assert_eq!(b.schema().field(1).name(), "column_1");
    assert_eq!(b.num_rows(), 7);

    // One sheet only.
    let o = ream(
        &["cat", f, "-s", "all", "-f", "parquet", "-o", "x.parquet"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("write one sheet"), "{}", stderr(&o));
}

#[test]
fn agg_parquet_and_arrow_hold_exact_decimals() {
    let dir = temp_dir("typed-agg");
    let input = dir.join("v.txt");
    std::fs::write(&input, "a;0.10\na;0.25\nb;3\nb;1\nb;1\n").unwrap();
    let i = input.to_str().unwrap();
    let o = ream(&["agg", i, "-f", "arrow"], &dir);
    assert_ok(&o);
    let ipc = read_ipc(&o.stdout);
    let out = dir.join("a.parquet");
    let o = ream(&["agg", i, "-f", "parquet"], &dir);
    assert_ok(&o);
    std::fs::write(&out, &o.stdout).unwrap();
    for b in [ipc.first().unwrap(), read_parquet(&out).first().unwrap()] {
        assert_eq!(b.schema().field(1).data_type(), &DataType::UInt64);
        let mean = b
            .column(3)
            .as_any()
            .downcast_ref::<Decimal128Array>()
            .unwrap();
        // The texts of `-f csv`: 0.175 and 1.6666667, at the column's scale.
        assert_eq!(mean.value_as_string(0), "0.1750000");
        assert_eq!(mean.value_as_string(1), "1.6666667");
    }
}
