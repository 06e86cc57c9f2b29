//! Integration tests of ream-agg: official samples, every input path,
//! bad input, and a property test against a naive oracle.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod bad_input;
mod exact;
mod general;
mod oracle;
mod paths;
mod samples;

use ream_agg::{AggOptions, Aggregate};

/// The 1BRC text of an aggregate.
pub fn text(a: &Aggregate) -> String {
    let mut v = Vec::new();
    a.write_1brc(&mut v).unwrap();
    String::from_utf8(v).unwrap()
}

/// Options with `threads` and `chunk_bytes` set.
pub fn opts(threads: usize, chunk_bytes: usize) -> AggOptions {
    AggOptions::default()
        .threads(threads)
        .tune_chunk_bytes(chunk_bytes)
}

/// `t` tenths in the strict 1BRC form: `-12.3`, `0.5`, `-0.5`.
pub fn tenths(t: i32) -> String {
    let a = t.unsigned_abs();
    format!("{}{}.{}", if t < 0 { "-" } else { "" }, a / 10, a % 10)
}
