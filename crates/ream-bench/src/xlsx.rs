//! The `xlsx` suite: ream (whole workbook on 1 and all threads, streaming
//! rows) vs calamine (`worksheet_range` on 1 and all threads, the XLSX cells
//! reader), each measurement in a fresh child process. ODS datasets run
//! through the same engines where they apply.

use crate::datagen;
use crate::measure::{Engine, resolve_threads};
use crate::report::{self, Row, Sample};
use anyhow::{Context, Result};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Duration;

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
    /// How many times a timed run disturbed by steal is run again (the
    /// last try is kept whatever its steal).
    pub steal_retries: usize,
    /// A configuration whose warm-up took less than this many seconds is
    /// run several times per round (at most [`MAX_PER_ROUND`]), about this
    /// long in all: a 20 ms open varies by a third from run to run on the
    /// 2-core VM, so five samples left its median (and the seed/seed_ods
    /// ratio) to chance. 0 turns it off.
    pub min_round_s: f64,
}

/// Most timed runs of one configuration per round.
pub const MAX_PER_ROUND: usize = 8;

/// Timed runs per round for a configuration whose warm-up took `warm_s`.
fn per_round(warm_s: f64, min_round_s: f64) -> usize {
    // NaN and non-positive times compare false: once per round.
    let short = warm_s > 0.0 && min_round_s > warm_s;
    if !short {
        return 1;
    }
    // `as` saturates: a huge quotient becomes usize::MAX, then the cap.
    ((min_round_s / warm_s).ceil() as usize).clamp(1, MAX_PER_ROUND)
}

/// Runs the suite and prints the report.
pub fn run(s: &Suite) -> Result<()> {
    let n = resolve_threads(0);
    let mut rows = Vec::new();
    // Per dataset: its file and the range of its rows.
    let mut files = Vec::new();
    for ds in &s.datasets {
        let g = datagen::generate(&s.dir, ds, s.scale, false)?;
        if g.written {
            eprintln!("generated {} in {:.1} s", g.path.display(), g.secs);
        }
        let first = rows.len();
        for &(engine, threads) in &s.configs {
            if g.kind != datagen::FileKind::Xlsx && !applies_to_ods(engine, threads) {
                eprintln!(
                    "{ds}: skipping {} {}t (not meaningful for ODS or XLS)",
                    engine.as_str(),
                    resolve_threads(threads)
                );
                continue;
            }
            let warm = run_child(engine, threads, &g.path, s.timeout);
            let reps = warm
                .as_ref()
                .map_or(1, |w| per_round(w.wall_s, s.min_round_s));
            let warm = warm.map(|_| Vec::new()).map_err(|e| format!("{e:#}"));
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
                repeated: 0,
                per_round: reps,
            });
        }
        files.push((ds.clone(), g.path, first..rows.len()));
    }
    // Runs are interleaved (warm-ups first, then run k of every
    // configuration of every dataset) so background load and the VM's
    // drift hit all engines and all datasets alike: the per-cell check
    // compares seed with seed_ods, and with the datasets run one after the
    // other a slow minute on one of them can move that ratio from 1.3 to
    // 1.6.
    for k in 0..s.runs.max(1) {
        for (ds, path, range) in &files {
            eprint!("{ds:<10} run {}/{}:", k + 1, s.runs.max(1));
            let ds_rows = rows.get_mut(range.clone()).unwrap_or_default();
            let reps = ds_rows.iter().map(|r| r.per_round).max().unwrap_or(1);
            // Repeats go round the engines too, so none gets a quiet second.
            for rep in 0..reps.max(1) {
                for row in ds_rows.iter_mut().filter(|r| rep < r.per_round.max(1)) {
                    let label = row.label();
                    let Ok(samples) = &mut row.result else {
                        continue;
                    };
                    let mut tries = 0;
                    loop {
                        match run_child(row.engine, row.threads, path, s.timeout) {
                            Ok(x) if x.disturbed(n) && tries < s.steal_retries => {
                                eprint!(
                                    " {label} {:.3}s (steal {:.2}s, again)",
                                    x.wall_s,
                                    x.steal_s.unwrap_or(0.0)
                                );
                                tries += 1;
                                row.repeated += 1;
                            }
                            Ok(x) => {
                                eprint!(" {label} {:.3}s", x.wall_s);
                                samples.push(x);
                                break;
                            }
                            Err(e) => {
                                eprint!(" {label} error");
                                row.result = Err(format!("{e:#}"));
                                break;
                            }
                        }
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
            "steal_retries": s.steal_retries,
            "min_round_s": s.min_round_s,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&report::to_json(&rows, &s.datasets, n, meta))?
        );
    } else {
        println!(
            "`{}` — {} cores, {} timed runs after 1 warm-up (interleaved over datasets and engines; a configuration whose warm-up took under {} s runs up to {} times per round, see the note column), median wall time; each run a fresh process; a run during which the hypervisor stole over {:.0} % of the CPU time is run again (up to {} times)\n",
            command_line(),
            n,
            s.runs,
            s.min_round_s,
            MAX_PER_ROUND,
            crate::report::STEAL_MAX_SHARE * 100.0,
            s.steal_retries
        );
        print!("{}", report::markdown(&rows, &s.datasets, n));
    }
    Ok(())
}

/// calamine's cells reader is XLSX-only, and its ODS and XLS readers parse
/// every sheet at open, so "one reader per thread" would parse the file N
/// times.
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
    let args: Vec<std::ffi::OsString> = vec![
        "measure".into(),
        "--engine".into(),
        engine.as_str().into(),
        "--threads".into(),
        threads.to_string().into(),
        "--file".into(),
        file.into(),
    ];
    let v = crate::child::run_json(args, timeout)?;
    Sample::from_json(&v).context("malformed measure line")
}

#[cfg(test)]
mod tests {
    use super::{MAX_PER_ROUND, per_round};

    #[test]
    fn short_runs_repeat_within_a_round_up_to_the_cap() {
        assert_eq!(per_round(0.02, 0.25), 8.min(MAX_PER_ROUND));
        assert_eq!(per_round(0.1, 0.25), 3);
        assert_eq!(per_round(0.25, 0.25), 1);
        assert_eq!(per_round(1.5, 0.25), 1);
        assert_eq!(per_round(0.001, 0.25), MAX_PER_ROUND);
        // Off, or a warm-up that reported no time: once per round.
        assert_eq!(per_round(0.02, 0.0), 1);
        assert_eq!(per_round(0.0, 0.25), 1);
        assert_eq!(per_round(f64::NAN, 0.25), 1);
    }
}
