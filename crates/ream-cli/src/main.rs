//! `ream`: read big spreadsheets, PDFs and delimited files fast from the
//! command line.
//!
//! Commands: `sheets` (list sheets), `cat` (dump cells as CSV, TSV, JSON
//! Lines), `convert` (to XLSX, CSV, TSV, JSON Lines, Parquet, Arrow), `profile` (alias `stats`: measure the reader's phases, time and
//! allocations), `pdf` (read and update PDFs), `agg` (min/mean/max per key
//! over delimited text), `batch` (analyse many files), `demo` (generate
//! sample files and run every engine on them).
//!
//! Data goes to stdout, diagnostics to stderr. Exit codes: 0 ok, 1 error,
//! 2 usage, 3 finished with warnings (printed on stderr), 4 encrypted input.

mod agg;
mod args;
mod batch;
mod cat;
mod convert;
mod demo;
mod input;
mod json;
mod meter;
mod pdf;
mod sheets;
mod stats;
mod typed;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Counts allocations while `stats`, `--stats` or `demo` switch counting on;
/// otherwise forwards to the system allocator at the cost of one branch.
#[global_allocator]
static ALLOC: ream_alloc::CountingAlloc = ream_alloc::CountingAlloc;

/// Exit status: the input is encrypted.
const EXIT_ENCRYPTED: u8 = 4;
/// Exit status: finished, but the input had problems reported as warnings.
const EXIT_WARNINGS: u8 = 3;
/// Exit status: bad usage (clap also exits 2 on its own errors).
const EXIT_USAGE: u8 = 2;

/// Read big spreadsheets, PDFs and delimited files fast.
#[derive(Debug, Parser)]
#[command(name = "ream", version, propagate_version = true, long_about = LONG_ABOUT)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// `ream --help`: every engine, and the conventions shared by the commands.
const LONG_ABOUT: &str = "\
Read big documents fast, on every core, in bounded memory.

Engines:
  spreadsheets  XLSX, XLSM and ODS workbooks: list sheets (`sheets`), stream
                cells as CSV, TSV or JSON Lines in constant memory (`cat`),
                measure the reader (`profile`); convert to XLSX (written
                in parallel), CSV, Parquet and more (`convert`).
  PDF           Page count, boxes, metadata, objects, revisions, checks;
                append-only updates and full rewrites (`pdf`).
  aggregation   Min/mean/max of a value per key over huge delimited text files,
                1BRC style (`agg`).
  batch         Analyse many files (walks directories) into a JSON Lines
                report, with bounded slots, process isolation and resume
                (`batch`).
`demo` generates sample files and runs every engine on them.

Data goes to standard output, diagnostics to standard error. Exit status: 0 ok,
1 error, 2 usage, 3 finished with warnings (printed on standard error), 4
encrypted input.";

#[derive(Debug, Subcommand)]
enum Command {
    /// List the sheets of a workbook with their sizes and small parts.
    Sheets(sheets::Args),
    /// Print cells as CSV, TSV, JSON Lines rows or one JSON object per cell.
    #[command(long_about = cat::LONG_HELP)]
    Cat(cat::Args),
    /// Convert a workbook to XLSX (sheets written in parallel), CSV, TSV,
    /// JSON Lines, Parquet or Arrow, by the output's extension.
    #[command(long_about = convert::LONG_HELP)]
    Convert(convert::Args),
    /// Measure the spreadsheet reader on a workbook: phase times,
    /// parallelism, allocations, memory.
    #[command(visible_alias = "stats", long_about = stats::LONG_HELP)]
    Profile(stats::Args),
    /// Generate sample files and run every ream engine on them.
    Demo(demo::Args),
    /// Read and write PDFs: info, pages, show, revisions, check, index, update, rewrite.
    Pdf(pdf::Args),
    /// Min/mean/max of a value per key over a delimited file (1BRC).
    Agg(agg::Args),
    /// Analyse many files (walks directories) into a JSON Lines report:
    /// format, outcome and summary per file; optional process isolation.
    Batch(batch::Args),
    /// (internal) Serve `ream batch --isolate` jobs on standard input.
    #[command(hide = true)]
    BatchWorker,
}

/// A usage error found after parsing (unknown sheet, bad combination):
/// reported like an error, exits 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Sheets(a) => sheets::run(&a),
        Command::Cat(a) => cat::run(&a),
        Command::Convert(a) => convert::run(&a),
        Command::Profile(a) => stats::run(&a),
        Command::Demo(a) => demo::run(&a),
        Command::Pdf(a) => pdf::run(&a),
        Command::Agg(a) => agg::run(&a),
        Command::Batch(a) => batch::run(&a),
        Command::BatchWorker => batch::worker(),
    };
    match result {
        Ok(()) if input::WARNED.load(std::sync::atomic::Ordering::Relaxed) => {
            ExitCode::from(EXIT_WARNINGS)
        }
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ream: {e:#}");
            ExitCode::from(exit_code(&e))
        }
    }
}

/// True when the reader of our output went away (`ream cat ... | head`).
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(BrokenPipe))
    })
}

/// Maps an error to the documented exit status.
fn exit_code(e: &anyhow::Error) -> u8 {
    use ream::sheet::ErrorKind;
    for cause in e.chain() {
        if cause.downcast_ref::<UsageError>().is_some() {
            return EXIT_USAGE;
        }
        if let Some(ae) = cause.downcast_ref::<ream_agg::AggError>() {
            return match ae.kind() {
                ErrorKind::Usage => EXIT_USAGE,
                _ => 1,
            };
        }
        if let Some(pe) = cause.downcast_ref::<ream_pdf::Error>() {
            return match pe.kind() {
                ErrorKind::Encrypted => EXIT_ENCRYPTED,
                ErrorKind::Usage => EXIT_USAGE,
                _ => 1,
            };
        }
        if let Some(we) = cause.downcast_ref::<ream::write::Error>() {
            return match we.kind() {
                ErrorKind::Encrypted => EXIT_ENCRYPTED,
                ErrorKind::Usage => EXIT_USAGE,
                _ => 1,
            };
        }
        if let Some(se) = cause.downcast_ref::<ream::sheet::Error>() {
            return match se.kind() {
                ErrorKind::Encrypted => EXIT_ENCRYPTED,
                ErrorKind::Usage => EXIT_USAGE,
                _ => 1,
            };
        }
    }
    1
}
