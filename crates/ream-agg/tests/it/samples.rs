//! The official 1BRC test samples, byte for byte, on every path.

use super::opts;
use ream_agg::{AggOptions, aggregate_bytes, aggregate_path, aggregate_reader};
use std::path::PathBuf;

fn samples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/1brc/samples")
}

#[test]
fn official_samples_byte_for_byte() {
    let dir = samples_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: {} is absent", dir.display());
        return;
    };
    let mut n = 0;
    for e in entries {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "txt") {
            continue;
        }
        let expected = std::fs::read(path.with_extension("out")).unwrap();
        let data = std::fs::read(&path).unwrap();
        for (threads, chunk) in [(1, 1 << 20), (2, 7), (8, 1), (0, 64)] {
            let o = opts(threads, chunk);
            for agg in [
                aggregate_bytes(&data, &o).unwrap(),
                aggregate_path(&path, &o).unwrap(),
                aggregate_reader(&data[..], &o).unwrap(),
            ] {
                let mut out = Vec::new();
                agg.write_1brc(&mut out).unwrap();
                assert_eq!(
                    String::from_utf8_lossy(&out),
                    String::from_utf8_lossy(&expected),
                    "{} threads {threads} chunk {chunk}",
                    path.display()
                );
            }
        }
        n += 1;
    }
    assert!(n >= 10, "only {n} samples found in {}", dir.display());
    let _ = AggOptions::default();
}
