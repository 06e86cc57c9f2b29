//! `ream-bench`: side-by-side benchmarks of ream against calamine, plus the
//! deterministic data generators they run on.
//!
//! # Commands
//!
//! * `ream-bench gen [--dir bench-data] [--only a,b] [--scale F] [--force]`
//!   writes the datasets from a fixed-seed SplitMix64 PRNG, skipping files
//!   that already exist. XLSX files come from rust_xlsxwriter (low-memory
//!   worksheets, shared strings); ODS files from our own streaming writer
//!   (`odsgen`). Datasets:
//!   - `seed`: 8 sheets x 5,000 rows x 4 columns (int, float, pooled string,
//!     date) — the article's benchmark workbook;
//!   - `tiny`: 8 sheets x 1 row, same columns (fixed-cost overhead);
//!   - `many`: 64 sheets x 20,000 rows x 8 mixed columns (ints, floats,
//!     pooled strings, dates, bools, a formula with a cached result);
//!   - `giant`: 1 sheet x 1,000,000 rows x 10 mixed columns;
//!   - `sst_heavy`: 1 sheet x 300,000 rows x 5 mostly unique strings;
//!   - `mixed`: 1 sheet x 1,000,000 rows plus 20 sheets x 20,000 rows, the
//!     10 columns of `giant` (one giant and many small sheets);
//!   - `seed_ods`, `giant_ods`: `seed` and `giant` as ODS (`seed.ods`,
//!     `giant.ods`), the same values.
//!
//!   `--scale F` (0 < F <= 1) multiplies the row counts and writes
//!   `NAME-sF.EXT` instead of `NAME.EXT`, for quick checks.
//! * `ream-bench xlsx [--dir bench-data] [--datasets a,b] [--runs 5]
//!   [--scale F] [--engines LIST] [--quick] [--json] [--steal-retries 2]
//!   [--min-round-s 0.25]`
//!   measures, per dataset,
//!   these configurations (`--engines`, comma-separated, default `all`):
//!   - `ream` = `ream-1t` + `ream-nt`: `Workbook::open` on 1 thread / all
//!     threads, then every cell visited (rows `ream 1t`, `ream Nt`);
//!   - `ream-stream` = `ream-stream-1t` + `ream-stream-nt`:
//!     `load_cells(false)` open on 1 thread / all threads, then
//!     `Workbook::rows` of every sheet (rows `ream stream 1t`, `ream stream
//!     Nt`; constant memory; with all threads a big part is inflated on a
//!     helper thread while the caller parses);
//!   - `calamine` = `calamine-1t` + `calamine-nt`: `worksheet_range` of
//!     every sheet, one reader, or one reader per thread with sheets dealt
//!     round-robin (rows `calamine range 1t`, `calamine range Nt`);
//!   - `calamine-cells`: `Xlsx::worksheet_cells_reader` + `next_cell()` of
//!     every sheet (row `calamine cells`).
//!
//!   On ODS datasets `calamine cells` (XLSX only) and `calamine range Nt`
//!   (calamine's ODS reader parses every sheet at open) are skipped.
//!   `--quick` is `--scale 0.1 --runs 3` (smoke checks).
//!   Missing datasets are generated first. Each measurement is one warm-up
//!   plus N timed runs, every run in a fresh child process (so peak RSS is
//!   per run); runs are interleaved across engines so background load hits
//!   them alike, and a run during which the hypervisor stole over 3 % of the
//!   CPU time (`/proc/stat`) is run again, up to `--steal-retries` times.
//!   A configuration whose warm-up took under `--min-round-s` runs up to 8
//!   times per round (seed's 20 ms opens need that many samples). The report gives the median wall time, cells/s, CPU/wall,
//!   allocations per cell, sampled peak heap, peak RSS, the ratios
//!   (calamine range 1t / ream 1t, ream 1t / ream Nt, calamine range 1t /
//!   ream Nt, calamine range Nt / ream Nt, calamine cells / ream stream) and
//!   the issue-3 acceptance checks the run allows, as Markdown (paste it into
//!   BENCHMARKS.md) or JSON. Engine errors and cell-count disagreements
//!   appear in the `note` column instead of aborting.
//! * `ream-bench measure --engine ream|ream-stream|calamine|calamine-cells
//!   --threads N --file F` (hidden) is the child: it installs the counting
//!   allocator, opens and reads the file once and prints one JSON line.
//!
//! * `ream-bench pdf [--size small|big] [--runs 5] [--engines ...]`: ream's
//!   PDF reader (each byte source) beside lopdf, pdf-rs, qpdf and mutool on
//!   generated PDFs (`pdfgen`; `ream-bench pdf gen --size big` only
//!   generates); see `pdfbench`.
//!
//! * `ream-bench agg [--rows 100m|1b] [--keys 413|10k|both] [--runs 5]
//!   [--engines ream-1t,ream-nt,naive,duckdb]`: the One Billion Row
//!   Challenge on generated files (`aggen`, `ream-bench agg gen` only
//!   generates), ream beside the naive baseline (`aggnaive`); see
//!   `aggbench`.
//!
//! * `ream-bench batch [--jobs 2] [--runs 3] [--small-only] [--gen-only]`:
//!   the batch dispatcher in-process on a generated tree of 20,000 small
//!   and 100 big files (`batchgen`), normal mode beside interning on the
//!   worker under one global lock; see `batchbench`.
//!
//! * `ream-bench py [--python PATH] [--datasets many,giant] [--runs 3]
//!   [--engines fastexcel,polars,pandas,ream,ream-pa-table,ream-stream]
//!   [--scale F]`: ream from Python (`[pyarrow.table(v) for v in
//!   ream.read_excel(f, sheet=None).values()]`; the same with
//!   `v.to_arrow()`, which skips the pandas import `pyarrow.table` does;
//!   `iter_batches` on giant) beside fastexcel
//!   (`load_sheet(n).to_arrow()` of every sheet), polars
//!   `read_excel(sheet_id=0)` and pandas `read_excel(sheet_name=None,
//!   engine="calamine")`, each run a whole `python -c` process (start-up
//!   and imports included), interleaved; medians, peak RSS, ratios to
//!   ream, the issue-22 acceptance and the package versions as Markdown.
//!   The interpreter given must have those packages (`pip install
//!   ./crates/ream-py fastexcel polars pandas python-calamine pyarrow`);
//!   see `pybench` and `scripts/py_bench.py`.
//!
//! * `ream-bench calibrate [--rounds 3] [--threads N]`: a compute loop, a
//!   memory copy and page faults, each alone and N at once (`calibrate`),
//!   to tell what the machine's cores share from what ream does.
//!
//! * `ream-bench write [--datasets many,giant] [--runs 3] [--scale F]
//!   [--engines ream-1t,ream-2t,xlsxwriter,xlsxwriter-cm]`: writes the same
//!   workbook with ream-write and rust_xlsxwriter, each run a fresh child
//!   (`write-one`), and prints median time, size, peak RSS and the ratio to
//!   rust_xlsxwriter's default mode (see `writebench`).
//!
//! Generated data lives only in the git-ignored `bench-data/` folder.

mod aggbench;
mod aggchild;
mod aggen;
mod aggkeys;
mod aggnaive;
mod aggreport;
mod batchbench;
mod batchgen;
mod calibrate;
mod child;
#[path = "gen.rs"]
mod datagen;
mod lo;
mod measure;
mod odsgen;
mod pdfbench;
mod pdfgen;
mod prng;
mod pybench;
mod report;
mod writebench;
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
        /// Only these datasets (comma-separated): seed, tiny, many, giant,
        /// sst_heavy, mixed, seed_ods, giant_ods. Default: all.
        #[arg(long)]
        only: Option<String>,
        /// Row-count multiplier in (0, 1]; scaled files are named NAME-sF.EXT.
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        /// Rewrite files that already exist.
        #[arg(long)]
        force: bool,
    },
    /// Compare ream and calamine (whole workbook on 1 and all threads,
    /// streaming) on the datasets (XLSX and ODS).
    Xlsx {
        /// Folder holding the datasets (missing ones are generated).
        #[arg(long, default_value = "bench-data")]
        dir: PathBuf,
        /// Datasets to run (comma-separated).
        #[arg(long, default_value = "seed,tiny,many,giant,sst_heavy,mixed")]
        datasets: String,
        /// Timed runs per measurement, after one warm-up run (default 5; 3
        /// with --quick).
        #[arg(long)]
        runs: Option<usize>,
        /// Use the files generated with this --scale (default 1; 0.1 with
        /// --quick).
        #[arg(long)]
        scale: Option<f64>,
        /// Smoke check: --scale 0.1 --runs 3 unless given explicitly.
        #[arg(long)]
        quick: bool,
        /// Configurations (comma-separated): ream (= ream-1t,ream-nt),
        /// ream-stream (= ream-stream-1t,ream-stream-nt), calamine (=
        /// calamine-1t,calamine-nt),
        /// calamine-cells, all.
        #[arg(long, default_value = "all")]
        engines: String,
        /// Per-run time limit in seconds.
        #[arg(long, default_value_t = 600)]
        timeout_s: u64,
        /// Print JSON instead of a Markdown table.
        #[arg(long)]
        json: bool,
        /// Times a timed run is run again when the hypervisor stole over
        /// 3 % of the machine's CPU time during it (0: never).
        #[arg(long, default_value_t = 2)]
        steal_retries: usize,
        /// A configuration whose warm-up took under this many seconds runs
        /// several times per round (up to 8), about this long (0: once).
        #[arg(long, default_value_t = 0.25)]
        min_round_s: f64,
    },
    /// PDF: ream vs lopdf, pdf-rs, qpdf, mutool on generated big PDFs.
    Pdf(pdfbench::Args),
    /// One Billion Row Challenge: ream (1 and all threads) vs the naive
    /// baseline (and DuckDB if installed) on generated 1BRC files.
    Agg(aggbench::Args),
    /// Batch dispatcher: 20,000 small + 100 big mixed files, normal vs
    /// interning on the worker path under one global lock.
    Batch(batchbench::Args),
    /// ream from Python beside fastexcel, polars and pandas (calamine) on
    /// many and giant: whole `python -c` processes, medians, peak RSS,
    /// ratios to ream, package versions (Markdown). Needs an interpreter
    /// with those packages and ream installed (--python).
    Py(pybench::Args),
    /// What a second busy core costs here: compute, memory copy and page
    /// faults, alone and N at once.
    Calibrate(calibrate::Args),
    /// Writing: ream-write (1 and 2 threads) vs rust_xlsxwriter (default
    /// and constant memory) on `many` and `giant`.
    Write(writebench::Args),
    /// (internal) One write measurement; prints one JSON line.
    #[command(hide = true)]
    WriteOne(writebench::OneArgs),
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

/// Expands `--engines` into (engine, threads) configurations, in report
/// order, without duplicates.
fn parse_engines(list: &str) -> Result<Vec<(measure::Engine, usize)>> {
    use measure::Engine::{Calamine, CalamineCells, Ream, ReamStream};
    let mut out: Vec<(measure::Engine, usize)> = Vec::new();
    for e in split_list(list) {
        let add: &[(measure::Engine, usize)] = match e.as_str() {
            "all" => &[
                (Ream, 1),
                (Ream, 0),
                (ReamStream, 1),
                (ReamStream, 0),
                (Calamine, 1),
                (Calamine, 0),
                (CalamineCells, 1),
            ],
            "ream" => &[(Ream, 1), (Ream, 0)],
            "ream-1t" => &[(Ream, 1)],
            "ream-nt" => &[(Ream, 0)],
            "ream-stream" => &[(ReamStream, 1), (ReamStream, 0)],
            "ream-stream-1t" => &[(ReamStream, 1)],
            "ream-stream-nt" => &[(ReamStream, 0)],
            "calamine" | "calamine-range" => &[(Calamine, 1), (Calamine, 0)],
            "calamine-1t" => &[(Calamine, 1)],
            "calamine-nt" => &[(Calamine, 0)],
            "calamine-cells" => &[(CalamineCells, 1)],
            other => bail!(
                "unknown engine {other:?} (all, ream, ream-1t, ream-nt, ream-stream, \
                 ream-stream-1t, ream-stream-nt, calamine, calamine-1t, calamine-nt, \
                 calamine-cells)"
            ),
        };
        for c in add {
            if !out.contains(c) {
                out.push(*c);
            }
        }
    }
    if out.is_empty() {
        bail!("--engines selects nothing");
    }
    // Report order: ream rows first, then calamine.
    let rank = |(e, t): &(measure::Engine, usize)| {
        let r = match e {
            Ream => 0,
            ReamStream => 2,
            Calamine => 4,
            CalamineCells => 6,
        };
        r + usize::from(*t == 0)
    };
    out.sort_by_key(rank);
    Ok(out)
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
            quick,
            engines,
            timeout_s,
            json,
            steal_retries,
            min_round_s,
        } => {
            let runs = runs.unwrap_or(if quick { 3 } else { 5 });
            let scale = scale.unwrap_or(if quick { 0.1 } else { 1.0 });
            let datasets = split_list(&datasets);
            for d in &datasets {
                if datagen::spec(d).is_none() {
                    bail!(
                        "unknown dataset {d:?}; known: {}",
                        datagen::DATASETS.join(", ")
                    );
                }
            }
            let configs = parse_engines(&engines)?;
            xlsx::run(&xlsx::Suite {
                dir,
                datasets,
                runs,
                scale,
                configs,
                timeout: Duration::from_secs(timeout_s),
                json,
                steal_retries,
                min_round_s,
            })
        }
        Cmd::Pdf(a) => pdfbench::run(&a),
        Cmd::Batch(a) => batchbench::run(&a),
        Cmd::Agg(a) => aggbench::run(&a),
        Cmd::Calibrate(a) => calibrate::run(&a),
        Cmd::Py(a) => pybench::run(&a),
        Cmd::Write(a) => writebench::run(&a),
        Cmd::WriteOne(a) => std::process::exit(writebench::run_one(&a)),
        Cmd::Measure {
            engine,
            threads,
            file,
        } => std::process::exit(measure::run(engine, threads, &file)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::Engine::{Calamine, CalamineCells, Ream, ReamStream};

    #[test]
    fn engines_expand_in_report_order() {
        assert_eq!(
            parse_engines("all").unwrap(),
            [
                (Ream, 1),
                (Ream, 0),
                (ReamStream, 1),
                (ReamStream, 0),
                (Calamine, 1),
                (Calamine, 0),
                (CalamineCells, 1)
            ]
        );
        assert_eq!(
            parse_engines("calamine-cells, ream-stream-1t,ream-1t,ream").unwrap(),
            [(Ream, 1), (Ream, 0), (ReamStream, 1), (CalamineCells, 1)]
        );
        assert!(parse_engines("nope").is_err());
        assert!(parse_engines(",").is_err());
    }

    #[test]
    fn py_flags_parse() {
        let cli = Cli::try_parse_from([
            "ream-bench",
            "py",
            "--python",
            "/venv/bin/python",
            "--runs",
            "2",
        ])
        .unwrap();
        let Cmd::Py(a) = cli.cmd else {
            panic!("not py");
        };
        assert_eq!(a.python, PathBuf::from("/venv/bin/python"));
        assert_eq!((a.runs, a.datasets.as_str()), (2, "many,giant"));
    }

    #[test]
    fn quick_flag_parses() {
        let cli = Cli::try_parse_from(["ream-bench", "xlsx", "--quick"]).unwrap();
        let Cmd::Xlsx {
            quick, runs, scale, ..
        } = cli.cmd
        else {
            panic!("not xlsx");
        };
        assert!(quick);
        assert_eq!((runs, scale), (None, None));
    }
}
