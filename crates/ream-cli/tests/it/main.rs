//! Integration tests of the `ream` binary: each runs the built executable
//! on files written into a per-test temporary folder.

// Test helpers outside `#[test]` functions unwrap freely too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use rust_xlsxwriter::{Format, Formula, Workbook};
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod agg;
mod batch;
mod cat_output;
mod convert;
mod errors;
mod formula_cells;
mod ods;
mod pdf;
mod sheets;
mod typed_output;

const BIN: &str = env!("CARGO_BIN_EXE_ream");

/// A fresh empty folder for one test.
fn temp_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("ream-cli-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes the fixture workbook: `Data` with one cell of each type, `Second`,
/// and `Big` (20,000 rows, enough to overflow a pipe buffer).
fn fixture(dir: &Path) -> PathBuf {
    let path = dir.join("fixture.xlsx");
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet().set_name("Data").unwrap();
    ws.write_number(0, 0, 1.5).unwrap();
    ws.write_string(0, 1, "say \"hi\", then bye").unwrap();
    let date = Format::new().set_num_format("yyyy-mm-dd");
    ws.write_number_with_format(0, 2, 45_366.0, &date).unwrap(); // 2024-03-15
    ws.write_boolean(0, 3, true).unwrap();
    ws.write_formula(0, 4, Formula::new("=1/0").set_result("#DIV/0!"))
        .unwrap();
    ws.write_number(2, 1, 7.0).unwrap();
    let ws = wb.add_worksheet().set_name("Second").unwrap();
    ws.write_string(0, 0, "x").unwrap();
    let ws = wb.add_worksheet().set_name("Big").unwrap();
    for r in 0..20_000u32 {
        ws.write_number(r, 0, f64::from(r)).unwrap();
        ws.write_string(r, 1, "some text to fill the pipe").unwrap();
    }
    wb.save(&path).unwrap();
    path
}

fn ream(args: &[&str], cwd: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn assert_ok(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(o));
}

#[test]
fn sheets_json_has_the_names() {
    let dir = temp_dir("sheets");
    let f = fixture(&dir);
    let o = ream(&["sheets", f.to_str().unwrap(), "--json"], &dir);
    assert_ok(&o);
    let doc: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let sheets = doc.as_array().unwrap();
    let names: Vec<&str> = sheets.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Data", "Second", "Big"]);
    assert_eq!(sheets[0]["index"], 0);
    assert_eq!(sheets[0]["cells"], 6);
    assert_eq!(sheets[0]["dimensions"], "A1:E3");
    assert_eq!(sheets[0]["visibility"], "visible");
    assert_eq!(sheets[2]["cells"], 40_000);
    // The text table mentions every sheet too.
    let o = ream(&["sheets", f.to_str().unwrap()], &dir);
    assert_ok(&o);
    assert!(stdout(&o).contains("Second"));
}

#[test]
fn cat_cells_gives_typed_values() {
    let dir = temp_dir("cells");
    let f = fixture(&dir);
    let o = ream(&["cat", f.to_str().unwrap(), "--format", "cells"], &dir);
    assert_ok(&o);
    let cells: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(cells.len(), 6);
    let at = |col: u64| {
        cells
            .iter()
            .find(|c| c["row"] == 0 && c["col"] == col)
            .unwrap()
    };
    assert_eq!(at(0)["sheet"], "Data");
    assert_eq!(at(0)["type"], "number");
    assert_eq!(at(0)["value"], 1.5);
    assert_eq!(at(1)["type"], "string");
    assert_eq!(at(1)["value"], "say \"hi\", then bye");
    assert_eq!(at(2)["type"], "date");
    assert_eq!(at(2)["value"], "2024-03-15");
    assert_eq!(at(3)["type"], "bool");
    assert_eq!(at(3)["value"], true);
    assert_eq!(at(4)["type"], "error");
    assert_eq!(at(4)["value"], serde_json::json!({"error": "#DIV/0!"}));
    assert_eq!(at(4)["formula"], "1/0");
    assert!(at(0).get("formula").is_none());
    // Integers print without a fraction.
    assert!(stdout(&o).contains(r#""row":2,"col":1,"type":"number","value":7}"#));
}

#[test]
fn cat_csv_quotes_and_fills_gaps() {
    let dir = temp_dir("csv");
    let f = fixture(&dir);
    let o = ream(&["cat", f.to_str().unwrap(), "-s", "Data"], &dir);
    assert_ok(&o);
    assert_eq!(
        stdout(&o),
        "1.5,\"say \"\"hi\"\", then bye\",2024-03-15,TRUE,#DIV/0!\n,,,,\n,7,,,\n"
    );
    let o = ream(&["cat", f.to_str().unwrap(), "-s", "0", "-f", "tsv"], &dir);
    assert_ok(&o);
    assert_eq!(
        stdout(&o),
        "1.5\tsay \"hi\", then bye\t2024-03-15\tTRUE\t#DIV/0!\n\t\t\t\t\n\t7\t\t\t\n"
    );
}

#[test]
fn cat_jsonl_and_output_file() {
    let dir = temp_dir("jsonl");
    let f = fixture(&dir);
    let out = dir.join("out.jsonl");
    let args = [
        "cat",
        f.to_str().unwrap(),
        "-f",
        "jsonl",
        "-o",
        out.to_str().unwrap(),
    ];
    let o = ream(&args, &dir);
    assert_ok(&o);
    assert!(o.stdout.is_empty());
    let text = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "the empty row 1 is skipped");
    assert_eq!(rows[1]["row"], 2);
    assert_eq!(
        rows[1]["values"],
        serde_json::json!([null, 7, null, null, null])
    );
    assert_eq!(rows[0]["values"][2], "2024-03-15");
}

#[test]
fn cat_all_sheets_and_unknown_sheet() {
    let dir = temp_dir("all");
    let f = fixture(&dir);
    let o = ream(
        &["cat", f.to_str().unwrap(), "-s", "all", "-f", "cells"],
        &dir,
    );
    assert_ok(&o);
    assert_eq!(stdout(&o).lines().count(), 6 + 1 + 40_000);
    let o = ream(&["cat", f.to_str().unwrap(), "-s", "Nope"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("ream: "), "{}", stderr(&o));
}

#[test]
fn stats_json_has_every_key() {
    let dir = temp_dir("stats");
    let f = fixture(&dir);
    for extra in [&[][..], &["--serial"], &["--threads", "2"]] {
        let mut args = vec!["stats", f.to_str().unwrap(), "--json"];
        args.extend_from_slice(extra);
        let o = ream(&args, &dir);
        assert_ok(&o);
        let doc: Value = serde_json::from_str(&stdout(&o)).unwrap();
        for key in [
            "cells",
            "wall_s",
            "cpu_s",
            "phase_a_s",
            "phase_b_s",
            "phase_c_s",
            "allocs",
            "allocs_le32",
            "allocs_per_cell",
            "peak_heap_bytes",
            "threads",
            "inflate_s",
            "parse_s",
            "peak_rss_bytes",
            "sheets",
        ] {
            assert!(doc.get(key).is_some(), "missing {key}");
        }
        assert_eq!(doc["cells"], 6 + 1 + 40_000);
        assert_eq!(doc["sheets"][2]["name"], "Big");
        assert_eq!(doc["sheets"][2]["cells"], 40_000);
        assert!(doc["allocs"].as_u64().unwrap() > 0, "counting was on");
    }
}

#[test]
fn stats_flag_prints_to_stderr() {
    let dir = temp_dir("statsflag");
    let f = fixture(&dir);
    let o = ream(&["cat", f.to_str().unwrap(), "--stats"], &dir);
    assert_ok(&o);
    assert!(stdout(&o).starts_with("1.5,"));
    assert!(stderr(&o).contains("allocations"), "{}", stderr(&o));
}

#[test]
fn demo_runs_in_a_temp_dir() {
    let dir = temp_dir("demo");
    let o = ream(&["demo"], &dir);
    assert_ok(&o);
    let text = stdout(&o);
    assert!(dir.join("demo-data/demo.xlsx").is_file());
    assert!(dir.join("demo-data/demo.pdf").is_file());
    assert!(text.contains("xlsx"), "{text}");
    assert!(text.contains("== pdf:"), "{text}");
    assert!(dir.join("demo-data/1brc-demo.txt").is_file());
    assert!(text.contains("== agg:"), "{text}");
    assert!(text.contains("== batch:"), "{text}");
    assert!(text.contains(" 0 errors, 0 timeouts, 0 crashed"), "{text}");
    let report = std::fs::read_to_string(dir.join("demo-data/batch-report.jsonl")).unwrap();
    assert!(report.lines().count() >= 5, "{report}");
    assert!(!text.contains("WARNING"), "{text}");
    // Deterministic output file.
    let first = std::fs::read(dir.join("demo-data/demo.xlsx")).unwrap();
    let o = ream(&["demo", "--dir", "again"], &dir);
    assert_ok(&o);
    assert_eq!(first, std::fs::read(dir.join("again/demo.xlsx")).unwrap());
    assert_eq!(
        std::fs::read(dir.join("demo-data/demo.pdf")).unwrap(),
        std::fs::read(dir.join("again/demo.pdf")).unwrap()
    );
}

#[test]
fn empty_and_text_files_exit_1() {
    let dir = temp_dir("bad");
    std::fs::write(dir.join("empty.xlsx"), b"").unwrap();
    std::fs::write(dir.join("notes.txt"), b"just some text\n").unwrap();
    for (name, cmd) in [
        ("empty.xlsx", "sheets"),
        ("notes.txt", "cat"),
        ("missing.xlsx", "stats"),
    ] {
        let o = ream(&[cmd, name], &dir);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with("ream: ") && err.contains(name), "{err}");
    }
}

#[test]
fn encrypted_file_exits_4() {
    let dir = temp_dir("encrypted");
    let magic = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1".to_vec();
    let name: Vec<u8> = "EncryptedPackage"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let mut padded = magic.clone();
    padded.resize(512, 0);
    padded.extend_from_slice(&name);
    padded.resize(2048, 0);
    let tight = [magic, name].concat();
    for bytes in [padded, tight] {
        std::fs::write(dir.join("locked.xlsx"), &bytes).unwrap();
        for cmd in ["cat", "sheets", "stats"] {
            let o = ream(&[cmd, "locked.xlsx"], &dir);
            assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
            assert!(stderr(&o).contains("encrypted"));
        }
    }
}

#[test]
fn usage_errors_exit_2() {
    let dir = temp_dir("usage");
    for args in [&["cat", "--bogus", "x.xlsx"][..], &["frobnicate"], &["cat"]] {
        let o = ream(args, &dir);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
    let o = ream(&["cat", "x.xlsx", "--format", "yaml"], &dir);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn cat_to_a_closed_pipe_exits_quietly() {
    let dir = temp_dir("pipe");
    let f = fixture(&dir);
    let mut child = Command::new(BIN)
        .args(["cat", f.to_str().unwrap(), "-s", "all"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    // The read end is dropped here: the next writes fail with EPIPE.
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn cat_row_window_and_header() {
    let dir = temp_dir("window");
    let f = fixture(&dir);
    let f = f.to_str().unwrap();
    let o = ream(
        &["cat", f, "-s", "Big", "--skip-rows", "100", "--n-rows", "3"],
        &dir,
    );
    assert_ok(&o);
    assert_eq!(
        stdout(&o),
        "100,some text to fill the pipe\n101,some text to fill the pipe\n102,some text to fill the pipe\n"
    );
    let o = ream(
        &[
            "cat",
            f,
            "-s",
            "Big",
            "--header-row",
            "5",
            "--skip-rows",
            "1000",
            "--n-rows",
            "1",
            "-f",
            "jsonl",
        ],
        &dir,
    );
    assert_ok(&o);
    // Row 5 names the keys of row 1000's object.
    assert_eq!(
        stdout(&o),
        "{\"5\":1000,\"some text to fill the pipe\":\"some text to fill the pipe\"}\n"
    );
}

#[test]
fn stats_stream_json_has_every_key() {
    let dir = temp_dir("stream");
    let f = fixture(&dir);
    let o = ream(&["stats", f.to_str().unwrap(), "--stream", "--json"], &dir);
    assert_ok(&o);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    for key in [
        "cells",
        "wall_s",
        "cpu_s",
        "phase_a_s",
        "phase_b_s",
        "phase_c_s",
        "allocs",
        "allocs_le32",
        "allocs_per_cell",
        "peak_heap_bytes",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["cells"], 20_000 * 2 + 7);
}
