//! The JSON Lines report: opening (truncate, or append when resuming),
//! reading back what a previous run recorded, writing whole lines.

use crate::error::{BatchError, Result};
use crate::inputs::FileId;
use serde::Deserialize;
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What identifies a recorded file: path as given, size, mtime (ns).
pub(crate) type Key = (String, u64, i64);

/// The fields of a record that resuming needs.
#[derive(Deserialize)]
struct KeyFields {
    path: String,
    size: u64,
    mtime: i64,
}

/// Where records go.
pub(crate) struct Report {
    out: Box<dyn Write>,
    name: PathBuf,
}

impl Report {
    /// Standard output.
    pub(crate) fn stdout() -> Report {
        Report {
            out: Box::new(std::io::stdout()),
            name: PathBuf::from("-"),
        }
    }

    /// Creates (truncates) `path`, or with `resume` reads the keys it
    /// already holds, cuts off a partial last line and appends. Returns the
    /// report, the recorded keys and the file's identity (so a walk can
    /// leave it out).
    pub(crate) fn open(path: &Path, resume: bool) -> Result<(Report, HashSet<Key>, FileId)> {
        let io = |e| BatchError::io(path, e);
        let (file, done) = if resume {
            let mut f = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(path)
                .map_err(io)?;
            let done = read_keys(&mut f, path)?;
            f.seek(SeekFrom::End(0)).map_err(io)?;
            (f, done)
        } else {
            (File::create(path).map_err(io)?, HashSet::new())
        };
        let m = file.metadata().map_err(io)?;
        Ok((
            Report {
                out: Box::new(file),
                name: path.to_path_buf(),
            },
            done,
            (m.dev(), m.ino()),
        ))
    }

    /// Writes `lines` (whole lines only) with one `write_all` and flushes.
    pub(crate) fn write(&mut self, lines: &[u8]) -> Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        self.out
            .write_all(lines)
            .and_then(|()| self.out.flush())
            .map_err(|e| BatchError::io(&self.name, e))
    }
}

/// Reads every complete line's key; a partial last line (an interrupted
/// write) is cut off the file.
fn read_keys(f: &mut File, path: &Path) -> Result<HashSet<Key>> {
    let mut keys = HashSet::new();
    let mut reader = BufReader::with_capacity(1 << 16, &mut *f);
    let mut line = Vec::new();
    let mut offset = 0u64;
    let mut number = 0u64;
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| BatchError::io(path, e))?;
        if n == 0 {
            break;
        }
        number += 1;
        if line.last() != Some(&b'\n') {
            drop(reader);
            f.set_len(offset).map_err(|e| BatchError::io(path, e))?;
            break;
        }
        if !line.trim_ascii().is_empty() {
            let k: KeyFields =
                serde_json::from_slice(&line).map_err(|e| BatchError::CorruptReport {
                    path: path.to_path_buf(),
                    line: number,
                    offset,
                    message: e.to_string(),
                })?;
            keys.insert((k.path, k.size, k.mtime));
        }
        offset += n as u64;
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ream-batch-report-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d.join(name)
    }

    #[test]
    fn resume_cuts_a_partial_line() {
        let p = tmp("partial.jsonl");
        let good = "{\"path\":\"a\",\"size\":1,\"mtime\":2,\"outcome\":\"ok\"}\n";
        std::fs::write(&p, format!("{good}\n{{\"path\":\"b\",\"si")).unwrap();
        let (mut r, keys, _) = Report::open(&p, true).unwrap();
        assert_eq!(keys.len(), 1);
        assert!(keys.contains(&("a".to_string(), 1, 2)));
        r.write(b"{\"path\":\"c\",\"size\":0,\"mtime\":0}\n")
            .unwrap();
        drop(r);
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(text.lines().count(), 3);
        assert!(text.ends_with("\"mtime\":0}\n"));
    }

    #[test]
    fn corrupt_line_names_line_and_offset() {
        let p = tmp("corrupt.jsonl");
        std::fs::write(&p, "{\"path\":\"a\",\"size\":1,\"mtime\":2}\nnot json\n").unwrap();
        let e = Report::open(&p, true).err().unwrap();
        let msg = e.to_string();
        assert!(msg.contains("line 2 (byte 32)"), "{msg}");
    }

    #[test]
    fn fresh_report_truncates_and_missing_dir_fails() {
        let p = tmp("fresh.jsonl");
        std::fs::write(&p, "old\n").unwrap();
        let (_, keys, _) = Report::open(&p, false).unwrap();
        assert!(keys.is_empty());
        assert_eq!(std::fs::read(&p).unwrap(), b"");
        let bad = tmp("no/such/dir.jsonl");
        let e = Report::open(&bad, true).err().unwrap();
        assert!(e.to_string().contains("dir.jsonl"), "{e}");
    }
}
