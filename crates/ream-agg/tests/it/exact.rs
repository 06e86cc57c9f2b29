//! Exact means: random values at random scales, each written in several
//! spellings, against an exact rational oracle (`i128` at scale 24).

use proptest::prelude::*;
use ream_agg::{AggOptions, aggregate_bytes};
use std::collections::BTreeMap;

/// `m * 10^-scale` written one of five ways: plain, with extra trailing
/// zeros, as `{m}e-{scale}`, with `+` and leading zeros, or with a point
/// and an exponent.
fn spell(m: i64, scale: u32, how: u8) -> String {
    let sign = if m < 0 { "-" } else { "" };
    let a = m.unsigned_abs().to_string();
    let plain = |zeros: usize| {
        let s = scale as usize;
        let padded = format!("{a:0>w$}", w = s + 1);
        let (int, frac) = padded.split_at(padded.len() - s);
        if s == 0 && zeros == 0 {
            int.to_string()
        } else {
            format!("{int}.{frac}{}", "0".repeat(zeros))
        }
    };
    match how {
        0 => format!("{sign}{}", plain(0)),
        1 => format!("{sign}{}", plain(3)),
        2 => format!("{sign}{a}e-{scale}"),
        3 if m >= 0 => format!("+00{}", plain(0)),
        3 => format!("-00{}", plain(0)),
        _ => format!("{sign}0.{a}e{}", a.len() as i64 - i64::from(scale)),
    }
}

/// `v` (an integer at `scale` decimals) as text, trailing zeros trimmed to
/// one decimal at least.
fn show(v: i128, scale: u32) -> String {
    let s = scale.max(1) as usize;
    let digits = format!("{:0>w$}", v.unsigned_abs(), w = s + 1);
    let (int, frac) = digits.split_at(digits.len() - s);
    let frac = frac.trim_end_matches('0');
    let frac = if frac.is_empty() { "0" } else { frac };
    let neg = if v < 0 { "-" } else { "" };
    format!("{neg}{int}.{frac}")
}

/// The normalised scale of `m * 10^-scale` (trailing zeros dropped).
fn norm_scale(mut m: i64, mut scale: u32) -> u32 {
    while scale > 0 && m % 10 == 0 {
        m /= 10;
        scale -= 1;
    }
    scale
}

/// The documented CSV row of one key's values.
fn oracle_row(key: &str, vals: &[(i64, u32)]) -> String {
    const S: u32 = 24;
    let at = |m: i64, sc: u32| i128::from(m) * 10i128.pow(S - sc);
    let scale = vals
        .iter()
        .map(|&(m, s)| norm_scale(m, s))
        .max()
        .unwrap()
        .max(1);
    let xs: Vec<i128> = vals.iter().map(|&(m, s)| at(m, s)).collect();
    let (lo, hi) = (*xs.iter().min().unwrap(), *xs.iter().max().unwrap());
    let sum: i128 = xs.iter().sum();
    let count = xs.len() as i128;
    let to = scale + ream_agg::MEAN_EXTRA_DECIMALS;
    let den = count * 10i128.pow(S - to);
    let q = (2 * sum.abs() + den) / (2 * den);
    let mean = if sum < 0 { -q } else { q };
    let exact = |x: i128| show(x / 10i128.pow(S - scale), scale);
    format!(
        "{key},{count},{},{},{}",
        exact(lo),
        show(mean, to),
        exact(hi)
    )
}

fn csv(data: &[u8], threads: usize) -> String {
    let o = AggOptions::default().threads(threads).tune_chunk_bytes(64);
    let mut out = Vec::new();
    aggregate_bytes(data, &o)
        .unwrap()
        .write_csv(&mut out)
        .unwrap();
    String::from_utf8(out).unwrap()
}

fn value() -> impl Strategy<Value = (i64, u32)> {
    (-1_000_000_000i64..=1_000_000_000, 0u32..=8)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn means_match_the_exact_oracle_in_every_spelling(
        rows in prop::collection::vec((0usize..4, value(), 0u8..5), 1..60),
        threads in prop::sample::select(vec![1usize, 2, 8]),
    ) {
        let mut keys: BTreeMap<String, Vec<(i64, u32)>> = BTreeMap::new();
        let (mut spelled, mut plain) = (String::new(), String::new());
        for (k, (m, s), how) in &rows {
            let key = format!("k{k}");
            spelled += &format!("{key};{}\n", spell(*m, *s, *how));
            plain += &format!("{key};{}\n", spell(*m, *s, 0));
            keys.entry(key).or_default().push((*m, *s));
        }
        let mut want = String::from("key,count,min,mean,max\n");
        for (k, vals) in &keys {
            want += &oracle_row(k, vals);
            want.push('\n');
        }
        prop_assert_eq!(csv(spelled.as_bytes(), threads), want.clone());
        prop_assert_eq!(csv(plain.as_bytes(), 1), want);
        let one = |d: &str| super::text(&aggregate_bytes(d.as_bytes(), &AggOptions::default()).unwrap());
        prop_assert_eq!(one(&spelled), one(&plain));
    }
}

#[test]
fn spellings_of_the_oracle() {
    assert_eq!(spell(5, 2, 0), "0.05");
    assert_eq!(spell(-5, 2, 1), "-0.05000");
    assert_eq!(spell(5, 2, 2), "5e-2");
    assert_eq!(spell(5, 2, 3), "+000.05");
    assert_eq!(spell(-512, 2, 4), "-0.512e1");
    assert_eq!(spell(7, 0, 0), "7");
    assert_eq!(show(-15, 2), "-0.15");
    assert_eq!(show(120, 1), "12.0");
    assert_eq!(oracle_row("a", &[(1, 1), (2, 1)]), "a,2,0.1,0.15,0.2");
    assert_eq!(
        oracle_row("a", &[(1, 0), (2, 0), (2, 0)]),
        "a,3,1.0,1.6666667,2.0"
    );
}
