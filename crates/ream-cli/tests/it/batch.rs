//! `ream batch`: a corpus subset under isolation, injected crashes, hangs
//! and memory blow-ups, a killed run resumed.

#![allow(clippy::panic)]

use super::{BIN, temp_dir};
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn batch(args: &[&str], cwd: &Path, test_engines: bool) -> Output {
    let mut c = Command::new(BIN);
    c.arg("batch").args(args).current_dir(cwd);
    if test_engines {
        c.env("REAM_BATCH_TEST_ENGINES", "1");
    } else {
        c.env_remove("REAM_BATCH_TEST_ENGINES");
    }
    c.output().unwrap()
}

fn records(report: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(report).unwrap();
    assert!(text.is_empty() || text.ends_with('\n'), "partial last line");
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn by_path<'a>(recs: &'a [Value], name: &str) -> &'a Value {
    recs.iter()
        .find(|r| r["path"].as_str().unwrap().ends_with(name))
        .unwrap_or_else(|| panic!("no record for {name}"))
}

/// Every file under `dir`.
fn list_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            list_files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn corpus() -> Option<PathBuf> {
    let p = match std::env::var_os("REAM_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    p.is_dir().then_some(p)
}

#[test]
fn corpus_subset_isolated_one_record_per_file() {
    let Some(corpus) = corpus() else {
        eprintln!("batch: corpus not found (set REAM_CORPUS); skipped");
        return;
    };
    // 40 files of every kind: the first few of each folder, by name.
    let mut files = Vec::new();
    for (dir, n) in [
        ("xlsx", 10),
        ("xls", 5),
        ("xlsb", 3),
        ("ods", 5),
        ("pdf", 12),
        ("written", 5),
    ] {
        let mut names = Vec::new();
        list_files(&corpus.join(dir), &mut names);
        names.sort();
        names.retain(|p| p.extension().is_none_or(|e| e != "tsv"));
        files.extend(names.into_iter().take(n));
    }
    assert_eq!(files.len(), 40);
    let dir = temp_dir("batch-corpus");
    let list: String = files.iter().map(|p| format!("{}\n", p.display())).collect();
    std::fs::write(dir.join("list.txt"), list).unwrap();
    let o = batch(
        &[
            "@list.txt",
            "--jobs",
            "2",
            "--isolate",
            "--report",
            "r.jsonl",
            "--stats",
        ],
        &dir,
        false,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(matches!(o.status.code(), Some(0 | 3)), "{err}");
    let recs = records(&dir.join("r.jsonl"));
    assert_eq!(recs.len(), 40, "{err}");
    let paths: HashSet<&str> = recs.iter().map(|r| r["path"].as_str().unwrap()).collect();
    assert_eq!(paths.len(), 40);
    for r in &recs {
        let outcome = &r["outcome"];
        assert!(
            outcome == "ok" || outcome.get("error").is_some(),
            "no crash or timeout expected on the corpus: {r}"
        );
    }
    for f in ["xlsx", "xls", "pdf", "total", "utilisation"] {
        assert!(err.contains(f), "{err}");
    }
    let pdfs = recs.iter().filter(|r| r["format"] == "pdf").count();
    assert!(pdfs >= 12, "{pdfs}");
}

#[test]
fn abort_hang_and_memory_blow_up_are_outcomes() {
    let dir = temp_dir("batch-inject");
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("abort.bin"), b"REAM-TEST-ABORT").unwrap();
    std::fs::write(d.join("hang.bin"), b"REAM-TEST-HANG").unwrap();
    std::fs::write(d.join("oom.bin"), b"REAM-TEST-OOM").unwrap();
    for i in 0..6 {
        std::fs::write(d.join(format!("ok{i}.csv")), format!("a,b\n{i},2\n")).unwrap();
    }
    let t0 = Instant::now();
    let o = batch(
        &[
            "in",
            "--jobs",
            "2",
            "--timeout",
            "2",
            "--max-mem",
            "256",
            "--report",
            "r.jsonl",
        ],
        &dir,
        true,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "failures give exit 3: {err}");
    assert!(t0.elapsed() < Duration::from_secs(30));
    let recs = records(&dir.join("r.jsonl"));
    assert_eq!(recs.len(), 9, "{err}");
    let abort = by_path(&recs, "abort.bin");
    assert_eq!(abort["outcome"]["crashed"], "signal 6", "{abort}");
    assert_eq!(abort["format"], "test");
    assert!(
        abort["outcome"]["message"]
            .as_str()
            .unwrap()
            .contains("SIGABRT")
    );
    let hang = by_path(&recs, "hang.bin");
    assert_eq!(hang["outcome"], "timeout", "{hang}");
    assert!(hang["elapsed_ms"].as_f64().unwrap() >= 2000.0);
    let oom = by_path(&recs, "oom.bin");
    assert_eq!(oom["outcome"]["error"], "out_of_memory", "{oom}");
    assert!(
        oom["outcome"]["message"]
            .as_str()
            .unwrap()
            .contains("256 MiB"),
        "{oom}"
    );
    for i in 0..6 {
        assert_eq!(by_path(&recs, &format!("ok{i}.csv"))["outcome"], "ok");
    }
    assert!(err.contains("test") && err.contains("total"), "{err}");

    // Without the environment variable the same files are only text.
    let o = batch(&["in", "--isolate", "--report", "r2.jsonl"], &dir, false);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        records(&dir.join("r2.jsonl"))
            .iter()
            .all(|r| r["outcome"] == "ok")
    );
}

#[test]
fn killed_batch_resumes_without_loss_or_duplicates() {
    let dir = temp_dir("batch-kill");
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    for i in 0..60 {
        std::fs::write(
            d.join(format!("{i:02}.bin")),
            format!("REAM-TEST-SLEEP 40 {i}"),
        )
        .unwrap();
    }
    let report = dir.join("r.jsonl");
    let mut child = Command::new(BIN)
        .args(["batch", "in", "--jobs", "2", "--report", "r.jsonl", "-q"])
        .env("REAM_BATCH_TEST_ENGINES", "1")
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    loop {
        let n = std::fs::read_to_string(&report).map_or(0, |t| t.lines().count());
        if n >= 10 || t0.elapsed() > Duration::from_secs(60) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let first = std::fs::read_to_string(&report).unwrap();
    let done = first.lines().count();
    assert!((10..60).contains(&done), "killed midway: {done}");

    let o = batch(
        &["in", "--jobs", "2", "--report", "r.jsonl", "--resume"],
        &dir,
        true,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("skipped"), "{err}");
    let recs = records(&report);
    assert_eq!(recs.len(), 60);
    let paths: HashSet<&str> = recs.iter().map(|r| r["path"].as_str().unwrap()).collect();
    assert_eq!(paths.len(), 60, "no duplicate, none lost");
    // What the first run wrote is untouched.
    let whole: String = first.lines().map(|l| format!("{l}\n")).collect();
    assert!(
        std::fs::read_to_string(&report)
            .unwrap()
            .starts_with(&whole)
    );
}

#[test]
fn records_go_to_stdout_and_usage_errors_exit_2() {
    let dir = temp_dir("batch-usage");
    std::fs::write(dir.join("a.csv"), "x,y\n1,2\n").unwrap();
    let o = batch(&["a.csv", "-q"], &dir, false);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stderr.is_empty());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["path"], "a.csv");
    assert_eq!(v["summary"]["columns"], 2);
    for args in [
        &[][..],
        &["a.csv", "--resume"],
        &["a.csv", "--timeout", "x"],
    ] {
        let o = batch(args, &dir, false);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
    let o = batch(&["a.csv", "--include", "[", "-q"], &dir, false);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("include glob"));
    let o = batch(&["missing.csv", "--report", "r.jsonl"], &dir, false);
    assert_eq!(o.status.code(), Some(3), "a missing input is a warning");
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.csv"));
}
