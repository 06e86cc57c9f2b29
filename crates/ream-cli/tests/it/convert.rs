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

/// A template with a merged title, a bold header row and a prototype row
/// 2 whose column B shows `0.00%`.
fn template(dir: &std::path::Path) {
    use rust_xlsxwriter::{Format, Workbook};
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet().set_name("Cover").unwrap();
    ws.write_string(0, 0, "cover").unwrap();
    let ws = wb.add_worksheet().set_name("Report").unwrap();
    let bold = Format::new().set_bold();
    ws.merge_range(0, 0, 0, 3, "Monthly", &bold).unwrap();
    ws.write_string_with_format(1, 0, "a", &bold).unwrap();
    ws.write_string_with_format(1, 1, "b", &bold).unwrap();
    let pct = Format::new().set_num_format("0.00%");
    ws.write_number_with_format(2, 1, 0.5, &pct).unwrap();
    ws.set_column_width(1, 20).unwrap();
    wb.save(dir.join("t.xlsx")).unwrap();
}

#[test]
fn template_sheets_come_first_and_data_from_start_row() {
    let dir = temp_dir("convert-template");
    fixture(&dir);
    template(&dir);
    let o = ream(
        &[
            "convert",
            "fixture.xlsx",
            "out.xlsx",
            "-s",
            "Data",
            "--template",
            "t.xlsx",
            "--template-sheet",
            "Report",
            "--start-row",
            "2",
        ],
        &dir,
    );
    assert_ok(&o);
    let o = ream(&["cat", "out.xlsx", "-s", "Data"], &dir);
    assert_ok(&o);
    assert_eq!(
        stdout(&o),
        "Monthly,,,,\n\
         a,b,,,\n\
         1.5,\"say \"\"hi\"\", then bye\",2024-03-15,TRUE,#DIV/0!\n\
         ,,,,\n\
         ,7,,,\n"
    );
    // The types survive the template's column formats.
    let o = ream(
        &["cat", "out.xlsx", "-s", "Data", "--format", "cells"],
        &dir,
    );
    assert_ok(&o);
    assert!(stdout(&o).contains(r#""row":4,"col":1,"type":"number","value":7}"#));
    assert!(stdout(&o).contains(r#""row":2,"col":2,"type":"date","value":"2024-03-15"}"#));
    // By index, default start row: after the template's last row.
    let o = ream(
        &[
            "convert",
            "fixture.xlsx",
            "out2.xlsx",
            "-s",
            "Second",
            "--template",
            "t.xlsx",
            "--template-sheet",
            "1",
        ],
        &dir,
    );
    assert_ok(&o);
    let o = ream(&["cat", "out2.xlsx"], &dir);
    assert_ok(&o);
    assert_eq!(stdout(&o), "Monthly,,,\na,b,,\n,0.5,,\nx,,,\n");
    // Errors: a missing template sheet, options without --template.
    let o = ream(
        &[
            "convert",
            "fixture.xlsx",
            "out3.xlsx",
            "--template",
            "t.xlsx",
            "--template-sheet",
            "Nope",
        ],
        &dir,
    );
    assert_ne!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("t.xlsx") && stderr(&o).contains("Nope"),
        "{}",
        stderr(&o)
    );
    let o = ream(
        &["convert", "fixture.xlsx", "o.xlsx", "--start-row", "3"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(2));
    let o = ream(
        &["convert", "fixture.xlsx", "o.csv", "--template", "t.xlsx"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn dash_with_to_writes_the_workbook_to_stdout() {
    let dir = temp_dir("convert-stdout");
    fixture(&dir);
    let o = ream(&["convert", "fixture.xlsx", "-", "--to", "xlsx"], &dir);
    assert_ok(&o);
    assert!(o.stdout.starts_with(b"PK\x03\x04"));
    std::fs::write(dir.join("piped.xlsx"), &o.stdout).unwrap();
    assert_eq!(cells("fixture.xlsx", &dir), cells("piped.xlsx", &dir));
    let o = ream(
        &["convert", "fixture.xlsx", "-", "-s", "Data", "--to", "csv"],
        &dir,
    );
    assert_ok(&o);
    assert!(stdout(&o).starts_with("1.5,"));
    let o = ream(&["convert", "fixture.xlsx", "-"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--to"), "{}", stderr(&o));
}
