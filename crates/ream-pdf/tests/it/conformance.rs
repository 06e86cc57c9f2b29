//! Conformance over the third-party corpus (`REAM_CORPUS`, else
//! `<workspace>/../shared/corpus`): every PDF through every byte source,
//! compared with the golden page counts, versions and Info of qpdf,
//! pikepdf and pypdf. Skips with a message when the corpus is absent.

use ream_pdf::{ErrorKind, InfoValue, Pdf, PdfOptions, SourceKind};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(2);
const READERS: [&str; 3] = ["qpdf", "pikepdf", "pypdf"];

fn corpus() -> Option<PathBuf> {
    let p = match std::env::var_os("REAM_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    p.join("pdf").is_dir().then_some(p)
}

/// What ream saw in one file through one source.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    error: Option<(ErrorKind, String)>,
    version: String,
    trusted: Option<u64>,
    walked: Option<u64>,
    info: Option<Vec<(String, InfoValue)>>,
    warnings: usize,
}

fn read(path: &Path, kind: SourceKind) -> Seen {
    let opts = PdfOptions::new()
        .source(kind)
        .window_size(64 << 10)
        .buffer_size(16 << 10);
    let mut s = Seen {
        error: None,
        version: String::new(),
        trusted: None,
        walked: None,
        info: None,
        warnings: 0,
    };
    let pdf = match Pdf::open(path, &opts) {
        Ok(p) => p,
        Err(e) => {
            s.error = Some((e.kind(), e.to_string()));
            return s;
        }
    };
    s.version = pdf.version().to_string();
    s.walked = pdf.pages().ok().map(|p| p.len() as u64);
    s.trusted = pdf.page_count().ok();
    s.info = pdf.info().ok();
    s.warnings = pdf.warnings().len();
    s
}

enum Outcome {
    Done(Box<Seen>, Duration),
    Panicked,
    TimedOut,
}

fn run_with_deadline(path: &Path, kind: SourceKind) -> Outcome {
    let (tx, rx) = mpsc::channel();
    let p = path.to_path_buf();
    let t0 = Instant::now();
    std::thread::spawn(move || {
        let r = std::panic::catch_unwind(|| read(&p, kind));
        let _ = tx.send(r);
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(Ok(s)) => Outcome::Done(Box::new(s), t0.elapsed()),
        Ok(Err(_)) => Outcome::Panicked,
        Err(_) => Outcome::TimedOut,
    }
}

/// The golden info value as text (names as `/Name`), `None` for values
/// not compared (arrays, numbers).
fn golden_value(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn ours_value(v: &InfoValue) -> Option<String> {
    match v {
        InfoValue::Text(s) => Some(s.clone()),
        InfoValue::Name(n) => Some(format!("/{n}")),
        InfoValue::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The Info the references agree on (`None`: they disagree or none opened).
fn agreed_info(g: &Value) -> Option<BTreeMap<String, Option<String>>> {
    let mut agreed: Option<BTreeMap<String, Option<String>>> = None;
    for r in READERS {
        let rd = &g["readers"][r];
        if rd["ok"] != Value::Bool(true) {
            continue;
        }
        let m: BTreeMap<String, Option<String>> = match &rd["info"] {
            Value::Object(o) => o
                .iter()
                .map(|(k, v)| (k.trim_start_matches('/').to_string(), golden_value(v)))
                .collect(),
            _ => BTreeMap::new(),
        };
        match &agreed {
            None => agreed = Some(m),
            Some(a) if *a == m => {}
            Some(_) => return None,
        }
    }
    agreed
}

fn info_matches(golden: &BTreeMap<String, Option<String>>, ours: &[(String, InfoValue)]) -> bool {
    let ours: BTreeMap<&str, Option<String>> = ours
        .iter()
        .map(|(k, v)| (k.as_str(), ours_value(v)))
        .collect();
    if golden.len() != ours.len() {
        return false;
    }
    golden.iter().all(|(k, v)| match (v, ours.get(k.as_str())) {
        (None, Some(_)) => true,
        (Some(g), Some(Some(o))) => g == o,
        _ => false,
    })
}

/// The page count the references agree on.
fn agreed_pages(g: &Value) -> Option<u64> {
    let vals: Vec<u64> = READERS
        .iter()
        .filter(|r| g["readers"][**r]["ok"] == Value::Bool(true))
        .filter_map(|r| g["readers"][*r]["npages"].as_u64())
        .collect();
    let first = *vals.first()?;
    vals.iter().all(|v| *v == first).then_some(first)
}

fn agreed_version(g: &Value) -> Option<String> {
    let vals: Vec<&str> = READERS
        .iter()
        .filter(|r| g["readers"][**r]["ok"] == Value::Bool(true))
        .filter_map(|r| g["readers"][*r]["version"].as_str())
        .collect();
    let first = *vals.first()?;
    vals.iter().all(|v| *v == first).then(|| first.to_string())
}

fn encrypted_golden(g: &Value) -> bool {
    READERS
        .iter()
        .any(|r| g["readers"][*r]["encrypted"] == Value::Bool(true))
        || READERS.iter().any(|r| {
            g["readers"][*r]["error"]
                .as_str()
                .is_some_and(|e| e.contains("Password") || e.contains("decrypt"))
                || g["readers"][*r]["stderr"]
                    .as_str()
                    .is_some_and(|e| e.contains("password"))
        })
}

#[derive(Default, Debug, Clone)]
struct Row {
    files: usize,
    opened: usize,
    encrypted: usize,
    decrypted: usize,
    all_reject: usize,
    errors: usize,
    pages_ref: usize,
    pages_ok: usize,
    trusted_ok: usize,
    info_ref: usize,
    info_ok: usize,
    version_ref: usize,
    version_ok: usize,
    warned: usize,
}

fn sources(corpus: &Path) -> HashMap<String, String> {
    let mut m = HashMap::new();
    if let Ok(t) = std::fs::read_to_string(corpus.join("SOURCES.tsv")) {
        for line in t.lines().skip(1) {
            let f: Vec<&str> = line.split('\t').collect();
            if let (Some(file), Some(src)) = (f.first(), f.get(3)) {
                m.insert(file.to_string(), src.to_string());
            }
        }
    }
    m
}

#[test]
fn conformance() {
    let Some(corpus) = corpus() else {
        eprintln!("conformance: corpus not found (set REAM_CORPUS); skipped");
        return;
    };
    let srcmap = sources(&corpus);
    let mut files: Vec<String> = Vec::new();
    for dir in ["pdf", "written/pdf"] {
        if let Ok(rd) = std::fs::read_dir(corpus.join(dir)) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.ends_with(".pdf") {
                    files.push(format!("{dir}/{name}"));
                }
            }
        }
    }
    files.sort();
    let only = std::env::var("REAM_PDF_ONLY").ok();
    let mut table: BTreeMap<(String, String), Row> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut mismatches: Vec<String> = Vec::new();
    let mut slowest = (Duration::ZERO, String::new());
    for f in &files {
        if only.as_deref().is_some_and(|o| !f.contains(o)) {
            continue;
        }
        let Ok(gtext) = std::fs::read_to_string(corpus.join("golden").join(format!("{f}.json")))
        else {
            continue;
        };
        let g: Value = serde_json::from_str(&gtext).unwrap();
        let source = if f.starts_with("written/") {
            "written".to_string()
        } else {
            srcmap.get(f).cloned().unwrap_or_else(|| "?".into())
        };
        let mut first: Option<Seen> = None;
        for kind in SourceKind::ALL {
            let seen = match run_with_deadline(&corpus.join(f), kind) {
                Outcome::Done(s, t) => {
                    if t > slowest.0 {
                        slowest = (t, f.clone());
                    }
                    *s
                }
                Outcome::Panicked => {
                    failures.push(format!("{f} [{kind}]: panic"));
                    continue;
                }
                Outcome::TimedOut => {
                    failures.push(format!("{f} [{kind}]: over {DEADLINE:?}"));
                    continue;
                }
            };
            match &first {
                None => first = Some(seen.clone()),
                Some(a) if *a != seen => {
                    failures.push(format!("{f}: {kind} differs from mmap: {seen:?} vs {a:?}"))
                }
                _ => {}
            }
            let row = table.entry((source.clone(), kind.to_string())).or_default();
            row.files += 1;
            let refs_ok = READERS
                .iter()
                .any(|r| g["readers"][*r]["ok"] == Value::Bool(true));
            let enc = encrypted_golden(&g)
                || seen
                    .error
                    .as_ref()
                    .is_some_and(|e| e.0 == ErrorKind::Encrypted);
            if seen.warnings > 0 {
                row.warned += 1;
            }
            if enc {
                row.encrypted += 1;
                if let Some((k, _)) = &seen.error
                    && *k != ErrorKind::Encrypted
                    && kind == SourceKind::Mmap
                {
                    mismatches.push(format!("{f}: encrypted, but ream says {k}"));
                }
                if seen.error.is_some() {
                    continue;
                }
                // Decrypted with the empty password: compared like the rest.
                row.decrypted += 1;
            }
            if !refs_ok {
                row.all_reject += 1;
                if seen.error.is_none() {
                    row.opened += 1;
                }
                continue;
            }
            match &seen.error {
                Some((_, msg)) => {
                    row.errors += 1;
                    if agreed_pages(&g).is_some() {
                        row.pages_ref += 1;
                    }
                    if agreed_info(&g).is_some() {
                        row.info_ref += 1;
                    }
                    if kind == SourceKind::Mmap {
                        mismatches.push(format!("{f}: ream error: {msg}"));
                    }
                    continue;
                }
                None => row.opened += 1,
            }
            if let Some(n) = agreed_pages(&g) {
                row.pages_ref += 1;
                if seen.walked == Some(n) {
                    row.pages_ok += 1;
                } else if kind == SourceKind::Mmap {
                    mismatches.push(format!(
                        "{f}: pages {:?} (trusted {:?}), references {n}",
                        seen.walked, seen.trusted
                    ));
                }
                if seen.trusted == Some(n) {
                    row.trusted_ok += 1;
                }
            }
            if let Some(v) = agreed_version(&g) {
                row.version_ref += 1;
                if seen.version == v {
                    row.version_ok += 1;
                } else if kind == SourceKind::Mmap {
                    mismatches.push(format!("{f}: version {:?}, references {v:?}", seen.version));
                }
            }
            if let Some(info) = agreed_info(&g) {
                row.info_ref += 1;
                if seen.info.as_ref().is_some_and(|o| info_matches(&info, o)) {
                    row.info_ok += 1;
                } else if kind == SourceKind::Mmap {
                    mismatches.push(format!("{f}: info {:?}, references {info:?}", seen.info));
                }
            }
        }
    }
    let pct = |a: usize, b: usize| {
        if b == 0 {
            100.0
        } else {
            a as f64 * 100.0 / b as f64
        }
    };
    println!(
        "\n| source | via | files | opened | pages agree | % | /Count agree | info agree | % | version agree | encrypted | decrypted | ream errors | all reject | warned |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut below = Vec::new();
    for ((src, kind), r) in &table {
        let (pp, ip) = (pct(r.pages_ok, r.pages_ref), pct(r.info_ok, r.info_ref));
        println!(
            "| {src} | {kind} | {} | {} | {}/{} | {pp:.1} | {}/{} | {}/{} | {ip:.1} | {}/{} | {} | {} | {} | {} | {} |",
            r.files,
            r.opened,
            r.pages_ok,
            r.pages_ref,
            r.trusted_ok,
            r.pages_ref,
            r.info_ok,
            r.info_ref,
            r.version_ok,
            r.version_ref,
            r.encrypted,
            r.decrypted,
            r.errors,
            r.all_reject,
            r.warned
        );
        if pp < 99.0 || ip < 99.0 {
            below.push(format!("{src}/{kind}"));
        }
    }
    println!("slowest file: {} ({:?})", slowest.1, slowest.0);
    for m in &mismatches {
        println!("mismatch: {m}");
    }
    for f in &failures {
        println!("FAILURE: {f}");
    }
    if !below.is_empty() {
        println!("below 99 %: {}", below.join(", "));
    }
    assert!(
        failures.is_empty(),
        "{} files panicked, hung or differed between sources",
        failures.len()
    );
    assert!(
        below.is_empty(),
        "agreement below 99 % for {}",
        below.join(", ")
    );
}
