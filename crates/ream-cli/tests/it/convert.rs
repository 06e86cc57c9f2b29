//! `ream convert`: XLSX output keeps every cell's type; other formats are
//! those of `ream cat`; bad outputs are usage errors.

use super::{assert_ok, fixture, ream, stderr, stdout, temp_dir};
use std::process::Command;

/// `ream cat -s all --format cells` of a file.
fn cells(file: &str, dir: &std::path::Path) -> String {
    let o = ream(&["cat", "-s", "all", "--format", "cells", file], dir);
    assert_ok(&o);
    stdout(&o)
}

#[test]
fn xlsx_to_xlsx_keeps_every_cell() {
    let dir = temp_dir("convert-xlsx");
    fixture(&dir);
    for threads in ["1", "3"] {
        let o = ream(
            &["convert", "fixture.xlsx", "out.xlsx", "--threads", threads],
            &dir,
        );
        assert_ok(&o);
        assert_eq!(cells("fixture.xlsx", &dir), cells("out.xlsx", &dir));
    }
    let o = ream(
        &["convert", "fixture.xlsx", "inline.xlsx", "--inline-strings"],
        &dir,
    );
    assert_ok(&o);
    assert_eq!(cells("fixture.xlsx", &dir), cells("inline.xlsx", &dir));
}

#[test]
fn header_and_row_options_shift_rows() {
    let dir = temp_dir("convert-rows");
    fixture(&dir);
    let o = ream(
        &[
            "convert",
            "fixture.xlsx",
            "big.xlsx",
            "-s",
            "Big",
            "--header-row",
            "2",
            "--skip-rows",
            "10",
            "--n-rows",
            "3",
        ],
        &dir,
    );
    assert_ok(&o);
    let o = ream(&["cat", "big.xlsx"], &dir);
    assert_ok(&o);
    let want = "2,some text to fill the pipe\n\
                10,some text to fill the pipe\n\
                11,some text to fill the pipe\n\
                12,some text to fill the pipe\n";
    assert_eq!(stdout(&o), want);
}

#[test]
fn other_formats_are_cat_outputs() {
    let dir = temp_dir("convert-csv");
    fixture(&dir);
    let o = ream(&["convert", "fixture.xlsx", "out.csv"], &dir);
    assert_ok(&o);
    let o2 = ream(&["cat", "fixture.xlsx"], &dir);
    assert_eq!(
        std::fs::read_to_string(dir.join("out.csv")).unwrap(),
        stdout(&o2)
    );
    let o = ream(
        &["convert", "fixture.xlsx", "out.parquet", "-s", "Big"],
        &dir,
    );
    assert_ok(&o);
    assert!(
        std::fs::read(dir.join("out.parquet"))
            .unwrap()
            .starts_with(b"PAR1")
    );
}

#[test]
fn bad_outputs_and_inputs_are_errors() {
    let dir = temp_dir("convert-bad");
    fixture(&dir);
    let o = ream(&["convert", "fixture.xlsx", "out.docx"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown output extension"),
        "{}",
        stderr(&o)
    );
    let o = ream(&["convert", "fixture.xlsx", "./fixture.xlsx"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("the output is the input"));
    std::fs::write(dir.join("junk.xlsx"), b"PK\x03\x04 not really").unwrap();
    let o = ream(&["convert", "junk.xlsx", "out.xlsx"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("junk.xlsx"), "{}", stderr(&o));
    let o = ream(&["convert", "fixture.xlsx", "out.xlsx", "-s", "Nope"], &dir);
    assert_eq!(o.status.code(), Some(2));
}

/// LibreOffice reads the output as the input (skipped without `soffice`).
#[test]
fn libreoffice_reads_the_output() {
    let Ok(soffice) = which("soffice") else {
        eprintln!("soffice not found: skipped");
        return;
    };
    let dir = temp_dir("convert-soffice");
    fixture(&dir);
    let o = ream(&["convert", "fixture.xlsx", "out.xlsx", "-s", "Data"], &dir);
    assert_ok(&o);
    let lo = Command::new(soffice)
        .args([
            "--headless",
            "--convert-to",
            "csv",
            "--outdir",
            "lo",
            "out.xlsx",
        ])
        .env("HOME", &dir)
        .current_dir(&dir)
        .output()
        .unwrap();
    let Ok(csv) = std::fs::read_to_string(dir.join("lo/out.csv")) else {
        eprintln!(
            "soffice wrote nothing ({}): skipped",
            String::from_utf8_lossy(&lo.stderr)
        );
        return;
    };
    let first = csv.lines().next().unwrap();
    assert!(
        first.starts_with("1.5,\"say \"\"hi\"\", then bye\",2024-03-15,TRUE,#DIV/0!"),
        "{csv}"
    );
}

fn which(name: &str) -> Result<std::path::PathBuf, ()> {
    let path = std::env::var_os("PATH").ok_or(())?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or(())
}
