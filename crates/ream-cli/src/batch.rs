//! `ream batch`: analyse many files into a JSON Lines report; and the
//! hidden `ream batch-worker` that `--isolate` runs in child processes.

use crate::UsageError;
use crate::args::ranged;
use anyhow::Result;
use ream_batch::{BatchError, BatchOptions, BatchSummary, NoProgress, Progress, TerminalProgress};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Environment variable that enables the test-only `REAM-TEST-*` files
/// (`1` = on) in a binary built with ream-batch's `test-engines` feature
/// (test builds); a release binary has no test engines and ignores it.
const TEST_ENGINES_ENV: &str = "REAM_BATCH_TEST_ENGINES";

/// Most slots or engine threads accepted on the command line.
const MAX_THREADS: usize = 4096;
/// Largest `--big-file-mb` accepted: 1 TiB.
const MAX_BIG_FILE_MB: u64 = 1 << 20;

/// Arguments of `ream batch`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files, directories (walked, sorted by name) and `@LISTFILE`s (one
    /// path per line, `#` comments; `@-` reads standard input).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Files processed at the same time, 0 to 4096 (0 = available cores).
    #[arg(short = 'j', long, default_value_t = 0, allow_negative_numbers = true,
          value_parser = ranged::<usize>(0..=MAX_THREADS as i64))]
    pub jobs: usize,
    /// Write the JSON Lines report here (default: standard output).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Skip files the report already holds with the same path, size and
    /// mtime, and append to it; a file whose size or mtime changed is read
    /// again and its old record replaced.
    #[arg(long, requires = "report")]
    pub resume: bool,
    /// With --resume, also read again the files whose record is a failure
    /// (error, timeout, crash), replacing their records.
    #[arg(long, requires = "resume")]
    pub retry_failed: bool,
    /// Run each file in a child process (a pool of `ream batch-worker`s):
    /// a crash, hang or memory blow-up becomes that file's outcome.
    #[arg(long)]
    pub isolate: bool,
    /// Wall-time limit per file in seconds, 0 = none (implies --isolate;
    /// default 600 with --isolate).
    #[arg(long, value_name = "S", allow_negative_numbers = true,
          value_parser = ream_batch::parse_seconds)]
    pub timeout: Option<Duration>,
    /// Memory limit per worker (heap and stacks, not file mappings), in
    /// MiB or with a k/M/G suffix, 0 = none (implies --isolate; default
    /// 4G with --isolate).
    #[arg(long, value_name = "MB", allow_negative_numbers = true,
          value_parser = ream_batch::parse_size_mb)]
    pub max_mem: Option<u64>,
    /// Only files that match this glob (repeatable). A glob without `/`
    /// matches the file name (`*.xlsx`, `report-202?.pdf`); one with `/`
    /// matches the whole path as given on the command line (`in/2024/*`,
    /// `*/sales/*.csv`); `*` matches `/` too.
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Leave out files, and directories met while walking, that match this
    /// glob (repeatable; matched like --include: `tmp` leaves out every
    /// file or directory named tmp, `*/tmp/*` every path through one).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Engine threads for all jobs together, 0 to 4096 (0 = available
    /// cores); big files use spare ones.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true,
          value_parser = ranged::<usize>(0..=MAX_THREADS as i64))]
    pub thread_budget: usize,
    /// Files from this size (MiB, 1 to 1048576) up may use more than one
    /// engine thread.
    #[arg(long, default_value_t = 32, allow_negative_numbers = true,
          value_parser = ranged::<u64>(1..=MAX_BIG_FILE_MB as i64))]
    pub big_file_mb: u64,
    /// Follow symbolic links to directories while walking.
    #[arg(long)]
    pub follow_links: bool,
    /// Print slot utilisation, gaps between jobs and collector queue depth.
    #[arg(long)]
    pub stats: bool,
    /// No progress bar and no summary table on standard error (warnings
    /// are still printed).
    #[arg(short, long)]
    pub quiet: bool,
}

/// Builds the library options from the command line.
fn options(a: &Args) -> Result<BatchOptions> {
    let mut o = BatchOptions::new()
        .jobs(a.jobs)
        .thread_budget(a.thread_budget)
        .resume(a.resume)
        .retry_failed(a.retry_failed);
    o.big_file_bytes = a.big_file_mb << 20;
    o.include.clone_from(&a.include);
    o.exclude.clone_from(&a.exclude);
    o.follow_links = a.follow_links;
    o.report.clone_from(&a.report);
    if let Some(t) = a.timeout {
        o.timeout = t;
    }
    if let Some(m) = a.max_mem {
        o.max_mem = m;
    }
    if a.isolate || a.timeout.is_some() || a.max_mem.is_some() {
        let exe = std::env::current_exe()
            .map_err(|e| anyhow::anyhow!("cannot find the ream executable for --isolate: {e}"))?;
        o = o.isolate(vec![exe.into_os_string(), "batch-worker".into()]);
    }
    o.test_engines = std::env::var_os(TEST_ENGINES_ENV).is_some_and(|v| v == "1");
    Ok(o)
}

/// Runs `ream batch`.
pub fn run(a: &Args) -> Result<()> {
    let opts = options(a)?;
    let mut bar = if a.quiet {
        None
    } else {
        TerminalProgress::if_terminal()
    };
    let progress: &mut dyn Progress = match &mut bar {
        Some(b) => b,
        None => &mut NoProgress,
    };
    let summary = match ream_batch::run_batch(&a.paths, &opts, progress) {
        Ok(s) => s,
        Err(BatchError::Usage(m)) => return Err(UsageError(m).into()),
        Err(e) => return Err(e.into()),
    };
    print_warnings(&summary)?;
    if !a.quiet {
        print_summary(&summary, a.stats)?;
    }
    Ok(())
}

/// The batch's warnings (inputs that could not be read, no file matched,
/// files that failed) on standard error, even with `--quiet`: the exit
/// status 3 they cause always comes with its reason.
fn print_warnings(s: &BatchSummary) -> std::io::Result<()> {
    let mut e = std::io::stderr().lock();
    for w in &s.warnings {
        writeln!(e, "ream: warning: {w}")?;
    }
    let total = s.total();
    if total.failed() > 0 {
        writeln!(
            e,
            "ream: warning: {} of {} files failed (error, timeout or crash; see their records)",
            total.failed(),
            total.files
        )?;
    }
    if total.failed() > 0 || !s.warnings.is_empty() {
        crate::input::WARNED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    Ok(())
}

/// The per-format table, the most frequent failures and (with `--stats`)
/// the dispatcher's figures, on standard error.
fn print_summary(s: &BatchSummary, stats: bool) -> std::io::Result<()> {
    let mut e = std::io::stderr().lock();
    e.write_all(s.table().as_bytes())?;
    let top = s.top_failures(5);
    if !top.is_empty() {
        writeln!(e, "most frequent failures:")?;
        for (msg, n) in top {
            writeln!(e, "{n:>8}  {msg}")?;
        }
    }
    if stats {
        writeln!(e, "stats: {}", s.stats)?;
        writeln!(e, "stats: {} distinct strings interned", s.distinct_strings)?;
    }
    Ok(())
}

/// Runs `ream batch-worker`: serves jobs from standard input until it ends.
pub fn worker() -> Result<()> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    ream_batch::serve_worker(&mut stdin.lock(), &mut stdout.lock())?;
    Ok(())
}
