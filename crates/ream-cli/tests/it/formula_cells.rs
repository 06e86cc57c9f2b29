//! openpyxl's formula cells without a cached value (`<f>A1*2</f><v></v>`):
//! `ream cat -f cells` prints them as empty with their formula, and
//! `ream sheets` counts them in the used range.

use super::{assert_ok, ream, stdout, temp_dir};
use serde_json::Value;
use std::path::PathBuf;

/// The corpus file, when the corpus is present.
fn openpyxl_mixed() -> Option<PathBuf> {
    let corpus = match std::env::var_os("REAM_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    let path = corpus.join("written/openpyxl/openpyxl_mixed.xlsx");
    path.is_file().then_some(path)
}

#[test]
fn cat_cells_prints_formulas_without_values() {
    let Some(file) = openpyxl_mixed() else {
        eprintln!("formula_cells: corpus not found (set REAM_CORPUS); skipped");
        return;
    };
    let dir = temp_dir("formula-cells");
    let f = file.to_str().unwrap();
    let o = ream(&["cat", f, "-s", "Formulas", "-f", "cells"], &dir);
    assert_ok(&o);
    let out = stdout(&o);
    assert!(
        out.contains(r#""row":0,"col":1,"type":"empty","value":null,"formula":"A1*2"}"#),
        "{out}"
    );
    let cells: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(cells.len(), 40);
    for (r, c) in cells.iter().filter(|c| c["col"] == 1).enumerate() {
        assert_eq!(c["row"], r as u64);
        assert_eq!(c["type"], "empty");
        assert_eq!(c["value"], Value::Null);
        assert_eq!(c["formula"], format!("A{}*2", r + 1));
    }
    // The used range takes column B in.
    let o = ream(&["sheets", f], &dir);
    assert_ok(&o);
    let line = stdout(&o)
        .lines()
        .find(|l| l.contains("Formulas"))
        .map(String::from)
        .unwrap();
    assert!(line.contains(" A1:B20 "), "{line}");
}
