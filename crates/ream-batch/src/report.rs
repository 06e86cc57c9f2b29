//! The JSON Lines report: opening (truncate, or append when resuming),
//! reading back what a previous run recorded, dropping the records that a
//! resumed run replaces, writing whole lines.

use crate::error::{BatchError, Result};
use crate::inputs::FileId;
use serde::Deserialize;
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What a previous run recorded about one file (its last record).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Recorded {
    /// Size in bytes when it was analysed.
    pub size: u64,
    /// Modification time (ns) when it was analysed.
    pub mtime: i64,
    /// Whether its outcome was `ok`.
    pub ok: bool,
}

/// The recorded files by path as given.
pub(crate) type RecordedFiles = HashMap<String, Recorded>;

/// The fields of a record that resuming needs.
#[derive(Deserialize)]
struct KeyFields {
    path: String,
    size: u64,
    mtime: i64,
    #[serde(default)]
    outcome: serde_json::Value,
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

    /// Any writer (named `<writer>` in errors).
    pub(crate) fn writer(out: Box<dyn Write>) -> Report {
        Report {
            out,
            name: PathBuf::from("<writer>"),
        }
    }

    /// Creates (truncates) `path`, or with `resume` reads the files it
    /// already records, cuts off a partial last line and appends. Returns
    /// the report, the recorded files and the file's identity (so a walk
    /// can leave it out).
    pub(crate) fn open(path: &Path, resume: bool) -> Result<(Report, RecordedFiles, FileId)> {
        let io = |e| BatchError::io(path, e);
        let (file, done) = if resume {
            let mut f = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(path)
                .map_err(io)?;
            let done = read_records(&mut f, path)?;
            f.seek(SeekFrom::End(0)).map_err(io)?;
            (f, done)
        } else {
            (File::create(path).map_err(io)?, HashMap::new())
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

    /// Removes every record of the files in `paths` (they are analysed
    /// again), keeping the other lines in order. The report is rewritten
    /// beside itself and renamed over the old one, so an interruption
    /// leaves either the old report or the new one, never a mix; the new
    /// records are then appended to it.
    pub(crate) fn drop_records(&mut self, paths: &HashSet<String>) -> Result<()> {
        if paths.is_empty() {
            return Ok(());
        }
        let name = self.name.clone();
        let io = |e| BatchError::io(&name, e);
        self.out.flush().map_err(io)?;
        let mut tmp_name = name.clone().into_os_string();
        tmp_name.push(format!(".rewrite-{}", std::process::id()));
        let tmp = PathBuf::from(tmp_name);
        let tmp_io = |e| BatchError::io(&tmp, e);
        let mut reader = BufReader::with_capacity(1 << 16, File::open(&name).map_err(io)?);
        let mut writer = BufWriter::with_capacity(1 << 16, File::create(&tmp).map_err(tmp_io)?);
        let mut line = Vec::new();
        loop {
            line.clear();
            if reader.read_until(b'\n', &mut line).map_err(io)? == 0 {
                break;
            }
            let drop =
                serde_json::from_slice::<KeyFields>(&line).is_ok_and(|k| paths.contains(&k.path));
            if !drop {
                writer.write_all(&line).map_err(tmp_io)?;
            }
        }
        let file = writer
            .into_inner()
            .map_err(|e| BatchError::io(&tmp, e.into_error()))?;
        file.sync_all().map_err(tmp_io)?;
        std::fs::rename(&tmp, &name).map_err(io)?;
        let file = OpenOptions::new().append(true).open(&name).map_err(io)?;
        self.out = Box::new(file);
        Ok(())
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

/// Reads every complete line's record (the last one wins for a path); a
/// partial last line (an interrupted write) is cut off the file.
fn read_records(f: &mut File, path: &Path) -> Result<RecordedFiles> {
    let mut records = HashMap::new();
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
            let rec = Recorded {
                size: k.size,
                mtime: k.mtime,
                ok: k.outcome == "ok",
            };
            records.insert(k.path, rec);
        }
        offset += n as u64;
    }
    Ok(records)
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
        let a = Recorded {
            size: 1,
            mtime: 2,
            ok: true,
        };
        assert_eq!(keys.get("a"), Some(&a));
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

    #[test]
    fn dropped_records_leave_the_others_in_order() {
        let d = std::env::temp_dir().join(format!("ream-batch-drop-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("r.jsonl");
        let line = |path: &str, outcome: &str| {
            format!("{{\"path\":\"{path}\",\"size\":1,\"mtime\":2,\"outcome\":{outcome}}}\n")
        };
        let old = [
            line("a", "\"ok\""),
            line("b", "{\"error\":\"io\",\"message\":\"x\"}"),
            line("c", "\"ok\""),
            line("b", "\"timeout\""),
        ]
        .concat();
        std::fs::write(&p, &old).unwrap();
        let (mut r, recs, _) = Report::open(&p, true).unwrap();
        assert_eq!(recs.len(), 3);
        assert!(recs["a"].ok && !recs["b"].ok);
        r.drop_records(&HashSet::from(["b".to_string()])).unwrap();
        r.write(line("b", "\"ok\"").as_bytes()).unwrap();
        drop(r);
        let want = [
            line("a", "\"ok\""),
            line("c", "\"ok\""),
            line("b", "\"ok\""),
        ]
        .concat();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), want);
        let left: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file left");
    }
}
