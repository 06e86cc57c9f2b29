//! `ream-bench`: side-by-side benchmarks of ream against calamine, plus the
//! deterministic data generators they run on.
//!
//! # Commands
//!
//! * `ream-bench gen [--dir bench-data] [--only a,b] [--scale F] [--force]`
//!   writes the XLSX datasets with rust_xlsxwriter (low-memory worksheets,
//!   shared strings) from a fixed-seed SplitMix64 PRNG, skipping files that
//!   already exist. Datasets:
//!   - `seed`: 8 sheets x 5,000 rows x 4 columns (int, float, pooled string,
//!     date) — the article's benchmark workbook;
//!   - `tiny`: 8 sheets x 1 row, same columns (fixed-cost overhead);
//!   - `many`: 64 sheets x 20,000 rows x 8 mixed columns (ints, floats,
//!     pooled strings, dates, bools, a formula with a cached result);
//!   - `giant`: 1 sheet x 1,000,000 rows x 10 mixed columns;
//!   - `sst_heavy`: 1 sheet x 300,000 rows x 5 mostly unique strings.
//!
//!   `--scale F` (0 < F <= 1) multiplies the row counts and writes
//!   `NAME-sF.xlsx` instead of `NAME.xlsx`, for quick checks.
//! * `ream-bench xlsx [--dir bench-data] [--datasets a,b] [--runs 5]
//!   [--scale F] [--engines ream,calamine] [--json]` measures, per dataset,
//!   ream with 1 thread and with all threads, calamine with 1 thread and
//!   calamine "parallel" (one reader per thread, sheets dealt round-robin).
//!   Missing datasets are generated first. Each measurement is one warm-up
//!   plus N timed runs, every run in a fresh child process (so peak RSS is
//!   per run); runs are interleaved across engines so background load hits
//!   them alike. The report gives the median wall time, cells/s, CPU/wall,
//!   allocations per cell, sampled peak heap, peak RSS and the ratios
//!   calamine 1t / ream 1t, ream 1t / ream Nt and calamine Nt / ream Nt, as a
//!   Markdown table (paste it into BENCHMARKS.md) or JSON. Engine errors and
//!   cell-count disagreements appear in the `note` column instead of aborting.
//! * `ream-bench measure --engine ream|calamine --threads N --file F`
//!   (hidden) is the child: it installs the counting allocator, opens and
//!   reads the file once and prints one JSON line.
//!
//! Generated data lives only in the git-ignored `bench-data/` folder.

#[path = "gen.rs"]
mod datagen;
mod measure;
mod prng;
mod report;
mod xlsx;

use anyhow::{Result, bail};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

#[global_allocator]
static ALLOC: ream_alloc::CountingAlloc = ream_alloc::CountingAlloc;

/// Benchmarks ream against calamine on generated XLSX workbooks.
#[derive(Debug, Parser)]
#[command(name = "ream-bench", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Generate the benchmark workbooks (deterministic, fixed seeds).
    Gen {
        /// Output folder (git-ignored).
        #[arg(long, default_value = "bench-data")]
        dir: PathBuf,
        /// Only these datasets (comma-separated): seed, tiny, many, giant, sst_heavy.
        #[arg(long)]
        only: Option<String>,
        /// Row-count multiplier in (0, 1]; scaled files are named NAME-sF.xlsx.
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        /// Rewrite files that already exist.
        #[arg(long)]
        force: bool,
    },
    /// Compare ream and calamine (1 thread and all threads) on the datasets.
    Xlsx {
        /// Folder holding the datasets (missing ones are generated).
        #[arg(long, default_value = "bench-data")]
        dir: PathBuf,
        /// Datasets to run (comma-separated).
        #[arg(long, default_value = "seed,tiny,many,giant,sst_heavy")]
        datasets: String,
        /// Timed runs per measurement, after one warm-up run.
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Use the files generated with this --scale.
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        /// Engines to run (comma-separated): ream, calamine.
        #[arg(long, default_value = "ream,calamine")]
        engines: String,
        /// Per-run time limit in seconds.
        #[arg(long, default_value_t = 600)]
        timeout_s: u64,
        /// Print JSON instead of a Markdown table.
        #[arg(long)]
        json: bool,
    },
    /// (internal) One measurement in this process; prints one JSON line.
    #[command(hide = true)]
    Measure {
        /// Engine to run.
        #[arg(long, value_enum)]
        engine: measure::Engine,
        /// Threads (0 = all cores).
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// The workbook.
        #[arg(long)]
        file: PathBuf,
    },
}

fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(str::to_owned)
        .collect()
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Gen {
            dir,
            only,
            scale,
            force,
        } => datagen::run(&dir, only.as_deref(), scale, force),
        Cmd::Xlsx {
            dir,
            datasets,
            runs,
            scale,
            engines,
            timeout_s,
            json,
        } => {
            let datasets = split_list(&datasets);
            for d in &datasets {
                if datagen::spec(d).is_none() {
                    bail!(
                        "unknown dataset {d:?}; known: {}",
                        datagen::DATASETS.join(", ")
                    );
                }
            }
            let mut engs = Vec::new();
            for e in split_list(&engines) {
                engs.push(match e.as_str() {
                    "ream" => measure::Engine::Ream,
                    "calamine" => measure::Engine::Calamine,
                    other => bail!("unknown engine {other:?} (ream, calamine)"),
                });
            }
            xlsx::run(&xlsx::Suite {
                dir,
                datasets,
                runs,
                scale,
                engines: engs,
                timeout: Duration::from_secs(timeout_s),
                json,
            })
        }
        Cmd::Measure {
            engine,
            threads,
            file,
        } => std::process::exit(measure::run(engine, threads, &file)),
    }
}
