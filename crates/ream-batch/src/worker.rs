//! The isolated worker's side: the pipe protocol and [`serve_worker`].
//!
//! The parent writes one JSON request per line on the worker's standard
//! input; the worker answers each with two JSON lines on standard output:
//! `{"format": "xlsx"}` as soon as the format is sniffed (so a crash in the
//! engine is still filed under its format), then `{"done": Analysis}`.
//! End of input ends the worker.

use crate::analyze::StandardAnalyzer;
use crate::raw::{Analysis, DocFormat, Outcome};
use serde::{Deserialize, Serialize};
use std::ffi::OsStr;
use std::io::{BufRead, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// One job for a worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Request {
    /// The file's path bytes in hex (paths need not be UTF-8).
    pub path_hex: String,
    /// Engine threads.
    pub threads: usize,
    /// Recognise the test-only files.
    pub test_engines: bool,
    /// Most first-column keys counted per text file.
    pub text_key_cap: usize,
}

/// One line of a worker's answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Answer {
    /// The sniffed format (sent before the engine runs).
    Format(DocFormat),
    /// The finished analysis.
    Done(Box<Analysis>),
}

/// Hex-encodes a path's bytes.
pub(crate) fn path_to_hex(p: &Path) -> String {
    p.as_os_str()
        .as_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Decodes [`path_to_hex`]; `None` for bad hex.
pub(crate) fn path_from_hex(s: &str) -> Option<PathBuf> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = s
        .as_bytes()
        .chunks(2)
        .map(|c| {
            std::str::from_utf8(c)
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect();
    bytes.map(|b| PathBuf::from(OsStr::from_bytes(&b)))
}

fn send(out: &mut dyn Write, a: &Answer) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(a).map_err(std::io::Error::from)?;
    line.push(b'\n');
    out.write_all(&line)?;
    out.flush()
}

/// Serves requests from `input` until it ends, answering on `output` (the
/// `ream batch-worker` command runs this on its standard input and
/// output). A request that does not parse is answered with a `worker`
/// error; only an I/O error on the pipes stops the loop early.
pub fn serve_worker(input: &mut dyn BufRead, output: &mut dyn Write) -> std::io::Result<()> {
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        if line.trim().is_empty() {
            continue;
        }
        let req = match serde_json::from_str::<Request>(&line) {
            Ok(r) => r,
            Err(e) => {
                let a = Analysis::failed(
                    DocFormat::Unknown,
                    Outcome::error("worker", format!("bad request: {e}")),
                );
                send(output, &Answer::Done(Box::new(a)))?;
                continue;
            }
        };
        let Some(path) = path_from_hex(&req.path_hex) else {
            let a = Analysis::failed(
                DocFormat::Unknown,
                Outcome::error("worker", "bad request: path_hex is not hex"),
            );
            send(output, &Answer::Done(Box::new(a)))?;
            continue;
        };
        let engines = StandardAnalyzer {
            test_engines: req.test_engines,
            text_key_cap: req.text_key_cap,
        };
        let mut sent: std::io::Result<()> = Ok(());
        let analysis = crate::analyze::guarded_with(&engines, &path, req.threads, &mut |f| {
            sent = send(output, &Answer::Format(f));
        });
        sent?;
        send(output, &Answer::Done(Box::new(analysis)))?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_paths_round_trip() {
        let p = Path::new(OsStr::from_bytes(b"dir/\xFFname\n.xlsx"));
        let h = path_to_hex(p);
        assert_eq!(path_from_hex(&h).as_deref(), Some(p));
        assert_eq!(path_from_hex("abc"), None);
        assert_eq!(path_from_hex("zz"), None);
    }

    #[test]
    fn serves_until_end_of_input() {
        let dir = std::env::temp_dir().join(format!("ream-batch-worker-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("a.csv");
        std::fs::write(&f, "a,b\n1,2\n").unwrap();
        let req = Request {
            path_hex: path_to_hex(&f),
            threads: 1,
            test_engines: false,
            text_key_cap: 10,
        };
        let input = format!("{}\n\nnot json\n", serde_json::to_string(&req).unwrap());
        let mut out = Vec::new();
        serve_worker(&mut input.as_bytes(), &mut out).unwrap();
        let lines: Vec<Answer> = out
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3);
        assert!(matches!(lines[0], Answer::Format(DocFormat::Text)));
        let Answer::Done(a) = &lines[1] else {
            panic!("{lines:?}")
        };
        assert_eq!(a.outcome, Outcome::Ok);
        let Answer::Done(a) = &lines[2] else {
            panic!("{lines:?}")
        };
        assert!(matches!(&a.outcome, Outcome::Error { kind, .. } if kind == "worker"));
    }
}
