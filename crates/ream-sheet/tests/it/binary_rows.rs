//! Streamed rows of XLS and XLSB workbooks opened with
//! `load_cells(false)`: the same rows as the loaded read, on 1 to 8
//! threads, for hand-built files (small blocks, shared formulas across
//! blocks) and every corpus file the loaded read opens; no cells are
//! parsed at open.

use crate::xls::{book, cell, globals, rec};
use crate::xlsb as b12;
use ream_sheet::{OpenOptions, OwnedCell, OwnedRow, Workbook};
use std::path::{Path, PathBuf};

/// The loaded cells of sheet `i` grouped into rows.
fn loaded_rows(wb: &Workbook, i: usize) -> Vec<OwnedRow> {
    let mut out: Vec<OwnedRow> = Vec::new();
    for c in wb.sheets()[i].cells() {
        let c = OwnedCell::from(&c);
        match out.last_mut() {
            Some(r) if r.index == c.row => r.cells.push(c),
            _ => out.push(OwnedRow {
                index: c.row,
                cells: vec![c],
            }),
        }
    }
    out
}

fn streamed_rows(wb: &Workbook, i: usize) -> Vec<OwnedRow> {
    wb.rows(i).unwrap().map(Result::unwrap).collect()
}

/// Checks streamed = loaded for every sheet of `bytes`; false when the
/// loaded read refuses the file.
fn check(bytes: &[u8], what: &str) -> bool {
    let loaded_opts = OpenOptions::new().threads(1);
    let Ok(loaded) = Workbook::from_bytes(bytes.to_vec(), &loaded_opts) else {
        return false;
    };
    for threads in [1, 2, 8] {
        let opts = OpenOptions::new()
            .threads(threads)
            .load_cells(false)
            .tune_stream_block(64);
        let wb = Workbook::from_bytes(bytes.to_vec(), &opts).unwrap();
        assert_eq!(wb.stats().cells, 0, "{what}: cells parsed at open");
        for i in 0..loaded.sheets().len() {
            assert_eq!(wb.sheets()[i].cells().count(), 0, "{what}");
            // Debug text: NaN cells compare equal.
            assert_eq!(
                format!("{:?}", streamed_rows(&wb, i)),
                format!("{:?}", loaded_rows(&loaded, i)),
                "{what}: sheet {i}, {threads} threads"
            );
        }
    }
    true
}

/// A sheet of `n` rows: a number, a shared formula (=A{r}*2) and a string.
fn long_sheet(n: u16) -> Vec<Vec<u8>> {
    let mut s = Vec::new();
    let exp = [0x01, 0, 0, 1, 0];
    for r in 0..n {
        let mut d = cell(r, 0, 0);
        d.extend(f64::from(r).to_le_bytes());
        s.push(rec(0x0203, &d));
        let mut d = cell(r, 1, 0);
        d.extend((f64::from(r) * 2.0).to_le_bytes());
        d.extend([0, 0, 0, 0, 0, 0]);
        d.extend((exp.len() as u16).to_le_bytes());
        d.extend(exp);
        s.push(rec(0x0006, &d));
        if r == 0 {
            let sh = [0x4C, 0, 0, 0xFF, 0xFF, 0x1E, 2, 0, 0x05];
            let mut d = vec![0, 0];
            d.extend((n - 1).to_le_bytes());
            d.extend([1, 1, 0, n as u8]);
            d.extend((sh.len() as u16).to_le_bytes());
            d.extend(sh);
            s.push(rec(0x04BC, &d));
        }
        let mut d = cell(r, 2, 0);
        d.extend(crate::xls::ustr(&format!("row {r}")));
        s.push(rec(0x0204, &d));
    }
    s
}

#[test]
fn hand_built_xls_streams_like_it_loads() {
    let data = book(
        &globals(),
        &[("Long", long_sheet(3000)), ("Short", long_sheet(3))],
    );
    assert!(check(&data, "hand-built"));
    let wb = Workbook::from_bytes(data, &OpenOptions::new().load_cells(false)).unwrap();
    let rows = streamed_rows(&wb, 0);
    assert_eq!(rows.len(), 3000);
    assert_eq!(rows[2999].cells[1].formula.as_deref(), Some("A3000*2"));
}

/// An XLSB sheet of `n` rows: a number, a shared formula (=A{r}*2)
/// and a string in each.
fn long_xlsb_sheet(n: u32) -> Vec<u8> {
    let mut s = Vec::new();
    let exp = b12::cat(&[
        &5u32.to_le_bytes(),
        &[0x01],
        &0u32.to_le_bytes(),
        &4u32.to_le_bytes(),
        &1u32.to_le_bytes(),
    ]);
    for r in 0..n {
        s.extend(b12::row(r, false));
        s.extend(b12::cell(5, 0, 0, &f64::from(r).to_le_bytes()));
        let v = (f64::from(r) * 2.0).to_le_bytes();
        s.extend(b12::cell(9, 1, 0, &b12::cat(&[&v, &[0, 0], &exp])));
        if r == 0 {
            let refn = b12::cat(&[
                &[0x4C],
                &0u32.to_le_bytes(),
                &0xFFFFu16.to_le_bytes(),
                &[0x1E, 2, 0, 0x05],
            ]);
            let rfx = b12::cat(&[
                &0u32.to_le_bytes(),
                &(n - 1).to_le_bytes(),
                &1u32.to_le_bytes(),
                &1u32.to_le_bytes(),
            ]);
            let f = b12::cat(&[
                &(refn.len() as u32).to_le_bytes(),
                &refn,
                &0u32.to_le_bytes(),
            ]);
            s.extend(b12::rec(428, &b12::cat(&[&rfx, &f])));
        }
        s.extend(b12::cell(6, 2, 0, &b12::ws(&format!("row {r}"))));
    }
    s
}

#[test]
fn hand_built_xlsb_streams_like_it_loads() {
    let sheets = [
        ("Long", 0, "worksheet", long_xlsb_sheet(3000)),
        ("Short", 0, "worksheet", long_xlsb_sheet(2)),
    ];
    let data = b12::package_zip_with(&sheets, &[], false, &[]).build();
    assert!(check(&data, "hand-built xlsb"));
    let wb = Workbook::from_bytes(data, &OpenOptions::new().load_cells(false)).unwrap();
    let rows = streamed_rows(&wb, 0);
    assert_eq!(rows.len(), 3000);
    assert_eq!(rows[2999].cells[1].formula.as_deref(), Some("A3000*2"));
}

fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

#[test]
fn corpus_binary_workbooks_stream_like_they_load() {
    let corpus = std::env::var_os("REAM_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
        PathBuf::from,
    );
    if !corpus.join("golden").is_dir() {
        println!("binary rows: no corpus; skipped");
        return;
    }
    for ext in ["xls", "xlsb"] {
        let mut files = Vec::new();
        walk(&corpus, ext, &mut files);
        files.sort();
        let mut checked = 0;
        for f in &files {
            let bytes = std::fs::read(f).unwrap();
            checked += usize::from(check(&bytes, &f.display().to_string()));
        }
        println!(
            "binary rows: {checked} of {} .{ext} files streamed = loaded",
            files.len()
        );
        assert!(checked > 0);
    }
}

#[test]
fn a_truncated_streamed_xlsb_record_is_named() {
    let mut sheet = long_xlsb_sheet(50);
    sheet.extend([0x05, 0x10, 1, 2]);
    let data = b12::package_zip_with(&[("S", 0, "worksheet", sheet)], &[], false, &[]).build();
    let opts = OpenOptions::new().load_cells(false).tune_stream_block(64);
    let wb = Workbook::from_bytes(data, &opts).unwrap();
    let err = wb.rows(0).unwrap().find_map(Result::err).unwrap();
    let msg = err.to_string();
    assert!(
        msg.contains("sheet1.bin") && msg.contains("0x0005"),
        "{msg}"
    );
    assert!(err.offset().is_some(), "{msg}");
}
