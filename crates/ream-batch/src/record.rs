//! Normalising a raw result into its report line and catalog entry.
//!
//! Runs on the collector thread (or, in the benchmark's
//! `intern_on_worker` mode, on the worker under the global lock).

use crate::inputs::Job;
use crate::intern::Interner;
use crate::raw::{Analysis, DocFormat, MAX_WARNINGS, Outcome, OutcomeKind, Summary};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Longest error message kept, in bytes (cut at a character boundary).
const MAX_MESSAGE: usize = 1000;

/// A finished job as a worker hands it over: owned, not normalised.
#[derive(Debug)]
pub(crate) struct Done {
    /// Index into the job list.
    pub job: usize,
    /// The slot that ran it.
    pub slot: usize,
    /// The engine's answer.
    pub analysis: Analysis,
    /// When the slot started it.
    pub started: Instant,
    /// When the engine (or the isolated worker) answered.
    pub ended: Instant,
    /// Engine threads it was given.
    pub threads: usize,
}

/// One file in the batch's in-memory catalog; repeated strings are shared.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The directory part of the path as given (interned).
    pub dir: Arc<str>,
    /// The file name.
    pub name: Box<str>,
    /// The sniffed format.
    pub format: DocFormat,
    /// How it ended.
    pub outcome: OutcomeKind,
    /// The error kind, for errors (interned).
    pub error_kind: Option<Arc<str>>,
    /// The normalised error or crash message (interned).
    pub message: Option<Arc<str>>,
    /// Sheet names of a workbook (interned).
    pub sheets: Vec<Arc<str>>,
    /// The first [`MAX_WARNINGS`](crate::MAX_WARNINGS) warning texts,
    /// normalised like messages (interned).
    pub warnings: Vec<Arc<str>>,
    /// All warnings of the file, kept or not.
    pub warning_count: usize,
    /// File size in bytes.
    pub size: u64,
    /// Time the slot spent on it.
    pub elapsed: Duration,
}

impl Entry {
    /// The path as given, rebuilt from directory and name.
    pub fn path(&self) -> String {
        if self.dir.is_empty() {
            self.name.to_string()
        } else {
            format!("{}/{}", self.dir, self.name)
        }
    }
}

/// An error message without the file's own path in front (the record
/// names it already), on one line, at most [`MAX_MESSAGE`] bytes.
pub(crate) fn normalise_message(msg: &str, path: &str) -> String {
    let mut m = msg.trim();
    for prefix in [path, "cannot open: "] {
        if let Some(rest) = m.strip_prefix(prefix) {
            m = rest.trim_start_matches(':').trim_start();
        }
    }
    let mut out = String::with_capacity(m.len().min(MAX_MESSAGE));
    for (i, word) in m.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.len() > MAX_MESSAGE {
            let mut cut = MAX_MESSAGE;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            out.push('…');
            break;
        }
    }
    out
}

/// The outcome as written in the report: `"ok"`, `"timeout"`,
/// `{"error": kind, "message": m}` or `{"crashed": cause, "message": m}`.
struct OutcomeOut<'a>(&'a Outcome, Option<&'a str>);

impl Serialize for OutcomeOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let message = self.1.unwrap_or_default();
        match self.0 {
            Outcome::Ok => s.serialize_str("ok"),
            Outcome::Timeout => s.serialize_str("timeout"),
            Outcome::Error { kind, .. } => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("error", kind)?;
                m.serialize_entry("message", message)?;
                m.end()
            }
            Outcome::Crashed { cause, .. } => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("crashed", cause)?;
                m.serialize_entry("message", message)?;
                m.end()
            }
        }
    }
}

/// One report line.
#[derive(Serialize)]
struct RecordOut<'a> {
    path: &'a str,
    format: &'static str,
    size: u64,
    mtime: i64,
    outcome: OutcomeOut<'a>,
    summary: Option<&'a Summary>,
    warning_count: usize,
    warnings: Vec<&'a str>,
    elapsed_ms: f64,
    threads: usize,
}

/// Appends `done`'s report line (with its `\n`) to `line` and returns its
/// catalog entry, interning the repeated strings in `interner`.
pub(crate) fn normalise(
    job: &Job,
    done: &Done,
    interner: &mut Interner,
    line: &mut Vec<u8>,
) -> Entry {
    let a = &done.analysis;
    let message = match &a.outcome {
        Outcome::Error { message, .. } | Outcome::Crashed { message, .. } => {
            Some(normalise_message(message, &job.shown))
        }
        Outcome::Ok | Outcome::Timeout => None,
    };
    let warnings: Vec<Arc<str>> = a
        .warnings
        .iter()
        .take(MAX_WARNINGS)
        .map(|w| interner.intern(&normalise_message(w, &job.shown)))
        .collect();
    let elapsed = done.ended.saturating_duration_since(done.started);
    let rec = RecordOut {
        path: &job.shown,
        format: a.format.as_str(),
        size: job.size,
        mtime: job.mtime_ns,
        outcome: OutcomeOut(&a.outcome, message.as_deref()),
        summary: a.summary.as_ref(),
        warning_count: a.warning_count.max(warnings.len()),
        warnings: warnings.iter().map(|w| &**w).collect(),
        elapsed_ms: (elapsed.as_micros() as f64) / 1000.0,
        threads: done.threads,
    };
    let start = line.len();
    if serde_json::to_writer(&mut *line, &rec).is_err() {
        // Serialising plain data into a Vec cannot fail; keep the line whole
        // anyway if it ever did.
        line.truncate(start);
    } else {
        line.push(b'\n');
    }
    let (dir, name) = match job.shown.rsplit_once('/') {
        Some((d, n)) => (d, n),
        None => ("", job.shown.as_str()),
    };
    let sheets = match &a.summary {
        Some(Summary::Workbook(w)) => w.sheets.iter().map(|s| interner.intern(&s.name)).collect(),
        _ => Vec::new(),
    };
    Entry {
        dir: interner.intern(dir),
        name: name.into(),
        format: a.format,
        outcome: a.outcome.kind(),
        error_kind: match &a.outcome {
            Outcome::Error { kind, .. } => Some(interner.intern(kind)),
            _ => None,
        },
        message: message.map(|m| interner.intern(&m)),
        sheets,
        warning_count: a.warning_count.max(warnings.len()),
        warnings,
        size: job.size,
        elapsed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job() -> Job {
        Job {
            path: "d/a.xlsx".into(),
            shown: "d/a.xlsx".into(),
            size: 10,
            mtime_ns: 5,
        }
    }

    fn done(outcome: Outcome) -> Done {
        let t = Instant::now();
        Done {
            job: 0,
            slot: 0,
            analysis: Analysis::failed(DocFormat::Xlsx, outcome),
            started: t,
            ended: t + Duration::from_micros(1500),
            threads: 1,
        }
    }

    #[test]
    fn messages_lose_the_path_and_newlines() {
        assert_eq!(
            normalise_message("d/a.xlsx: bad\n  thing ", "d/a.xlsx"),
            "bad thing"
        );
        assert_eq!(
            normalise_message("cannot open: Permission denied (os error 13)", "x"),
            "Permission denied (os error 13)"
        );
        let long = "é".repeat(2000);
        let m = normalise_message(&long, "x");
        assert!(m.len() <= MAX_MESSAGE + 3 && m.ends_with('…'));
    }

    #[test]
    fn lines_and_entries() {
        let mut i = Interner::new();
        let mut line = Vec::new();
        let e = normalise(
            &job(),
            &done(Outcome::error("malformed", "d/a.xlsx: broken")),
            &mut i,
            &mut line,
        );
        let v: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v["path"], "d/a.xlsx");
        assert_eq!(v["outcome"]["error"], "malformed");
        assert_eq!(v["outcome"]["message"], "broken");
        assert_eq!(v["elapsed_ms"], 1.5);
        assert_eq!(v["mtime"], 5);
        assert!(v["summary"].is_null());
        assert_eq!(&*e.dir, "d");
        assert_eq!(e.path(), "d/a.xlsx");
        assert_eq!(e.message.as_deref(), Some("broken"));
        assert_eq!(line.last(), Some(&b'\n'));

        let mut line = Vec::new();
        normalise(&job(), &done(Outcome::Timeout), &mut i, &mut line);
        let v: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v["outcome"], "timeout");
        let mut line = Vec::new();
        let c = Outcome::Crashed {
            cause: "signal 6".into(),
            message: "SIGABRT".into(),
        };
        normalise(&job(), &done(c), &mut i, &mut line);
        let v: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v["outcome"]["crashed"], "signal 6");
        assert_eq!(v["outcome"]["message"], "SIGABRT");
    }
}
