//! `ream-bench py`: ream beside fastexcel, polars `read_excel` and pandas
//! (calamine engine) from Python, each read a whole `python -c` process.
//!
//! The measuring is done by `scripts/py_bench.py` (embedded here, run with
//! the interpreter of `--python`): one warm-up and `--runs` interleaved
//! rounds per engine, medians, the child's peak RSS (VmHWM), the rows
//! each engine saw, time ratios to `ream`, the issue-22 acceptance lines
//! and the package versions, as Markdown on stdout. This command generates the
//! missing datasets first (`many` and `giant` by default).

use crate::datagen;
use anyhow::{Context, Result, bail};
use std::path::PathBuf;
use std::process::Command;

/// The measuring script, run with `python -c`.
const SCRIPT: &str = include_str!("../scripts/py_bench.py");

/// Options of `ream-bench py`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Python interpreter with ream, pyarrow, fastexcel, polars, pandas and
    /// python-calamine installed (e.g. a venv's bin/python).
    #[arg(long, default_value = "python3")]
    pub python: PathBuf,
    /// Folder holding the datasets (missing ones are generated).
    #[arg(long, default_value = "bench-data")]
    pub dir: PathBuf,
    /// Datasets (comma-separated XLSX datasets of `gen`).
    #[arg(long, default_value = "many,giant")]
    pub datasets: String,
    /// Timed runs per engine, after one warm-up run.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Engines (comma-separated): fastexcel, polars, pandas, ream
    /// (`Table.to_arrow`), ream-pa-table (`pyarrow.table`), ream-stream
    /// (iter_batches; on giant only). Default: all.
    #[arg(long)]
    pub engines: Option<String>,
    /// Use the files generated with this --scale (0 < F <= 1).
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    /// Per-run time limit in seconds.
    #[arg(long, default_value_t = 600)]
    pub timeout_s: u64,
}

/// Generates the datasets, then runs the script and passes its report on.
pub fn run(a: &Args) -> Result<()> {
    let datasets = crate::split_list(&a.datasets);
    for ds in &datasets {
        let Some(spec) = datagen::spec(ds) else {
            bail!(
                "unknown dataset {ds:?}; known: {}",
                datagen::DATASETS.join(", ")
            );
        };
        if spec.kind != datagen::FileKind::Xlsx {
            bail!("dataset {ds:?} is not XLSX; the Python readers run on XLSX datasets");
        }
        let g = datagen::generate(&a.dir, ds, a.scale, false)?;
        if g.written {
            eprintln!("generated {} in {:.1} s", g.path.display(), g.secs);
        }
    }
    let mut cmd = Command::new(&a.python);
    cmd.arg("-c")
        .arg(SCRIPT)
        .arg("--dir")
        .arg(&a.dir)
        .args(["--datasets", &datasets.join(",")])
        .args(["--runs", &a.runs.to_string()])
        .args(["--scale", &a.scale.to_string()])
        .args(["--timeout", &a.timeout_s.to_string()]);
    if let Some(e) = &a.engines {
        cmd.args(["--engines", e]);
    }
    let status = cmd
        .status()
        .with_context(|| format!("running {}", a.python.display()))?;
    if !status.success() {
        bail!(
            "{} {}: the benchmark script failed",
            a.python.display(),
            status
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_lists_every_engine_the_help_names() {
        for e in [
            "fastexcel",
            "polars",
            "pandas",
            "ream",
            "ream-pa-table",
            "ream-stream",
        ] {
            assert!(SCRIPT.contains(&format!("\"{e}\": \"\"\"")), "{e}");
        }
    }

    #[test]
    fn script_runs_its_help_without_the_packages() {
        // The parent process imports none of the readers; skip where no
        // python3 is installed.
        let Ok(out) = Command::new("python3")
            .args(["-c", SCRIPT, "--help"])
            .output()
        else {
            return;
        };
        assert!(out.status.success(), "{out:?}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("--runs"));
    }

    #[test]
    fn unknown_and_ods_datasets_are_refused() {
        let mut a = Args {
            python: PathBuf::from("python3"),
            dir: std::env::temp_dir(),
            datasets: "nope".into(),
            runs: 1,
            engines: None,
            scale: 1.0,
            timeout_s: 1,
        };
        assert!(run(&a).unwrap_err().to_string().contains("unknown dataset"));
        a.datasets = "giant_ods".into();
        assert!(run(&a).unwrap_err().to_string().contains("not XLSX"));
    }
}
