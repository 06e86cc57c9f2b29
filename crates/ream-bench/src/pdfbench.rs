//! `ream-bench pdf`: ream's PDF reader beside lopdf, pdf-rs, qpdf and
//! mutool on generated files (see `pdfgen`), every run in a fresh child
//! process.
//!
//! `ream-bench pdf [--size small|big] [--runs 5] [--dir bench-data]
//! [--variants xrefstream,classic] [--engines ...] [--json]` generates the
//! two files of the size if missing, then measures per file:
//!
//! * `ream count+info` — `Pdf::open`, `page_count()` (the trusted root
//!   `/Count`) and `info()`, with each byte source (mmap, window, buffered,
//!   pread): wall, peak RSS, the I/O counters and the fraction of the file
//!   touched (bytes mapped or read / file size);
//! * `ream info` — open and `info()` only (mmap);
//! * `ream walk` — open and the verified page-tree walk `pages()`, with each
//!   byte source;
//! * `ream index 1t` / `ream index 2t` — open and `index_objects` (every
//!   object summarized, object streams decoded in parallel) on 1 and 2
//!   threads (mmap);
//! * `lopdf metadata` — `Document::load_metadata` (page count + Info);
//! * `lopdf walk` — `Document::load` + `get_pages()`;
//! * `pdf-rs walk` — `FileOptions::cached().open` + every `pages()` item;
//! * `qpdf count` — `qpdf --show-npages` (trusts `/Count`), if installed;
//! * `mutool walk` — `mutool pages` (loads every page), if installed.
//!
//! External tools run under `/usr/bin/time -f %M` for their peak RSS.
//! `ream-bench pdf measure ...` (hidden) is the child.

use crate::pdfgen::{self, Size, Spec};
use anyhow::{Context, Result, anyhow, bail};
use ream_pdf::{Pdf, PdfOptions, SourceKind};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Arguments of `ream-bench pdf`.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    sub: Option<Sub>,
    /// Folder of the generated files (git-ignored).
    #[arg(long, default_value = "bench-data")]
    dir: PathBuf,
    /// File size: small (~20 MB), medium (~100 MB), large (~320 MB) or
    /// big (~1.5 GB).
    #[arg(long, value_enum, default_value = "small")]
    size: Size,
    /// Timed runs per measurement, after one warm-up run.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Files to run (comma-separated): xrefstream, classic.
    #[arg(long, default_value = "xrefstream,classic")]
    variants: String,
    /// Engines (comma-separated): ream, lopdf, pdf-rs, qpdf, mutool.
    #[arg(long, default_value = "ream,lopdf,pdf-rs,qpdf,mutool")]
    engines: String,
    /// Per-run time limit in seconds.
    #[arg(long, default_value_t = 600)]
    timeout_s: u64,
    /// Print JSON instead of Markdown.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// Only generate the files of a size (skips existing ones).
    Gen {
        /// Folder of the generated files.
        #[arg(long, default_value = "bench-data")]
        dir: PathBuf,
        /// File size.
        #[arg(long, value_enum, default_value = "small")]
        size: Size,
    },
    /// (internal) One measurement in this process; prints one JSON line.
    #[command(hide = true)]
    Measure {
        /// What to run.
        #[arg(long, value_enum)]
        task: Task,
        /// ream's byte source.
        #[arg(long, default_value = "mmap")]
        source: SourceKind,
        /// The PDF.
        #[arg(long)]
        file: PathBuf,
    },
}

/// One engine and task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Task {
    /// ream: open, trusted page count, Info.
    ReamCount,
    /// ream: open, Info.
    ReamInfo,
    /// ream: open, verified page walk.
    ReamWalk,
    /// ream: open, `index_objects(1)`.
    ReamIndex1,
    /// ream: open, `index_objects(2)`.
    ReamIndex2,
    /// lopdf: `Document::load_metadata`.
    LopdfMeta,
    /// lopdf: `Document::load` + `get_pages`.
    LopdfWalk,
    /// pdf-rs: open + every page.
    PdfrsWalk,
    /// qpdf --show-npages.
    QpdfCount,
    /// mutool pages.
    MutoolWalk,
}

impl Task {
    fn engine(self) -> &'static str {
        match self {
            Task::ReamCount
            | Task::ReamInfo
            | Task::ReamWalk
            | Task::ReamIndex1
            | Task::ReamIndex2 => "ream",
            Task::LopdfMeta | Task::LopdfWalk => "lopdf",
            Task::PdfrsWalk => "pdf-rs",
            Task::QpdfCount => "qpdf",
            Task::MutoolWalk => "mutool",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Task::ReamCount => "count+info",
            Task::ReamInfo => "info",
            Task::ReamWalk | Task::PdfrsWalk => "walk",
            Task::ReamIndex1 => "index 1t",
            Task::ReamIndex2 => "index 2t",
            Task::LopdfMeta => "load_metadata (count+info)",
            Task::LopdfWalk => "load+get_pages",
            Task::QpdfCount => "--show-npages",
            Task::MutoolWalk => "pages (walk)",
        }
    }

    fn arg(self) -> &'static str {
        match self {
            Task::ReamCount => "ream-count",
            Task::ReamInfo => "ream-info",
            Task::ReamWalk => "ream-walk",
            Task::ReamIndex1 => "ream-index1",
            Task::ReamIndex2 => "ream-index2",
            Task::LopdfMeta => "lopdf-meta",
            Task::LopdfWalk => "lopdf-walk",
            Task::PdfrsWalk => "pdfrs-walk",
            Task::QpdfCount => "qpdf-count",
            Task::MutoolWalk => "mutool-walk",
        }
    }
}

/// Runs `ream-bench pdf`.
pub fn run(a: &Args) -> Result<()> {
    match &a.sub {
        Some(Sub::Gen { dir, size }) => {
            for spec in Spec::both(*size) {
                let g = pdfgen::generate(dir, &spec, false)?;
                report_gen(&g);
            }
            Ok(())
        }
        Some(Sub::Measure { task, source, file }) => {
            std::process::exit(crate::child::print_result(measure(*task, *source, file)));
        }
        None => suite(a),
    }
}

fn report_gen(g: &pdfgen::Generated) {
    if g.written {
        eprintln!(
            "generated {} ({:.1} MB) in {:.1} s",
            g.path.display(),
            g.bytes as f64 / 1e6,
            g.secs
        );
    }
}

fn tool(name: &str) -> bool {
    Command::new(name)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
        || Command::new(name)
            .arg("-v")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
}

/// One row of the report.
struct Row {
    file: String,
    task: Task,
    source: SourceKind,
    expected_pages: u64,
    file_bytes: u64,
    result: Result<Vec<Value>, String>,
}

fn suite(a: &Args) -> Result<()> {
    let variants: Vec<String> = a
        .variants
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    let engines: Vec<String> = a.engines.split(',').map(|s| s.trim().to_string()).collect();
    let want = |e: &str| engines.iter().any(|x| x == e);
    let mut rows: Vec<Row> = Vec::new();
    let mut notes = Vec::new();
    for spec in Spec::both(a.size) {
        if !variants.iter().any(|v| v == spec.kind()) {
            continue;
        }
        let g = pdfgen::generate(&a.dir, &spec, false)?;
        report_gen(&g);
        let mut plan: Vec<(Task, SourceKind)> = Vec::new();
        if want("ream") {
            for s in SourceKind::ALL {
                plan.push((Task::ReamCount, s));
            }
            plan.push((Task::ReamInfo, SourceKind::Mmap));
            for s in SourceKind::ALL {
                plan.push((Task::ReamWalk, s));
            }
            plan.push((Task::ReamIndex1, SourceKind::Mmap));
            plan.push((Task::ReamIndex2, SourceKind::Mmap));
        }
        if want("lopdf") {
            plan.push((Task::LopdfMeta, SourceKind::Mmap));
            plan.push((Task::LopdfWalk, SourceKind::Mmap));
        }
        if want("pdf-rs") {
            plan.push((Task::PdfrsWalk, SourceKind::Mmap));
        }
        if want("qpdf") {
            if tool("qpdf") {
                plan.push((Task::QpdfCount, SourceKind::Mmap));
            } else if !notes.iter().any(|n: &String| n.contains("qpdf")) {
                notes.push("qpdf not installed: skipped".to_string());
            }
        }
        if want("mutool") {
            if tool("mutool") {
                plan.push((Task::MutoolWalk, SourceKind::Mmap));
            } else if !notes.iter().any(|n: &String| n.contains("mutool")) {
                notes.push("mutool not installed: skipped".to_string());
            }
        }
        let timeout = Duration::from_secs(a.timeout_s);
        let first = rows.len();
        for (task, source) in plan {
            let warm = run_child(task, source, &g.path, timeout)
                .map(|_| Vec::new())
                .map_err(|e| format!("{e:#}"));
            if let Err(e) = &warm {
                eprintln!("{} {} {source}: {e}", spec.file_name(), task.arg());
            }
            rows.push(Row {
                file: spec.file_name(),
                task,
                source,
                expected_pages: u64::from(spec.pages),
                file_bytes: g.bytes,
                result: warm,
            });
        }
        for k in 0..a.runs.max(1) {
            eprint!("{} run {}/{}:", spec.kind(), k + 1, a.runs.max(1));
            for row in rows.iter_mut().skip(first) {
                let Ok(samples) = &mut row.result else {
                    continue;
                };
                match run_child(row.task, row.source, &g.path, timeout) {
                    Ok(v) => {
                        eprint!(
                            " {:.3}",
                            v.get("wall_s").and_then(Value::as_f64).unwrap_or(0.0)
                        );
                        samples.push(v);
                    }
                    Err(e) => row.result = Err(format!("{e:#}")),
                }
            }
            eprintln!();
        }
    }
    let cmd = {
        let mut parts = vec!["ream-bench".to_owned()];
        parts.extend(std::env::args().skip(1));
        parts.join(" ")
    };
    if a.json {
        let v: Vec<Value> = rows.iter().map(row_json).collect();
        println!(
            "{}",
            serde_json::to_string_pretty(
                &json!({"command": cmd, "runs": a.runs, "rows": v, "notes": notes})
            )?
        );
    } else {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        println!(
            "`{cmd}` — {cores} cores, {} timed runs after 1 warm-up, median wall time; each run a fresh process; warm page cache\n",
            a.runs
        );
        print!("{}", markdown(&rows));
        for n in notes {
            println!("\n{n}");
        }
    }
    Ok(())
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.retain(|x| x.is_finite());
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return None;
    }
    let hi = *v.get(n / 2)?;
    Some(if n % 2 == 1 {
        hi
    } else {
        (hi + *v.get(n / 2 - 1)?) / 2.0
    })
}

fn num(v: &Value, k: &str) -> Option<f64> {
    v.get(k).and_then(Value::as_f64)
}

fn io(v: &Value, k: &str) -> Option<u64> {
    v.get("io").and_then(|i| i.get(k)).and_then(Value::as_u64)
}

impl Row {
    fn samples(&self) -> &[Value] {
        self.result.as_deref().unwrap_or(&[])
    }
    fn wall(&self) -> Option<f64> {
        median(
            self.samples()
                .iter()
                .filter_map(|v| num(v, "wall_s"))
                .collect(),
        )
    }
    fn rss(&self) -> Option<f64> {
        self.samples()
            .iter()
            .filter_map(|v| num(v, "peak_rss_bytes"))
            .reduce(f64::max)
    }
    fn first(&self) -> Option<&Value> {
        self.samples().first()
    }
    fn pages(&self) -> Option<u64> {
        self.first()
            .and_then(|v| v.get("pages"))
            .and_then(Value::as_u64)
    }
    fn is_ream(&self) -> bool {
        self.task.engine() == "ream"
    }
}

fn row_json(r: &Row) -> Value {
    json!({
        "file": r.file,
        "engine": r.task.engine(),
        "task": r.task.label(),
        "source": r.is_ream().then(|| r.source.as_str()),
        "pages": r.pages(),
        "expected_pages": r.expected_pages,
        "file_bytes": r.file_bytes,
        "median_wall_s": r.wall(),
        "peak_rss_bytes": r.rss(),
        "io": r.first().and_then(|v| v.get("io")).cloned(),
        "extra": r.first().and_then(|v| v.get("extra")).cloned(),
        "error": r.result.as_ref().err(),
    })
}

fn markdown(rows: &[Row]) -> String {
    let mut s = String::new();
    s.push_str("| file | engine | task | source | pages | median s | peak RSS MB | touched % | maps/unmaps | syscalls (reads) | note |\n");
    s.push_str("|---|---|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    for r in rows {
        let wall = r.wall().map_or("-".into(), |w| format!("{w:.3}"));
        let rss = r.rss().map_or("-".into(), |b| format!("{:.0}", b / 1e6));
        let first = r.first();
        let (touched, maps, sys) = match first {
            Some(v) if r.is_ream() => {
                let bytes = io(v, "bytes_mapped").unwrap_or(0) + io(v, "bytes_copied").unwrap_or(0);
                let pct = if r.source == SourceKind::Mmap {
                    "(whole map)".to_string()
                } else {
                    format!("{:.2}", bytes as f64 * 100.0 / r.file_bytes.max(1) as f64)
                };
                (
                    pct,
                    format!(
                        "{}/{}",
                        io(v, "maps").unwrap_or(0),
                        io(v, "unmaps").unwrap_or(0)
                    ),
                    format!(
                        "{} ({})",
                        io(v, "syscalls").unwrap_or(0),
                        io(v, "reads").unwrap_or(0)
                    ),
                )
            }
            _ => ("-".into(), "-".into(), "-".into()),
        };
        let note = match (&r.result, r.pages()) {
            (Err(e), _) => e.chars().take(80).collect(),
            (Ok(_), Some(p)) if p != r.expected_pages => {
                format!("pages {p} != {}", r.expected_pages)
            }
            (Ok(_), _) if matches!(r.task, Task::ReamIndex1 | Task::ReamIndex2) => {
                let x = |k: &str| {
                    first
                        .and_then(|v| v.get("extra"))
                        .and_then(|e| e.get(k))
                        .and_then(Value::as_u64)
                        .unwrap_or(0)
                };
                format!(
                    "{} objects, {} object streams, {} errors",
                    x("objects"),
                    x("object_streams"),
                    x("errors")
                )
            }
            _ => String::new(),
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {wall} | {rss} | {touched} | {maps} | {sys} | {note} |\n",
            r.file,
            r.task.engine(),
            r.task.label(),
            if r.is_ream() { r.source.as_str() } else { "-" },
            r.pages().map_or("-".into(), |p| p.to_string()),
        ));
    }
    // Ratios per file: anchors' walks over ream's mmap walk.
    let mut files: Vec<&str> = rows.iter().map(|r| r.file.as_str()).collect();
    files.dedup();
    let mut ratios = Vec::new();
    for f in files {
        let find = |t: Task, src: SourceKind| {
            rows.iter()
                .find(|r| r.file == f && r.task == t && (!r.is_ream() || r.source == src))
                .and_then(Row::wall)
        };
        if let (Some(one), Some(two)) = (
            find(Task::ReamIndex1, SourceKind::Mmap),
            find(Task::ReamIndex2, SourceKind::Mmap),
        ) {
            ratios.push(format!(
                "{f}: ream index 1t / 2t = {:.2}x",
                one / two.max(1e-9)
            ));
        }
        let Some(ours) = find(Task::ReamWalk, SourceKind::Mmap) else {
            continue;
        };
        for (t, name) in [
            (Task::PdfrsWalk, "pdf-rs walk"),
            (Task::LopdfWalk, "lopdf load+get_pages"),
            (Task::MutoolWalk, "mutool pages"),
        ] {
            if let Some(x) = find(t, SourceKind::Mmap) {
                ratios.push(format!(
                    "{f}: {name} / ream walk = {:.1}x",
                    x / ours.max(1e-9)
                ));
            }
        }
    }
    if !ratios.is_empty() {
        s.push('\n');
        for r in ratios {
            s.push_str(&format!("- {r}\n"));
        }
    }
    s
}

fn run_child(task: Task, source: SourceKind, file: &Path, timeout: Duration) -> Result<Value> {
    let args: Vec<std::ffi::OsString> = vec![
        "pdf".into(),
        "measure".into(),
        "--task".into(),
        task.arg().into(),
        "--source".into(),
        source.as_str().into(),
        "--file".into(),
        file.into(),
    ];
    crate::child::run_json(args, timeout)
}

/// The child: runs one task and reports wall, peak RSS, pages, counters.
fn measure(task: Task, source: SourceKind, file: &Path) -> Result<Value> {
    if !file.is_file() {
        bail!("no such file: {}", file.display());
    }
    let file_bytes = std::fs::metadata(file)?.len();
    let t0 = Instant::now();
    let (pages, io, rss_override, extra) = match task {
        Task::ReamIndex1 | Task::ReamIndex2 => {
            let pdf = Pdf::open(file, &PdfOptions::new().source(source))
                .map_err(|e| anyhow!("ream: {e}"))?;
            let threads = if task == Task::ReamIndex1 { 1 } else { 2 };
            let ix = pdf.index_objects(threads)?;
            let c = pdf.io_counters();
            let io = json!({
                "requests": c.requests, "syscalls": c.syscalls, "reads": c.reads,
                "maps": c.maps, "unmaps": c.unmaps, "remaps": c.remaps,
                "bytes_copied": c.bytes_copied, "bytes_mapped": c.bytes_mapped,
            });
            (
                None,
                io,
                None,
                json!({"objects": ix.objects.len(), "streams": ix.streams(),
                       "object_streams": ix.object_streams, "errors": ix.errors.len(),
                       "threads": ix.threads}),
            )
        }
        Task::ReamCount | Task::ReamInfo | Task::ReamWalk => {
            let pdf = Pdf::open(file, &PdfOptions::new().source(source))
                .map_err(|e| anyhow!("ream: {e}"))?;
            let pages = match task {
                Task::ReamCount => Some(pdf.page_count()?),
                Task::ReamWalk => Some(pdf.pages()?.len() as u64),
                _ => None,
            };
            let info = if task == Task::ReamWalk {
                0
            } else {
                pdf.info()?.len()
            };
            let c = pdf.io_counters();
            let io = json!({
                "requests": c.requests, "syscalls": c.syscalls, "reads": c.reads,
                "maps": c.maps, "unmaps": c.unmaps, "remaps": c.remaps,
                "bytes_copied": c.bytes_copied, "bytes_mapped": c.bytes_mapped,
            });
            let (hits, misses) = pdf.objstm_cache_stats();
            (
                pages,
                io,
                None,
                json!({"info_entries": info, "objstm_hits": hits, "objstm_misses": misses, "warnings": pdf.warnings().len()}),
            )
        }
        Task::LopdfMeta => {
            let m = lopdf::Document::load_metadata(file).map_err(|e| anyhow!("lopdf: {e}"))?;
            (
                Some(u64::from(m.page_count)),
                Value::Null,
                None,
                json!({"title": m.title}),
            )
        }
        Task::LopdfWalk => {
            let d = lopdf::Document::load(file).map_err(|e| anyhow!("lopdf: {e}"))?;
            (
                Some(d.get_pages().len() as u64),
                Value::Null,
                None,
                json!({}),
            )
        }
        Task::PdfrsWalk => {
            let f = pdf::file::FileOptions::cached()
                .open(file)
                .map_err(|e| anyhow!("pdf-rs: {e}"))?;
            let mut n = 0u64;
            for p in f.pages() {
                p.map_err(|e| anyhow!("pdf-rs page {n}: {e}"))?;
                n += 1;
            }
            (
                Some(n),
                Value::Null,
                None,
                json!({"num_pages": f.num_pages()}),
            )
        }
        Task::QpdfCount | Task::MutoolWalk => {
            let (prog, args): (&str, Vec<&str>) = if task == Task::QpdfCount {
                ("qpdf", vec!["--show-npages"])
            } else {
                ("mutool", vec!["pages"])
            };
            let mut cmd = if Path::new("/usr/bin/time").is_file() {
                let mut c = Command::new("/usr/bin/time");
                c.args(["-f", "REAM_RSS_KB %M", prog]);
                c
            } else {
                Command::new(prog)
            };
            let o = cmd
                .args(&args)
                .arg(file)
                .output()
                .with_context(|| format!("running {prog}"))?;
            if !o.status.success() {
                bail!("{prog} exited with {}", o.status);
            }
            let stdout = String::from_utf8_lossy(&o.stdout);
            let stderr = String::from_utf8_lossy(&o.stderr);
            let pages = if task == Task::QpdfCount {
                stdout.trim().parse::<u64>().ok()
            } else {
                Some(
                    stdout
                        .lines()
                        .filter(|l| l.trim_start().starts_with("<page "))
                        .count() as u64,
                )
            };
            let rss = stderr
                .lines()
                .rev()
                .find_map(|l| l.strip_prefix("REAM_RSS_KB "))
                .and_then(|k| k.trim().parse::<u64>().ok())
                .map(|k| k * 1024);
            (pages, Value::Null, Some(rss), json!({}))
        }
    };
    let wall_s = t0.elapsed().as_secs_f64();
    let rss = match rss_override {
        Some(r) => r,
        None => ream_alloc::peak_rss_bytes(),
    };
    Ok(json!({
        "ok": true,
        "task": task.arg(),
        "source": source.as_str(),
        "wall_s": wall_s,
        "pages": pages,
        "peak_rss_bytes": rss,
        "file_bytes": file_bytes,
        "io": io,
        "extra": extra,
    }))
}
