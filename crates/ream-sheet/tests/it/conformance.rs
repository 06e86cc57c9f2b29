//! Differential conformance against the third-party corpus (`shared/corpus`):
//! every .xlsx/.xlsm is opened by ream and compared cell by cell with what
//! python-calamine and openpyxl saw (the golden JSON). See CONFORMANCE.md.

use ream_sheet::{DateKind, OpenOptions, Value, Workbook};
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A file still being opened after this long counts as a hang.
const HANG: Duration = Duration::from_secs(10);
/// Example mismatches printed, and example files kept per category.
const MAX_EXAMPLES: usize = 30;
const PER_CATEGORY: usize = 3;
const TAGS: [&str; 7] = ["n", "s", "b", "e", "d", "t", "dur"];

/// A cell in the golden vocabulary: type tag (n s b e d t dur), the number
/// compared for n/d/t/dur (value, or seconds), and the text as shown.
#[derive(Debug)]
struct V(&'static str, f64, String);

impl V {
    fn from_ream(v: &Value) -> V {
        match v {
            Value::Number(n) => V("n", *n, format!("{n:?}")),
            Value::String(s) => V("s", 0.0, s.to_string()),
            Value::Bool(b) => V("b", 0.0, if *b { "True" } else { "False" }.into()),
            Value::Error(e) => V("e", 0.0, e.as_str().into()),
            Value::Empty => V("empty", 0.0, String::new()),
            Value::DateTime(d) => {
                let iso = d.to_iso();
                match d.kind {
                    DateKind::DateTime => V("d", iso_seconds(&iso).unwrap_or(f64::NAN), iso),
                    DateKind::Time => V("t", d.as_seconds(), iso),
                    DateKind::Duration => V("dur", d.as_seconds(), iso),
                }
            }
        }
    }
    fn from_golden(tag: &str, v: &Json) -> V {
        let bool_text = |b: bool| if b { "True" } else { "False" }.to_string();
        let text = v.as_str().map(String::from);
        let text = text.unwrap_or_else(|| bool_text(v == true));
        let num = match tag {
            "d" => iso_seconds(&text),
            "t" => iso_seconds(&format!("1970-01-01T{text}")),
            _ => text.parse().ok(),
        };
        let tag = TAGS.into_iter().find(|t| *t == tag);
        V(tag.unwrap_or("?"), num.unwrap_or(f64::NAN), text)
    }
    /// `lenient`: strings equal after trimming (calamine trims some).
    fn same(&self, o: &V, lenient: bool) -> bool {
        let (a, b) = (self.1, o.1);
        let close = |abs: f64| {
            a.to_bits() == b.to_bits() || (a - b).abs() <= abs.max(1e-12 * a.abs().max(b.abs()))
        };
        match self.0 {
            _ if self.0 != o.0 => false,
            "n" => close(0.0),
            "d" if a.is_nan() || b.is_nan() => self.2 == o.2,
            "d" | "t" | "dur" => close(1e-3),
            "s" if lenient => self.2.trim() == o.2.trim(),
            _ => self.2 == o.2,
        }
    }
}

/// Seconds since 1970-01-01 of `YYYY-MM-DD[THH:MM[:SS[.fff]]]` (`T` or space).
fn iso_seconds(s: &str) -> Option<f64> {
    let (date, time) = s.split_once(['T', ' ']).unwrap_or((s, ""));
    let mut ymd = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, m, d) = (ymd.next()??, ymd.next()??, ymd.next()??);
    let mut secs = 0.0;
    let parts = time.split(':').filter(|p| !p.is_empty());
    for (part, scale) in parts.zip([3600.0, 60.0, 1.0]) {
        secs += part.parse::<f64>().ok()? * scale;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let (era, yoe) = (y.div_euclid(400), y.rem_euclid(400));
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    Some(days as f64 * 86_400.0 + secs)
}

/// One sheet as seen by a reader: name, visibility, non-empty cells.
struct SheetDump(String, String, BTreeMap<(u32, u32), V>);

enum Outcome {
    Opened(Vec<SheetDump>),
    /// Error kind, full message, whether the message is non-empty.
    Rejected(String, String, bool),
    Panicked(String),
    Hang,
}

fn ream_sheets(wb: &Workbook) -> Vec<SheetDump> {
    let mut out = Vec::new();
    for s in wb.sheets() {
        // The golden dumps never hold "": an empty string is an empty cell.
        // A formula cell without a cached value is an empty cell to them.
        let cells = s
            .cells()
            .filter(|c| c.value != Value::String("") && c.value != Value::Empty);
        let cells = cells.map(|c| ((c.row, c.col), V::from_ream(&c.value)));
        let (name, vis) = (s.name().into(), s.visibility().as_str().into());
        out.push(SheetDump(name, vis, cells.collect()));
    }
    out
}

fn golden_sheets(reader: &Json) -> Vec<SheetDump> {
    let mut out = Vec::new();
    for s in reader["sheets"].as_array().into_iter().flatten() {
        let text = |v: &Json| v.as_str().unwrap_or_default().to_string();
        let mut cells = BTreeMap::new();
        for c in s["cells"].as_array().into_iter().flatten() {
            let rc = |i: usize| c[i].as_u64().unwrap_or(u64::MAX) as u32;
            cells.insert((rc(0), rc(1)), V::from_golden(&text(&c[2]), &c[3]));
        }
        out.push(SheetDump(text(&s["name"]), text(&s["visible"]), cells));
    }
    out
}

/// Opens `path` on its own thread, catching panics and giving up after [`HANG`].
fn run_ream(path: &Path) -> (Outcome, Duration) {
    let (tx, rx) = std::sync::mpsc::channel();
    let (p, start) = (path.to_path_buf(), Instant::now());
    std::thread::spawn(move || {
        let res = std::panic::catch_unwind(|| match Workbook::open(&p, &OpenOptions::new()) {
            Ok(wb) => Outcome::Opened(ream_sheets(&wb)),
            Err(e) => {
                let clear = !e.message().trim().is_empty();
                Outcome::Rejected(e.kind().as_str().into(), e.to_string(), clear)
            }
        });
        let out = res.unwrap_or_else(|p| {
            let msg = p.downcast_ref::<&str>().map(|s| s.to_string());
            let msg = msg.or(p.downcast_ref::<String>().cloned());
            Outcome::Panicked(msg.unwrap_or_default())
        });
        let _ = tx.send(out);
    });
    let out = rx.recv_timeout(HANG).unwrap_or(Outcome::Hang);
    (out, start.elapsed())
}

/// One difference: category, place, golden, ream.
struct Mismatch(String, String, String, String);

fn type_category(g: &V, r: &V) -> String {
    let date = |v: &V| matches!(v.0, "d" | "t" | "dur");
    let kind = if (g.0 == "n" && date(r)) || (date(g) && r.0 == "n") {
        "date-detection"
    } else if date(g) && date(r) {
        "date-kind"
    } else {
        "type"
    };
    format!("{kind}: golden {}, ream {}", g.0, r.0)
}

/// Differences of ream from one reference. `lenient` forgives calamine's
/// blind spots: trimmed strings and hidden error cells.
fn compare(golden: &[SheetDump], ream: &[SheetDump], lenient: bool) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let names = |s: &[SheetDump]| format!("{:?}", s.iter().map(|x| &x.0).collect::<Vec<_>>());
    let (gn, rn) = (names(golden), names(ream));
    if gn != rn {
        out.push(Mismatch("sheet-names".into(), "workbook".into(), gn, rn));
    }
    for SheetDump(name, visible, cells) in golden {
        let Some(SheetDump(_, r_visible, r_cells)) = ream.iter().find(|r| r.0 == *name) else {
            continue;
        };
        // xlrd's dumps give no visibility ("").
        if !visible.is_empty() && !visible.eq_ignore_ascii_case(r_visible) {
            let (a, b) = (visible.clone(), r_visible.clone());
            out.push(Mismatch("sheet-visibility".into(), name.clone(), a, b));
        }
        for &(row, col) in cells.keys().chain(r_cells.keys()).collect::<BTreeSet<_>>() {
            let (gv, rv) = (cells.get(&(row, col)), r_cells.get(&(row, col)));
            let cat = match (gv, rv) {
                (Some(g), None) => format!("missing-cell: {}", g.0),
                (None, Some(r)) if lenient && r.0 == "e" => continue,
                (None, Some(r)) => format!("extra-cell: {}", r.0),
                (Some(g), Some(r)) if g.0 != r.0 => type_category(g, r),
                (Some(g), Some(r)) if !g.same(r, lenient) => format!("value: {}", g.0),
                _ => continue,
            };
            let at = format!("{name}!{}", ream_sheet::cell_name(row, col));
            let show = |v: Option<&V>| v.map_or("-".into(), |v| format!("{} {:?}", v.0, v.2));
            out.push(Mismatch(cat, at, show(gv), show(rv)));
        }
    }
    out
}

#[derive(Default)]
struct Stats {
    files: usize,
    opened: usize,
    ref_agreed: usize,
    agree: usize,
    errors: usize,
    other: usize,
    other_agree: usize,
    both_reject: usize,
    /// Category -> files showing it.
    categories: BTreeMap<String, usize>,
}

impl Stats {
    fn record(&mut self, opened: bool, agreed: bool, has_ref: bool, mism: &[Mismatch]) {
        let ok = usize::from(mism.is_empty());
        self.files += 1;
        self.opened += usize::from(opened);
        self.errors += usize::from(!opened);
        if agreed {
            self.ref_agreed += 1;
            self.agree += ok;
        } else if has_ref {
            self.other += 1;
            self.other_agree += ok;
        } else {
            self.both_reject += 1;
        }
        for c in mism.iter().map(|m| &m.0).collect::<BTreeSet<_>>() {
            *self.categories.entry(c.clone()).or_default() += 1;
        }
    }
    fn pct(&self) -> f64 {
        match self.ref_agreed {
            0 => 100.0,
            n => 100.0 * self.agree as f64 / n as f64,
        }
    }
    fn top_categories(&self) -> Vec<(&String, &usize)> {
        let mut cats: Vec<_> = self.categories.iter().collect();
        cats.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        cats
    }
    fn row(&self, label: &str) -> String {
        let top = self.top_categories();
        let cats = top.iter().take(4).map(|(c, n)| format!("{c} ({n})"));
        let (s, pct, cats) = (self, self.pct(), cats.collect::<Vec<_>>().join("; "));
        let cols = [s.files, s.opened, s.ref_agreed, s.agree].map(|n| n.to_string());
        let cols = cols.join(" | ");
        let (e, oa, o, br) = (s.errors, s.other_agree, s.other, s.both_reject);
        format!("| {label} | {cols} | {pct:.1} | {e} | {oa}/{o} | {br} | {cats} |")
    }
}

fn collect_files(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_files(&p, exts, out);
        } else if p
            .extension()
            .is_some_and(|x| exts.iter().any(|e| x.eq_ignore_ascii_case(e)))
        {
            out.push(p);
        }
    }
}

/// Source label of a corpus file: SOURCES.tsv's `source`, or `written:<writer dir>`.
fn source_of(sources_tsv: &str, rel: &str) -> String {
    if let Some(w) = rel.strip_prefix("written/") {
        return format!("written:{}", w.split('/').next().unwrap_or_default());
    }
    let mut rows = sources_tsv
        .lines()
        .map(|l| l.split('\t').collect::<Vec<_>>());
    let row = rows.find(|f| f.first() == Some(&rel)).unwrap_or_default();
    row.get(3).unwrap_or(&"unknown").to_string()
}

/// Category -> (mismatching cells, example (file, line)s).
type Examples = BTreeMap<String, (usize, Vec<(String, String)>)>;

#[test]
fn corpus_conformance() {
    conformance(&["xlsx", "xlsm"], "xlsx", "openpyxl", 99.0);
}

/// Every .xls against xlrd (the second reader for XLS) and calamine.
#[test]
fn xls_corpus_conformance() {
    conformance(&["xls"], "xls", "xlrd", 99.0);
}

/// Every .xlsb against calamine, the only reader of XLSB among the golden
/// readers (so calamine is also passed as the second reader).
#[test]
fn xlsb_corpus_conformance() {
    conformance(&["xlsb"], "xlsb", "calamine", 99.0);
}

/// Opens every corpus file ending in one of `exts` (under `dir` and
/// `written/`) and compares it with the golden readers: `second` is right
/// where it and calamine disagree. Fails on a panic or hang, or when a
/// source agrees on less than `target` % of its files.
fn conformance(exts: &[&str], dir: &str, second: &str, target: f64) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let corpus = std::env::var_os("REAM_CORPUS").map(PathBuf::from);
    let corpus = corpus.unwrap_or_else(|| root.join("../shared/corpus"));
    let shown = corpus.display();
    if !corpus.join("golden").is_dir() {
        println!("conformance: no corpus at {shown} (set REAM_CORPUS); skipped");
        return;
    }
    let sources = std::fs::read_to_string(corpus.join("SOURCES.tsv")).unwrap_or_default();
    let mut files = Vec::new();
    collect_files(&corpus.join(dir), exts, &mut files);
    collect_files(&corpus.join("written"), exts, &mut files);
    files.sort();
    assert!(!files.is_empty(), "no {exts:?} files under {shown}");

    let (mut stats, mut total) = (BTreeMap::<String, Stats>::new(), Stats::default());
    let mut examples = Examples::new();
    let (mut hard, mut slowest) = (Vec::new(), (Duration::ZERO, String::new()));
    let started = Instant::now();
    for path in &files {
        let rel = path.strip_prefix(&corpus).unwrap().to_string_lossy();
        let rel = rel.replace('\\', "/");
        let text = std::fs::read_to_string(corpus.join(format!("golden/{rel}.json")));
        let golden: Json = serde_json::from_str(&text.unwrap_or_default()).unwrap_or_default();
        let [cal, opx] = ["calamine", second].map(|r| &golden["readers"][r]);
        let (cal_ok, opx_ok) = (cal["ok"] == true, opx["ok"] == true);
        // With one golden reader (`second` is calamine), it agrees with itself.
        let one = second == "calamine";
        let agreed = cal_ok && opx_ok && (one || golden["comparison"]["n_disagreements"] == 0);
        let has_ref = cal_ok || opx_ok;

        let (outcome, took) = run_ream(path);
        if took > slowest.0 {
            slowest = (took, rel.clone());
        }
        let mism = match &outcome {
            Outcome::Panicked(m) => {
                hard.push(format!("PANIC {rel}: {m}"));
                continue;
            }
            Outcome::Hang => {
                hard.push(format!("HANG {rel}: still running after {HANG:?}"));
                continue;
            }
            Outcome::Rejected(kind, msg, _) if has_ref => {
                let cat = format!("ream-error: {kind}");
                vec![Mismatch(cat, "open".into(), "opens".into(), msg.clone())]
            }
            Outcome::Rejected(_, msg, false) => {
                let (cat, at, golden) = ("unclear-error".into(), "open".into(), "a message".into());
                vec![Mismatch(cat, at, golden, msg.clone())]
            }
            Outcome::Opened(ream) if has_ref => {
                // openpyxl is right where the two disagree (README), calamine
                // the fallback when openpyxl failed. Where they disagree, a
                // place counts only when ream matches neither of them.
                let vs = |r: &Json, lenient| compare(&golden_sheets(r), ream, lenient);
                // calamine drops formula error cells: lenient where it is the only reader.
                let mut found = vs(if opx_ok { opx } else { cal }, !opx_ok || one);
                if !agreed && cal_ok && opx_ok && !found.is_empty() {
                    let also: BTreeSet<String> = vs(cal, true).into_iter().map(|m| m.1).collect();
                    found.retain(|m| also.contains(&m.1));
                }
                found
            }
            _ => Vec::new(),
        };
        let opened = matches!(outcome, Outcome::Opened(_));
        let source = source_of(&sources, &rel);
        for st in [stats.entry(source).or_default(), &mut total] {
            st.record(opened, agreed, has_ref, &mism);
        }
        for Mismatch(cat, at, g, r) in &mism {
            let (cells, ex) = examples.entry(cat.clone()).or_default();
            *cells += 1;
            if ex.len() < PER_CATEGORY && ex.iter().all(|(f, _)| *f != rel) {
                let scope = if agreed { "" } else { " [refs disagree]" };
                let line = format!("{rel} {at}: golden {g} | ream {r}{scope}");
                ex.push((rel.clone(), line));
            }
        }
    }
    let below = report(&stats, &total, &examples, target);
    let (n, took, (worst, name)) = (files.len(), started.elapsed(), slowest);
    println!("{n} files in {took:.1?}; slowest {worst:.2?} {name}");
    let hard = hard.join("\n");
    assert!(hard.is_empty(), "ream panicked or hung:\n{hard}");
    assert!(
        below.is_empty(),
        "sources below {target}% agreement: {below}"
    );
}

/// Prints the tables; returns the sources below the 99% target.
fn report(
    stats: &BTreeMap<String, Stats>,
    total: &Stats,
    examples: &Examples,
    target: f64,
) -> String {
    println!(
        "\n| source | files | opened | ref-agreed | ream agrees | % | ream errors \
         | other agree/compared | both-reject | top categories (files) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for (src, s) in stats {
        println!("{}", s.row(src));
    }
    println!("{}", total.row("**all**"));
    let below = stats.iter().filter(|(_, s)| s.pct() < target);
    let below: Vec<String> = below
        .map(|(src, s)| format!("{src} {:.1}%", s.pct()))
        .collect();
    let below = below.join(", ");
    println!("\n{target}% per-source target; below it: {below}");

    let cats = total.top_categories();
    println!("\n| category | files | cells | example files |\n|---|---:|---:|---|");
    for (c, files) in &cats {
        let (cells, ex) = &examples[*c];
        let ex: Vec<&str> = ex.iter().map(|(f, _)| f.as_str()).collect();
        println!("| {c} | {files} | {cells} | {} |", ex.join(", "));
    }
    println!("\nexample mismatches (up to {MAX_EXAMPLES}, spread over categories):");
    let nth = |i| cats.iter().filter_map(move |(c, _)| examples[*c].1.get(i));
    for (_, line) in (0..PER_CATEGORY).flat_map(nth).take(MAX_EXAMPLES) {
        println!("  {line}");
    }
    below
}
