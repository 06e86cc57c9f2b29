//! `ream profile` (alias `stats`): open a workbook under measurement and
//! report how the reader spent its time and memory.

use crate::input::{input_name, name_read_error, open_workbook};
use crate::meter::{Meter, Report, touch_cells};
use anyhow::Result;
use ream::sheet::OpenOptions;
use std::io::Write;
use std::path::PathBuf;

/// `ream profile --help`: what is measured and what the phases are.
pub const LONG_HELP: &str = "\
Measure the spreadsheet reader, not the workbook: open FILE (all sheets) under
measurement and report where the time and memory went. Alias: `ream stats`.

The open runs in three phases, timed separately (wall seconds):
  A  map the file, read the ZIP directory and the workbook-level parts
     (workbook, relationships, shared strings, styles);
  B  inflate and parse every worksheet, on several threads (`threads`);
     `inflate` and `parse` are the seconds summed over the threads, so they can
     exceed the wall time;
  C  the small parts: comments, tables, merged ranges, hyperlinks, hidden rows
     and columns, drawings.
Then: cells per sheet, wall and CPU time (cpu/wall is the parallelism
achieved), heap allocations (total, of at most 32 bytes, per cell), peak heap
growth and peak resident memory. With --stream the cells are not loaded: the
rows of every sheet are streamed instead (constant memory), as `ream cat` reads
them. `ream cat --stats` prints the same report for a cat run.";

/// Arguments of `ream profile`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workbook (`-` reads standard input).
    pub file: PathBuf,
    /// Worker threads for phase B, 0 to 1024 (0 = one per sheet up to the cores).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true,
          value_parser = crate::args::ranged::<usize>(0..=1024))]
    pub threads: usize,
    /// Parse the sheets serially on the calling thread.
    #[arg(long)]
    pub serial: bool,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
    /// Measure the streaming path instead: open without loading cells,
    /// then stream every sheet's rows (constant memory for XLSX and ODS;
    /// for ODS the open is one pass over `content.xml` listing the sheets,
    /// and each sheet is inflated again up to its end).
    #[arg(long)]
    pub stream: bool,
    /// Password of an encrypted XLS workbook, tried after Excel's default
    /// password "VelvetSweatshop" (default: none).
    #[arg(long, value_name = "PASSWORD")]
    pub password: Option<String>,
}

/// Streams every sheet of `wb`, returning cells per sheet.
fn stream_cells(wb: &ream::sheet::Workbook) -> Result<Vec<(String, u64)>> {
    let mut out = Vec::new();
    for s in wb.sheets() {
        let mut rows = wb.rows(s.index())?;
        let mut n = 0u64;
        while let Some(row) = rows.next_row()? {
            n += row.len() as u64;
        }
        out.push((s.name().to_string(), n));
    }
    Ok(out)
}

/// Runs `ream profile`.
pub fn run(a: &Args) -> Result<()> {
    let mut opts = OpenOptions::new()
        .threads(a.threads)
        .parallel(!a.serial)
        .load_cells(!a.stream);
    if let Some(p) = &a.password {
        opts = opts.password(p.as_str());
    }
    let meter = Meter::start();
    let wb = open_workbook(&a.file, &opts);
    let sheets = match (&wb, a.stream) {
        (Ok(wb), true) => {
            Some(stream_cells(wb).map_err(|e| name_read_error(e, &input_name(&a.file))))
        }
        (Ok(wb), false) => Some(Ok(touch_cells(wb))),
        (Err(_), _) => None,
    };
    let m = meter.stop();
    let (wb, sheets) = (wb?, sheets.transpose()?.unwrap_or_default());
    let report = Report::new(m, &wb, sheets);
    let mut out = std::io::stdout().lock();
    if a.json {
        let mut doc = serde_json::to_vec_pretty(&report.to_json())?;
        doc.push(b'\n');
        out.write_all(&doc)?;
    } else {
        writeln!(out, "{}", a.file.display())?;
        report.write_human(&mut out)?;
    }
    out.flush()?;
    Ok(())
}

/// Prints a `--stats` report for another command on standard error.
pub fn print_to_stderr(report: &Report) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "ream stats:");
    let _ = report.write_human(&mut err);
}
