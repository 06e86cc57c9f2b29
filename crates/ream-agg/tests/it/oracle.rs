//! Property test: random inputs, random chunk sizes and thread counts, every
//! path, against a naive oracle written from the documented rules.

use proptest::prelude::*;
use ream_agg::{AggOptions, aggregate_bytes, aggregate_reader};
use std::collections::BTreeMap;

/// Per key: count, sum, min and max of the values at scale 18, exactly.
#[derive(Default)]
struct Naive {
    count: i128,
    sum: i128,
    min: Option<i128>,
    max: Option<i128>,
}

const E18: i128 = 1_000_000_000_000_000_000;

/// A decimal text (sign, fraction, exponent) as an integer at scale 18.
pub fn fixed18(v: &str) -> i128 {
    let (mant, exp) = match v.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap()),
        None => (v, 0),
    };
    let (neg, mant) = match mant.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, mant.strip_prefix('+').unwrap_or(mant)),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let digits = format!("{int}{frac}");
    let d: i128 = if digits.is_empty() {
        0
    } else {
        digits.parse().unwrap()
    };
    let shift = 18 - (frac.len() as i32 - exp);
    let x = d * 10i128.pow(shift as u32);
    if neg { -x } else { x }
}

/// `num / den` rounded half up (toward +infinity) to an integer.
fn half_up(num: i128, den: i128) -> i128 {
    (2 * num + den).div_euclid(2 * den)
}

fn tenths_i64(t: i64) -> String {
    let a = t.unsigned_abs();
    format!("{}{}.{}", if t < 0 { "-" } else { "" }, a / 10, a % 10)
}

/// The 1BRC output of `data` by the plainest code: exact values at scale
/// 18, one decimal rounded half up.
fn oracle(data: &[u8]) -> String {
    let text = std::str::from_utf8(data).unwrap();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut map: BTreeMap<&[u8], Naive> = BTreeMap::new();
    for line in text.split_terminator('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let (key, rest) = line.split_once(';').unwrap();
        let x = fixed18(rest.split(';').next().unwrap());
        let n = map.entry(key.as_bytes()).or_default();
        n.count += 1;
        n.sum += x;
        n.min = Some(n.min.map_or(x, |m| m.min(x)));
        n.max = Some(n.max.map_or(x, |m| m.max(x)));
    }
    let parts: Vec<String> = map
        .iter()
        .map(|(k, n)| {
            let k = String::from_utf8_lossy(k);
            let t = |num: i128, den: i128| tenths_i64(half_up(num * 10, den * E18) as i64);
            format!(
                "{k}={}/{}/{}",
                t(n.min.unwrap(), 1),
                t(n.sum, n.count),
                t(n.max.unwrap(), 1)
            )
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
        let o = AggOptions::default().threads(threads).tune_chunk_bytes(chunk);
        let got = aggregate_bytes(&data, &o).unwrap();
        prop_assert_eq!(super::text(&got), want.clone());
        let streamed = aggregate_reader(&data[..], &o).unwrap();
        prop_assert_eq!(super::text(&streamed), want);
    }

    #[test]
    fn split_anywhere_same_result(data in input(), cut in any::<prop::sample::Index>()) {
        // Chunk boundaries at every possible byte: chunk = cut position.
        let chunk = cut.index(data.len().max(1)).max(1);
        let whole = aggregate_bytes(&data, &AggOptions::default().threads(1)).unwrap();
        let split = aggregate_bytes(&data, &AggOptions::default().threads(2).tune_chunk_bytes(chunk)).unwrap();
        prop_assert_eq!(whole, split);
    }
}

/// The first error the documented rules give for `data`, as (line,
/// problem name), or `None` when every line is good.
fn first_error(data: &str) -> Option<(u64, &'static str)> {
    for (i, line) in data.split_terminator('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let n = i as u64 + 1;
        if line.is_empty() {
            continue;
        }
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
        let o = AggOptions::default().threads(threads).tune_chunk_bytes(chunk);
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
