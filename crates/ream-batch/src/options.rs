//! [`BatchOptions`]: every knob of a batch run, with its default.

use crate::analyze::Analyzer;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Default wall-time limit per file with [`BatchOptions::isolate`]: 600 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// Default memory limit per worker process with [`BatchOptions::isolate`]:
/// 4 GiB of heap and stacks (file mappings are not counted).
pub const DEFAULT_MAX_MEM: u64 = 4 << 30;
/// Default size from which a file counts as big and may get more than one
/// engine thread: 32 MiB.
pub const DEFAULT_BIG_FILE: u64 = 32 << 20;
/// Default most distinct first-column keys counted per text file: 100,000.
pub const DEFAULT_TEXT_KEY_CAP: usize = 100_000;

/// How a batch runs. Build with [`BatchOptions::new`] and the setters, or
/// fill the public fields.
#[derive(Clone)]
pub struct BatchOptions {
    /// Slots: files processed at the same time. 0 (the default) means the
    /// available cores.
    pub jobs: usize,
    /// Engine threads all slots may use together. 0 (the default) means
    /// the available cores. Every running job holds one; a big file (see
    /// [`big_file_bytes`](Self::big_file_bytes)) takes extra ones only
    /// while some are free, so jobs x threads never exceeds
    /// `max(jobs, thread_budget)`.
    pub thread_budget: usize,
    /// Files at least this big may use more than one engine thread (one
    /// more per multiple of this size, within the budget). Default 32 MiB.
    pub big_file_bytes: u64,
    /// Run each file in a pool of long-lived child processes (one per
    /// slot), so a crash, hang or memory blow-up is that file's outcome.
    /// Default `false` (in-process threads).
    pub isolate: bool,
    /// The child command for `isolate`: program and arguments of a process
    /// that serves [`serve_worker`](crate::serve_worker) on its standard
    /// input and output (the `ream` binary uses `ream batch-worker`).
    /// Required with `isolate`.
    pub worker_command: Option<Vec<OsString>>,
    /// Wall-time limit per file with `isolate` (the worker is killed and
    /// the file recorded as `timeout`). `Duration::ZERO` = none. Default
    /// 600 s. Not applied in-process (a thread cannot be stopped).
    pub timeout: Duration,
    /// Memory limit per worker process with `isolate`, in bytes:
    /// `RLIMIT_DATA`, which counts heap, anonymous maps and thread stacks
    /// but not the read-only mappings of the input files (so a 10 GB PDF
    /// can still be read under a 4 GB limit). 0 = none. Default 4 GiB. Not
    /// applied in-process.
    pub max_mem: u64,
    /// Glob patterns a file must match one of; empty (the default) takes
    /// every file. A pattern without `/` matches the file name (`*.xlsx`),
    /// one with `/` the whole path as given (`in/2024/*.csv`); `*` matches
    /// `/` too.
    pub include: Vec<String>,
    /// Glob patterns that drop a file (and, for directories met while
    /// walking, the whole directory), matched like
    /// [`include`](Self::include): `tmp` drops every file or directory
    /// named `tmp`, `*/tmp/*` every path with a `tmp` directory. Default
    /// none.
    pub exclude: Vec<String>,
    /// Follow symbolic links to directories while walking. Default `false`
    /// (links to files are always read).
    pub follow_links: bool,
    /// The JSON Lines report; `None` (the default) writes the records to
    /// standard output.
    pub report: Option<PathBuf>,
    /// Skip files the report already holds with the same path, size and
    /// mtime, and append to it; a partial last line is cut off first. A
    /// file whose size or mtime changed is analysed again and its old
    /// record removed from the report. Needs `report`. Default `false`
    /// (the report is truncated).
    pub resume: bool,
    /// With [`resume`](Self::resume), also analyse again the files whose
    /// recorded outcome is not `ok` (errors, timeouts, crashes), replacing
    /// their records. Default `false`.
    pub retry_failed: bool,
    /// Most distinct first-column keys counted per text file; past it the
    /// count is reported as capped. Default 100,000.
    pub text_key_cap: usize,
    /// Recognise the test-only files whose first bytes are
    /// `REAM-TEST-ABORT`, `REAM-TEST-HANG`, `REAM-TEST-OOM`, `REAM-TEST-PANIC`
    /// or `REAM-TEST-SLEEP <ms>` (abort the process, sleep for an hour,
    /// allocate until memory runs out, panic, sleep). Default `false`;
    /// never enable it outside tests. The engines exist only when
    /// ream-batch is built with its `test-engines` cargo feature (off by
    /// default: release builds do not have them); without it this field
    /// is ignored and such files are read like any other.
    pub test_engines: bool,
    /// Benchmark-only: the design the dispatcher avoids, for comparison.
    /// Each worker, after its job, interns the result's strings in one table behind a global
    /// `Mutex` and normalises and serialises the record while holding it,
    /// before taking its next job. Default `false`.
    pub intern_on_worker: bool,
    /// Replaces the standard engines in-process (tests inject hangs,
    /// failures, timings). `None` (the default) uses
    /// [`StandardAnalyzer`](crate::StandardAnalyzer). Ignored with
    /// `isolate` (the child runs the standard engines).
    pub analyzer: Option<Arc<dyn Analyzer>>,
}

impl Default for BatchOptions {
    fn default() -> BatchOptions {
        BatchOptions {
            jobs: 0,
            thread_budget: 0,
            big_file_bytes: DEFAULT_BIG_FILE,
            isolate: false,
            worker_command: None,
            timeout: DEFAULT_TIMEOUT,
            max_mem: DEFAULT_MAX_MEM,
            include: Vec::new(),
            exclude: Vec::new(),
            follow_links: false,
            report: None,
            resume: false,
            retry_failed: false,
            text_key_cap: DEFAULT_TEXT_KEY_CAP,
            test_engines: false,
            intern_on_worker: false,
            analyzer: None,
        }
    }
}

impl std::fmt::Debug for BatchOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchOptions")
            .field("jobs", &self.jobs)
            .field("thread_budget", &self.thread_budget)
            .field("big_file_bytes", &self.big_file_bytes)
            .field("isolate", &self.isolate)
            .field("worker_command", &self.worker_command)
            .field("timeout", &self.timeout)
            .field("max_mem", &self.max_mem)
            .field("include", &self.include)
            .field("exclude", &self.exclude)
            .field("follow_links", &self.follow_links)
            .field("report", &self.report)
            .field("resume", &self.resume)
            .field("retry_failed", &self.retry_failed)
            .field("text_key_cap", &self.text_key_cap)
            .field("test_engines", &self.test_engines)
            .field("intern_on_worker", &self.intern_on_worker)
            .field("analyzer", &self.analyzer.as_ref().map(|_| "custom"))
            .finish()
    }
}

impl BatchOptions {
    /// Options with every default.
    pub fn new() -> BatchOptions {
        BatchOptions::default()
    }
    /// Sets [`jobs`](Self::jobs).
    pub fn jobs(mut self, n: usize) -> BatchOptions {
        self.jobs = n;
        self
    }
    /// Sets [`thread_budget`](Self::thread_budget).
    pub fn thread_budget(mut self, n: usize) -> BatchOptions {
        self.thread_budget = n;
        self
    }
    /// Sets [`isolate`](Self::isolate) and the worker command.
    pub fn isolate(mut self, worker_command: Vec<OsString>) -> BatchOptions {
        self.isolate = true;
        self.worker_command = Some(worker_command);
        self
    }
    /// Sets [`timeout`](Self::timeout).
    pub fn timeout(mut self, t: Duration) -> BatchOptions {
        self.timeout = t;
        self
    }
    /// Sets [`max_mem`](Self::max_mem) in bytes.
    pub fn max_mem(mut self, bytes: u64) -> BatchOptions {
        self.max_mem = bytes;
        self
    }
    /// Sets [`report`](Self::report).
    pub fn report(mut self, path: impl Into<PathBuf>) -> BatchOptions {
        self.report = Some(path.into());
        self
    }
    /// Sets [`resume`](Self::resume).
    pub fn resume(mut self, on: bool) -> BatchOptions {
        self.resume = on;
        self
    }
    /// Sets [`retry_failed`](Self::retry_failed).
    pub fn retry_failed(mut self, on: bool) -> BatchOptions {
        self.retry_failed = on;
        self
    }
    /// Adds an [`include`](Self::include) glob.
    pub fn include(mut self, glob: impl Into<String>) -> BatchOptions {
        self.include.push(glob.into());
        self
    }
    /// Adds an [`exclude`](Self::exclude) glob.
    pub fn exclude(mut self, glob: impl Into<String>) -> BatchOptions {
        self.exclude.push(glob.into());
        self
    }
    /// Sets [`test_engines`](Self::test_engines).
    pub fn test_engines(mut self, on: bool) -> BatchOptions {
        self.test_engines = on;
        self
    }
    /// Sets [`intern_on_worker`](Self::intern_on_worker).
    pub fn intern_on_worker(mut self, on: bool) -> BatchOptions {
        self.intern_on_worker = on;
        self
    }
    /// Sets [`analyzer`](Self::analyzer).
    pub fn analyzer(mut self, a: Arc<dyn Analyzer>) -> BatchOptions {
        self.analyzer = Some(a);
        self
    }
    /// The number of slots [`jobs`](Self::jobs) resolves to (at least 1).
    pub fn effective_jobs(&self) -> usize {
        if self.jobs == 0 { cores() } else { self.jobs }
    }
    /// The thread budget [`thread_budget`](Self::thread_budget) resolves to.
    pub fn effective_budget(&self) -> usize {
        if self.thread_budget == 0 {
            cores()
        } else {
            self.thread_budget
        }
    }
}

/// The available cores (1 when unknown).
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}
