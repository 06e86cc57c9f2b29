//! Resuming an interrupted batch: nothing lost, nothing twice.

use crate::{records, run, temp_dir};
use ream_batch::{BatchError, BatchOptions, NoProgress, run_batch};
use std::collections::HashSet;

#[test]
fn resume_after_a_cut_report_completes_it() {
    let dir = temp_dir("resume");
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    for i in 0..30 {
        std::fs::write(d.join(format!("{i:02}.csv")), format!("k,v\nkey{i},{i}\n")).unwrap();
    }
    let report = dir.join("r.jsonl");
    run(
        std::slice::from_ref(&d),
        BatchOptions::new().jobs(2),
        &report,
    );
    let full = std::fs::read_to_string(&report).unwrap();
    assert_eq!(full.lines().count(), 30);

    // Keep 10 whole lines and half of the 11th, as a killed run could.
    let mut cut: String = full.lines().take(10).map(|l| format!("{l}\n")).collect();
    let eleventh = full.lines().nth(10).unwrap();
    cut.push_str(&eleventh[..eleventh.len() / 2]);
    std::fs::write(&report, &cut).unwrap();

    let s = run(
        std::slice::from_ref(&d),
        BatchOptions::new().jobs(2).resume(true),
        &report,
    );
    assert_eq!(s.resumed, 10);
    assert_eq!(s.total().files, 20);
    let recs = records(&report);
    assert_eq!(recs.len(), 30);
    let paths: HashSet<&str> = recs.iter().map(|r| r["path"].as_str().unwrap()).collect();
    assert_eq!(paths.len(), 30);

    // Nothing left to do: a second resume adds nothing.
    let s = run(
        std::slice::from_ref(&d),
        BatchOptions::new().resume(true),
        &report,
    );
    assert_eq!((s.resumed, s.total().files), (30, 0));
    assert_eq!(records(&report).len(), 30);

    // A changed file (new size) is read again; its record is replaced.
    std::fs::write(d.join("00.csv"), "k,v\nchanged,1\nmore,2\n").unwrap();
    let s = run(&[d], BatchOptions::new().resume(true), &report);
    assert_eq!((s.resumed, s.replaced, s.total().files), (29, 1, 1));
    assert_eq!(records(&report).len(), 30);
}

#[test]
fn resume_refuses_a_corrupt_line() {
    let dir = temp_dir("resume-corrupt");
    std::fs::write(dir.join("a.csv"), "x\n").unwrap();
    let report = dir.join("r.jsonl");
    std::fs::write(&report, "{\"path\":\"x\",\"size\":1,\"mtime\":1}\n{oops}\n").unwrap();
    let opts = BatchOptions::new().report(&report).resume(true);
    let e = run_batch(&[dir.join("a.csv")], &opts, &mut NoProgress).unwrap_err();
    assert!(
        matches!(e, BatchError::CorruptReport { line: 2, .. }),
        "{e}"
    );
}

/// Sets `path`'s modification time `secs` seconds after the epoch.
fn set_mtime(path: &std::path::Path, secs: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
        .unwrap();
}

#[test]
fn resume_reads_a_touched_file_again_and_keeps_one_record() {
    let dir = temp_dir("resume-touched");
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("a.csv"), "k,v\na,1\n").unwrap();
    std::fs::write(d.join("b.csv"), "k,v\nb,1\n").unwrap();
    set_mtime(&d.join("a.csv"), 1_000_000);
    let report = dir.join("r.jsonl");
    run(std::slice::from_ref(&d), BatchOptions::new(), &report);
    let first = records(&report);
    // Same bytes, new mtime only.
    set_mtime(&d.join("a.csv"), 2_000_000);
    let s = run(&[d], BatchOptions::new().resume(true), &report);
    assert_eq!((s.resumed, s.replaced, s.total().files), (1, 1, 1));
    let recs = records(&report);
    assert_eq!(recs.len(), 2, "the old record of a.csv is gone");
    let a: Vec<_> = recs
        .iter()
        .filter(|r| r["path"].as_str().unwrap().ends_with("a.csv"))
        .collect();
    assert_eq!(a.len(), 1);
    assert_eq!(a[0]["mtime"], 2_000_000_000_000_000i64);
    // The untouched file's record is kept as it was, and comes first
    // (the first run may have finished the two files in either order).
    let first_b = first
        .iter()
        .find(|r| r["path"].as_str().unwrap().ends_with("b.csv"))
        .unwrap();
    assert_eq!(&recs[0], first_b);
}

#[test]
fn retry_failed_reads_failures_again() {
    let dir = temp_dir("resume-retry");
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("bad.bin"), b"\x00\x01binary").unwrap();
    std::fs::write(d.join("good.csv"), "k,v\n").unwrap();
    let report = dir.join("r.jsonl");
    run(std::slice::from_ref(&d), BatchOptions::new(), &report);
    // Plain resume: nothing changed, nothing to do.
    let s = run(
        std::slice::from_ref(&d),
        BatchOptions::new().resume(true),
        &report,
    );
    assert_eq!((s.resumed, s.total().files), (2, 0));
    // Retry: the failure only, its record replaced.
    let opts = BatchOptions::new().resume(true).retry_failed(true);
    let s = run(std::slice::from_ref(&d), opts, &report);
    assert_eq!((s.resumed, s.replaced, s.total().files), (1, 1, 1));
    assert_eq!(s.entries[0].name.as_ref(), "bad.bin");
    let recs = records(&report);
    assert_eq!(recs.len(), 2);
    assert!(recs[1]["path"].as_str().unwrap().ends_with("bad.bin"));

    let opts = BatchOptions::new().report(&report).retry_failed(true);
    let e = run_batch(&[d], &opts, &mut NoProgress).unwrap_err();
    assert!(matches!(e, BatchError::Usage(_)), "{e}");
    assert!(e.to_string().contains("needs resume"), "{e}");
}
