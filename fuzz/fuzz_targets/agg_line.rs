//! 1BRC line parser and aggregation: the first two input bytes choose the
//! options (delimiter, header, strict values, raw keys, column layout, key
//! limits, skipping bad rows, chunk size), the rest is the file. The
//! serial run, a parallel run in tiny chunks and the streaming reader must
//! give the same result (exact texts, skipped rows) or the same error
//! (kind, line, byte), as the crate documents.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ream_agg::{AggError, AggOptions, Aggregate, aggregate_bytes, aggregate_reader};

/// One key's result: key, count, exact tenths, min, max, mean texts.
type Row = (Vec<u8>, u64, Option<(i64, i64, i64)>, String, String, String);

fn rows(r: &Result<Aggregate, AggError>) -> Result<Vec<Row>, String> {
    match r {
        Ok(a) => {
            let mut out = Vec::new();
            // The writers run too (their output is checked by the crate's
            // tests; here only that they do not fail).
            a.write_csv(&mut out).map_err(|e| e.to_string())?;
            a.write_1brc(&mut out).map_err(|e| e.to_string())?;
            let mut rows: Vec<Row> = a
                .iter()
                .map(|k| {
                    (
                        k.key().to_vec(),
                        k.count(),
                        k.tenths(),
                        k.min_text(),
                        k.max_text(),
                        k.mean_text(),
                    )
                })
                .collect();
            let skipped = format!("{} {} {:?}", a.empty_lines(), a.bad_rows(), a.first_bad_rows());
            rows.push((skipped.into_bytes(), 0, None, String::new(), String::new(), String::new()));
            Ok(rows)
        }
        Err(e) => Err(format!(
            "{:?} line {} byte {}",
            e.problem(),
            e.line(),
            e.offset()
        )),
    }
}

fn same(a: &Result<Vec<Row>, String>, b: &Result<Vec<Row>, String>) -> bool {
    a == b
}

fuzz_target!(|input: &[u8]| {
    let (flags, rest) = input.split_first().unwrap_or((&0, &[]));
    let (sizes, data) = rest.split_first().unwrap_or((&0, &[]));
    let serial = AggOptions::default()
        .threads(1)
        .delimiter(if flags & 1 == 0 { b';' } else { b',' })
        .header(flags & 2 != 0)
        .strict_values(flags & 4 != 0)
        .allow_invalid_utf8(flags & 8 != 0)
        .key_col(usize::from(flags & 16 != 0))
        .value_col(if flags & 16 != 0 { 2 } else { 1 })
        .max_key_memory(if flags & 32 != 0 {
            1024 + usize::from(sizes & 7) * 97
        } else {
            ream_agg::DEFAULT_MAX_KEY_MEMORY
        })
        .skip_bad_rows(flags & 128 != 0)
        .max_key_bytes(if flags & 64 != 0 {
            usize::from(sizes >> 3) + 1
        } else {
            100
        });
    let chunked = serial
        .clone()
        .threads(2)
        .tune_chunk_bytes(usize::from(sizes & 31) + 1);
    let a = rows(&aggregate_bytes(data, &serial));
    let b = rows(&aggregate_bytes(data, &chunked));
    assert!(
        same(&a, &b),
        "serial and chunked runs differ:\n{a:?}\n{b:?}"
    );
    let c = rows(&aggregate_reader(data, &chunked));
    assert!(
        same(&a, &c),
        "in-memory and streamed runs differ:\n{a:?}\n{c:?}"
    );
});
