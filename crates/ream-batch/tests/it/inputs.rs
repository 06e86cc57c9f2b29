//! Walking, list files, globs, duplicates, the report left out.

use crate::{records, run, temp_dir};
use ream_batch::{BatchOptions, NoProgress, run_batch};
use std::path::PathBuf;

fn tree(dir: &std::path::Path) {
    for p in ["a/1.csv", "a/2.txt", "a/tmp/3.csv", "b/4.csv", "b/5.csv"] {
        let p = dir.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "x,y\n").unwrap();
    }
}

fn paths(report: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = records(report)
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn globs_listfiles_and_duplicates() {
    let dir = temp_dir("inputs");
    tree(&dir);
    let report = dir.join("r.jsonl");
    let a = dir.join("a");
    // Include *.csv, exclude the tmp folder; a/1.csv named twice counts once.
    let opts = BatchOptions::new().include("*.csv").exclude("*/tmp");
    run(&[a.clone(), a.join("1.csv")], opts, &report);
    assert_eq!(paths(&report), [format!("{}/1.csv", a.display())]);

    let list = dir.join("list.txt");
    std::fs::write(
        &list,
        format!(
            "# comment\n{}\n\n{}/b/5.csv\r\n",
            a.join("2.txt").display(),
            dir.display()
        ),
    )
    .unwrap();
    let mut arg = std::ffi::OsString::from("@");
    arg.push(&list);
    run(&[PathBuf::from(arg)], BatchOptions::new(), &report);
    assert_eq!(
        paths(&report),
        [
            format!("{}/2.txt", a.display()),
            format!("{}/b/5.csv", dir.display())
        ]
    );
}

#[test]
fn missing_paths_are_warnings_and_the_report_is_left_out() {
    let dir = temp_dir("inputs-missing");
    tree(&dir);
    let report = dir.join("r.jsonl");
    let opts = BatchOptions::new().report(&report);
    let s = run_batch(&[dir.clone(), dir.join("nope.csv")], &opts, &mut NoProgress).unwrap();
    assert_eq!(s.warnings.len(), 1);
    assert!(s.warnings[0].contains("nope.csv"), "{:?}", s.warnings);
    let p = paths(&report);
    assert_eq!(p.len(), 5, "{p:?}");
    assert!(!p.iter().any(|x| x.ends_with("r.jsonl")));
    let missing_list = PathBuf::from(format!("@{}/no-list.txt", dir.display()));
    let e = run_batch(&[missing_list], &opts, &mut NoProgress).unwrap_err();
    assert!(e.to_string().contains("no-list.txt"), "{e}");
}

#[test]
fn globs_without_slash_match_names_with_slash_paths() {
    let dir = temp_dir("inputs-names");
    tree(&dir);
    let report = dir.join("r.jsonl");
    // `3.csv` names a file wherever it is; `tmp` a directory anywhere.
    run(
        std::slice::from_ref(&dir),
        BatchOptions::new().include("3.csv"),
        &report,
    );
    assert_eq!(paths(&report), [format!("{}/a/tmp/3.csv", dir.display())]);
    let opts = BatchOptions::new().include("*.csv").exclude("tmp");
    run(&[dir.join("a")], opts, &report);
    assert_eq!(paths(&report), [format!("{}/a/1.csv", dir.display())]);
    // With `/`, the whole path as given.
    let opts = BatchOptions::new().include(format!("{}/b/*", dir.display()));
    run(std::slice::from_ref(&dir), opts, &report);
    assert_eq!(paths(&report).len(), 2);
    let s = run(
        std::slice::from_ref(&dir),
        BatchOptions::new().include("b/*"),
        &report,
    );
    assert_eq!(
        s.total().files,
        0,
        "`b/*` is a path, and paths here are absolute"
    );
}

#[test]
fn no_matching_file_is_a_warning() {
    let dir = temp_dir("inputs-none");
    tree(&dir);
    let report = dir.join("r.jsonl");
    let s = run(
        std::slice::from_ref(&dir),
        BatchOptions::new().include("*.xlsx"),
        &report,
    );
    assert_eq!(s.total().files, 0);
    assert_eq!(
        s.warnings,
        ["no files matched: all 5 files found were left out by the include/exclude globs"]
    );
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let s = run(&[empty], BatchOptions::new(), &report);
    assert_eq!(
        s.warnings,
        ["no files matched: the inputs hold no file to analyse"]
    );
}
