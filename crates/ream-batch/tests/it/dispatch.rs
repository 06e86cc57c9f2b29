//! The dispatcher: slots, collector, budget, failure containment.

use crate::{records, run, temp_dir};
use ream_batch::{
    Analysis, Analyzer, BatchError, BatchOptions, DocFormat, NoProgress, Outcome, Summary,
    TextSummary, run_batch,
};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Sleeps a little per file and tracks how many run at once.
#[derive(Default)]
struct Probe {
    running: AtomicUsize,
    most: AtomicUsize,
    calls: AtomicUsize,
}

impl Analyzer for Probe {
    fn analyze(&self, path: &Path, threads: usize) -> Analysis {
        let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(Duration::from_micros(200 + (n as u64 % 7) * 100));
        self.running.fetch_sub(1, Ordering::SeqCst);
        // A long, quote-heavy delimiter makes any interleaving visible.
        let name = path.file_name().unwrap().to_string_lossy().repeat(50);
        Analysis {
            format: DocFormat::Text,
            outcome: if n.is_multiple_of(5) {
                Outcome::error("malformed", format!("{}: bad \"row\"\n{n}", path.display()))
            } else {
                Outcome::Ok
            },
            summary: Some(Summary::Text(TextSummary {
                rows: threads as u64,
                columns: 1,
                max_columns: 1,
                delimiter: Some(name),
                keys: 0,
                keys_capped: false,
            })),
            warnings: Vec::new(),
            warning_count: 0,
        }
    }
}

fn many_files(dir: &Path, n: usize) -> Vec<PathBuf> {
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    (0..n)
        .map(|i| {
            let p = d.join(format!("f{i:04}.csv"));
            std::fs::write(&p, vec![b'x'; i % 100]).unwrap();
            p
        })
        .collect()
}

#[test]
fn slots_bound_concurrency_and_lines_never_interleave() {
    let dir = temp_dir("slots");
    many_files(&dir, 300);
    let probe = Arc::new(Probe::default());
    let report = dir.join("r.jsonl");
    let opts = BatchOptions::new().jobs(3).analyzer(probe.clone());
    let s = run(&[dir.join("in")], opts, &report);
    assert!(probe.most.load(Ordering::SeqCst) <= 3);
    assert_eq!(probe.calls.load(Ordering::SeqCst), 300);
    let recs = records(&report);
    assert_eq!(recs.len(), 300);
    let paths: HashSet<&str> = recs.iter().map(|r| r["path"].as_str().unwrap()).collect();
    assert_eq!(paths.len(), 300, "no duplicate, none lost");
    for r in &recs {
        assert!(r["elapsed_ms"].as_f64().unwrap() > 0.1, "{r}");
        if let Some(m) = r["outcome"]["message"].as_str() {
            // The path is stripped and the message kept on one line.
            assert!(m.starts_with("bad \"row\" "), "{m}");
        }
    }
    assert_eq!(s.stats.jobs, 300);
    assert_eq!(s.stats.slots, 3);
    assert_eq!(s.stats.gaps.count, 297);
    assert!(s.stats.utilisation > 0.0 && s.stats.utilisation <= 1.0);
    assert!(s.stats.queue_max >= 1);
    let t = s.total();
    assert_eq!((t.files, t.ok, t.errors), (300, 240, 60));
    assert_eq!(s.per_format.len(), 1);
    assert!(s.table().contains("text"));
    assert_eq!(s.entries.len(), 300);
    assert_eq!(s.top_failures(3).len(), 3);
}

#[test]
fn interning_on_the_worker_gives_the_same_records() {
    let dir = temp_dir("intern-mode");
    many_files(&dir, 60);
    let normalise = |r: &serde_json::Value| {
        let mut r = r.clone();
        // Which calls fail depends on the order jobs ran in.
        r["elapsed_ms"] = 0.into();
        r["outcome"] = serde_json::Value::Null;
        r.to_string()
    };
    let mut out = Vec::new();
    for on in [false, true] {
        let report = dir.join(format!("r-{on}.jsonl"));
        let opts = BatchOptions::new()
            .jobs(2)
            .intern_on_worker(on)
            .analyzer(Arc::new(Probe::default()));
        let s = run(&[dir.join("in")], opts, &report);
        assert_eq!(s.stats.jobs, 60);
        assert!(s.distinct_strings > 0);
        let mut v: Vec<String> = records(&report).iter().map(normalise).collect();
        v.sort();
        out.push(v);
    }
    assert_eq!(out[0], out[1]);
}

#[test]
fn big_files_get_threads_from_the_budget() {
    let dir = temp_dir("budget");
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("big.csv"), vec![b'x'; 3000]).unwrap();
    std::fs::write(d.join("small.csv"), vec![b'x'; 10]).unwrap();
    let report = dir.join("r.jsonl");
    let mut opts = BatchOptions::new()
        .jobs(1)
        .thread_budget(8)
        .analyzer(Arc::new(Probe::default()));
    opts.big_file_bytes = 1000;
    run(&[d], opts, &report);
    let recs = records(&report);
    let threads = |name: &str| {
        let r = recs
            .iter()
            .find(|r| r["path"].as_str().unwrap().ends_with(name))
            .unwrap();
        (
            r["threads"].as_u64().unwrap(),
            r["summary"]["rows"].as_u64().unwrap(),
        )
    };
    assert_eq!(threads("big.csv"), (4, 4), "1 + one per 1000 bytes");
    assert_eq!(threads("small.csv"), (1, 1));
}

#[test]
fn test_engines_in_process_panic_and_sleep() {
    let dir = temp_dir("test-engines");
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("panic.bin"), b"REAM-TEST-PANIC").unwrap();
    std::fs::write(d.join("sleep.bin"), b"REAM-TEST-SLEEP 30").unwrap();
    std::fs::write(d.join("oom.bin"), b"REAM-TEST-OOM").unwrap();
    std::fs::write(d.join("ok.csv"), b"a,b\n").unwrap();
    let report = dir.join("r.jsonl");
    run(
        std::slice::from_ref(&d),
        BatchOptions::new().jobs(2).test_engines(true),
        &report,
    );
    let recs = records(&report);
    assert_eq!(recs.len(), 4);
    let get = |name: &str| {
        recs.iter()
            .find(|r| r["path"].as_str().unwrap().ends_with(name))
            .unwrap()
            .clone()
    };
    let p = get("panic.bin");
    assert_eq!(p["outcome"]["crashed"], "panic", "{p}");
    assert!(
        p["outcome"]["message"]
            .as_str()
            .unwrap()
            .contains("on purpose")
    );
    let s = get("sleep.bin");
    assert_eq!(s["outcome"], "ok");
    assert_eq!(s["format"], "test");
    assert!(s["elapsed_ms"].as_f64().unwrap() >= 30.0);
    // Without a memory limit the blow-up refuses to start.
    let o = get("oom.bin");
    assert_eq!(o["outcome"]["error"], "usage", "{o}");
    assert_eq!(get("ok.csv")["outcome"], "ok");

    // Off by default: the same files are plain text.
    run(&[d], BatchOptions::new().jobs(2), &report);
    for r in records(&report) {
        assert_eq!(r["format"], "text", "{r}");
        assert_eq!(r["outcome"], "ok", "{r}");
    }
}

#[test]
fn usage_errors() {
    let dir = temp_dir("usage");
    let err = |opts: BatchOptions| {
        run_batch(std::slice::from_ref(&dir), &opts, &mut NoProgress).unwrap_err()
    };
    let e = err(BatchOptions::new().resume(true));
    assert!(
        matches!(e, BatchError::Usage(_)) && e.to_string().contains("report"),
        "{e}"
    );
    let mut o = BatchOptions::new();
    o.isolate = true;
    let e = err(o);
    assert!(e.to_string().contains("worker command"), "{e}");
    let e = err(BatchOptions::new().include("[").report(dir.join("r.jsonl")));
    assert!(e.to_string().contains("bad include glob"), "{e}");
    let e = err(BatchOptions::new().report(dir.join("missing/dir/r.jsonl")));
    assert!(
        matches!(e, BatchError::Io { .. }) && e.to_string().contains("r.jsonl"),
        "{e}"
    );
}

#[test]
fn empty_input_writes_an_empty_report() {
    let dir = temp_dir("empty");
    std::fs::create_dir_all(dir.join("in")).unwrap();
    let report = dir.join("r.jsonl");
    let s = run(&[dir.join("in")], BatchOptions::new(), &report);
    assert_eq!(s.total().files, 0);
    assert_eq!(s.stats.jobs, 0);
    assert!(records(&report).is_empty());
}
