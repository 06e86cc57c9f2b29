//! `ream.batch`: the batch engine (`ream batch`), its JSON Lines records
//! streamed to Python as dicts while the batch runs.

use crate::channel::Inbox;
use crate::errors;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use ream_batch::{BatchError, BatchOptions, BatchSummary, NoProgress};
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::sync::mpsc::{SyncSender, sync_channel};
use std::time::Duration;

/// Environment variable that enables ream-batch's test-only `REAM-TEST-*`
/// files (`1` = on), as for the `ream` binary. Never set it outside tests.
const TEST_ENGINES_ENV: &str = "REAM_BATCH_TEST_ENGINES";

/// Records waiting for the consumer before the batch blocks.
const QUEUE: usize = 256;

/// What the batch thread sends.
enum Msg {
    /// One record: a JSON line without its newline.
    Record(Vec<u8>),
    /// The batch ended.
    Done(Result<BatchSummary, BatchError>),
}

/// The records of a batch as the engine finishes them, each the dict of
/// one `ream batch` JSON Lines record. Dropping the iterator stops the
/// batch at its next record.
#[pyclass(module = "ream", frozen)]
pub struct BatchIter {
    inbox: Inbox<Msg>,
}

/// Analyses many files like `ream batch` and yields one dict per file, with
/// the keys and values of its JSON Lines records: path, format, size,
/// mtime (ns), outcome ("ok", "timeout", {"error": kind, "message": m} or
/// {"crashed": how, "message": m}), summary (sheets, pages, ... or None),
/// warning_count, warnings, elapsed_ms, threads.
///
/// `paths`: one path or a list of them (str or os.PathLike): files,
/// directories (walked, sorted by name) and "@LISTFILE"s (one path per
/// line). `include` / `exclude`: globs as `ream batch --include/--exclude`
/// (without "/" they match the file name, with "/" the path as given).
/// `jobs=0`: files at once (0: one per core). `isolate=True` runs each file
/// in a worker process (this Python running `ream._batch_worker()`, at most
/// 4 GiB of heap each), so a crash or hang is that file's outcome;
/// `timeout` (seconds, 0: none) limits each file's wall time and implies
/// `isolate` (default with isolate: 600 s; a worker's first file also
/// counts its start-up). Files run largest first; records come in the
/// order files finish, as they finish (a thread runs the batch, the GIL is
/// released while waiting for the next record).
///
/// Bad options (a bad glob, a negative timeout) raise ReamError (kind
/// "usage"). A file that cannot be read is its record's outcome, not an
/// exception; inputs that cannot be listed and "no files matched" are
/// issued as ReamWarning at the end.
#[pyfunction]
#[pyo3(signature = (paths, *, jobs=0, isolate=false, timeout=None, include=None, exclude=None))]
pub fn batch(
    py: Python<'_>,
    paths: &Bound<'_, PyAny>,
    jobs: usize,
    isolate: bool,
    timeout: Option<f64>,
    include: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
) -> PyResult<BatchIter> {
    let inputs = input_paths(paths)?;
    let mut opts = BatchOptions::new().jobs(jobs);
    opts.include = include.unwrap_or_default();
    opts.exclude = exclude.unwrap_or_default();
    opts.test_engines = std::env::var_os(TEST_ENGINES_ENV).is_some_and(|v| v == "1");
    if let Some(t) = timeout {
        let t = Duration::try_from_secs_f64(t)
            .map_err(|_| errors::usage(py, format!("timeout = {t}: give 0 or more seconds")))?;
        opts.timeout = t;
    }
    if isolate || timeout.is_some() {
        opts = opts.isolate(worker_command(py)?);
    }
    let (tx, rx) = sync_channel(QUEUE);
    std::thread::Builder::new()
        .name("ream-batch".into())
        .spawn(move || {
            let out = Lines {
                tx: tx.clone(),
                partial: Vec::new(),
            };
            let r = ream_batch::run_batch_to(&inputs, &opts, &mut NoProgress, Box::new(out));
            let _ = tx.send(Msg::Done(r));
        })
        .map_err(|e| errors::usage(py, format!("starting the batch thread: {e}")))?;
    Ok(BatchIter {
        inbox: Inbox::new(rx),
    })
}

#[pymethods]
impl BatchIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }
    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.inbox.recv(py, |m| !matches!(m, Msg::Record(_)))? {
            Some(Msg::Record(line)) => {
                let text = String::from_utf8_lossy(&line).into_owned();
                py.import("json")?.call_method1("loads", (text,)).map(Some)
            }
            Some(Msg::Done(Ok(summary))) => {
                errors::warn_texts(py, &summary.warnings)?;
                Ok(None)
            }
            Some(Msg::Done(Err(e))) => Err(batch_err(py, &e)),
            None => Ok(None),
        }
    }
}

/// Serves isolated batch jobs on standard input and output until standard
/// input ends: the worker process that `ream.batch(isolate=True)` starts
/// (`python -c "import ream; ream._batch_worker()"`). Not for direct use.
#[pyfunction]
pub fn _batch_worker(py: Python<'_>) -> PyResult<()> {
    py.detach(|| {
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        ream_batch::serve_worker(&mut stdin.lock(), &mut stdout.lock())
    })
    .map_err(|e| errors::usage(py, format!("batch worker: {e}")))
}

/// The worker command: this interpreter running `ream._batch_worker()`.
fn worker_command(py: Python<'_>) -> PyResult<Vec<OsString>> {
    let exe: PathBuf = py.import("sys")?.getattr("executable")?.extract()?;
    if exe.as_os_str().is_empty() {
        return Err(errors::usage(
            py,
            "isolate needs sys.executable to start worker processes, and it is empty",
        ));
    }
    Ok(vec![
        exe.into_os_string(),
        "-c".into(),
        "import ream; ream._batch_worker()".into(),
    ])
}

/// `paths` as a list: one str/os.PathLike, or a list or tuple of them.
fn input_paths(paths: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    if paths.is_instance_of::<PyString>() || paths.hasattr("__fspath__")? {
        return Ok(vec![paths.extract()?]);
    }
    let list: Vec<PathBuf> = paths.extract().map_err(|_| {
        PyTypeError::new_err("paths must be a str, an os.PathLike or a list of them")
    })?;
    if list.is_empty() {
        return Err(PyValueError::new_err(
            "paths is empty: give files or directories",
        ));
    }
    Ok(list)
}

/// The Python exception for a batch that stopped as a whole.
fn batch_err(py: Python<'_>, e: &BatchError) -> PyErr {
    match e {
        BatchError::Usage(m) => errors::usage(py, m.clone()),
        BatchError::Io { path, source } => errors::io_to_py(source, &path.display().to_string()),
        other => errors::located(
            py,
            ream_batch_kind(other),
            &other.to_string(),
            errors::Location::default(),
        ),
    }
}

/// The kind of a batch-wide error that is neither usage nor I/O.
fn ream_batch_kind(e: &BatchError) -> ream::sheet::ErrorKind {
    match e {
        BatchError::CorruptReport { .. } => ream::sheet::ErrorKind::Malformed,
        _ => ream::sheet::ErrorKind::Io,
    }
}

/// The report writer: splits what the collector writes (whole lines) into
/// records for the channel. A closed channel (the iterator was dropped)
/// is a broken pipe, which stops the batch.
struct Lines {
    tx: SyncSender<Msg>,
    partial: Vec<u8>,
}

impl Write for Lines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.partial.extend_from_slice(buf);
        while let Some(i) = self.partial.iter().position(|&b| b == b'\n') {
            let rest = self.partial.split_off(i + 1);
            let mut line = std::mem::replace(&mut self.partial, rest);
            line.pop();
            if !line.is_empty() && self.tx.send(Msg::Record(line)).is_err() {
                return Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
            }
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
