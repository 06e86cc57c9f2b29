//! The batch runner's demo: every file the other demos wrote (workbooks,
//! PDFs, the 1BRC text) read by `ream-batch` on two slots, one JSON Lines
//! record per file, with the dispatcher's own measurements.

use super::{DemoResult, thousands};
use anyhow::{Context, Result};
use ream_batch::{BatchOptions, NoProgress, run_batch};
use std::path::Path;
use std::time::Instant;

/// The report, inside the demo folder (left out of the walk by the runner).
const REPORT: &str = "batch-report.jsonl";

/// Runs a batch over `dir` and summarises it.
pub fn demo_batch(dir: &Path) -> Result<DemoResult> {
    let report = dir.join(REPORT);
    // A fresh report each time: the demo is not a resumed batch.
    let _ = std::fs::remove_file(&report);
    let opts = BatchOptions::new()
        .jobs(2)
        .report(&report)
        .exclude("*.jsonl");
    let t = Instant::now();
    let summary = run_batch(&[dir.to_path_buf()], &opts, &mut NoProgress)
        .with_context(|| format!("batch over {}", dir.display()))?;
    let secs = t.elapsed().as_secs_f64();
    let total = summary.total();
    let formats: Vec<String> = summary
        .per_format
        .iter()
        .map(|(f, n)| format!("{} {}", n.files, f.as_str()))
        .collect();
    let s = &summary.stats;
    let mut r = DemoResult {
        engine: "batch",
        file: report.clone(),
        ..DemoResult::default()
    };
    r.lines.push((
        "files",
        format!(
            "{} files, {} bytes: {}",
            total.files,
            thousands(total.bytes),
            formats.join(", ")
        ),
    ));
    r.lines.push((
        "outcomes",
        format!(
            "{} ok, {} errors, {} timeouts, {} crashed",
            total.ok, total.errors, total.timeouts, total.crashed
        ),
    ));
    r.lines.push((
        "dispatcher",
        format!(
            "{} slots in {secs:.3} s: utilisation {:.2}, gap between jobs p50 {:.1} us / p99 {:.1} us",
            s.slots,
            s.utilisation,
            s.gaps.p50.as_secs_f64() * 1e6,
            s.gaps.p99.as_secs_f64() * 1e6
        ),
    ));
    for w in &summary.warnings {
        r.warnings.push(w.clone());
    }
    let shown = dir.display();
    r.hints = vec![
        format!("ream batch {shown} --jobs 2 --report out.jsonl --stats"),
        format!("ream batch {shown} --isolate --timeout 10 --max-mem 512 --report out.jsonl"),
        format!("ream batch {shown} --report out.jsonl --resume --retry-failed"),
    ];
    Ok(r)
}
