//! One field vocabulary: `ream sheets`, `ream sheets --json` and the sheets
//! of a `ream batch` record name the same fields the same way.

use super::{BIN, assert_ok, stdout, temp_dir};
use rust_xlsxwriter::Workbook;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The fields, in order, of `--json`, of the table and of batch records.
const FIELDS: [&str; 13] = [
    "index",
    "name",
    "kind",
    "visibility",
    "dimensions",
    "cells",
    "comments",
    "tables",
    "merged",
    "hyperlinks",
    "drawings",
    "hidden_rows",
    "hidden_columns",
];

/// A workbook with one of each counted thing on its first sheet.
fn book(path: &Path) {
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet().set_name("Links").unwrap();
    ws.write_number(0, 0, 1.0).unwrap();
    ws.write_url(1, 1, "https://example.com/").unwrap();
    ws.merge_range(3, 0, 3, 2, "merged", &rust_xlsxwriter::Format::new())
        .unwrap();
    ws.set_row_hidden(5).unwrap();
    ws.set_column_hidden(4).unwrap();
    wb.add_worksheet().set_name("Empty").unwrap();
    wb.save(path).unwrap();
}

fn run(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("REAM_BATCH_TEST_ENGINES")
        .output()
        .unwrap()
}

#[test]
fn sheets_table_json_and_batch_share_one_vocabulary() {
    let dir = temp_dir("sheets-vocabulary");
    book(&dir.join("b.xlsx"));

    let o = run(&["sheets", "b.xlsx", "--json"], &dir);
    assert_ok(&o);
    let text = stdout(&o);
    let json: Value = serde_json::from_str(&text).unwrap();
    let first = json[0].as_object().unwrap();
    let mut keys: Vec<&str> = first.keys().map(String::as_str).collect();
    keys.sort_unstable();
    let mut want = FIELDS;
    want.sort_unstable();
    assert_eq!(keys, want);
    // In this order in the text.
    let at: Vec<usize> = FIELDS
        .iter()
        .map(|f| text.find(&format!("\"{f}\":")).unwrap())
        .collect();
    assert!(at.is_sorted(), "{text}");
    assert_eq!(first["dimensions"], "A1:B4");
    assert_eq!(first["hyperlinks"], 1);
    assert_eq!(first["merged"], 1);
    assert_eq!(first["hidden_rows"], 1);
    assert_eq!(first["hidden_columns"], 1);
    assert_eq!(json[1]["dimensions"], "");

    let o = run(&["sheets", "b.xlsx"], &dir);
    assert_ok(&o);
    let table = stdout(&o);
    let mut lines = table.lines();
    let head: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(head, FIELDS);
    let row: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        row,
        [
            "0",
            "Links",
            "worksheet",
            "visible",
            "A1:B4",
            "3",
            "0",
            "0",
            "1",
            "1",
            "0",
            "1",
            "1"
        ]
    );

    let o = run(&["batch", "b.xlsx", "-q"], &dir);
    assert_ok(&o);
    let rec: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        rec["summary"]["sheets"], json,
        "batch sheets = sheets --json"
    );
}
