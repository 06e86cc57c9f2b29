//! `ream-bench batch`: the dispatcher on the generated tree (`batchgen`),
//! in-process, in two modes side by side:
//!
//! * `normal` — slots hand raw results to the collector, which alone
//!   normalises, interns and writes;
//! * `intern_on_worker` — the design the dispatcher avoids: each slot interns its
//!   strings in one table behind a global `Mutex` and normalises and
//!   serialises the record while holding it, before taking its next job.
//!
//! One warm-up run (page cache), then `--runs` runs of each mode,
//! interleaved so background load hits both alike. Reports the median wall
//! time, files/s, slot utilisation (busy / (slots x wall)), the gaps between
//! a job's end and its slot's next start (p50/p99/max) and the collector's
//! queue depth, as Markdown, with the issue-6 acceptance checks.

use crate::batchgen;
use crate::report::median;
use anyhow::{Result, bail};
use ream_batch::{BatchOptions, DispatchStats, NoProgress, run_batch};
use std::path::PathBuf;

/// Arguments of `ream-bench batch`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Folder holding the tree (`DIR/batch`, generated when missing).
    #[arg(long, default_value = "bench-data")]
    pub dir: PathBuf,
    /// Slots; a comma-separated list runs each (e.g. `2,8`). The
    /// acceptance checks use the first.
    #[arg(long, default_value = "2")]
    pub jobs: String,
    /// Timed runs per mode, after one warm-up run.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Only the 20,000 small files (leave out `big/`).
    #[arg(long)]
    pub small_only: bool,
    /// Only generate the tree.
    #[arg(long)]
    pub gen_only: bool,
    /// Regenerate the tree even when it exists.
    #[arg(long)]
    pub force: bool,
}

/// The two modes, in report order.
const MODES: [(&str, bool); 2] = [("normal", false), ("intern_on_worker", true)];

/// Runs `ream-bench batch`.
pub fn run(a: &Args) -> Result<()> {
    let jobs: Vec<usize> = a
        .jobs
        .split(',')
        .map(|j| j.trim().parse::<usize>())
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow::anyhow!("--jobs {:?}: {e}", a.jobs))?;
    if jobs.is_empty() || jobs.contains(&0) || a.runs == 0 {
        bail!("--jobs and --runs must be at least 1");
    }
    let tree = batchgen::generate(&a.dir, a.force)?;
    if tree.secs > 0.0 {
        eprintln!("generated {} in {:.1} s", tree.root.display(), tree.secs);
    }
    if a.gen_only {
        return Ok(());
    }
    let input = if a.small_only {
        tree.root.join("small")
    } else {
        tree.root.clone()
    };
    let once = |slots: usize, intern: bool, tag: &str| -> Result<(DispatchStats, u64)> {
        let opts = BatchOptions::new()
            .jobs(slots)
            .intern_on_worker(intern)
            .report(a.dir.join(format!("batch-report-{tag}.jsonl")));
        let s = run_batch(std::slice::from_ref(&input), &opts, &mut NoProgress)?;
        Ok((s.stats, s.total().files))
    };
    let (_, files) = once(jobs.first().copied().unwrap_or(2), false, "warmup")?;
    eprintln!("warm-up: {files} files");
    // samples[jobs index][mode index]
    let mut samples: Vec<Vec<Vec<DispatchStats>>> = vec![vec![Vec::new(); MODES.len()]; jobs.len()];
    for r in 0..a.runs {
        for (ji, &slots) in jobs.iter().enumerate() {
            for (m, (name, intern)) in MODES.iter().enumerate() {
                let (st, _) = once(slots, *intern, name)?;
                eprintln!("run {} --jobs {slots} {name}: {st}", r + 1);
                if let Some(v) = samples.get_mut(ji).and_then(|x| x.get_mut(m)) {
                    v.push(st);
                }
            }
        }
    }
    println!("{}", markdown(&samples, &jobs, files, a));
    Ok(())
}

/// Median figures of one mode.
struct Medians {
    wall: f64,
    util: f64,
    p50: f64,
    p99: f64,
    max: f64,
    qmax: f64,
    qmean: f64,
}

fn medians(v: &[DispatchStats]) -> Medians {
    let m = |f: &dyn Fn(&DispatchStats) -> f64| {
        median(&v.iter().map(f).collect::<Vec<f64>>()).unwrap_or(f64::NAN)
    };
    Medians {
        wall: m(&|s| s.wall.as_secs_f64()),
        util: m(&|s| s.utilisation),
        p50: m(&|s| s.gaps.p50.as_secs_f64() * 1e6),
        p99: m(&|s| s.gaps.p99.as_secs_f64() * 1e6),
        max: m(&|s| s.gaps.max.as_secs_f64() * 1e6),
        qmax: m(&|s| s.queue_max as f64),
        qmean: m(&|s| s.queue_mean),
    }
}

fn markdown(samples: &[Vec<Vec<DispatchStats>>], jobs: &[usize], files: u64, a: &Args) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Batch dispatcher: {files} files ({}), median of {} runs per row (interleaved, after one warm-up run), in-process, report written to a file.\n",
        if a.small_only {
            "small files only"
        } else {
            "20,000 small + 100 big"
        },
        a.runs
    );
    let _ = writeln!(
        s,
        "| mode | jobs | wall s | files/s | utilisation | gap p50 us | gap p99 us | gap max us | queue max | queue mean |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let meds: Vec<Vec<Medians>> = samples
        .iter()
        .map(|per_mode| per_mode.iter().map(|v| medians(v)).collect())
        .collect();
    for (&slots, per_mode) in jobs.iter().zip(&meds) {
        for ((name, _), m) in MODES.iter().zip(per_mode) {
            let _ = writeln!(
                s,
                "| {name} | {slots} | {:.3} | {:.0} | {:.3} | {:.1} | {:.1} | {:.1} | {:.0} | {:.2} |",
                m.wall,
                files as f64 / m.wall,
                m.util,
                m.p50,
                m.p99,
                m.max,
                m.qmax,
                m.qmean
            );
        }
    }
    let first = meds.first().map(Vec::as_slice).unwrap_or_default();
    if let ([n, w, ..], Some(slots)) = (first, jobs.first()) {
        let mark = |ok: bool| if ok { "PASS" } else { "FAIL" };
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "- normal, --jobs {slots}: utilisation {:.3} >= 0.9: {}",
            n.util,
            mark(n.util >= 0.9)
        );
        let _ = writeln!(
            s,
            "- normal, --jobs {slots}: gap p99 {:.1} us < 1000 us: {}",
            n.p99,
            mark(n.p99 < 1000.0)
        );
        let _ = writeln!(
            s,
            "- intern_on_worker worse, --jobs {slots}: utilisation {:.3} vs {:.3}, gap p50 {:.1} vs {:.1} us, gap p99 {:.1} vs {:.1} us, wall {:.3} vs {:.3} s: {}",
            w.util,
            n.util,
            w.p50,
            n.p50,
            w.p99,
            n.p99,
            w.wall,
            n.wall,
            mark(w.util < n.util && w.p50 > n.p50)
        );
    }
    s
}
