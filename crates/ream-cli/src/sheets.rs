//! `ream sheets`: one line (or JSON object) per sheet.

use crate::input::{open_output, open_workbook};
use crate::meter::{Meter, Report, touch_cells};
use anyhow::Result;
use ream::sheet::{OpenOptions, Workbook};
use ream_batch::SheetSummary;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `ream sheets`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workbook (`-` reads standard input).
    pub file: PathBuf,
    /// Print one JSON array of sheet objects instead of a table (the same
    /// fields, named the same, as the table and as batch records).
    #[arg(long)]
    pub json: bool,
    /// Measure the run and print statistics on standard error.
    #[arg(long)]
    pub stats: bool,
    /// Password of an encrypted XLS workbook, tried after Excel's default
    /// password "VelvetSweatshop" (default: none).
    #[arg(long, value_name = "PASSWORD")]
    pub password: Option<String>,
}

/// Runs `ream sheets`.
pub fn run(a: &Args) -> Result<()> {
    let meter = a.stats.then(Meter::start);
    let mut opts = OpenOptions::new();
    if let Some(p) = &a.password {
        opts = opts.password(p.as_str());
    }
    let wb = open_workbook(&a.file, &opts)?;
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

/// One [`SheetSummary`] per sheet, in workbook order: the objects of
/// `ream sheets --json`, with the fields of a batch record's
/// `summary.sheets[]` (the README's "Output fields" lists them).
pub fn to_json(wb: &Workbook) -> Vec<SheetSummary> {
    wb.sheets().iter().map(SheetSummary::of).collect()
}

/// The table's columns: each field of [`SheetSummary`], in the order and
/// with the names of `--json`; `true` for the text columns (left-aligned).
const COLUMNS: [(&str, bool); 13] = [
    ("index", false),
    ("name", true),
    ("kind", true),
    ("visibility", true),
    ("dimensions", true),
    ("cells", false),
    ("comments", false),
    ("tables", false),
    ("merged", false),
    ("hyperlinks", false),
    ("drawings", false),
    ("hidden_rows", false),
    ("hidden_columns", false),
];

/// One table row: the values of [`COLUMNS`].
fn row(s: &SheetSummary) -> [String; 13] {
    [
        s.index.to_string(),
        s.name.clone(),
        s.kind.clone(),
        s.visibility.clone(),
        s.dimensions.clone(),
        s.cells.to_string(),
        s.comments.to_string(),
        s.tables.to_string(),
        s.merged.to_string(),
        s.hyperlinks.to_string(),
        s.drawings.to_string(),
        s.hidden_rows.to_string(),
        s.hidden_columns.to_string(),
    ]
}

/// An aligned text table with the fields of `--json`, one row per sheet.
fn write_table(w: &mut dyn Write, wb: &Workbook) -> std::io::Result<()> {
    let rows: Vec<[String; 13]> = to_json(wb).iter().map(row).collect();
    let mut width = COLUMNS.map(|(h, _)| h.chars().count());
    for r in &rows {
        for (wd, cell) in width.iter_mut().zip(r) {
            *wd = (*wd).max(cell.chars().count());
        }
    }
    let line = |w: &mut dyn Write, cells: &[&str]| -> std::io::Result<()> {
        for (i, ((c, wd), (_, text))) in cells.iter().zip(width).zip(COLUMNS).enumerate() {
            if i > 0 {
                w.write_all(b"  ")?;
            }
            if text {
                write!(w, "{c:<wd$}")?;
            } else {
                write!(w, "{c:>wd$}")?;
            }
        }
        writeln!(w)
    };
    line(w, &COLUMNS.map(|(h, _)| h))?;
    for r in &rows {
        let cells: Vec<&str> = r.iter().map(String::as_str).collect();
        line(w, &cells)?;
    }
    Ok(())
}
