//! Property test: random inputs, random chunk sizes and thread counts, every
//! path, against a naive oracle written from the documented rules.

use proptest::prelude::*;
use ream_agg::{AggOptions, aggregate_bytes, aggregate_reader};
use std::collections::BTreeMap;

/// Per key: exact count/sum/min/max in tenths, and the f64 part.
#[derive(Default)]
struct Naive {
    count: u64,
    sum: i64,
    min: Option<i64>,
    max: Option<i64>,
    fcount: u64,
    fsum: f64,
    fmin: Option<f64>,
    fmax: Option<f64>,
}

/// `-?d?d.d` as tenths.
fn strict(v: &str) -> Option<i64> {
    let (neg, rest) = match v.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, v),
    };
    let (int, frac) = rest.split_once('.')?;
    let ok = (1..=2).contains(&int.len())
        && frac.len() == 1
        && int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit());
    if !ok {
        return None;
    }
    let t: i64 = format!("{int}{frac}").parse().ok()?;
    Some(if neg { -t } else { t })
}

fn one_decimal(x: f64) -> String {
    let t = (x * 10.0 + 0.5).floor() as i64;
    tenths_i64(t)
}

fn tenths_i64(t: i64) -> String {
    let a = t.unsigned_abs();
    format!("{}{}.{}", if t < 0 { "-" } else { "" }, a / 10, a % 10)
}

/// The 1BRC output of `data` by the plainest code.
fn oracle(data: &[u8]) -> String {
    let text = std::str::from_utf8(data).unwrap();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut map: BTreeMap<&[u8], Naive> = BTreeMap::new();
    for line in text.split_terminator('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let (key, rest) = line.split_once(';').unwrap();
        let value = rest.split(';').next().unwrap();
        let n = map.entry(key.as_bytes()).or_default();
        match strict(value) {
            Some(t) => {
                n.count += 1;
                n.sum += t;
                n.min = Some(n.min.map_or(t, |m| m.min(t)));
                n.max = Some(n.max.map_or(t, |m| m.max(t)));
            }
            None => {
                let x: f64 = value.parse().unwrap();
                n.fcount += 1;
                n.fsum += x;
                n.fmin = Some(n.fmin.map_or(x, |m| m.min(x)));
                n.fmax = Some(n.fmax.map_or(x, |m| m.max(x)));
            }
        }
    }
    let parts: Vec<String> = map
        .iter()
        .map(|(k, n)| {
            let k = String::from_utf8_lossy(k);
            if n.fcount == 0 {
                let c = i128::from(n.count);
                let mean = (2 * i128::from(n.sum) + c).div_euclid(2 * c) as i64;
                format!(
                    "{k}={}/{}/{}",
                    tenths_i64(n.min.unwrap()),
                    tenths_i64(mean),
                    tenths_i64(n.max.unwrap())
                )
            } else {
                let lo = n
                    .min
                    .map_or(f64::INFINITY, |m| m as f64 / 10.0)
                    .min(n.fmin.unwrap());
                let hi = n
                    .max
                    .map_or(f64::NEG_INFINITY, |m| m as f64 / 10.0)
                    .max(n.fmax.unwrap());
                let sum = n.sum as f64 / 10.0 + n.fsum;
                let mean = sum / (n.count + n.fcount) as f64;
                format!(
                    "{k}={}/{}/{}",
                    one_decimal(lo),
                    one_decimal(mean),
                    one_decimal(hi)
                )
            }
        })
        .collect();
    format!("{{{}}}\n", parts.join(", "))
}

const KEYS: &[&str] = &[
    "a",
    "Abha",
    "Zürich",
    "İzmir",
    "exactly8",
    "fifteen chars!!",
    "sixteen chars!!!",
    "seventeen chars!!",
    "Petropavlovsk-Kamchatsky",
    "a name with a few more bytes than the others, near the hundred-byte limit of the challenge ok",
    "日本語の名前",
];

/// A value: mostly strict, some general decimals whose sums are exact.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (-999i32..=999).prop_map(|t| {
            let a = t.unsigned_abs();
            format!("{}{}.{}", if t < 0 { "-" } else { "" }, a / 10, a % 10)
        }),
        1 => (-400i32..=400).prop_map(|q| format!("{}", f64::from(q) / 4.0)),
        1 => (-50i32..=50).prop_map(|i| format!("{i}")),
    ]
}

fn line() -> impl Strategy<Value = (usize, String, bool)> {
    (0..KEYS.len(), value(), prop::bool::weighted(0.1))
}

fn input() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(line(), 0..400),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, bom, final_newline)| {
            let mut out = Vec::new();
            if bom {
                out.extend_from_slice(b"\xEF\xBB\xBF");
            }
            let n = lines.len();
            for (i, (k, v, crlf)) in lines.into_iter().enumerate() {
                out.extend_from_slice(KEYS[k].as_bytes());
                out.push(b';');
                out.extend_from_slice(v.as_bytes());
                if i + 1 < n || final_newline {
                    out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
                }
            }
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn matches_the_naive_oracle(
        data in input(),
        chunk in 1usize..300,
        threads in prop::sample::select(vec![1usize, 2, 8]),
    ) {
        let want = oracle(&data);
        let o = AggOptions { threads, chunk_bytes: chunk, ..AggOptions::default() };
        let got = aggregate_bytes(&data, &o).unwrap();
        prop_assert_eq!(super::text(&got), want.clone());
        let streamed = aggregate_reader(&data[..], &o).unwrap();
        prop_assert_eq!(super::text(&streamed), want);
    }

    #[test]
    fn split_anywhere_same_result(data in input(), cut in any::<prop::sample::Index>()) {
        // Chunk boundaries at every possible byte: chunk = cut position.
        let chunk = cut.index(data.len().max(1)).max(1);
        let whole = aggregate_bytes(&data, &AggOptions { threads: 1, ..AggOptions::default() }).unwrap();
        let split = aggregate_bytes(&data, &AggOptions { threads: 2, chunk_bytes: chunk, ..AggOptions::default() }).unwrap();
        prop_assert_eq!(whole, split);
    }
}

/// The first error the documented rules give for `data`, as (line,
/// problem name), or `None` when every line is good.
fn first_error(data: &str) -> Option<(u64, &'static str)> {
    for (i, line) in data.split_terminator('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let n = i as u64 + 1;
        let Some((key, rest)) = line.split_once(';') else {
            return Some((n, "MissingDelimiter"));
        };
        if key.is_empty() {
            return Some((n, "EmptyKey"));
        }
        if key.len() > 100 {
            return Some((n, "KeyTooLong"));
        }
        let value = rest.split(';').next().unwrap();
        if strict(value).is_some() {
            continue;
        }
        let unsigned = value.strip_prefix(['-', '+']).unwrap_or(value);
        let starts_ok = unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.');
        match value.parse::<f64>() {
            Ok(x) if starts_ok && x.is_finite() => {}
            Ok(_) if starts_ok => return Some((n, "ValueOutOfRange")),
            _ => return Some((n, "BadValue")),
        }
    }
    None
}

fn messy_line() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "a",
        "Abha",
        "a key name longer than sixteen",
        "",
        "x;y",
        "Zürich",
        "k\r",
    ]);
    let value = prop::sample::select(vec![
        "1.0",
        "-12.3",
        "99.9",
        "-0.0",
        "1.23",
        "123.4",
        "abc",
        "",
        "-",
        "1e2",
        ".5",
        "1;2",
        "1.0\r",
        "+3",
        "1.",
        "--1.0",
        "1:.5",
        "9\u{7f}.5",
        "12.3x",
        "1e999",
        " 1.0",
    ]);
    (key, value, prop::bool::weighted(0.9)).prop_map(|(k, v, delim)| {
        if delim {
            format!("{k};{v}")
        } else {
            format!("{k}{v}")
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Good rows around rare bad ones: the fast path must accept exactly
    /// what the rules accept, and report the same first error.
    #[test]
    fn messy_input_gives_the_documented_first_error(
        good in prop::collection::vec(line(), 50..400),
        bad in prop::collection::vec((any::<prop::sample::Index>(), messy_line()), 0..4),
        threads in prop::sample::select(vec![1usize, 2, 8]),
        chunk in 1usize..2000,
    ) {
        let mut lines: Vec<String> = good
            .into_iter()
            .map(|(k, v, _)| format!("{};{v}", KEYS[k]))
            .collect();
        for (at, l) in bad {
            let i = at.index(lines.len());
            lines.insert(i, l);
        }
        let data = lines.join("\n") + "\n";
        let o = AggOptions { threads, chunk_bytes: chunk, ..AggOptions::default() };
        let got = aggregate_bytes(data.as_bytes(), &o);
        match first_error(&data) {
            None => prop_assert_eq!(super::text(&got.unwrap()), oracle(data.as_bytes())),
            Some((line, problem)) => {
                let e = got.unwrap_err();
                prop_assert_eq!(e.line(), line, "{}", e);
                prop_assert!(format!("{:?}", e.problem()).starts_with(problem), "{e} vs {problem}");
            }
        }
    }
}
