//! Every xlsx and ods file of the third-party corpus that ream opens
//! converts without error, loaded and streamed alike, and keeps every
//! value: with no header and error cells as text, the non-null values
//! (not counting empty strings) are exactly the non-empty cells.

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use ream::sheet::{OpenOptions, Value, Workbook};
use ream_arrow::{ErrorsAs, ReadOptions, read_sheet};
use std::path::{Path, PathBuf};

/// Non-null values of a batch, empty strings not counted.
fn values(b: &RecordBatch) -> usize {
    b.columns()
        .iter()
        .map(|c| match c.data_type() {
            DataType::Utf8 => c
                .as_string::<i32>()
                .iter()
                .flatten()
                .filter(|s| !s.is_empty())
                .count(),
            _ => c.len() - c.logical_null_count(),
        })
        .sum()
}

fn corpus_files() -> Option<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    let corpus = std::env::var_os("REAM_CORPUS").map_or(root, PathBuf::from);
    let mut files = Vec::new();
    for dir in ["xlsx", "ods"] {
        let Ok(rd) = std::fs::read_dir(corpus.join(dir)) else {
            continue;
        };
        files.extend(rd.flatten().map(|e| e.path()).filter(|p| p.is_file()));
    }
    files.sort();
    (!files.is_empty()).then_some(files)
}

#[test]
fn corpus_keeps_every_value() {
    let Some(files) = corpus_files() else {
        println!("ream-arrow smoke: no corpus (set REAM_CORPUS); skipped");
        return;
    };
    let opts = ReadOptions {
        header_row: None,
        errors_as: ErrorsAs::String,
        ..ReadOptions::default()
    };
    let (mut sheets, mut failures) = (0, Vec::new());
    for path in &files {
        let Ok(wb) = Workbook::open(path, &OpenOptions::new()) else {
            continue;
        };
        let streamed = Workbook::open(path, &OpenOptions::new().load_cells(false)).ok();
        for (i, sheet) in wb.sheets().iter().enumerate() {
            sheets += 1;
            let where_ = format!("{} sheet {i}", path.display());
            let t = match read_sheet(&wb, i, &opts) {
                Ok(t) => t,
                Err(e) => {
                    failures.push(format!("{where_}: {e}"));
                    continue;
                }
            };
            let cells = sheet
                .cells()
                .filter(|c| !matches!(c.value, Value::Empty | Value::String("")))
                .count();
            let got: usize = t.batches.iter().map(values).sum();
            if got != cells {
                failures.push(format!("{where_}: {got} values for {cells} cells"));
            }
            // A sheet that streams must give the same table.
            if let Some(s) = &streamed
                && let Ok(st) = read_sheet(s, i, &opts)
                && (st.schema != t.schema || st.batches != t.batches)
            {
                failures.push(format!("{where_}: streamed read differs"));
            }
        }
    }
    println!("ream-arrow smoke: {} files, {sheets} sheets", files.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
