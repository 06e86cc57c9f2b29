//! The report of `ream-bench agg` (see `aggbench`): rows of child
//! measurements, the output comparison, ratios, the issue-5 acceptance
//! checks, as Markdown or JSON.

use crate::aggbench::{Config, Engine};
use crate::aggen;
use crate::aggkeys::Keys;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// One row of the report: a file and an engine configuration.
pub struct Row {
    /// The station set of the file.
    pub keys: Keys,
    /// The data file.
    pub file: PathBuf,
    /// Its size.
    pub file_bytes: u64,
    /// Rows it holds.
    pub rows: u64,
    /// Engine and threads.
    pub config: Config,
    /// Where the child writes its output.
    pub out: PathBuf,
    /// The timed runs' JSON lines.
    pub samples: Vec<Value>,
    /// The first failure; no more runs after it.
    pub error: Option<String>,
}

impl Row {
    /// `ream 1t`, `ream Nt`, `naive`, `duckdb`.
    pub fn label(&self) -> String {
        match self.config {
            (Engine::Ream, 1) => "ream 1t".into(),
            (Engine::Ream, _) => "ream Nt".into(),
            (e, _) => e.as_str().into(),
        }
    }
    /// The data file's name without its folder.
    pub fn file_name(&self) -> String {
        self.file
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    }
    fn nums(&self, k: &str) -> Vec<f64> {
        self.samples
            .iter()
            .filter_map(|v| v.get(k).and_then(Value::as_f64))
            .collect()
    }
    fn wall(&self) -> Option<f64> {
        median(self.nums("wall_s"))
    }
    /// Median CPU seconds over median wall seconds (effective parallelism).
    fn cpu_per_wall(&self) -> Option<f64> {
        Some(median(self.nums("cpu_s"))? / self.wall()?.max(1e-9))
    }
    fn ns_per_row(&self) -> Option<f64> {
        self.wall().map(|w| w * 1e9 / self.rows.max(1) as f64)
    }
    fn rss(&self) -> Option<f64> {
        self.nums("peak_rss_bytes").into_iter().reduce(f64::max)
    }
    fn first_str(&self, k: &str) -> Option<&str> {
        self.samples
            .first()
            .and_then(|v| v.get(k))
            .and_then(Value::as_str)
    }
    fn first_u64(&self, k: &str) -> Option<u64> {
        self.samples
            .first()
            .and_then(|v| v.get(k))
            .and_then(Value::as_u64)
    }
    /// The output hash when every run agreed; `Err` lists the variants.
    fn sha(&self) -> Option<Result<String, String>> {
        let mut shas: Vec<&str> = self
            .samples
            .iter()
            .filter_map(|v| v.get("sha256").and_then(Value::as_str))
            .collect();
        shas.sort_unstable();
        shas.dedup();
        match shas.as_slice() {
            [] => None,
            [one] => Some(Ok((*one).to_owned())),
            many => Some(Err(many.join(", "))),
        }
    }
}

pub fn median(mut v: Vec<f64>) -> Option<f64> {
    v.retain(|x| x.is_finite());
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let hi = *v.get(n / 2)?;
    Some(if n % 2 == 1 {
        hi
    } else {
        (hi + *v.get(n / 2 - 1)?) / 2.0
    })
}

/// One output comparison: an engine's output against the reference.
pub struct Check {
    /// True when the outputs are equal.
    pub same: bool,
    /// What was compared, and where it differs.
    pub text: String,
}

/// Compares every row's output with the naive one of the same file (or
/// the first engine's when naive did not run).
pub fn equality(table: &[Row]) -> Vec<Check> {
    let mut out = Vec::new();
    let mut files: Vec<&Path> = table.iter().map(|r| r.file.as_path()).collect();
    files.dedup();
    for f in files {
        let rows: Vec<&Row> = table.iter().filter(|r| r.file == f).collect();
        let reference = rows
            .iter()
            .find(|r| r.config.0 == Engine::Naive && matches!(r.sha(), Some(Ok(_))))
            .or_else(|| rows.iter().find(|r| matches!(r.sha(), Some(Ok(_)))));
        for r in &rows {
            if let Some(Err(list)) = r.sha() {
                out.push(Check {
                    same: false,
                    text: format!(
                        "{} {}: output differs between runs ({list})",
                        r.file_name(),
                        r.label()
                    ),
                });
            }
        }
        let Some(reference) = reference else {
            continue;
        };
        let Some(Ok(ref_sha)) = reference.sha() else {
            continue;
        };
        for r in &rows {
            let Some(Ok(sha)) = r.sha() else {
                continue;
            };
            if r.config == reference.config {
                continue;
            }
            let name = format!("{} {}", r.file_name(), r.label());
            out.push(if sha == ref_sha {
                Check {
                    same: true,
                    text: format!("{name} = {}", reference.label()),
                }
            } else {
                Check {
                    same: false,
                    text: format!(
                        "{name} differs from {}: {}",
                        reference.label(),
                        first_difference(&r.out, &reference.out)
                    ),
                }
            });
        }
    }
    out
}

/// Where two output files first differ, for the mismatch message.
fn first_difference(a: &Path, b: &Path) -> String {
    match (std::fs::read(a), std::fs::read(b)) {
        (Ok(x), Ok(y)) => {
            let at = x.iter().zip(&y).position(|(p, q)| p != q);
            let at = at.unwrap_or(x.len().min(y.len()));
            let ctx = |v: &[u8]| {
                let s = at.saturating_sub(20);
                String::from_utf8_lossy(v.get(s..(at + 40).min(v.len())).unwrap_or_default())
                    .into_owned()
            };
            format!(
                "first difference at byte {at} ({:?} vs {:?}); files {} and {}",
                ctx(&x),
                ctx(&y),
                a.display(),
                b.display()
            )
        }
        _ => format!("outputs in {} and {}", a.display(), b.display()),
    }
}

fn find(table: &[Row], keys: Keys, config: Config) -> Option<&Row> {
    table
        .iter()
        .find(|r| r.keys == keys && r.config == config && r.error.is_none())
}

const NT: Config = (Engine::Ream, 0);
const ONE: Config = (Engine::Ream, 1);
const NAIVE: Config = (Engine::Naive, 1);
const DUCK: Config = (Engine::Duckdb, 0);

fn ratios(table: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for keys in Keys::BOTH {
        let Some(nt) = find(table, keys, NT).and_then(Row::wall) else {
            continue;
        };
        let name = find(table, keys, NT)
            .map(Row::file_name)
            .unwrap_or_default();
        for (c, label) in [
            (NAIVE, "naive / ream Nt"),
            (ONE, "ream 1t / ream Nt"),
            (DUCK, "duckdb / ream Nt"),
        ] {
            if let Some(w) = find(table, keys, c).and_then(Row::wall) {
                out.push(format!("{name}: {label} = {:.2}x", w / nt.max(1e-9)));
            }
        }
    }
    for (c, label) in [(NT, "ream Nt"), (ONE, "ream 1t"), (NAIVE, "naive")] {
        let per = |k| find(table, k, c).and_then(Row::ns_per_row);
        if let (Some(small), Some(big)) = (per(Keys::K413), per(Keys::K10k)) {
            out.push(format!(
                "10k / 413 ns per row, {label}: {:.2}x",
                big / small.max(1e-9)
            ));
        }
    }
    out
}

fn verdict(ok: bool) -> &'static str {
    if ok { "PASS" } else { "FAIL" }
}

/// The issue-5 acceptance checks this run allows.
fn acceptance(table: &[Row], checks: &[Check]) -> Vec<String> {
    let mut out = Vec::new();
    let nt = find(table, Keys::K413, NT);
    let threads = nt.and_then(|r| r.first_u64("threads_used")).unwrap_or(0);
    match nt.and_then(|r| r.wall().map(|w| (r.rows, w))) {
        Some((1_000_000_000, w)) => out.push(format!(
            "1 B rows (413) in <= 4.0 s with 2 threads: {w:.2} s on {threads} threads — {}",
            verdict(w <= 4.0)
        )),
        _ => out.push("1 B rows (413) in <= 4.0 s: not measured (--rows 1b)".to_owned()),
    }
    match (
        nt.and_then(Row::wall),
        find(table, Keys::K413, NAIVE).and_then(Row::wall),
    ) {
        (Some(ours), Some(naive)) => {
            let x = naive / ours.max(1e-9);
            let rows = nt.map_or(0, |r| r.rows);
            let scope = if rows == 100_000_000 {
                String::new()
            } else {
                format!(
                    " (criterion is for 100 M; this run has {})",
                    aggen::rows_label(rows)
                )
            };
            out.push(format!(
                "ream Nt >= 12x faster than naive (413){scope}: {x:.1}x — {}",
                verdict(x >= 12.0)
            ));
        }
        _ => out.push("ream Nt vs naive: not measured".to_owned()),
    }
    let per = |k| find(table, k, NT).and_then(Row::ns_per_row);
    match (per(Keys::K413), per(Keys::K10k)) {
        (Some(small), Some(big)) => {
            let x = big / small.max(1e-9);
            out.push(format!(
                "10K-key ns/row <= 2x the 413 set (ream Nt): {x:.2}x — {}",
                verdict(x <= 2.0)
            ));
        }
        _ => out.push("10K vs 413 ns/row: not measured (--keys both)".to_owned()),
    }
    let same = checks.iter().filter(|c| c.same).count();
    let compared_with_naive = table.iter().any(|r| r.config == NAIVE && r.error.is_none());
    let failed = table.iter().filter(|r| r.error.is_some()).count();
    if checks.is_empty() && failed == 0 {
        out.push("outputs byte-identical: not checked (one engine per file)".to_owned());
        return out;
    }
    out.push(format!(
        "outputs byte-identical{}: {same} of {}{} — {}",
        if compared_with_naive {
            " to naive"
        } else {
            " (naive did not run)"
        },
        checks.len(),
        if failed > 0 {
            format!(", {failed} engine runs failed")
        } else {
            String::new()
        },
        verdict(same == checks.len() && !checks.is_empty() && failed == 0)
    ));
    out
}

/// The whole report as JSON: `rows`, `equality`, `ratios`, `acceptance`.
pub fn report_json(table: &[Row], checks: &[Check]) -> Value {
    let eq: Vec<Value> = checks
        .iter()
        .map(|c| json!({"same": c.same, "text": c.text}))
        .collect();
    json!({
        "rows": table.iter().map(row_json).collect::<Vec<_>>(),
        "equality": eq,
        "ratios": ratios(table),
        "acceptance": acceptance(table, checks),
    })
}

fn row_json(r: &Row) -> Value {
    json!({
        "file": r.file_name(),
        "keys": r.keys.label(),
        "rows": r.rows,
        "file_bytes": r.file_bytes,
        "engine": r.config.0.as_str(),
        "threads_requested": r.config.1,
        "threads_used": r.first_u64("threads_used"),
        "median_wall_s": r.wall(),
        "walls_s": r.nums("wall_s"),
        "ns_per_row": r.ns_per_row(),
        "cpu_per_wall": r.cpu_per_wall(),
        "peak_rss_bytes": r.rss(),
        "keys_found": r.first_u64("keys"),
        "rows_found": r.first_u64("rows"),
        "sha256": r.first_str("sha256"),
        "extra": r.samples.first().and_then(|v| v.get("extra")).cloned(),
        "error": r.error,
    })
}

pub fn markdown(table: &[Row], checks: &[Check]) -> String {
    let mut s = String::new();
    s.push_str("| file | engine | threads | median s | M rows/s | ns/row | CPU/wall | peak RSS MB | keys | output sha256 | note |\n");
    s.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    for r in table {
        let wall = r.wall();
        let mut note = Vec::new();
        if let Some(e) = &r.error {
            note.push(e.chars().take(100).collect::<String>());
        }
        if let Some(found) = r.first_u64("rows").filter(|&n| n != r.rows) {
            note.push(format!("{found} rows read, {} expected", r.rows));
        }
        if let Some(Err(_)) = r.sha() {
            note.push("output differs between runs".to_owned());
        }
        let x = |k: &str| {
            median(
                r.samples
                    .iter()
                    .filter_map(|v| v.get("extra")?.get(k)?.as_f64())
                    .collect(),
            )
        };
        if let (Some(q), Some(i)) = (x("query_s"), x("import_s")) {
            note.push(format!("median query {q:.2} s, start+import {i:.2} s"));
        }
        let sha = match r.sha() {
            Some(Ok(h)) => h.chars().take(12).collect(),
            Some(Err(_)) => "varies".to_owned(),
            None => "-".to_owned(),
        };
        s.push_str(&format!(
            "| {} ({} keys, {:.2} GB) | {} | {} | {} | {} | {} | {} | {} | {} | {sha} | {} |\n",
            r.file_name(),
            r.keys.label(),
            r.file_bytes as f64 / 1e9,
            r.config.0.as_str(),
            r.first_u64("threads_used")
                .map_or("-".into(), |t| t.to_string()),
            wall.map_or("-".into(), |w| format!("{w:.3}")),
            wall.map_or("-".into(), |w| format!("{:.1}", r.rows as f64 / w / 1e6)),
            r.ns_per_row().map_or("-".into(), |n| format!("{n:.2}")),
            r.cpu_per_wall().map_or("-".into(), |c| format!("{c:.2}")),
            r.rss().map_or("-".into(), |b| format!("{:.0}", b / 1e6)),
            r.first_u64("keys").map_or("-".into(), |k| k.to_string()),
            note.join("; "),
        ));
    }
    s.push_str("\nOutputs:\n");
    if checks.is_empty() {
        s.push_str("- nothing to compare\n");
    }
    for c in checks {
        let mark = if c.same { "same" } else { "**MISMATCH**" };
        s.push_str(&format!("- {mark}: {}\n", c.text));
    }
    let r = ratios(table);
    if !r.is_empty() {
        s.push_str("\nRatios:\n");
        for line in r {
            s.push_str(&format!("- {line}\n"));
        }
    }
    s.push_str("\nAcceptance (issue 5):\n");
    for line in acceptance(table, checks) {
        s.push_str(&format!("- {line}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(vec![]), None);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.5));
    }

    fn row(keys: Keys, config: Config, wall: f64, sha: &str, out: &Path) -> Row {
        Row {
            keys,
            file: PathBuf::from(format!("1brc-{}-1m.txt", keys.label())),
            file_bytes: 1,
            rows: 1_000_000,
            config,
            out: out.to_owned(),
            samples: vec![json!({"wall_s": wall, "sha256": sha, "threads_used": 2})],
            error: None,
        }
    }

    #[test]
    fn report_flags_mismatches_and_computes_checks() {
        let dir = std::env::temp_dir().join(format!("ream-aggbench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.out"), dir.join("b.out"));
        std::fs::write(&a, "{x=1.0/1.0/1.0}\n").unwrap();
        std::fs::write(&b, "{x=1.0/1.1/1.0}\n").unwrap();
        let table = vec![
            row(Keys::K413, ONE, 0.2, "aa", &a),
            row(Keys::K413, NT, 0.1, "aa", &a),
            row(Keys::K413, NAIVE, 1.5, "aa", &a),
            row(Keys::K10k, NT, 0.15, "bb", &b),
            row(Keys::K10k, NAIVE, 2.0, "cc", &a),
        ];
        let checks = equality(&table);
        assert_eq!(checks.len(), 3);
        let bad: Vec<&Check> = checks.iter().filter(|c| !c.same).collect();
        assert_eq!(bad.len(), 1);
        assert!(
            bad[0].text.contains("first difference at byte 9"),
            "{}",
            bad[0].text
        );
        let md = markdown(&table, &checks);
        assert!(md.contains("**MISMATCH**"), "{md}");
        assert!(md.contains("naive / ream Nt = 15.00x"), "{md}");
        assert!(md.contains("10k / 413 ns per row, ream Nt: 1.50x"), "{md}");
        assert!(
            md.contains("faster than naive (413) (criterion is for 100 M"),
            "{md}"
        );
        assert!(md.contains("2 of 3 — FAIL"), "{md}");
        assert!(md.contains("not measured (--rows 1b)"), "{md}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn runs_that_disagree_are_reported() {
        let mut r = row(Keys::K413, NT, 0.1, "aa", Path::new("x"));
        r.samples.push(json!({"wall_s": 0.1, "sha256": "ab"}));
        assert!(matches!(r.sha(), Some(Err(_))));
        let checks = equality(&[r]);
        assert!(!checks[0].same && checks[0].text.contains("between runs"));
    }
}
