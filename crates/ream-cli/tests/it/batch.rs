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

/// A one-page PDF; `encrypted` puts `/Encrypt` in the trailer, `bad_xref`
/// points `startxref` nowhere (the reader repairs it, with warnings).
fn small_pdf(encrypted: bool, bad_xref: bool) -> Vec<u8> {
    let objs = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
        "<< /Title (T) >>",
        "<< /Filter /Standard /V 1 /R 2 /P -4 /O <00> /U <00> >>",
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objs.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = if bad_xref { 99_999 } else { out.len() };
    out.extend_from_slice(b"xref\n0 6\n0000000000 65535 f \n");
    for off in offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    let encrypt = if encrypted { " /Encrypt 5 0 R" } else { "" };
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size 6 /Root 1 0 R /Info 4 0 R{encrypt} >>\nstartxref\n{xref}\n%%EOF\n"
        )
        .as_bytes(),
    );
    out
}

/// A password-protected OOXML workbook as the sniffer sees one: a CFB
/// container with an `EncryptedPackage` stream name.
fn encrypted_ooxml() -> Vec<u8> {
    let mut b = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1".to_vec();
    b.resize(512, 0);
    b.extend("EncryptedPackage".encode_utf16().flat_map(u16::to_le_bytes));
    b.resize(1024, 0);
    b
}

/// The records a batch printed on standard output.
fn stdout_records(o: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn encrypted_pdf_record_says_encrypted() {
    let dir = temp_dir("batch-encrypted");
    std::fs::write(dir.join("locked.pdf"), small_pdf(true, false)).unwrap();
    std::fs::write(dir.join("locked.xlsx"), encrypted_ooxml()).unwrap();
    let o = batch(&["locked.pdf", "locked.xlsx", "-q"], &dir, false);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("2 of 2 files failed"), "{err}");
    let recs = stdout_records(&o);
    let pdf = by_path(&recs, "locked.pdf");
    let xlsx = by_path(&recs, "locked.xlsx");
    assert_eq!(pdf["outcome"]["error"], "encrypted", "{pdf}");
    assert_eq!(xlsx["outcome"]["error"], "encrypted", "{xlsx}");
    assert!(
        pdf["outcome"]["message"]
            .as_str()
            .unwrap()
            .contains("encrypted")
    );
    assert_eq!(pdf["summary"]["encrypted"], true);
    assert_eq!(pdf["summary"]["pages"], 1);
}

#[test]
fn records_carry_warning_texts() {
    let dir = temp_dir("batch-warnings");
    std::fs::write(dir.join("repaired.pdf"), small_pdf(false, true)).unwrap();
    std::fs::write(dir.join("clean.pdf"), small_pdf(false, false)).unwrap();
    let o = batch(&["repaired.pdf", "clean.pdf", "-q"], &dir, false);
    assert_eq!(o.status.code(), Some(0));
    let recs = stdout_records(&o);
    let r = by_path(&recs, "repaired.pdf");
    assert_eq!(r["outcome"], "ok", "{r}");
    let texts = r["warnings"].as_array().unwrap();
    assert!(!texts.is_empty(), "{r}");
    assert_eq!(r["warning_count"].as_u64(), Some(texts.len() as u64));
    assert!(
        texts.iter().all(|t| {
            t.as_str()
                .is_some_and(|t| !t.is_empty() && !t.contains('\n'))
        }),
        "{r}"
    );
    assert!(
        r["summary"].get("warnings").is_none(),
        "the count is not repeated"
    );
    let c = by_path(&recs, "clean.pdf");
    assert_eq!(
        (&c["warning_count"], &c["warnings"]),
        (&Value::from(0), &Value::from(Vec::<Value>::new()))
    );
}

#[test]
fn include_matches_names_without_slash_and_paths_with_one() {
    let dir = temp_dir("batch-include");
    for p in ["in/a/x.csv", "in/b/x.csv", "in/b/y.csv", "in/b/skip/z.csv"] {
        let p = dir.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "k,v\n").unwrap();
    }
    let paths = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["in", "-q"];
        all.extend_from_slice(args);
        let o = batch(&all, &dir, false);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let mut v: Vec<String> = stdout_records(&o)
            .iter()
            .map(|r| r["path"].as_str().unwrap().to_string())
            .collect();
        v.sort();
        v
    };
    // No `/`: the file name, in any folder.
    assert_eq!(paths(&["--include", "x.csv"]), ["in/a/x.csv", "in/b/x.csv"]);
    // With `/`: the whole path as given (`*` crosses folders).
    assert_eq!(
        paths(&["--include", "in/b/*"]),
        ["in/b/skip/z.csv", "in/b/x.csv", "in/b/y.csv"]
    );
    assert_eq!(paths(&["--include", "*/a/*.csv"]), ["in/a/x.csv"]);
    // Exclude alike: a directory name, or a path.
    assert_eq!(
        paths(&["--exclude", "skip", "--exclude", "in/a/*"]),
        ["in/b/x.csv", "in/b/y.csv"]
    );
    // `b/*` is a path pattern, and no path as given starts with `b/`.
    let o = batch(&["in", "-q", "--include", "b/*"], &dir, false);
    assert_eq!(o.status.code(), Some(3));
    assert!(o.stdout.is_empty());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(
            "no files matched: all 4 files found were left out by the include/exclude globs"
        ),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn a_run_that_matches_no_file_says_so() {
    let dir = temp_dir("batch-none");
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    for quiet in [false, true] {
        let args: &[&str] = if quiet { &["empty", "-q"] } else { &["empty"] };
        let o = batch(args, &dir, false);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{err}");
        assert!(
            err.contains("ream: warning: no files matched: the inputs hold no file to analyse"),
            "{err}"
        );
        assert!(o.stdout.is_empty());
    }
}

/// Sets `path`'s modification time `secs` seconds after the epoch.
fn set_mtime(path: &Path, secs: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + Duration::from_secs(secs))
        .unwrap();
}

#[test]
fn resume_after_a_change_replaces_the_record() {
    let dir = temp_dir("batch-resume-change");
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    for name in ["grown.csv", "touched.csv", "same.csv"] {
        std::fs::write(d.join(name), "k,v\na,1\n").unwrap();
        set_mtime(&d.join(name), 1_000_000);
    }
    let o = batch(&["in", "--report", "r.jsonl", "-q"], &dir, false);
    assert_eq!(o.status.code(), Some(0));
    let before = records(&dir.join("r.jsonl"));
    assert_eq!(before.len(), 3);
    // New bytes and size; then the same bytes with a new mtime only.
    std::fs::write(d.join("grown.csv"), "k,v\na,1\nb,2\nc,3\n").unwrap();
    set_mtime(&d.join("grown.csv"), 1_000_000);
    set_mtime(&d.join("touched.csv"), 2_000_000);
    let o = batch(&["in", "--report", "r.jsonl", "--resume"], &dir, false);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("1 files skipped"), "{err}");
    assert!(err.contains("2 records replaced"), "{err}");
    let total = err.lines().find(|l| l.starts_with("total")).unwrap();
    assert_eq!(total.split_whitespace().nth(1), Some("2"), "{err}");
    let after = records(&dir.join("r.jsonl"));
    assert_eq!(after.len(), 3, "one record per file");
    assert_eq!(&after[0], by_path(&before, "same.csv"), "kept as it was");
    let grown = by_path(&after, "grown.csv");
    assert_eq!(grown["summary"]["rows"], 4);
    assert_eq!(grown["size"], 16);
    let touched = by_path(&after, "touched.csv");
    assert_eq!(touched["mtime"], 2_000_000_000_000_000i64);
}

#[test]
fn retry_failed_runs_failures_again() {
    let dir = temp_dir("batch-retry");
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("ok.csv"), "k,v\n").unwrap();
    std::fs::write(d.join("flaky.dat"), b"\x00\x01\x02\x03").unwrap();
    set_mtime(&d.join("flaky.dat"), 1_000_000);
    let o = batch(&["in", "--report", "r.jsonl", "-q"], &dir, false);
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 of 2 files failed"));
    // Same size and mtime, now readable: only a retry reads it again.
    std::fs::write(d.join("flaky.dat"), "a,b\n").unwrap();
    set_mtime(&d.join("flaky.dat"), 1_000_000);
    let o = batch(
        &["in", "--report", "r.jsonl", "--resume", "-q"],
        &dir,
        false,
    );
    assert_eq!(o.status.code(), Some(0));
    let recs = records(&dir.join("r.jsonl"));
    assert_eq!(
        by_path(&recs, "flaky.dat")["outcome"]["error"],
        "unsupported"
    );
    let o = batch(
        &["in", "--report", "r.jsonl", "--resume", "--retry-failed"],
        &dir,
        false,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("1 records replaced"), "{err}");
    let recs = records(&dir.join("r.jsonl"));
    assert_eq!(recs.len(), 2);
    assert_eq!(by_path(&recs, "flaky.dat")["outcome"], "ok");
    // --retry-failed needs --resume.
    let o = batch(
        &["in", "--report", "r.jsonl", "--retry-failed"],
        &dir,
        false,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--resume"));
}

#[test]
fn numbers_out_of_range_say_the_range() {
    let dir = temp_dir("batch-ranges");
    std::fs::write(dir.join("a.csv"), "x\n").unwrap();
    for (args, want) in [
        (&["--jobs", "-1"][..], "-1 is not in 0..=4096"),
        (&["-j", "5000"], "5000 is not in 0..=4096"),
        (&["--thread-budget", "-2"], "-2 is not in 0..=4096"),
        (&["--big-file-mb", "0"], "0 is not in 1..=1048576"),
        (&["--timeout", "-1"], "must be 0 seconds or more"),
        (&["--max-mem", "-1"], "must be 0 or more"),
    ] {
        let mut all = vec!["a.csv"];
        all.extend_from_slice(args);
        let o = batch(&all, &dir, false);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("unexpected argument"), "{args:?}: {err}");
    }
}

#[test]
fn malformed_ods_records_say_malformed() {
    let dir = temp_dir("batch-ods-malformed");
    let d = dir.join("in");
    std::fs::create_dir_all(&d).unwrap();
    let content = br#"<office:document-content><office:body><office:spreadsheet><table:table table:name="S"><table:table-row><table:table-cell office:value-type="float" office:value="1">"#;
    let mime: &[u8] = b"application/vnd.oasis.opendocument.spreadsheet";
    let zip = super::ods::stored_zip(&[("mimetype", mime), ("content.xml", content)]);
    std::fs::write(d.join("broken.ods"), &zip).unwrap();
    let cut = 30 + "mimetype".len() + mime.len() + 40;
    std::fs::write(d.join("cut.ods"), &zip[..cut]).unwrap();
    for isolate in [false, true] {
        let mut args = vec!["in", "--report", "r.jsonl"];
        if isolate {
            args.push("--isolate");
        }
        let _ = std::fs::remove_file(dir.join("r.jsonl"));
        let o = batch(&args, &dir, false);
        assert_eq!(
            o.status.code(),
            Some(3),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let recs = records(&dir.join("r.jsonl"));
        for (name, says) in [
            ("broken.ods", "ends"),
            ("cut.ods", "end-of-central-directory"),
        ] {
            let r = by_path(&recs, name);
            assert_eq!(r["format"], "ods", "{r}");
            assert_eq!(r["outcome"]["error"], "malformed", "{r}");
            let msg = r["outcome"]["message"].as_str().unwrap();
            assert!(msg.contains(says), "{r}");
            assert!(!msg.contains("cannot read"), "{r}");
        }
    }
}
