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

    // A changed file (new size) is read again.
    std::fs::write(d.join("00.csv"), "k,v\nchanged,1\nmore,2\n").unwrap();
    let s = run(&[d], BatchOptions::new().resume(true), &report);
    assert_eq!((s.resumed, s.total().files), (29, 1));
    assert_eq!(records(&report).len(), 31);
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
