//! `ream sheets`: one line (or JSON object) per sheet.

use crate::input::{open_output, open_workbook};
use crate::meter::{Meter, Report, touch_cells};
use anyhow::Result;
use ream::sheet::{OpenOptions, Sheet, Workbook};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `ream sheets`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workbook (`-` reads standard input).
    pub file: PathBuf,
    /// Print one JSON array of sheet objects instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Measure the run and print statistics on standard error.
    #[arg(long)]
    pub stats: bool,
}

/// Runs `ream sheets`.
pub fn run(a: &Args) -> Result<()> {
    let meter = a.stats.then(Meter::start);
    let wb = open_workbook(&a.file, &OpenOptions::new())?;
    let mut out = open_output(None)?;
    if a.json {
        let mut doc = serde_json::to_vec_pretty(&to_json(&wb))?;
        doc.push(b'\n');
        out.write_all(&doc)?;
    } else {
        write_table(&mut out, &wb)?;
    }
    out.flush()?;
    if let Some(m) = meter {
        let m = m.stop();
        crate::stats::print_to_stderr(&Report::new(m, &wb, touch_cells(&wb)));
    }
    Ok(())
}

/// The used range as `A1:B2`, empty for an empty sheet.
fn dimensions(s: &Sheet) -> String {
    s.bounds().map(|b| b.to_string()).unwrap_or_default()
}

/// One sheet as `ream sheets --json` prints it.
#[derive(Debug, Serialize)]
pub struct SheetInfo<'a> {
    /// 0-based position.
    pub index: usize,
    /// Tab name.
    pub name: &'a str,
    /// `worksheet`, `chartsheet`, ...
    pub kind: &'static str,
    /// `visible`, `hidden` or `veryHidden`.
    pub visibility: &'static str,
    /// Used range as `A1:B2`, empty when the sheet has no cells.
    pub dimensions: String,
    /// Non-empty cells.
    pub cells: usize,
    /// Cell comments.
    pub comments: usize,
    /// Tables.
    pub tables: usize,
    /// Merged ranges.
    pub merged: usize,
    /// Hyperlinks.
    pub hyperlinks: usize,
    /// Images and charts.
    pub drawings: usize,
    /// Hidden rows.
    pub hidden_rows: usize,
    /// Hidden columns.
    pub hidden_cols: usize,
}

/// One [`SheetInfo`] per sheet, in workbook order.
pub fn to_json(wb: &Workbook) -> Vec<SheetInfo<'_>> {
    wb.sheets()
        .iter()
        .map(|s| SheetInfo {
            index: s.index(),
            name: s.name(),
            kind: s.kind().as_str(),
            visibility: s.visibility().as_str(),
            dimensions: dimensions(s),
            cells: s.cell_count(),
            comments: s.comments().len(),
            tables: s.tables().len(),
            merged: s.merged().len(),
            hyperlinks: s.hyperlinks().len(),
            drawings: s.drawings().len(),
            hidden_rows: s.hidden_rows().len(),
            hidden_cols: s.hidden_cols().len(),
        })
        .collect()
}

/// An aligned text table.
fn write_table(w: &mut dyn Write, wb: &Workbook) -> std::io::Result<()> {
    const HEAD: [&str; 11] = [
        "#",
        "name",
        "kind",
        "visibility",
        "dims",
        "cells",
        "comments",
        "tables",
        "merged",
        "links",
        "drawings",
    ];
    let rows: Vec<[String; 11]> = wb
        .sheets()
        .iter()
        .map(|s| {
            [
                s.index().to_string(),
                s.name().to_string(),
                s.kind().as_str().to_string(),
                s.visibility().as_str().to_string(),
                dimensions(s),
                s.cell_count().to_string(),
                s.comments().len().to_string(),
                s.tables().len().to_string(),
                s.merged().len().to_string(),
                s.hyperlinks().len().to_string(),
                s.drawings().len().to_string(),
            ]
        })
        .collect();
    let mut width = HEAD.map(|h| h.chars().count());
    for r in &rows {
        for (wd, cell) in width.iter_mut().zip(r) {
            *wd = (*wd).max(cell.chars().count());
        }
    }
    let line = |w: &mut dyn Write, cells: &[&str]| -> std::io::Result<()> {
        let mut first = true;
        for (i, (c, wd)) in cells.iter().zip(width).enumerate() {
            if !first {
                w.write_all(b"  ")?;
            }
            first = false;
            // Text columns left-aligned, counts right-aligned.
            if (1..=4).contains(&i) {
                write!(w, "{c:<wd$}")?;
            } else {
                write!(w, "{c:>wd$}")?;
            }
        }
        writeln!(w)
    };
    line(w, &HEAD)?;
    for r in &rows {
        let cells: Vec<&str> = r.iter().map(String::as_str).collect();
        line(w, &cells)?;
    }
    Ok(())
}
