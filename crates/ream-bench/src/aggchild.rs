//! The child of `ream-bench agg` (`ream-bench agg measure`, hidden): one
//! engine on one file in a fresh process; writes the 1BRC output to a file
//! and prints one JSON line (`ok`, `wall_s`, `cpu_s`, `rows`, `keys`,
//! `sha256`, `peak_rss_bytes`, `threads_used`, `extra`), or
//! `{"ok":false,"error":..}`.

use crate::aggbench::Engine;
use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// What one engine produced in the child.
struct Produced {
    output: Vec<u8>,
    rows: u64,
    keys: u64,
    threads_used: usize,
    extra: Value,
}

/// The child: runs one engine on one file, writes its output to `out`
/// and returns the JSON line.
pub fn measure(engine: Engine, threads: usize, file: &Path, out: &Path) -> Result<Value> {
    if !file.is_file() {
        bail!("no such file: {}", file.display());
    }
    let cpu0 = ream_alloc::cpu_time();
    let t0 = Instant::now();
    let (p, rss_override) = match engine {
        Engine::Ream => (run_ream(threads, file)?, None),
        Engine::Naive => {
            let n = crate::aggnaive::aggregate_path(file)?;
            let p = Produced {
                output: n.output.into_bytes(),
                rows: n.rows,
                keys: n.keys as u64,
                threads_used: 1,
                extra: json!({}),
            };
            (p, None)
        }
        Engine::Duckdb => {
            let (p, rss) = run_duckdb(threads, file, out)?;
            (p, Some(rss))
        }
    };
    let wall_s = t0.elapsed().as_secs_f64();
    let cpu_s = match (cpu0, ream_alloc::cpu_time()) {
        (Some(a), Some(b)) if engine != Engine::Duckdb => Some(b.saturating_sub(a).as_secs_f64()),
        _ => None,
    };
    if engine != Engine::Duckdb {
        std::fs::write(out, &p.output).with_context(|| format!("writing {}", out.display()))?;
    }
    let sha: String = Sha256::digest(&p.output)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(json!({
        "ok": true,
        "engine": engine.as_str(),
        "threads_requested": threads,
        "threads_used": p.threads_used,
        "wall_s": wall_s,
        "cpu_s": cpu_s,
        "rows": p.rows,
        "keys": p.keys,
        "output_bytes": p.output.len(),
        "sha256": sha,
        "peak_rss_bytes": rss_override.flatten().or_else(ream_alloc::peak_rss_bytes),
        "extra": p.extra,
    }))
}

fn run_ream(threads: usize, file: &Path) -> Result<Produced> {
    let opts = ream_agg::AggOptions::default().threads(threads);
    let agg = ream_agg::aggregate_path(file, &opts).map_err(|e| anyhow!("ream: {e}"))?;
    let mut output = Vec::with_capacity(1 << 20);
    agg.write_1brc(&mut output)?;
    Ok(Produced {
        output,
        rows: agg.rows(),
        keys: agg.keys() as u64,
        threads_used: opts.effective_threads(),
        extra: json!({}),
    })
}

/// DuckDB's side: read_csv + GROUP BY in integer tenths, the 1BRC text
/// formatted in Python (means rounded half up like the reference), written
/// to argv[2]; one JSON line of counts and times on stdout.
const DUCKDB_SCRIPT: &str = r#"
import sys, time, json
t0 = time.perf_counter()
import duckdb
path, out, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")
if threads > 0:
    con.execute(f"SET threads TO {threads}")
t1 = time.perf_counter()
lit = "'" + path.replace("'", "''") + "'"
rows = con.execute(
    "SELECT name, min(t), max(t), sum(t), count(*) FROM ("
    " SELECT name, CAST(round(v * 10) AS BIGINT) AS t FROM read_csv(" + lit + ","
    " delim=';', header=false, quote='', escape='', auto_detect=false,"
    " columns={'name': 'VARCHAR', 'v': 'DOUBLE'})) GROUP BY name").fetchall()
def f(t):
    return ("-" if t < 0 else "") + str(abs(t) // 10) + "." + str(abs(t) % 10)
rows.sort(key=lambda r: r[0].encode())
text = "{" + ", ".join(
    n + "=" + f(mn) + "/" + f((2 * s + c) // (2 * c)) + "/" + f(mx)
    for n, mn, mx, s, c in rows) + "}\n"
with open(out, "w", encoding="utf-8", newline="") as fh:
    fh.write(text)
t2 = time.perf_counter()
print(json.dumps({"rows": sum(r[4] for r in rows), "keys": len(rows),
                  "import_s": t1 - t0, "query_s": t2 - t1}))
"#;

/// Runs the DuckDB script under `/usr/bin/time` (for its peak RSS) when
/// available. Returns what it produced and the RSS it reported.
fn run_duckdb(threads: usize, file: &Path, out: &Path) -> Result<(Produced, Option<u64>)> {
    let timed = Path::new("/usr/bin/time").is_file();
    let mut cmd = if timed {
        let mut c = Command::new("/usr/bin/time");
        c.args(["-f", "REAM_RSS_KB %M", "python3"]);
        c
    } else {
        Command::new("python3")
    };
    let o = cmd
        .arg("-c")
        .arg(DUCKDB_SCRIPT)
        .arg(file)
        .arg(out)
        .arg(threads.to_string())
        .output()
        .context("running python3 (duckdb)")?;
    let stderr = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() {
        let tail: Vec<&str> = stderr.lines().rev().take(3).collect();
        bail!(
            "duckdb: python3 exited with {}: {}",
            o.status,
            tail.join(" / ")
        );
    }
    let stdout = String::from_utf8_lossy(&o.stdout);
    // Split at '\r' too: a progress bar would share the JSON's line.
    let v: Value = stdout
        .split(['\n', '\r'])
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .context("duckdb: no JSON line from the script")?;
    let rss = stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("REAM_RSS_KB "))
        .and_then(|k| k.trim().parse::<u64>().ok())
        .map(|k| k * 1024);
    let output = std::fs::read(out).with_context(|| format!("reading {}", out.display()))?;
    let used = if threads == 0 {
        crate::measure::resolve_threads(0)
    } else {
        threads
    };
    Ok((
        Produced {
            output,
            rows: v.get("rows").and_then(Value::as_u64).unwrap_or(0),
            keys: v.get("keys").and_then(Value::as_u64).unwrap_or(0),
            threads_used: used,
            extra: json!({"import_s": v.get("import_s"), "query_s": v.get("query_s")}),
        },
        rss,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_errors_are_reported() {
        let e = measure(
            Engine::Naive,
            1,
            Path::new("/nonexistent.txt"),
            Path::new("/tmp/x"),
        );
        assert!(format!("{:#}", e.unwrap_err()).contains("no such file"));
    }
}
