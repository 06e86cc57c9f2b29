//! `ream-bench agg`: the One Billion Row Challenge, ream beside the naive
//! baseline (and DuckDB when its Python module is installed), every run in
//! a fresh child process.
//!
//! `ream-bench agg [--rows 100m] [--keys 413|10k|both] [--runs 5]
//! [--engines ream-1t,ream-nt,naive,duckdb] [--dir bench-data]
//! [--data-dir D] [--json]` generates the missing data files (`aggen`),
//! then per file runs one warm-up of every engine (which also pulls the file
//! into the page cache) and N timed runs interleaved across files and
//! engines. Engines:
//!
//! * `ream-1t`, `ream-nt` — `ream_agg::aggregate_path` on 1 thread / all
//!   cores, then the 1BRC text written to a buffer;
//! * `naive` — `aggnaive` (BufRead lines, HashMap<String>, f64 parse);
//! * `duckdb` — `python3` + `duckdb`: `read_csv` and GROUP BY, formatted in
//!   Python; the time includes the interpreter start and the import (the
//!   query time alone is in the note). Skipped with a note when
//!   `import duckdb` fails.
//!
//! The report (Markdown, or JSON with `--json`) gives per file and engine
//! the median wall time, rows/s, ns/row, peak RSS (for ream this counts the
//! mapped file pages, which are page cache and not private memory), and the
//! SHA-256 of the output, which must be equal for every engine (a mismatch
//! is reported loudly, with the first differing byte); then the ratios and
//! the issue-5 acceptance checks the run allows. Outputs are kept under
//! `<dir>/agg-out/` for diffing.
//!
//! `ream-bench agg gen` only generates; `ream-bench agg measure` (hidden)
//! is the child (`aggchild`); the report is built by `aggreport`.

use crate::aggchild::measure;
use crate::aggen;
use crate::aggkeys::{Keys, default_data_dir};
use crate::aggreport::{Row, equality, markdown, report_json};
use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Arguments of `ream-bench agg`.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    sub: Option<Sub>,
    /// Folder of the generated files (git-ignored).
    #[arg(long, default_value = "bench-data")]
    dir: PathBuf,
    /// Folder with stations413.csv and weather_stations_44k.csv (default:
    /// $REAM_1BRC_DATA, else <workspace>/../shared/data/1brc).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Rows per file: 1m, 100m, 1b, or a number.
    #[arg(long, default_value = "100m")]
    rows: String,
    /// Station sets: 413, 10k or both.
    #[arg(long, default_value = "both")]
    keys: KeySel,
    /// Timed runs per engine and file, after one warm-up run.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Engines (comma-separated): ream-1t, ream-nt, ream (both), naive,
    /// duckdb.
    #[arg(long, default_value = "ream-1t,ream-nt,naive,duckdb")]
    engines: String,
    /// Per-run time limit in seconds.
    #[arg(long, default_value_t = 900)]
    timeout_s: u64,
    /// Print JSON instead of Markdown.
    #[arg(long)]
    json: bool,
}

/// `--keys`: one set or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KeySel {
    /// The 413 official stations.
    #[value(name = "413")]
    K413,
    /// The 10,000-name variant.
    #[value(name = "10k")]
    K10k,
    /// Both, 413 first.
    Both,
}

impl KeySel {
    fn sets(self) -> Vec<Keys> {
        match self {
            KeySel::K413 => vec![Keys::K413],
            KeySel::K10k => vec![Keys::K10k],
            KeySel::Both => Keys::BOTH.to_vec(),
        }
    }
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// Only generate data files (skips existing ones unless --force).
    Gen {
        /// Output folder.
        #[arg(long, default_value = "bench-data")]
        dir: PathBuf,
        /// Reference data folder (see `ream-bench agg --help`).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Rows per file: 1m, 100m, 1b, or a number.
        #[arg(long, default_value = "100m")]
        rows: String,
        /// Station sets: 413, 10k or both.
        #[arg(long, default_value = "413")]
        keys: KeySel,
        /// Generator threads (0 = all cores); the bytes do not depend on it.
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Rewrite files that already exist.
        #[arg(long)]
        force: bool,
    },
    /// (internal) One measurement in this process; prints one JSON line.
    #[command(hide = true)]
    Measure {
        /// Engine.
        #[arg(long, value_enum)]
        engine: Engine,
        /// Threads (0 = all cores).
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// The data file.
        #[arg(long)]
        file: PathBuf,
        /// Where to write the 1BRC output.
        #[arg(long)]
        out: PathBuf,
    },
}

/// The programs under comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Engine {
    /// `ream_agg::aggregate_path`.
    Ream,
    /// The naive baseline (`aggnaive`).
    Naive,
    /// DuckDB through Python.
    Duckdb,
}

impl Engine {
    /// Name on the command line (`--engine`).
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Ream => "ream",
            Engine::Naive => "naive",
            Engine::Duckdb => "duckdb",
        }
    }
}

/// One engine configuration: (engine, threads requested; 0 = all cores).
pub type Config = (Engine, usize);

/// Expands `--engines` in report order without duplicates.
fn parse_engines(list: &str) -> Result<Vec<Config>> {
    let mut out: Vec<Config> = Vec::new();
    for e in list.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let add: &[Config] = match e {
            "ream" => &[(Engine::Ream, 1), (Engine::Ream, 0)],
            "ream-1t" => &[(Engine::Ream, 1)],
            "ream-nt" => &[(Engine::Ream, 0)],
            "naive" => &[(Engine::Naive, 1)],
            "duckdb" => &[(Engine::Duckdb, 0)],
            "all" => &[
                (Engine::Ream, 1),
                (Engine::Ream, 0),
                (Engine::Naive, 1),
                (Engine::Duckdb, 0),
            ],
            other => bail!("unknown engine {other:?} (ream-1t, ream-nt, ream, naive, duckdb, all)"),
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
    // ream 1t before ream Nt, then naive, then DuckDB.
    out.sort_by_key(|&(e, t)| (e, t == 0));
    Ok(out)
}

/// Runs `ream-bench agg`.
pub fn run(a: &Args) -> Result<()> {
    match &a.sub {
        Some(Sub::Gen {
            dir,
            data_dir,
            rows,
            keys,
            threads,
            force,
        }) => {
            let rows = aggen::parse_rows(rows)?;
            let data_dir = data_dir.clone().unwrap_or_else(default_data_dir);
            for k in keys.sets() {
                let g = aggen::generate(dir, &data_dir, k, rows, *threads, *force)?;
                report_gen(&g);
            }
            Ok(())
        }
        Some(Sub::Measure {
            engine,
            threads,
            file,
            out,
        }) => {
            std::process::exit(crate::child::print_result(measure(
                *engine, *threads, file, out,
            )));
        }
        None => suite(a),
    }
}

fn report_gen(g: &aggen::Generated) {
    if g.written {
        eprintln!(
            "generated {} ({:.2} GB) in {:.1} s",
            g.path.display(),
            g.bytes as f64 / 1e9,
            g.secs
        );
    } else {
        eprintln!(
            "using {} ({:.2} GB)",
            g.path.display(),
            g.bytes as f64 / 1e9
        );
    }
}

fn duckdb_available() -> bool {
    Command::new("python3")
        .args(["-c", "import duckdb"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn run_child(row: &Row, timeout: Duration) -> Result<Value> {
    let (engine, threads) = row.config;
    let args: Vec<std::ffi::OsString> = vec![
        "agg".into(),
        "measure".into(),
        "--engine".into(),
        engine.as_str().into(),
        "--threads".into(),
        threads.to_string().into(),
        "--file".into(),
        row.file.clone().into(),
        "--out".into(),
        row.out.clone().into(),
    ];
    crate::child::run_json(args, timeout)
}

fn suite(a: &Args) -> Result<()> {
    let rows = aggen::parse_rows(&a.rows)?;
    let data_dir = a.data_dir.clone().unwrap_or_else(default_data_dir);
    let mut configs = parse_engines(&a.engines)?;
    let mut notes = Vec::new();
    if configs.iter().any(|c| c.0 == Engine::Duckdb) && !duckdb_available() {
        configs.retain(|c| c.0 != Engine::Duckdb);
        notes.push("duckdb: `python3 -c 'import duckdb'` failed; skipped".to_owned());
    }
    if configs.is_empty() {
        bail!("no engine left to run");
    }
    let out_dir = a.dir.join("agg-out");
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let mut table: Vec<Row> = Vec::new();
    for keys in a.keys.sets() {
        let g = aggen::generate(&a.dir, &data_dir, keys, rows, 0, false)?;
        report_gen(&g);
        for &config in &configs {
            let mut row = Row {
                keys,
                file: g.path.clone(),
                file_bytes: g.bytes,
                rows,
                config,
                out: PathBuf::new(),
                samples: Vec::new(),
                error: None,
            };
            row.out = out_dir.join(format!(
                "{}.{}.out",
                row.file_name(),
                row.label().replace(' ', "-")
            ));
            table.push(row);
        }
    }
    let timeout = Duration::from_secs(a.timeout_s);
    let runs = a.runs.max(1);
    // Warm-up (and the page cache), then the timed runs interleaved.
    for round in 0..=runs {
        if round == 0 {
            eprint!("warm-up:");
        } else {
            eprint!("run {round}/{runs}:");
        }
        for row in &mut table {
            if row.error.is_some() {
                continue;
            }
            match run_child(row, timeout) {
                Ok(v) => {
                    eprint!(
                        " {}={:.3}",
                        row.label(),
                        v.get("wall_s").and_then(Value::as_f64).unwrap_or(0.0)
                    );
                    if round > 0 {
                        row.samples.push(v);
                    }
                }
                Err(e) => {
                    let e = format!("{e:#}");
                    eprint!(" {}=ERROR", row.label());
                    row.error = Some(e);
                }
            }
        }
        eprintln!();
    }
    let checks = equality(&table);
    for c in checks.iter().filter(|c| !c.same) {
        eprintln!("!!! OUTPUT MISMATCH: {}", c.text);
    }
    let cmd = {
        let mut parts = vec!["ream-bench".to_owned()];
        parts.extend(std::env::args().skip(1));
        parts.join(" ")
    };
    if a.json {
        let mut v = report_json(&table, &checks);
        if let Some(o) = v.as_object_mut() {
            o.insert("command".into(), json!(cmd));
            o.insert("runs".into(), json!(runs));
            o.insert("notes".into(), json!(notes));
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        println!(
            "`{cmd}` — {cores} cores, {runs} timed runs after 1 warm-up, median wall time; \
             each run a fresh process; warm page cache\n"
        );
        print!("{}", markdown(&table, &checks));
        for n in notes {
            println!("\n{n}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_expand_in_report_order() {
        assert_eq!(
            parse_engines("duckdb,naive,ream-nt,ream-1t").unwrap(),
            [
                (Engine::Ream, 1),
                (Engine::Ream, 0),
                (Engine::Naive, 1),
                (Engine::Duckdb, 0)
            ]
        );
        assert_eq!(
            parse_engines("ream,ream-1t").unwrap(),
            [(Engine::Ream, 1), (Engine::Ream, 0)]
        );
        assert!(parse_engines("polars").is_err());
        assert!(parse_engines(" , ").is_err());
    }
}
