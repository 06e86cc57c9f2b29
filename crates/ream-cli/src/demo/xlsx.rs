//! The XLSX engine's demo: a workbook written with rust_xlsxwriter, read
//! back serially and in parallel.

use super::{DemoResult, thousands};
use crate::meter::{Meter, mib, touch_cells};
use anyhow::{Context, Result};
use ream::sheet::{OpenOptions, Workbook};
use rust_xlsxwriter::{
    DocProperties, ExcelDateTime, Format, Formula, Note, Table, TableColumn, XlsxError,
};
use serde_json::{Value as Json, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// Data sheets, rows per data sheet (plus a header row), as in the
/// articles' benchmark (8 sheets x 5,000 rows x 4 columns).
const DATA_SHEETS: usize = 8;
const DATA_ROWS: u32 = 5_000;
/// Serial 2024-01-01 in the 1900 date system.
const JAN_1_2024: f64 = 45_292.0;
const CATEGORIES: [&str; 5] = ["north", "south", "east", "west", "central"];
/// Opens timed per mode; the fastest is reported.
const REPEATS: usize = if cfg!(debug_assertions) { 1 } else { 3 };

/// Writes the sample workbook to `path`.
pub fn write_sample(path: &Path) -> Result<(), XlsxError> {
    let mut wb = rust_xlsxwriter::Workbook::new();
    let created = ExcelDateTime::from_ymd(2024, 1, 1)?;
    wb.set_properties(&DocProperties::new().set_creation_datetime(&created));
    let date = Format::new().set_num_format("yyyy-mm-dd");
    for n in 1..=DATA_SHEETS {
        let ws = wb.add_worksheet();
        ws.set_name(format!("Data{n}"))?;
        ws.write_row(0, 0, ["id", "amount", "category", "date"])?;
        for r in 1..=DATA_ROWS {
            let i = r + (n as u32) * DATA_ROWS;
            ws.write_number(r, 0, f64::from(r))?;
            ws.write_number(r, 1, f64::from((i * 7_919) % 100_000) / 100.0)?;
            let cat = CATEGORIES.get(i as usize % CATEGORIES.len()).unwrap_or(&"");
            ws.write_string(r, 2, *cat)?;
            ws.write_number_with_format(r, 3, JAN_1_2024 + f64::from(r % 366), &date)?;
        }
    }
    write_formulas(wb.add_worksheet())?;
    write_table(wb.add_worksheet())?;
    let hidden = wb.add_worksheet();
    hidden.set_name("Hidden")?.set_hidden(true);
    hidden.write_string(0, 0, "you found the hidden sheet")?;
    hidden.write_number(1, 0, 42.0)?;
    wb.save(path)
}

fn write_formulas(ws: &mut rust_xlsxwriter::Worksheet) -> Result<(), XlsxError> {
    ws.set_name("Formulas")?;
    ws.write_number(0, 0, 2.0)?;
    ws.insert_note(0, 0, &Note::new("Inputs are in A1:A2").set_author("ream"))?;
    ws.write_number(1, 0, 3.0)?;
    ws.write_formula(0, 1, Formula::new("=A1+A2").set_result("5"))?;
    ws.write_formula(1, 1, Formula::new("=A1/0").set_result("#DIV/0!"))?;
    ws.write_string(2, 0, "a, \"quoted\" text")?;
    ws.write_formula(2, 1, Formula::new("=\"a\"&\"b\"").set_result("ab"))?;
    ws.write_boolean(3, 0, true)?;
    ws.write_formula(3, 1, Formula::new("=A1>A2").set_result("FALSE"))?;
    ws.write_number_with_format(4, 0, 0.5, &Format::new().set_num_format("hh:mm:ss"))?;
    ws.write_number_with_format(4, 1, 1.5, &Format::new().set_num_format("[h]:mm:ss"))?;
    ws.write_url_with_text(5, 0, "https://example.com/", "example")?;
    let stamp = Format::new().set_num_format("yyyy-mm-dd hh:mm");
    ws.write_number_with_format(6, 0, JAN_1_2024 + 0.75, &stamp)?;
    ws.merge_range(0, 3, 0, 4, "Merged title", &Format::new())?;
    Ok(())
}

fn write_table(ws: &mut rust_xlsxwriter::Worksheet) -> Result<(), XlsxError> {
    ws.set_name("Table")?;
    let heads = ["Product", "Qty", "Price"];
    ws.write_row(0, 0, heads)?;
    for r in 1..=10u32 {
        ws.write_string(r, 0, format!("item {r}"))?;
        ws.write_number(r, 1, f64::from(r * 3))?;
        ws.write_number(r, 2, f64::from(r) * 1.25)?;
    }
    let cols = heads.map(|h| TableColumn::new().set_header(h));
    ws.add_table(
        0,
        0,
        10,
        2,
        &Table::new().set_name("Prices").set_columns(&cols),
    )?;
    Ok(())
}

/// (sheet, row, col, type, value) the reader must give back.
fn expected() -> Vec<(&'static str, u32, u32, &'static str, Json)> {
    vec![
        ("Formulas", 0, 0, "number", json!(2)),
        ("Formulas", 0, 1, "number", json!(5)),
        ("Formulas", 1, 1, "error", json!({"error": "#DIV/0!"})),
        ("Formulas", 2, 0, "string", json!("a, \"quoted\" text")),
        ("Formulas", 2, 1, "string", json!("ab")),
        ("Formulas", 3, 0, "bool", json!(true)),
        ("Formulas", 3, 1, "bool", json!(false)),
        ("Formulas", 4, 0, "time", json!("12:00:00")),
        ("Formulas", 4, 1, "duration", json!("36:00:00")),
        ("Formulas", 5, 0, "string", json!("example")),
        ("Formulas", 6, 0, "date", json!("2024-01-01T18:00:00")),
        ("Data1", 1, 0, "number", json!(1)),
        ("Data1", 1, 3, "date", json!("2024-01-02")),
        ("Data8", 5_000, 2, "string", json!("north")),
        ("Hidden", 1, 0, "number", json!(42)),
    ]
}

fn check(wb: &Workbook) -> (usize, Vec<String>) {
    let all = expected();
    let mut bad = Vec::new();
    for (sheet, row, col, ty, want) in &all {
        let at = format!("{sheet}!{}", ream::sheet::cell_name(*row, *col));
        let got = wb.sheet_by_name(sheet).and_then(|s| s.get(*row, *col));
        match got {
            Some(c) if c.value.type_name() == *ty && crate::json::to_json(&c.value) == *want => {}
            Some(c) => bad.push(format!(
                "{at}: expected {ty} {want}, read {} {}",
                c.value.type_name(),
                crate::json::to_json(&c.value)
            )),
            None => bad.push(format!("{at}: expected {ty} {want}, read nothing")),
        }
    }
    (all.len(), bad)
}

/// Fastest of [`REPEATS`] opens with `opts`, and the workbook of the last.
fn timed_open(path: &Path, opts: &OpenOptions) -> Result<(f64, Workbook)> {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..REPEATS {
        let t = Instant::now();
        let wb = Workbook::open(path, opts)?;
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(wb);
    }
    let wb = last.context("no open ran")?;
    Ok((best, wb))
}

/// Generates `demo.xlsx` in `dir` and reads it with the XLSX engine.
pub fn demo_xlsx(dir: &Path) -> Result<DemoResult> {
    let path = dir.join("demo.xlsx");
    write_sample(&path).with_context(|| format!("writing {}", path.display()))?;
    let size = std::fs::metadata(&path)?.len();
    let format = ream::sniff_path(&path)?;

    let (serial_s, _) = timed_open(&path, &OpenOptions::new().parallel(false))?;
    let (par_s, wb) = timed_open(&path, &OpenOptions::new())?;
    let meter = Meter::start();
    let measured_wb = Workbook::open(&path, &OpenOptions::new())?;
    let cells: u64 = touch_cells(&measured_wb).iter().map(|(_, n)| n).sum();
    let m = meter.stop();

    let mut by_type: BTreeMap<&str, u64> = BTreeMap::new();
    for s in wb.sheets() {
        for c in s.cells() {
            *by_type.entry(c.value.type_name()).or_default() += 1;
        }
    }
    let sheets = wb.sheets();
    let hidden = sheets
        .iter()
        .filter(|s| s.visibility().as_str() != "visible");
    let count = |f: &dyn Fn(&ream::sheet::Sheet) -> usize| sheets.iter().map(f).sum::<usize>();
    let names: Vec<&str> = sheets.iter().map(|s| s.name()).collect();
    let types: Vec<String> = by_type
        .iter()
        .map(|(t, n)| format!("{t} {}", thousands(*n)))
        .collect();
    let (n_checks, warnings) = check(&wb);
    let threads = wb.stats().threads;
    let p = path.display();
    let lines = vec![
        (
            "file",
            format!("{} bytes, sniffed as {format}", thousands(size)),
        ),
        (
            "sheets",
            format!(
                "{} ({} hidden): {}",
                sheets.len(),
                hidden.count(),
                names.join(", ")
            ),
        ),
        (
            "cells",
            format!("{} ({})", thousands(cells), types.join(", ")),
        ),
        (
            "small parts",
            format!(
                "{} comments, {} tables, {} merged ranges, {} hyperlinks",
                count(&|s| s.comments().len()),
                count(&|s| s.tables().len()),
                count(&|s| s.merged().len()),
                count(&|s| s.hyperlinks().len())
            ),
        ),
        (
            "open",
            format!(
                "serial {serial_s:.4} s, parallel {par_s:.4} s on {threads} threads ({:.2}x), best of {REPEATS}",
                serial_s / par_s.max(1e-9)
            ),
        ),
        (
            "throughput",
            format!(
                "{:.2} M cells/s parallel",
                cells as f64 / par_s.max(1e-9) / 1e6
            ),
        ),
        (
            "allocations",
            format!(
                "{:.3} per cell ({} total, {} <= 32 B), peak heap {}",
                m.allocs.allocs_per(cells).unwrap_or(0.0),
                thousands(m.allocs.allocs),
                thousands(m.allocs.allocs_le32),
                mib(m.peak_heap_bytes)
            ),
        ),
        (
            "checks",
            format!(
                "{}/{n_checks} values read back as written",
                n_checks - warnings.len()
            ),
        ),
    ];
    let hints = vec![
        format!("ream sheets {p}"),
        format!("ream cat {p} --sheet Formulas --format cells"),
        format!("ream cat {p} --sheet Data1 | head"),
        format!("ream profile {p} --json"),
    ];
    Ok(DemoResult {
        engine: "xlsx",
        file: path,
        lines,
        hints,
        warnings,
    })
}
