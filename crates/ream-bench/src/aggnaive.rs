//! The naive 1BRC baseline: the obvious single-threaded program, kept in
//! the project so every benchmark run measures it beside ream on the same
//! file, and used as the oracle that ream's output must equal byte for byte.
//!
//! `BufReader::lines` (one `String` per line), `split_once(';')`, the value
//! through `str::parse::<f64>()` and then `(v * 10.0).round() as i64`
//! integer tenths (so sums are exact), a `HashMap<String, Stats>` (the name
//! copied into a `String` the first time it is seen), then a `BTreeMap` for
//! the byte-order sort. No mapping, no threads, no custom parsing.

use anyhow::{Context, Result, bail};
use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::path::Path;

/// min, max, sum and count of one name, in tenths.
#[derive(Debug, Clone, Copy)]
struct Stats {
    min: i64,
    max: i64,
    sum: i64,
    count: i64,
}

/// The result of one naive run.
#[derive(Debug, Clone)]
pub struct Naive {
    /// The 1BRC output: `{name=min/mean/max, ...}` and a newline.
    pub output: String,
    /// Lines aggregated.
    pub rows: u64,
    /// Distinct names.
    pub keys: usize,
}

/// Aggregates the file at `path`.
pub fn aggregate_path(path: &Path) -> Result<Naive> {
    let f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    aggregate(std::io::BufReader::with_capacity(1 << 16, f))
        .with_context(|| path.display().to_string())
}

/// Aggregates `<name>;<value>` lines (LF or CRLF). Errors name the 1-based
/// line: a line without `;`, an empty name, a value that does not parse or
/// lies outside -99.9..=99.9, invalid UTF-8 (the line reader rejects it).
pub fn aggregate(input: impl BufRead) -> Result<Naive> {
    let mut map: HashMap<String, Stats> = HashMap::new();
    let mut rows = 0u64;
    for (i, line) in input.lines().enumerate() {
        let line = line.with_context(|| format!("line {}: read error", i + 1))?;
        let Some((name, value)) = line.split_once(';') else {
            bail!("line {}: no ';' in {line:?}", i + 1);
        };
        if name.is_empty() {
            bail!("line {}: empty name", i + 1);
        }
        let v: f64 = value
            .parse()
            .with_context(|| format!("line {}: bad value {value:?}", i + 1))?;
        if !(-99.9..=99.9).contains(&v) {
            bail!("line {}: value {value:?} outside -99.9..99.9", i + 1);
        }
        let t = (v * 10.0).round() as i64;
        rows += 1;
        match map.get_mut(name) {
            Some(s) => {
                s.min = s.min.min(t);
                s.max = s.max.max(t);
                s.sum += t;
                s.count += 1;
            }
            None => {
                map.insert(
                    name.to_owned(),
                    Stats {
                        min: t,
                        max: t,
                        sum: t,
                        count: 1,
                    },
                );
            }
        }
    }
    let keys = map.len();
    let sorted: BTreeMap<String, Stats> = map.into_iter().collect();
    let mut output = String::with_capacity(keys * 24 + 3);
    output.push('{');
    for (k, (name, s)) in sorted.iter().enumerate() {
        if k > 0 {
            output.push_str(", ");
        }
        let mean = (2 * s.sum + s.count).div_euclid(2 * s.count);
        output.push_str(name);
        output.push('=');
        output.push_str(&tenths(s.min));
        output.push('/');
        output.push_str(&tenths(mean));
        output.push('/');
        output.push_str(&tenths(s.max));
    }
    output.push_str("}\n");
    Ok(Naive { output, rows, keys })
}

/// `t` tenths with one decimal: `-12.3`, `0.0`, `-0.4` (never `-0.0`).
fn tenths(t: i64) -> String {
    let sign = if t < 0 { "-" } else { "" };
    let a = t.unsigned_abs();
    format!("{sign}{}.{}", a / 10, a % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(s: &str) -> Result<String> {
        aggregate(s.as_bytes()).map(|n| n.output)
    }

    #[test]
    fn formats_sorts_and_rounds() {
        assert_eq!(
            run("b;1.0\na;-0.1\nb;2.0\na;0.1\nb;1.5\n").unwrap(),
            "{a=-0.1/0.0/0.1, b=1.0/1.5/2.0}\n"
        );
        // Mean -0.05 rounds half up to 0.0; -0.15 to -0.1.
        assert_eq!(run("x;-0.1\nx;0.0\n").unwrap(), "{x=-0.1/0.0/0.0}\n");
        assert_eq!(run("x;-0.1\nx;-0.2\n").unwrap(), "{x=-0.2/-0.1/-0.1}\n");
        assert_eq!(run("x;0.1\nx;0.2\n").unwrap(), "{x=0.1/0.2/0.2}\n");
        // Byte order: uppercase before lowercase, multi-byte after ASCII.
        assert_eq!(
            run("é;1.0\nb;1.0\nB;1.0\n").unwrap(),
            "{B=1.0/1.0/1.0, b=1.0/1.0/1.0, é=1.0/1.0/1.0}\n"
        );
        // CRLF and a missing final newline.
        assert_eq!(run("a;1.0\r\na;3.0").unwrap(), "{a=1.0/2.0/3.0}\n");
        assert_eq!(run("").unwrap(), "{}\n");
        let n = aggregate("a;1.0\nb;2.0\na;3.0\n".as_bytes()).unwrap();
        assert_eq!((n.rows, n.keys), (3, 2));
    }

    #[test]
    fn bad_lines_name_the_line() {
        for (input, want) in [
            ("a;1.0\nnosemi\n", "line 2: no ';'"),
            ("a;1.0\n;1.0\n", "line 2: empty name"),
            ("a;x\n", "line 1: bad value"),
            ("a;1.0\na;100.0\n", "line 2: value \"100.0\" outside"),
        ] {
            let e = format!("{:#}", run(input).unwrap_err());
            assert!(e.contains(want), "{input:?}: {e}");
        }
        let e = format!("{:#}", aggregate(&b"a;1.0\n\xff;1.0\n"[..]).unwrap_err());
        assert!(e.contains("line 2"), "{e}");
        let e = format!(
            "{:#}",
            aggregate_path(Path::new("/nonexistent.txt")).unwrap_err()
        );
        assert!(e.contains("/nonexistent.txt"), "{e}");
    }

    #[test]
    fn official_samples_pass() {
        let dir = crate::aggkeys::default_data_dir().join("samples");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            eprintln!("skipped: no official samples at {}", dir.display());
            return;
        };
        let mut checked = 0;
        for e in entries {
            let path = e.unwrap().path();
            if path.extension().and_then(|x| x.to_str()) != Some("txt") {
                continue;
            }
            let want = std::fs::read_to_string(path.with_extension("out")).unwrap();
            let got = aggregate_path(&path).unwrap().output;
            // Some official .out files lack the final newline.
            assert_eq!(got.trim_end(), want.trim_end(), "{}", path.display());
            checked += 1;
        }
        assert!(checked >= 12, "{checked} samples");
    }
}
