//! Aggregating child measurements and printing them as Markdown or JSON.

use crate::measure::Engine;
use serde_json::{Value, json};

/// One child's parsed JSON line.
#[derive(Debug, Clone)]
pub struct Sample {
    /// Wall seconds of open+read.
    pub wall_s: f64,
    /// Process CPU seconds over the same window.
    pub cpu_s: Option<f64>,
    /// Non-empty cells read.
    pub cells: u64,
    /// Allocations during open+read.
    pub allocs: u64,
    /// Of those, allocations of <= 32 bytes.
    pub allocs_le32: u64,
    /// Allocations per cell (ream: during open only).
    pub allocs_per_cell: Option<f64>,
    /// Sampled peak live heap growth.
    pub peak_heap_bytes: u64,
    /// Peak RSS of the child process.
    pub peak_rss_bytes: Option<u64>,
    /// Worker threads the engine actually used.
    pub threads_used: u64,
    /// CPU time the hypervisor gave other guests during the run (all CPUs,
    /// system-wide; `None` where it cannot be read).
    pub steal_s: Option<f64>,
    /// Engine-specific extras (ream phase times).
    pub extra: Value,
}

/// A run counts as disturbed when steal took more than this share of the
/// machine's CPU time over its wall time...
pub const STEAL_MAX_SHARE: f64 = 0.03;
/// ...and at least this many seconds (two 10 ms ticks: one tick is within
/// the counter's rounding on a short run).
pub const STEAL_MIN_S: f64 = 0.02;

impl Sample {
    /// Whether the hypervisor took enough of the `cores` CPUs during this
    /// run to disturb its timing ([`STEAL_MAX_SHARE`], [`STEAL_MIN_S`]).
    /// On a 2-core VM a steal of 0.43 s during a 1.7 s two-thread read
    /// (0.03 s in an undisturbed one) moved that run's time by 30 %.
    pub fn disturbed(&self, cores: usize) -> bool {
        self.steal_s.is_some_and(|st| {
            st >= STEAL_MIN_S && st > STEAL_MAX_SHARE * self.wall_s * cores.max(1) as f64
        })
    }

    /// Parses a child's `{"ok":true,..}` line.
    pub fn from_json(v: &Value) -> Option<Sample> {
        Some(Sample {
            wall_s: v.get("wall_s")?.as_f64()?,
            cpu_s: v.get("cpu_s").and_then(Value::as_f64),
            cells: v.get("cells")?.as_u64()?,
            allocs: v.get("allocs").and_then(Value::as_u64).unwrap_or(0),
            allocs_le32: v.get("allocs_le32").and_then(Value::as_u64).unwrap_or(0),
            allocs_per_cell: v.get("allocs_per_cell").and_then(Value::as_f64),
            peak_heap_bytes: v
                .get("peak_heap_bytes")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            peak_rss_bytes: v.get("peak_rss_bytes").and_then(Value::as_u64),
            threads_used: v.get("threads_used").and_then(Value::as_u64).unwrap_or(0),
            steal_s: v.get("steal_s").and_then(Value::as_f64),
            extra: v.get("extra").cloned().unwrap_or(Value::Null),
        })
    }
}

/// The timed runs of one (dataset, engine, threads) measurement.
#[derive(Debug, Clone)]
pub struct Row {
    /// Dataset name.
    pub dataset: String,
    /// Engine.
    pub engine: Engine,
    /// Threads requested (0 = all).
    pub threads: usize,
    /// Threads `0` resolved to on this machine.
    pub resolved_threads: usize,
    /// Timed samples, or the error that stopped the measurement.
    pub result: Result<Vec<Sample>, String>,
    /// Cells the generator wrote.
    pub expected_cells: u64,
    /// Timed runs thrown away and run again because steal disturbed them
    /// ([`Sample::disturbed`]).
    pub repeated: usize,
    /// Timed runs per round: more than 1 for a configuration whose
    /// warm-up took under the suite's `min_round_s`, so a run of a few
    /// milliseconds gets enough samples for a steady median.
    pub per_round: usize,
}

/// Median of a non-empty slice (mean of the middle two for even lengths).
pub fn median(xs: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return None;
    }
    let hi = *v.get(n / 2)?;
    if n % 2 == 1 {
        Some(hi)
    } else {
        Some((hi + *v.get(n / 2 - 1)?) / 2.0)
    }
}

impl Row {
    /// Short label: `ream 1t`, `ream 8t`, `ream stream 1t`, `ream stream
    /// 8t`, `calamine range 1t`, `calamine range 8t`, `calamine cells`.
    pub fn label(&self) -> String {
        match self.engine {
            Engine::Ream => format!("ream {}t", self.resolved_threads),
            Engine::ReamStream => format!("ream stream {}t", self.resolved_threads),
            Engine::Calamine => format!("calamine range {}t", self.resolved_threads),
            Engine::CalamineCells => "calamine cells".to_owned(),
        }
    }
    /// The sample with the median wall time (lower middle for even counts).
    fn median_sample(&self) -> Option<&Sample> {
        let s = self.result.as_ref().ok()?;
        let mut idx: Vec<usize> = (0..s.len()).collect();
        idx.sort_by(|&a, &b| {
            let wa = s.get(a).map_or(f64::INFINITY, |x| x.wall_s);
            let wb = s.get(b).map_or(f64::INFINITY, |x| x.wall_s);
            wa.total_cmp(&wb)
        });
        s.get(*idx.get(s.len().saturating_sub(1) / 2)?)
    }
    /// Median wall seconds of the timed runs.
    pub fn median_wall(&self) -> Option<f64> {
        let s = self.result.as_ref().ok()?;
        median(&s.iter().map(|x| x.wall_s).collect::<Vec<_>>())
    }
    /// Cells read (from the median run).
    pub fn cells(&self) -> Option<u64> {
        self.median_sample().map(|s| s.cells)
    }
    fn max_rss(&self) -> Option<u64> {
        let s = self.result.as_ref().ok()?;
        s.iter().filter_map(|x| x.peak_rss_bytes).max()
    }
    /// Largest sampled peak heap over the timed runs.
    pub fn max_heap(&self) -> Option<u64> {
        let s = self.result.as_ref().ok()?;
        s.iter().map(|x| x.peak_heap_bytes).max()
    }
    fn note(&self, rows: &[Row]) -> String {
        let Some(cells) = self.cells() else {
            return match &self.result {
                Err(e) => format!("ERROR: {}", one_line(e, 90)),
                Ok(_) => "no samples".to_owned(),
            };
        };
        let mut notes = Vec::new();
        if cells != self.expected_cells {
            notes.push(format!(
                "WARN cells {} != generated {}",
                cells, self.expected_cells
            ));
        }
        let other: Vec<u64> = rows
            .iter()
            .filter(|r| r.dataset == self.dataset && r.engine != self.engine)
            .filter_map(Row::cells)
            .collect();
        if let Some(o) = other.iter().find(|&&o| o != cells) {
            notes.push(format!("WARN cells differ from other engine ({o})"));
        }
        if self.per_round > 1 {
            notes.push(format!("{} runs per round", self.per_round));
        }
        if self.repeated > 0 {
            notes.push(format!("{} run(s) repeated (steal)", self.repeated));
        }
        notes.join("; ")
    }
    /// The row as JSON.
    pub fn to_json(&self, rows: &[Row]) -> Value {
        let m = self.median_sample();
        json!({
            "dataset": self.dataset,
            "engine": self.engine.as_str(),
            "label": self.label(),
            "mode": self.engine.mode(),
            "threads": self.threads,
            "resolved_threads": self.resolved_threads,
            "threads_used": m.map(|s| s.threads_used),
            "runs": self.result.as_ref().map(Vec::len).unwrap_or(0),
            "median_wall_s": self.median_wall(),
            "wall_s": self.result.as_ref().ok().map(|s| s.iter().map(|x| x.wall_s).collect::<Vec<_>>()),
            "cpu_s": m.and_then(|s| s.cpu_s),
            "steal_s": m.and_then(|s| s.steal_s),
            "repeated": self.repeated,
            "per_round": self.per_round,
            "cells": self.cells(),
            "expected_cells": self.expected_cells,
            "cells_per_s": self.cells_per_s(),
            "allocs": m.map(|s| s.allocs),
            "allocs_le32": m.map(|s| s.allocs_le32),
            "allocs_per_cell": m.and_then(|s| s.allocs_per_cell),
            "peak_heap_bytes": self.max_heap(),
            "peak_rss_bytes": self.max_rss(),
            "extra": m.map(|s| s.extra.clone()),
            "error": self.result.as_ref().err(),
            "note": self.note(rows),
        })
    }
    /// Cells per second at the median wall time.
    pub fn cells_per_s(&self) -> Option<f64> {
        let w = self.median_wall()?;
        let c = self.cells()?;
        (w > 0.0).then(|| c as f64 / w)
    }
}

fn one_line(s: &str, max: usize) -> String {
    let s = s.replace(['\n', '|'], " ");
    if s.chars().count() > max {
        let t: String = s.chars().take(max).collect();
        format!("{t}…")
    } else {
        s
    }
}

fn mib(b: u64) -> String {
    format!("{:.1}", b as f64 / (1u64 << 20) as f64)
}

fn opt<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map(f).unwrap_or_else(|| "-".to_owned())
}

/// Wall-time ratios for one dataset (`None` where a side is missing).
#[derive(Debug, Clone, Default)]
pub struct Ratios {
    /// calamine range 1 thread / ream 1 thread.
    pub cal1_over_ream1: Option<f64>,
    /// ream 1 thread / ream all threads.
    pub ream1_over_reamn: Option<f64>,
    /// calamine range 1 thread / ream all threads.
    pub cal1_over_reamn: Option<f64>,
    /// calamine range N threads / ream all threads.
    pub caln_over_reamn: Option<f64>,
    /// calamine cells reader / ream streaming rows on 1 thread.
    pub cells_over_stream: Option<f64>,
    /// calamine cells reader / ream streaming rows opened with all threads
    /// (inflate on a helper thread).
    pub cells_over_stream_n: Option<f64>,
}

/// The row of (`dataset`, `engine`, one thread or all).
fn find<'a>(rows: &'a [Row], dataset: &str, e: Engine, one: bool) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r.dataset == dataset && r.engine == e && (r.threads == 1) == one)
}

/// Computes the ratios of `dataset` from the rows.
pub fn ratios(rows: &[Row], dataset: &str) -> Ratios {
    let wall = |e: Engine, one: bool| find(rows, dataset, e, one).and_then(Row::median_wall);
    let div = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    Ratios {
        cal1_over_ream1: div(wall(Engine::Calamine, true), wall(Engine::Ream, true)),
        ream1_over_reamn: div(wall(Engine::Ream, true), wall(Engine::Ream, false)),
        cal1_over_reamn: div(wall(Engine::Calamine, true), wall(Engine::Ream, false)),
        caln_over_reamn: div(wall(Engine::Calamine, false), wall(Engine::Ream, false)),
        cells_over_stream: div(
            wall(Engine::CalamineCells, true),
            wall(Engine::ReamStream, true),
        ),
        cells_over_stream_n: div(
            wall(Engine::CalamineCells, true),
            wall(Engine::ReamStream, false),
        ),
    }
}

/// One acceptance check of issue 3 that this run can evaluate.
#[derive(Debug, Clone)]
pub struct Check {
    /// Dataset.
    pub dataset: String,
    /// What is compared.
    pub what: String,
    /// Measured value.
    pub value: f64,
    /// Target, e.g. `>= 1.5x`.
    pub target: String,
    /// Whether the value meets the target.
    pub pass: bool,
}

/// The issue-3 acceptance checks the rows allow: giant (ream Nt vs 1t and vs
/// calamine range, streaming peak heap, calamine cells vs ream stream),
/// mixed (ream Nt vs 1t), and for an ODS dataset run together with its XLSX
/// twin, ream's throughput per cell XLSX / ODS.
pub fn checks(rows: &[Row], datasets: &[String], n: usize) -> Vec<Check> {
    let mut out = Vec::new();
    let mut push = |ds: &str, what: String, v: Option<f64>, min: Option<f64>, max: Option<f64>| {
        let Some(v) = v else { return };
        let (target, pass) = match (min, max) {
            (Some(m), _) => (format!(">= {m}"), v >= m),
            (None, Some(m)) => (format!("<= {m}"), v <= m),
            (None, None) => return,
        };
        out.push(Check {
            dataset: ds.to_owned(),
            what,
            value: v,
            target,
            pass,
        });
    };
    for ds in datasets {
        let x = ratios(rows, ds);
        match ds.as_str() {
            "giant" => {
                push(
                    ds,
                    format!("ream 1t / ream {n}t"),
                    x.ream1_over_reamn,
                    Some(1.5),
                    None,
                );
                push(
                    ds,
                    format!("calamine range 1t / ream {n}t"),
                    x.cal1_over_reamn,
                    Some(8.0),
                    None,
                );
                for (one, t, ratio) in [
                    (true, 1, x.cells_over_stream),
                    (false, n, x.cells_over_stream_n),
                ] {
                    let heap = find(rows, ds, Engine::ReamStream, one)
                        .and_then(Row::max_heap)
                        .map(|b| b as f64 / (1u64 << 20) as f64);
                    push(
                        ds,
                        format!("ream stream {t}t peak heap MiB"),
                        heap,
                        None,
                        Some(16.0),
                    );
                    push(
                        ds,
                        format!("calamine cells / ream stream {t}t"),
                        ratio,
                        Some(4.0),
                        None,
                    );
                }
            }
            "mixed" => {
                push(
                    ds,
                    format!("ream 1t / ream {n}t"),
                    x.ream1_over_reamn,
                    Some(1.8),
                    None,
                );
            }
            _ => {}
        }
        if let Some(base) = ds.strip_suffix("_ods")
            && datasets.iter().any(|d| d == base)
        {
            let tput = |d: &str| find(rows, d, Engine::Ream, true).and_then(Row::cells_per_s);
            let ratio = match (tput(base), tput(ds)) {
                (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                _ => None,
            };
            push(
                ds,
                format!("ream 1t cells/s {base} / {ds}"),
                ratio,
                None,
                Some(1.5),
            );
        }
    }
    out
}

fn table(header: &[&str], right: &[bool], body: &[Vec<String>]) -> String {
    let mut w: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in body {
        for (i, c) in row.iter().enumerate() {
            if let Some(x) = w.get_mut(i) {
                *x = (*x).max(c.chars().count());
            }
        }
    }
    let fmt_row = |cells: Vec<String>| {
        let mut s = String::from("|");
        for (i, c) in cells.iter().enumerate() {
            let width = w.get(i).copied().unwrap_or(0);
            if right.get(i).copied().unwrap_or(false) {
                s.push_str(&format!(" {c:>width$} |"));
            } else {
                s.push_str(&format!(" {c:<width$} |"));
            }
        }
        s
    };
    let mut out = fmt_row(header.iter().map(|h| (*h).to_owned()).collect());
    out.push('\n');
    let mut sep = String::from("|");
    for (i, width) in w.iter().enumerate() {
        let dashes = "-".repeat(*width);
        if right.get(i).copied().unwrap_or(false) {
            sep.push_str(&format!(" {}: |", "-".repeat(width.saturating_sub(1))));
        } else {
            sep.push_str(&format!(" {dashes} |"));
        }
    }
    out.push_str(&sep);
    out.push('\n');
    for row in body {
        out.push_str(&fmt_row(row.clone()));
        out.push('\n');
    }
    out
}

/// The Markdown report: one row per measurement, the ratios, then the
/// acceptance checks this run allows. `n` is the thread count "all" means.
pub fn markdown(rows: &[Row], datasets: &[String], n: usize) -> String {
    let header = [
        "dataset",
        "engine",
        "mode",
        "thr used",
        "median s",
        "Mcells/s",
        "cpu/wall",
        "allocs/cell",
        "<=32B %",
        "peak heap MiB",
        "peak RSS MiB",
        "cells",
        "note",
    ];
    let right = [
        false, false, false, true, true, true, true, true, true, true, true, true, false,
    ];
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let m = r.median_sample();
            let wall = r.median_wall();
            vec![
                r.dataset.clone(),
                r.label(),
                r.engine.mode().to_owned(),
                opt(m.map(|s| s.threads_used), |t| t.to_string()),
                opt(wall, |w| format!("{w:.4}")),
                opt(r.cells_per_s(), |c| format!("{:.2}", c / 1e6)),
                opt(m.and_then(|s| Some(s.cpu_s? / s.wall_s)), |x| {
                    format!("{x:.2}")
                }),
                opt(m.and_then(|s| s.allocs_per_cell), |x| {
                    if x >= 1.0 {
                        format!("{x:.2}")
                    } else {
                        format!("{x:.4}")
                    }
                }),
                opt(
                    m.and_then(|s| {
                        (s.allocs > 0).then(|| 100.0 * s.allocs_le32 as f64 / s.allocs as f64)
                    }),
                    |x| format!("{x:.0}"),
                ),
                opt(r.max_heap(), mib),
                opt(r.max_rss(), mib),
                opt(r.cells(), |c| c.to_string()),
                r.note(rows),
            ]
        })
        .collect();
    let mut out = table(&header, &right, &body);
    out.push('\n');
    let h_ream1n = format!("ream 1t / ream {n}t");
    let h_cal1n = format!("calamine range 1t / ream {n}t");
    let h_calnn = format!("calamine range {n}t / ream {n}t");
    let h_cellsn = format!("calamine cells / ream stream {n}t");
    let rh = [
        "dataset",
        "calamine range 1t / ream 1t",
        h_ream1n.as_str(),
        h_cal1n.as_str(),
        h_calnn.as_str(),
        "calamine cells / ream stream 1t",
        h_cellsn.as_str(),
    ];
    let rr = [false, true, true, true, true, true, true];
    let rb: Vec<Vec<String>> = datasets
        .iter()
        .map(|d| {
            let x = ratios(rows, d);
            let f = |v: Option<f64>| opt(v, |v| format!("{v:.2}x"));
            vec![
                d.clone(),
                f(x.cal1_over_ream1),
                f(x.ream1_over_reamn),
                f(x.cal1_over_reamn),
                f(x.caln_over_reamn),
                f(x.cells_over_stream),
                f(x.cells_over_stream_n),
            ]
        })
        .collect();
    out.push_str(&table(&rh, &rr, &rb));
    let cs = checks(rows, datasets, n);
    if !cs.is_empty() {
        out.push_str("\nIssue 3 acceptance (this run):\n\n");
        for c in &cs {
            out.push_str(&format!(
                "- {}: {} = {:.2} (target {}) {}\n",
                c.dataset,
                c.what,
                c.value,
                c.target,
                if c.pass { "PASS" } else { "FAIL" }
            ));
        }
    }
    out
}

/// The JSON report.
pub fn to_json(rows: &[Row], datasets: &[String], n: usize, meta: Value) -> Value {
    let ratios: Vec<Value> = datasets
        .iter()
        .map(|d| {
            let x = ratios(rows, d);
            json!({
                "dataset": d,
                "calamine_1t_over_ream_1t": x.cal1_over_ream1,
                "ream_1t_over_ream_nt": x.ream1_over_reamn,
                "calamine_1t_over_ream_nt": x.cal1_over_reamn,
                "calamine_nt_over_ream_nt": x.caln_over_reamn,
                "calamine_cells_over_ream_stream": x.cells_over_stream,
                "calamine_cells_over_ream_stream_nt": x.cells_over_stream_n,
            })
        })
        .collect();
    let checks: Vec<Value> = checks(rows, datasets, n)
        .into_iter()
        .map(|c| {
            json!({
                "dataset": c.dataset,
                "what": c.what,
                "value": c.value,
                "target": c.target,
                "pass": c.pass,
            })
        })
        .collect();
    json!({
        "meta": meta,
        "rows": rows.iter().map(|r| r.to_json(rows)).collect::<Vec<_>>(),
        "ratios": ratios,
        "checks": checks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_works() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }

    fn row(ds: &str, engine: Engine, threads: usize, wall: f64, heap: u64) -> Row {
        let sample = Sample {
            wall_s: wall,
            cpu_s: Some(wall),
            cells: 100,
            allocs: 10,
            allocs_le32: 5,
            allocs_per_cell: Some(0.1),
            peak_heap_bytes: heap,
            peak_rss_bytes: Some(heap),
            threads_used: 1,
            steal_s: Some(0.0),
            extra: Value::Null,
        };
        Row {
            dataset: ds.to_owned(),
            engine,
            threads,
            resolved_threads: if threads == 0 { 2 } else { threads },
            result: Ok(vec![sample]),
            expected_cells: 100,
            repeated: 0,
            per_round: 1,
        }
    }

    #[test]
    fn steal_marks_a_run_disturbed_above_three_percent_and_two_ticks() {
        let mut s = row("giant", Engine::Ream, 0, 1.7, 1)
            .result
            .unwrap()
            .remove(0);
        s.steal_s = Some(0.43);
        assert!(s.disturbed(2));
        s.steal_s = Some(0.03);
        assert!(!s.disturbed(2));
        // One tick on a 20 ms run is rounding, two are not.
        s.wall_s = 0.02;
        s.steal_s = Some(0.01);
        assert!(!s.disturbed(2));
        s.steal_s = Some(0.02);
        assert!(s.disturbed(2));
        s.steal_s = None;
        assert!(!s.disturbed(2));
    }

    #[test]
    fn labels_ratios_checks() {
        let mib = 1u64 << 20;
        let rows = vec![
            row("giant", Engine::Ream, 1, 4.0, mib),
            row("giant", Engine::Ream, 0, 2.0, mib),
            row("giant", Engine::ReamStream, 1, 3.0, 20 * mib),
            row("giant", Engine::ReamStream, 0, 2.5, 10 * mib),
            row("giant", Engine::Calamine, 1, 20.0, mib),
            row("giant", Engine::Calamine, 0, 19.0, mib),
            row("giant", Engine::CalamineCells, 1, 15.0, mib),
            row("mixed", Engine::Ream, 1, 4.0, mib),
            row("mixed", Engine::Ream, 0, 2.5, mib),
        ];
        let labels: Vec<String> = rows.iter().map(Row::label).collect();
        assert_eq!(
            labels.get(..7).unwrap(),
            [
                "ream 1t",
                "ream 2t",
                "ream stream 1t",
                "ream stream 2t",
                "calamine range 1t",
                "calamine range 2t",
                "calamine cells"
            ]
        );
        let r = ratios(&rows, "giant");
        assert_eq!(r.ream1_over_reamn, Some(2.0));
        assert_eq!(r.cal1_over_ream1, Some(5.0));
        assert_eq!(r.cal1_over_reamn, Some(10.0));
        assert_eq!(r.cells_over_stream, Some(5.0));
        assert_eq!(r.cells_over_stream_n, Some(6.0));
        let ds = vec!["giant".to_owned(), "mixed".to_owned()];
        let cs = checks(&rows, &ds, 2);
        let verdicts: Vec<(String, bool)> = cs.iter().map(|c| (c.what.clone(), c.pass)).collect();
        assert_eq!(
            verdicts,
            [
                ("ream 1t / ream 2t".to_owned(), true),
                ("calamine range 1t / ream 2t".to_owned(), true),
                ("ream stream 1t peak heap MiB".to_owned(), false),
                ("calamine cells / ream stream 1t".to_owned(), true),
                ("ream stream 2t peak heap MiB".to_owned(), true),
                ("calamine cells / ream stream 2t".to_owned(), true),
                ("ream 1t / ream 2t".to_owned(), false),
            ]
        );
        let md = markdown(&rows, &ds, 2);
        assert!(md.contains("| giant   | ream stream 1t "));
        assert!(md.contains("- giant: ream stream 1t peak heap MiB = 20.00 (target <= 16) FAIL"));
        let j = to_json(&rows, &ds, 2, Value::Null);
        assert_eq!(j["checks"].as_array().map(Vec::len), Some(7));
    }
}
