//! `ream stats`: open a workbook under measurement and report.

use crate::input::open_workbook;
use crate::meter::{Meter, Report, touch_cells};
use anyhow::Result;
use ream::sheet::OpenOptions;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `ream stats`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workbook (`-` reads standard input).
    pub file: PathBuf,
    /// Worker threads for phase B (0 = one per sheet up to the cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Parse the sheets serially on the calling thread.
    #[arg(long)]
    pub serial: bool,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `ream stats`.
pub fn run(a: &Args) -> Result<()> {
    let opts = OpenOptions::new().threads(a.threads).parallel(!a.serial);
    let meter = Meter::start();
    let wb = open_workbook(&a.file, &opts);
    let sheets = wb.as_ref().ok().map(touch_cells);
    let m = meter.stop();
    let (wb, sheets) = (wb?, sheets.unwrap_or_default());
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
