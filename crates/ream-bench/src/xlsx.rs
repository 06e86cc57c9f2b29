//! The `xlsx` suite: ream (whole workbook on 1 and all threads, streaming
//! rows) vs calamine (`worksheet_range` on 1 and all threads, the XLSX cells
//! reader), each measurement in a fresh child process. ODS datasets run
//! through the same engines where they apply.

use crate::datagen;
use crate::measure::{Engine, resolve_threads};
use crate::report::{self, Row, Sample};
use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Settings of one suite run.
#[derive(Debug, Clone)]
pub struct Suite {
    /// Folder holding the datasets.
    pub dir: PathBuf,
    /// Dataset names.
    pub datasets: Vec<String>,
    /// Timed runs per measurement (after one warm-up).
    pub runs: usize,
    /// Dataset scale (selects `NAME-sF.xlsx` files below 1.0).
    pub scale: f64,
    /// Configurations to run: (engine, threads requested; 0 = all).
    pub configs: Vec<(Engine, usize)>,
    /// Per-child time limit.
    pub timeout: Duration,
    /// Print JSON instead of Markdown.
    pub json: bool,
}

/// Runs the suite and prints the report.
pub fn run(s: &Suite) -> Result<()> {
    let n = resolve_threads(0);
    let mut rows = Vec::new();
    for ds in &s.datasets {
        let g = datagen::generate(&s.dir, ds, s.scale, false)?;
        if g.written {
            eprintln!("generated {} in {:.1} s", g.path.display(), g.secs);
        }
        // Configurations of this dataset; runs are interleaved (warm-ups
        // first, then run k of every configuration) so background load on a
        // shared machine hits all engines alike.
        let first = rows.len();
        for &(engine, threads) in &s.configs {
            if g.kind == datagen::FileKind::Ods && !applies_to_ods(engine, threads) {
                eprintln!(
                    "{ds}: skipping {} {}t (not meaningful for ODS)",
                    engine.as_str(),
                    resolve_threads(threads)
                );
                continue;
            }
            let warm = run_child(engine, threads, &g.path, s.timeout)
                .map(|_| Vec::new())
                .map_err(|e| format!("{e:#}"));
            if let Err(e) = &warm {
                eprintln!(
                    "{ds} {} {}t: {e}",
                    engine.as_str(),
                    resolve_threads(threads)
                );
            }
            rows.push(Row {
                dataset: ds.clone(),
                engine,
                threads,
                resolved_threads: resolve_threads(threads),
                result: warm,
                expected_cells: g.cells,
            });
        }
        for k in 0..s.runs.max(1) {
            eprint!("{ds:<10} run {}/{}:", k + 1, s.runs.max(1));
            for row in rows.iter_mut().skip(first) {
                let label = row.label();
                let Ok(samples) = &mut row.result else {
                    continue;
                };
                match run_child(row.engine, row.threads, &g.path, s.timeout) {
                    Ok(x) => {
                        eprint!(" {label} {:.3}s", x.wall_s);
                        samples.push(x);
                    }
                    Err(e) => {
                        eprint!(" {label} error");
                        row.result = Err(format!("{e:#}"));
                    }
                }
            }
            eprintln!();
        }
    }
    if s.json {
        let meta = json!({
            "command": command_line(),
            "cores": n,
            "runs": s.runs,
            "scale": s.scale,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&report::to_json(&rows, &s.datasets, n, meta))?
        );
    } else {
        println!(
            "`{}` — {} cores, {} timed runs after 1 warm-up, median wall time; each run a fresh process\n",
            command_line(),
            n,
            s.runs
        );
        print!("{}", report::markdown(&rows, &s.datasets, n));
    }
    Ok(())
}

/// calamine's cells reader is XLSX-only, and its ODS reader parses every
/// sheet at open, so "one reader per thread" would parse the file N times.
fn applies_to_ods(engine: Engine, threads: usize) -> bool {
    match engine {
        Engine::CalamineCells => false,
        Engine::Calamine => resolve_threads(threads) <= 1,
        Engine::Ream | Engine::ReamStream => true,
    }
}

/// `ream-bench ARGS..` as typed (program path shortened).
fn command_line() -> String {
    let mut parts = vec!["ream-bench".to_owned()];
    parts.extend(std::env::args().skip(1));
    parts.join(" ")
}

fn run_child(engine: Engine, threads: usize, file: &Path, timeout: Duration) -> Result<Sample> {
    let exe = std::env::current_exe().context("locating own executable")?;
    let mut child = Command::new(exe)
        .arg("measure")
        .args([
            "--engine",
            engine.as_str(),
            "--threads",
            &threads.to_string(),
            "--file",
        ])
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("spawning measure child")?;
    let mut out_pipe = child.stdout.take().context("child stdout")?;
    let mut err_pipe = child.stderr.take().context("child stderr")?;
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out_pipe.read_to_string(&mut s);
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err_pipe.read_to_string(&mut s);
        s
    });
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break Some(st);
        }
        if t0.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = out_t.join().unwrap_or_default();
    let stderr = err_t.join().unwrap_or_default();
    let Some(status) = status else {
        bail!("timed out after {:.0} s", timeout.as_secs_f64());
    };
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with('{'));
    let parsed: Option<Value> = line.and_then(|l| serde_json::from_str(l).ok());
    match parsed {
        Some(v) if v.get("ok") == Some(&Value::Bool(true)) => {
            Sample::from_json(&v).context("malformed measure line")
        }
        Some(v) => bail!(
            "{}",
            v.get("error")
                .and_then(Value::as_str)
                .unwrap_or("engine failed")
        ),
        None => {
            let tail: String = {
                let t: Vec<&str> = stderr.lines().rev().take(3).collect();
                t.into_iter().rev().collect::<Vec<_>>().join(" / ")
            };
            bail!("child exited with {status}: {tail}")
        }
    }
}
