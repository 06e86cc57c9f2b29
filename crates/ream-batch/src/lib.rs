//! Batch analysis of many files: "read these 200,000 spreadsheets and PDFs
//! and tell me what is in them".
//!
//! [`run_batch`] expands its inputs (directories walked in name order,
//! `@listfile`s, include/exclude globs), sniffs each file's format from its
//! bytes (XLSX, XLSM, ODS, XLS, XLSB, PDF, delimited text), runs the right
//! engine and writes one JSON Lines record per file:
//!
//! ```json
//! {"path":"in/a.xlsx","format":"xlsx","size":5012,"mtime":1718000000123456789,
//!  "outcome":"ok","summary":{"sheets":[...],...},"warning_count":0,"warnings":[],
//!  "elapsed_ms":0.84,"threads":1}
//! ```
//!
//! Every field, and the sheet fields shared with `ream sheets --json`, is
//! listed once in the README's "Output fields" section. In short:
//! `outcome` is `"ok"`, `"timeout"`, `{"error": kind, "message": m}` or
//! `{"crashed": "signal N" | "exit N" | "panic", "message": m}` (an
//! encrypted file that cannot be decrypted, PDF or workbook, is
//! `{"error": "encrypted", ...}`; such a PDF keeps the structure summary
//! that could be read); `mtime`
//! is in nanoseconds since the Unix epoch; `summary` is `null` unless the
//! engine read the file; `warnings` holds the first [`MAX_WARNINGS`]
//! warning texts and `warning_count` counts them all.
//!
//! # Dispatcher
//!
//! N slots (default: the cores) take job indices from one atomic counter.
//! A slot hands its job's raw, owned result to its own channel and takes
//! the next job at once; the one collector thread (the caller's) waits on
//! all channels, normalises each result, interns its repeated strings and
//! writes whole lines. No worker takes a lock shared with other workers.
//! Jobs run largest file first. Engine threads come from a global budget:
//! big files take spare threads, small ones run on one.
//!
//! # Isolation
//!
//! With [`BatchOptions::isolate`] each slot feeds a long-lived worker
//! process (`ream batch-worker`, see [`serve_worker`]) over a pipe, under a
//! wall-time limit (the worker is killed, the file recorded as `timeout`)
//! and a memory limit (`RLIMIT_DATA`); a crash, abort or out-of-memory is
//! that file's outcome and the slot starts a fresh worker.
//!
//! # Resume
//!
//! Records are written whole (several at a time, each write holding only
//! complete lines), so an interrupted batch leaves at most a partial last
//! line, which [`BatchOptions::resume`] cuts off before appending; files
//! already recorded with the same path, size and mtime are skipped. A file
//! whose size or mtime changed (or, with [`BatchOptions::retry_failed`],
//! whose record is a failure) is analysed again and its old record removed
//! from the report (rewritten beside itself and renamed over it), so the
//! report keeps one record per file.

mod analyze;
mod budget;
mod collector;
mod dispatch;
mod error;
mod inputs;
mod intern;
mod isolate;
mod options;
mod progress;
mod raw;
mod record;
mod report;
mod stats;
mod summary;
#[cfg(feature = "test-engines")]
mod testing;
mod text;
mod worker;

pub use analyze::{Analyzer, StandardAnalyzer, sniff};
pub use error::{BatchError, Result};
pub use inputs::Job;
pub use intern::Interner;
pub use options::{
    BatchOptions, DEFAULT_BIG_FILE, DEFAULT_MAX_MEM, DEFAULT_TEXT_KEY_CAP, DEFAULT_TIMEOUT,
};
pub use progress::{NoProgress, Progress, TerminalProgress};
pub use raw::{
    Analysis, DocFormat, MAX_WARNINGS, Outcome, OutcomeKind, PdfSummary, SheetSummary, Summary,
    TextSummary, WorkbookSummary,
};
pub use record::Entry;
pub use stats::{DispatchStats, Gaps};
pub use summary::{BatchSummary, FormatTally};
pub use text::{looks_like_text, scan as scan_text};
pub use worker::serve_worker;

use dispatch::{Executor, InProcess, Shared};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant};

/// Runs a batch over `inputs` (files, directories, `@listfile` or `@-` for
/// paths on standard input) and returns what it found. Records go to
/// [`BatchOptions::report`] (standard output when `None`); `progress` is
/// told about each record on the calling thread.
///
/// Fails only for the batch as a whole: bad options, a report that cannot
/// be opened, read back or written, a list file that cannot be read. A
/// file's own failure is its record's outcome; paths that cannot be listed
/// are in [`BatchSummary::warnings`].
pub fn run_batch(
    inputs: &[PathBuf],
    opts: &BatchOptions,
    progress: &mut dyn Progress,
) -> Result<BatchSummary> {
    run(inputs, opts, progress, None)
}

/// [`run_batch`] writing the records to `out` instead of a file or
/// standard output: whole lines, each write ending at a line end and
/// followed by a flush, as soon as the collector has them. A write error
/// (for example a closed consumer) stops the batch and is returned as
/// [`BatchError::Io`] naming `<writer>`. [`BatchOptions::report`] (and so
/// `resume`) must be unset: a usage error otherwise.
pub fn run_batch_to(
    inputs: &[PathBuf],
    opts: &BatchOptions,
    progress: &mut dyn Progress,
    out: Box<dyn std::io::Write>,
) -> Result<BatchSummary> {
    if opts.report.is_some() {
        return Err(BatchError::Usage(
            "a batch writing its records to a writer cannot also have a report file".into(),
        ));
    }
    run(inputs, opts, progress, Some(out))
}

fn run(
    inputs: &[PathBuf],
    opts: &BatchOptions,
    progress: &mut dyn Progress,
    writer: Option<Box<dyn std::io::Write>>,
) -> Result<BatchSummary> {
    if opts.resume && opts.report.is_none() {
        return Err(BatchError::Usage(
            "resume needs a report file to read back and append to".into(),
        ));
    }
    let worker_command = match (&opts.worker_command, opts.isolate) {
        (Some(c), true) if !c.is_empty() => Some(c.clone()),
        (_, true) => {
            return Err(BatchError::Usage(
                "isolate needs a worker command (e.g. `ream batch-worker`)".into(),
            ));
        }
        (_, false) => None,
    };
    let filters = inputs::Filters::new(&opts.include, &opts.exclude)?;
    if opts.retry_failed && !opts.resume {
        return Err(BatchError::Usage(
            "retry-failed works on a resumed report: it needs resume".into(),
        ));
    }
    let (mut report, recorded, skip) = match &opts.report {
        Some(p) => {
            let (r, keys, id) = report::Report::open(p, opts.resume)?;
            (r, keys, Some(id))
        }
        None => match writer {
            Some(w) => (report::Report::writer(w), Default::default(), None),
            None => (report::Report::stdout(), Default::default(), None),
        },
    };
    let mut found = inputs::collect(inputs, &filters, opts.follow_links, skip)?;
    if found.jobs.is_empty() {
        found.warnings.push(no_files_message(found.filtered_out));
    }
    let mut again = HashSet::new();
    let before = found.jobs.len();
    let mut jobs: Vec<Job> = found
        .jobs
        .into_iter()
        .filter(|j| match recorded.get(&j.shown) {
            None => true,
            Some(r)
                if r.size == j.size && r.mtime == j.mtime_ns && (r.ok || !opts.retry_failed) =>
            {
                false
            }
            Some(_) => {
                again.insert(j.shown.clone());
                true
            }
        })
        .collect();
    let resumed = (before - jobs.len()) as u64;
    report.drop_records(&again)?;
    // Largest first: the long jobs start early and the tail is short.
    jobs.sort_by_key(|j| std::cmp::Reverse(j.size));

    let slots = opts.effective_jobs().min(jobs.len()).max(1);
    let shared = Shared {
        jobs: &jobs,
        next: AtomicUsize::new(0),
        budget: budget::ThreadBudget::new(opts.effective_budget(), slots, opts.big_file_bytes),
        global_interner: opts.intern_on_worker.then(|| Mutex::new(Interner::new())),
    };
    let standard = StandardAnalyzer {
        test_engines: opts.test_engines,
        text_key_cap: opts.text_key_cap,
    };
    let analyzer: &dyn Analyzer = match &opts.analyzer {
        Some(a) => a.as_ref(),
        None => &standard,
    };
    let iso = worker_command.map(|command| isolate::IsolateConfig {
        command,
        timeout: (!opts.timeout.is_zero()).then_some(opts.timeout),
        max_mem: opts.max_mem,
        test_engines: opts.test_engines,
        text_key_cap: opts.text_key_cap,
    });
    let make = |_slot: usize| -> Box<dyn Executor + '_> {
        match &iso {
            Some(cfg) => Box::new(isolate::Isolated::new(cfg)),
            None => Box::new(InProcess(analyzer)),
        }
    };

    let summary = BatchSummary {
        resumed,
        replaced: again.len() as u64,
        warnings: found.warnings,
        ..BatchSummary::default()
    };
    let bytes = jobs.iter().map(|j| j.size).sum();
    progress.start(jobs.len() as u64, bytes, resumed);
    let start = Instant::now();
    let mut collector = collector::Collector::new(
        &jobs,
        report,
        stats::StatsBuilder::new(slots, start),
        summary,
        progress,
    );
    if !jobs.is_empty() {
        dispatch::dispatch(&shared, slots, &make, &mut collector)?;
    }
    let end = Instant::now();
    let (stats, mut summary, interned_here) = collector.finish();
    let interned = match shared.global_interner {
        Some(m) => m
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len(),
        None => interned_here,
    };
    summary.stats = stats.finish(if summary.entries.is_empty() {
        start
    } else {
        end
    });
    summary.distinct_strings = interned;
    Ok(summary)
}

/// The warning of a batch whose inputs held no file to analyse.
fn no_files_message(filtered_out: u64) -> String {
    if filtered_out == 0 {
        "no files matched: the inputs hold no file to analyse".to_string()
    } else {
        format!(
            "no files matched: all {filtered_out} files found were left out by the include/exclude globs"
        )
    }
}

/// Parses a size like `512`, `512M`, `4G`, `64k` (MiB without a suffix);
/// for command lines.
pub fn parse_size_mb(s: &str) -> std::result::Result<u64, String> {
    let s = s.trim();
    if s.starts_with('-') {
        return Err(format!("must be 0 or more, got {s:?}"));
    }
    let (num, unit) = match s.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => s.split_at(i),
        None => (s, "M"),
    };
    let n: u64 = num
        .trim()
        .parse()
        .map_err(|_| format!("not a size: {s:?} (e.g. 512, 512M, 4G)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return Err(format!("unknown size unit in {s:?} (k, M or G)")),
    };
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("size too large: {s:?}"))
}

/// Parses seconds (`2`, `0.5`, 0 or more) into a duration; for command
/// lines.
pub fn parse_seconds(s: &str) -> std::result::Result<Duration, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("not a number of seconds: {s:?}"))?;
    if v < 0.0 {
        return Err(format!("must be 0 seconds or more, got {s:?}"));
    }
    Duration::try_from_secs_f64(v).map_err(|_| format!("not a valid duration: {s:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_seconds() {
        assert_eq!(parse_size_mb("512"), Ok(512 << 20));
        assert_eq!(parse_size_mb("4G"), Ok(4 << 30));
        assert_eq!(parse_size_mb("64k"), Ok(64 << 10));
        assert!(parse_size_mb("x").is_err());
        assert!(parse_size_mb("5T").is_err());
        assert_eq!(parse_seconds("0.5"), Ok(Duration::from_millis(500)));
        assert_eq!(
            parse_seconds("-1"),
            Err("must be 0 seconds or more, got \"-1\"".into())
        );
        assert_eq!(
            parse_size_mb("-5"),
            Err("must be 0 or more, got \"-5\"".into())
        );
        assert!(parse_seconds("soon").is_err());
    }
}
