//! The aggregation engine's demo: a small One Billion Row Challenge file
//! (1,000,000 rows over 40 stations, values drawn like the official
//! generator's) written deterministically, aggregated on all cores, and
//! checked against the totals the generator kept while writing.

use super::{DemoResult, thousands};
use anyhow::{Context, Result};
use ream_agg::{AggOptions, aggregate_path};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

/// Rows of the sample (about 12 MB).
const ROWS: u64 = 1_000_000;
/// Runs timed; the fastest is reported.
const REPEATS: usize = if cfg!(debug_assertions) { 1 } else { 3 };
/// Entries of the output shown.
const SHOWN: usize = 4;
/// Stations and mean temperatures (from the official 413), with multi-byte
/// names among them.
const STATIONS: [(&str, f64); 40] = [
    ("Abéché", 29.4),
    ("Algiers", 18.2),
    ("Asmara", 15.6),
    ("Bangkok", 28.6),
    ("Berlin", 10.3),
    ("Bouaké", 26.0),
    ("Cairns", 25.0),
    ("Chișinău", 10.2),
    ("Chongqing", 18.6),
    ("Dallas", 19.0),
    ("Dodoma", 22.7),
    ("Erbil", 19.5),
    ("Hanoi", 23.6),
    ("Honiara", 26.5),
    ("İzmir", 17.9),
    ("Jerusalem", 18.3),
    ("Kathmandu", 18.3),
    ("La Ceiba", 26.2),
    ("Lomé", 26.9),
    ("Lyon", 12.5),
    ("Maputo", 22.8),
    ("Milwaukee", 8.9),
    ("Muscat", 28.0),
    ("New Orleans", 20.7),
    ("Oklahoma City", 15.9),
    ("Palmerston North", 13.2),
    ("Reykjavík", 4.3),
    ("San José", 22.6),
    ("Seattle", 11.3),
    ("Ségou", 28.0),
    ("St. Louis", 13.9),
    ("Suwałki", 7.2),
    ("Tampa", 22.9),
    ("Tromsø", 2.9),
    ("Ürümqi", 7.4),
    ("Wrocław", 9.6),
    ("Yakutsk", -8.8),
    ("Yaoundé", 23.8),
    ("Yellowknife", -4.3),
    ("Zürich", 9.3),
];

/// SplitMix64: a fixed-seed stream of 64-bit values.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [-1, 1).
    fn signed_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0
    }
    /// Standard normal (Marsaglia's polar method, one value per call).
    fn normal(&mut self) -> f64 {
        loop {
            let (u, v) = (self.signed_unit(), self.signed_unit());
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                return u * (-2.0 * s.ln() / s).sqrt();
            }
        }
    }
}

/// min, max, sum, count in tenths.
type Stats = (i64, i64, i64, i64);

/// `t` tenths with one decimal, never `-0.0`.
fn tenths(t: i64) -> String {
    let sign = if t < 0 { "-" } else { "" };
    format!("{sign}{}.{}", t.unsigned_abs() / 10, t.unsigned_abs() % 10)
}

/// Writes the sample to `path` and returns the 1BRC output it must give,
/// from totals kept while writing.
fn write_sample(path: &Path) -> Result<String> {
    let mut rng = Rng(0x1B2C_DE30);
    let mut stats: BTreeMap<&str, Stats> = BTreeMap::new();
    let mut buf = Vec::with_capacity(14 << 20);
    for _ in 0..ROWS {
        let k = ((u128::from(rng.next_u64()) * STATIONS.len() as u128) >> 64) as usize;
        let Some(&(name, mean)) = STATIONS.get(k) else {
            continue;
        };
        // Half up to tenths, like the official Math.round(x * 10.0).
        let t = ((mean + 10.0 * rng.normal()) * 10.0 + 0.5)
            .floor()
            .clamp(-999.0, 999.0) as i64;
        let s = stats.entry(name).or_insert((t, t, 0, 0));
        *s = (s.0.min(t), s.1.max(t), s.2 + t, s.3 + 1);
        buf.extend_from_slice(name.as_bytes());
        buf.push(b';');
        buf.extend_from_slice(tenths(t).as_bytes());
        buf.push(b'\n');
    }
    let mut f =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    f.write_all(&buf)
        .with_context(|| format!("writing {}", path.display()))?;
    // BTreeMap<&str> iterates in byte order, the 1BRC sort.
    let entries: Vec<String> = stats
        .iter()
        .map(|(name, &(min, max, sum, count))| {
            let mean = (2 * sum + count).div_euclid(2 * count);
            format!("{name}={}/{}/{}", tenths(min), tenths(mean), tenths(max))
        })
        .collect();
    Ok(format!("{{{}}}\n", entries.join(", ")))
}

/// Generates the sample under `dir`, aggregates it and checks the result.
pub fn demo_agg(dir: &Path) -> Result<DemoResult> {
    let path = dir.join("1brc-demo.txt");
    let expected = write_sample(&path)?;
    let size = std::fs::metadata(&path)?.len();
    let opts = AggOptions::default();
    let threads = opts.effective_threads();
    let mut best = f64::INFINITY;
    let mut agg = None;
    for _ in 0..REPEATS {
        let t0 = Instant::now();
        let a = aggregate_path(&path, &opts).with_context(|| path.display().to_string())?;
        best = best.min(t0.elapsed().as_secs_f64());
        agg = Some(a);
    }
    let agg = agg.context("no run")?;
    let mut out = Vec::new();
    agg.write_1brc(&mut out)?;
    let text = String::from_utf8_lossy(&out);
    let mut warnings = Vec::new();
    if text != expected {
        let at = text
            .bytes()
            .zip(expected.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(text.len().min(expected.len()));
        warnings.push(format!(
            "output differs from the generator's totals at byte {at}"
        ));
    }
    if agg.rows() != ROWS {
        warnings.push(format!("{} rows aggregated, {ROWS} written", agg.rows()));
    }
    let body = text
        .trim_end()
        .trim_start_matches('{')
        .trim_end_matches('}');
    let shown: Vec<&str> = body.split(", ").take(SHOWN).collect();
    let p = path.display();
    let lines = vec![
        (
            "file",
            format!(
                "{} bytes, {} rows, {} stations",
                thousands(size),
                thousands(ROWS),
                STATIONS.len()
            ),
        ),
        (
            "aggregate",
            format!("{best:.4} s on {threads} threads, best of {REPEATS}"),
        ),
        (
            "throughput",
            format!(
                "{:.1} M rows/s, {:.0} MB/s",
                ROWS as f64 / best.max(1e-9) / 1e6,
                size as f64 / best.max(1e-9) / 1e6
            ),
        ),
        ("keys", format!("{} (sorted by name bytes)", agg.keys())),
        ("first", format!("{{{}, ...}}", shown.join(", "))),
        (
            "checks",
            format!(
                "output {} the generator's own min/mean/max",
                if warnings.is_empty() {
                    "equals"
                } else {
                    "DIFFERS from"
                }
            ),
        ),
    ];
    let hints = vec![
        format!("ream agg {p}"),
        format!("ream agg {p} --threads 1"),
        format!("ream agg {p} --format jsonl | head"),
    ];
    Ok(DemoResult {
        engine: "agg",
        file: path,
        lines,
        hints,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tenths_never_print_negative_zero() {
        assert_eq!(tenths(0), "0.0");
        assert_eq!(tenths(-4), "-0.4");
        assert_eq!(tenths(-999), "-99.9");
        assert_eq!(tenths(123), "12.3");
    }

    #[test]
    fn normal_values_are_standard() {
        let mut rng = Rng(1);
        let n = 100_000;
        let (mut s, mut s2) = (0.0, 0.0);
        for _ in 0..n {
            let x = rng.normal();
            s += x;
            s2 += x * x;
        }
        let m = s / f64::from(n);
        assert!(m.abs() < 0.02, "{m}");
        assert!((s2 / f64::from(n) - 1.0).abs() < 0.02);
    }
}
