//! `ream-bench write`: writing the same workbook with ream-write (1 and 2
//! threads) and rust_xlsxwriter (default and constant-memory worksheets).
//!
//! The workbooks are the generator's `many` (64 sheets x 20,000 rows x 8
//! mixed columns: 160,000 cells a sheet) and `giant` (1 sheet x 1,000,000
//! rows x 10 columns): the same values, number formats and formulas with
//! cached results (rust_xlsxwriter also gives the money column its
//! `#,##0.00` format), drawn from the same PRNG inside the timed run for every
//! engine. Each run is a fresh child process (`write-one`, hidden) that
//! writes to a temporary file and reports its wall time, output size and
//! peak RSS; the table gives medians over `--runs` and the ratio of each
//! engine's time to rust_xlsxwriter's default mode. ream's output is read
//! back once per dataset (cell count checked) before timing.

use crate::child::{print_result, run_json};
use crate::datagen::{self, Pools, Val, row_values};
use crate::prng::SplitMix64;
use crate::report::median;
use anyhow::{Context, Result, bail};
use ream::write::{Cell, DateStyle, SheetWriter, Value, WorkbookWriter, WriteOptions};
use serde_json::{Value as Json, json};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Arguments of `ream-bench write`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Datasets (comma-separated): many, giant.
    #[arg(long, default_value = "many,giant")]
    pub datasets: String,
    /// Timed runs per engine (after one warm-up run).
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Row-count multiplier in (0, 1].
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    /// Engines (comma-separated): ream-1t, ream-2t, xlsxwriter,
    /// xlsxwriter-cm.
    #[arg(long, default_value = "ream-1t,ream-2t,xlsxwriter,xlsxwriter-cm")]
    pub engines: String,
    /// Folder of the temporary outputs.
    #[arg(long, default_value = "bench-data")]
    pub dir: PathBuf,
    /// Per-run time limit in seconds.
    #[arg(long, default_value_t = 600)]
    pub timeout_s: u64,
}

/// Arguments of the hidden child `ream-bench write-one`.
#[derive(Debug, clap::Args)]
pub struct OneArgs {
    /// Engine: ream-1t, ream-2t, xlsxwriter, xlsxwriter-cm.
    #[arg(long)]
    pub engine: String,
    /// Dataset: many or giant.
    #[arg(long)]
    pub dataset: String,
    /// Row-count multiplier.
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    /// Output file.
    #[arg(long)]
    pub out: PathBuf,
}

const ENGINES: [&str; 4] = ["ream-1t", "ream-2t", "xlsxwriter", "xlsxwriter-cm"];

/// Runs the suite and prints a Markdown table.
pub fn run(a: &Args) -> Result<()> {
    let engines: Vec<&str> = a.engines.split(',').map(str::trim).collect();
    for e in &engines {
        if !ENGINES.contains(e) {
            bail!("unknown engine {e:?}; known: {}", ENGINES.join(", "));
        }
    }
    std::fs::create_dir_all(&a.dir)?;
    println!(
        "| dataset | engine | median s | runs s | MB out | peak RSS MB | xlsxwriter / engine |"
    );
    println!("|---|---|---|---|---|---|---|");
    for ds in a.datasets.split(',').map(str::trim) {
        let sp = datagen::spec(ds).with_context(|| format!("unknown dataset {ds}"))?;
        let out = a.dir.join(format!("write-{ds}.xlsx"));
        if engines.iter().any(|e| e.starts_with("ream")) {
            one(a, "ream-2t", ds, &out)?;
            let wb = ream::Workbook::open(&out, &ream::OpenOptions::new())?;
            let n: u64 = wb.sheets().iter().map(|s| s.cell_count() as u64).sum();
            if n != sp.cells(a.scale) {
                bail!(
                    "{ds}: ream-write's output has {n} cells, want {}",
                    sp.cells(a.scale)
                );
            }
        }
        let mut results: Vec<(&str, Vec<Json>)> =
            engines.iter().map(|e| (*e, Vec::new())).collect();
        for e in &engines {
            one(a, e, ds, &out)?; // warm-up
        }
        for _ in 0..a.runs {
            for (e, rs) in results.iter_mut() {
                rs.push(one(a, e, ds, &out)?);
            }
        }
        let _ = std::fs::remove_file(&out);
        let med = |rs: &[Json], k: &str| {
            let xs: Vec<f64> = rs.iter().filter_map(|r| r.get(k)?.as_f64()).collect();
            median(&xs)
        };
        let base = results
            .iter()
            .find(|(e, _)| *e == "xlsxwriter")
            .and_then(|(_, rs)| med(rs, "wall_s"));
        for (e, rs) in &results {
            let wall = med(rs, "wall_s").unwrap_or(f64::NAN);
            let runs: Vec<String> = rs
                .iter()
                .filter_map(|r| r.get("wall_s")?.as_f64())
                .map(|x| format!("{x:.2}"))
                .collect();
            let mb = |k| med(rs, k).map_or("-".into(), |b| format!("{:.1}", b / 1e6));
            let ratio = base.map_or("-".into(), |b| format!("{:.2}x", b / wall));
            println!(
                "| {ds} | {e} | {wall:.2} | {} | {} | {} | {ratio} |",
                runs.join(" "),
                mb("bytes"),
                mb("peak_rss_bytes")
            );
        }
    }
    Ok(())
}

fn one(a: &Args, engine: &str, ds: &str, out: &Path) -> Result<Json> {
    let args: Vec<OsString> = vec![
        "write-one".into(),
        "--engine".into(),
        engine.into(),
        "--dataset".into(),
        ds.into(),
        "--scale".into(),
        a.scale.to_string().into(),
        "--out".into(),
        out.as_os_str().to_owned(),
    ];
    run_json(args, Duration::from_secs(a.timeout_s)).with_context(|| format!("{ds} {engine}"))
}

/// The child: writes one workbook, prints its JSON line.
pub fn run_one(a: &OneArgs) -> i32 {
    print_result(write_one(a))
}

fn write_one(a: &OneArgs) -> Result<Json> {
    let sp = datagen::spec(&a.dataset).with_context(|| format!("unknown dataset {}", a.dataset))?;
    let rows = sp.sheet_rows(a.scale);
    let t0 = Instant::now();
    match a.engine.as_str() {
        "ream-1t" => with_ream(&sp, &rows, 1, &a.out)?,
        "ream-2t" => with_ream(&sp, &rows, 2, &a.out)?,
        "xlsxwriter" => with_xlsxwriter(&sp, &rows, false, &a.out)?,
        "xlsxwriter-cm" => with_xlsxwriter(&sp, &rows, true, &a.out)?,
        e => bail!("unknown engine {e}"),
    }
    let wall = t0.elapsed().as_secs_f64();
    Ok(json!({
        "ok": true,
        "wall_s": wall,
        "bytes": std::fs::metadata(&a.out)?.len(),
        "peak_rss_bytes": ream_alloc::peak_rss_bytes(),
    }))
}

fn with_ream(sp: &datagen::Spec, rows: &[u32], threads: usize, out: &Path) -> Result<()> {
    let mut wb = WorkbookWriter::new(WriteOptions::default());
    let mut sheets = Vec::new();
    for i in 0..rows.len() {
        sheets.push(wb.add_sheet(&format!("Sheet{}", i + 1))?);
    }
    let pools = Pools::new();
    ream::write::write_parallel(sheets, threads, |s: &mut SheetWriter| {
        let i = s.index();
        let n = rows.get(i).copied().unwrap_or(0);
        let mut rng = SplitMix64::new(sp.sheet_seed(i as u32));
        let mut vals = Vec::new();
        let mut formulas: Vec<String> = Vec::new();
        for r in 0..n {
            row_values(sp.layout, &mut rng, &pools, &mut vals);
            let excel_row = u64::from(r) + 1;
            formulas.clear();
            for v in &vals {
                match v {
                    Val::Sum(_) => formulas.push(format!("A{excel_row}+F{excel_row}")),
                    Val::Upper(_) => formulas.push(format!("UPPER(C{excel_row})")),
                    _ => {}
                }
            }
            let mut cells: Vec<Cell<'_>> = Vec::with_capacity(vals.len());
            let mut f = formulas.iter();
            for (c, v) in (0u32..).zip(&vals) {
                cells.push(match v {
                    Val::Num(x) | Val::Money(x) => Cell::new(c, Value::Number(*x)),
                    Val::Date(x) => Cell::new(c, Value::DateTime(*x, DateStyle::Date)),
                    Val::DateTime(d, s) => {
                        Cell::new(c, Value::DateTime(Val::serial(*d, *s), DateStyle::DateTime))
                    }
                    Val::Str(s) => Cell::new(c, Value::String(s)),
                    Val::Text(s) => Cell::new(c, Value::String(s)),
                    Val::Bool(b) => Cell::new(c, Value::Bool(*b)),
                    Val::Sum(x) => Cell::formula(c, f.next().map_or("", |s| s), Value::Number(*x)),
                    Val::Upper(s) => Cell::formula(c, f.next().map_or("", |s| s), Value::String(s)),
                });
            }
            s.write_row(r, &cells)?;
        }
        Ok(())
    })?;
    wb.save_path(out)?;
    Ok(())
}

fn with_xlsxwriter(sp: &datagen::Spec, rows: &[u32], cm: bool, out: &Path) -> Result<()> {
    use rust_xlsxwriter::{Format, Formula, Workbook};
    let mut wb = Workbook::new();
    let date = Format::new().set_num_format("yyyy-mm-dd");
    let datetime = Format::new().set_num_format("yyyy-mm-dd hh:mm:ss");
    let pools = Pools::new();
    for (i, &n) in rows.iter().enumerate() {
        let ws = if cm {
            wb.add_worksheet_with_constant_memory()?
        } else {
            wb.add_worksheet()
        };
        let mut rng = SplitMix64::new(sp.sheet_seed(i as u32));
        let mut vals = Vec::new();
        for r in 0..n {
            row_values(sp.layout, &mut rng, &pools, &mut vals);
            let excel_row = u64::from(r) + 1;
            for (c, v) in (0u16..).zip(&vals) {
                match v {
                    Val::Num(x) | Val::Money(x) => ws.write_number(r, c, *x)?,
                    Val::Date(x) => ws.write_number_with_format(r, c, *x, &date)?,
                    Val::DateTime(d, s) => {
                        ws.write_number_with_format(r, c, Val::serial(*d, *s), &datetime)?
                    }
                    Val::Str(s) => ws.write_string(r, c, *s)?,
                    Val::Text(s) => ws.write_string(r, c, s)?,
                    Val::Bool(b) => ws.write_boolean(r, c, *b)?,
                    Val::Sum(x) => ws.write_formula(
                        r,
                        c,
                        Formula::new(format!("=A{excel_row}+F{excel_row}"))
                            .set_result(x.to_string()),
                    )?,
                    Val::Upper(s) => ws.write_formula(
                        r,
                        c,
                        Formula::new(format!("=UPPER(C{excel_row})")).set_result(s),
                    )?,
                };
            }
        }
    }
    wb.save(out)?;
    Ok(())
}
