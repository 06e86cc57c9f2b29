//! Putting an appended revision on disk without ever losing the original.
//!
//! * Copy (the default): a temporary file in the destination's folder gets
//!   the original bytes (`copy_file_range`, else a user-space copy), then
//!   the revision; it is fsynced and renamed over the destination, and the
//!   folder is fsynced. Any failure removes the temporary file; a crash
//!   leaves at worst a stray temporary file and the destination untouched.
//! * In place: the original file is locked (`flock`, exclusive, not
//!   waiting), checked to be unchanged since it was opened (length and
//!   tail bytes), the revision is appended and fsynced; any failure
//!   truncates the file back to its original length. A crash between
//!   steps leaves the original or the original plus the whole revision; a
//!   crash in the middle of the append itself (one `write` of the
//!   revision, usually a few KiB) can leave a partial tail, which
//!   `ream pdf revisions` shows and truncation to the original length
//!   removes.
//!
//! [`Faults`] injects write errors, a full disk and "kills" between steps
//! for the crash-safety tests.

use super::update::RevisionBytes;
use crate::doc::Pdf;
use crate::error::{Error, Result};
use crate::xref::XrefKind;
use ream_io::fs::{self as rfs, CopyMethod};
use ream_io::{ByteSourceExt, ErrorKind};
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Where an update goes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target<'p> {
    /// A copy renamed over this path.
    Copy(&'p Path),
    /// Appended to this file (the one the document was opened from).
    InPlace(&'p Path),
}

/// A step of writing an update, in order.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// Copy: temporary file created. In place: file opened and locked.
    Opened,
    /// Copy: original bytes copied into the temporary file.
    Copied,
    /// The revision written (appended).
    Appended,
    /// The file fsynced.
    Synced,
    /// Copy: temporary file renamed over the destination.
    Renamed,
}

impl Step {
    /// Every step, in order.
    pub const ALL: [Step; 5] = [
        Step::Opened,
        Step::Copied,
        Step::Appended,
        Step::Synced,
        Step::Renamed,
    ];
}

/// Failures to inject while writing an update (tests of crash safety).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Faults {
    /// The revision's writer fails with an I/O error after this many bytes.
    pub fail_after: Option<u64>,
    /// The revision's writer fails with "no space left on device" after
    /// this many bytes.
    pub disk_full_after: Option<u64>,
    /// An I/O error right after this step (instead of going on).
    pub fail_at: Option<Step>,
    /// Stop right after this step as if the process were killed: return
    /// without cleaning up or rolling back (an `Io` error "stopped").
    pub stop_after: Option<Step>,
}

/// What an update wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateReport {
    /// The file written.
    pub path: PathBuf,
    /// Length of the original file.
    pub original_len: u64,
    /// Bytes appended (the new revision).
    pub appended: u64,
    /// Objects written (changed and new, not counting an xref stream).
    pub objects: usize,
    /// Syntax of the new xref section.
    pub xref_kind: XrefKind,
    /// How the original bytes were copied (`None` in place).
    pub copy: Option<CopyMethod>,
    /// True when appended in place.
    pub in_place: bool,
}

/// A writer that fails after a budget of bytes (with a generic I/O error or
/// a full-disk error), writing the bytes that fit first.
struct FaultyWriter<'w> {
    inner: &'w mut File,
    left: Option<u64>,
    full_disk: bool,
}

impl Write for FaultyWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let Some(left) = self.left else {
            return self.inner.write(buf);
        };
        if left == 0 {
            return Err(if self.full_disk {
                std::io::Error::new(
                    std::io::ErrorKind::StorageFull,
                    "no space left on device (injected)",
                )
            } else {
                std::io::Error::other("write failed (injected)")
            });
        }
        let n = (buf.len() as u64).min(left) as usize;
        let w = self.inner.write(buf.get(..n).unwrap_or_default())?;
        self.left = Some(left - w as u64);
        Ok(w)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn injected(step: Step) -> Error {
    Error::new(
        ErrorKind::Io,
        format!("I/O error after step {step:?} (injected)"),
    )
}

fn stopped(step: Step) -> Error {
    Error::new(
        ErrorKind::Io,
        format!("stopped after step {step:?} (injected)"),
    )
}

/// Checks a fault point: `Err` to fail or stop here.
fn point(f: &Faults, step: Step) -> std::result::Result<(), (Error, bool)> {
    if f.fail_at == Some(step) {
        return Err((injected(step), false));
    }
    if f.stop_after == Some(step) {
        return Err((stopped(step), true));
    }
    Ok(())
}

fn write_revision(file: &mut File, bytes: &[u8], f: &Faults) -> std::io::Result<()> {
    let (left, full_disk) = match (f.fail_after, f.disk_full_after) {
        (Some(a), Some(b)) => (Some(a.min(b)), b <= a),
        (Some(a), None) => (Some(a), false),
        (None, Some(b)) => (Some(b), true),
        (None, None) => (None, false),
    };
    let mut w = FaultyWriter {
        inner: file,
        left,
        full_disk,
    };
    w.write_all(bytes)?;
    w.flush()
}

/// Writes `rev` to `target`.
pub(crate) fn commit(
    pdf: &Pdf,
    target: Target<'_>,
    rev: &RevisionBytes,
    f: &Faults,
) -> Result<UpdateReport> {
    match target {
        Target::Copy(p) => copy_then_rename(pdf, p, rev, f),
        Target::InPlace(p) => in_place(pdf, p, rev, f),
    }
}

static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

/// A fresh temporary path in `dest`'s folder.
pub(crate) fn temp_path(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out.pdf".to_string());
    let seq = TEMP_SEQ.fetch_add(1, Ordering::Relaxed);
    let tmp = format!(".{name}.ream-tmp-{}-{seq}", std::process::id());
    match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.join(tmp),
        _ => PathBuf::from(tmp),
    }
}

/// Copies the document's original bytes into `out` (positioned at the
/// end): from its file with the kernel's help, else through its byte source.
fn copy_original(pdf: &Pdf, out: &mut File) -> Result<Option<CopyMethod>> {
    let len = pdf.len();
    if let Some(src) = pdf.path() {
        let s = File::open(src)?;
        check_unchanged(pdf, &s)?;
        return Ok(Some(rfs::copy_prefix(&s, out, len)?));
    }
    let mut at = 0u64;
    while at < len {
        let n = (len - at).min(4 << 20) as usize;
        let chunk = pdf.reader.src.read_vec(at, n)?;
        if chunk.is_empty() {
            return Err(Error::new(ErrorKind::Io, "source ended early"));
        }
        out.write_all(&chunk)?;
        at += chunk.len() as u64;
    }
    Ok(Some(CopyMethod::UserSpace))
}

/// Refuses when `file` is not the bytes the document was read from
/// (another length, or other bytes in its last 4 KiB).
fn check_unchanged(pdf: &Pdf, file: &File) -> Result<()> {
    let len = file.metadata()?.len();
    if len != pdf.len() {
        return Err(Error::new(
            ErrorKind::Io,
            format!(
                "the file changed since it was opened ({} bytes then, {len} now)",
                pdf.len()
            ),
        ));
    }
    let n = len.min(4096);
    let mut buf = vec![0u8; n as usize];
    read_exact_at(file, &mut buf, len - n)?;
    let ours = pdf.reader.src.read_vec(len - n, n as usize)?;
    if ours != buf {
        return Err(Error::new(
            ErrorKind::Io,
            "the file changed since it was opened (its last bytes differ)",
        ));
    }
    Ok(())
}

fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::io::Read;
    let mut f = file;
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}

fn copy_then_rename(
    pdf: &Pdf,
    dest: &Path,
    rev: &RevisionBytes,
    f: &Faults,
) -> Result<UpdateReport> {
    let tmp = temp_path(dest);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)?;
    let cleanup = |e: Error| {
        let _ = std::fs::remove_file(&tmp);
        e
    };
    let run = |file: &mut File| -> std::result::Result<Option<CopyMethod>, (Error, bool)> {
        point(f, Step::Opened)?;
        let copy = copy_original(pdf, file).map_err(|e| (e, false))?;
        point(f, Step::Copied)?;
        write_revision(file, &rev.bytes, f).map_err(|e| (Error::from(e), false))?;
        point(f, Step::Appended)?;
        file.sync_all().map_err(|e| (Error::from(e), false))?;
        point(f, Step::Synced)?;
        // Keep the original's permissions on the replacement.
        if let Some(src) = pdf.path()
            && let Ok(m) = std::fs::metadata(src)
        {
            let _ = std::fs::set_permissions(&tmp, m.permissions());
        }
        std::fs::rename(&tmp, dest).map_err(|e| (Error::from(e), false))?;
        point(f, Step::Renamed)?;
        Ok(copy)
    };
    let copy = match run(&mut file) {
        Ok(c) => c,
        // A simulated kill: leave everything as it is.
        Err((e, true)) => return Err(e),
        Err((e, false)) => return Err(cleanup(e)),
    };
    drop(file);
    let _ = rfs::sync_parent_dir(dest);
    Ok(UpdateReport {
        path: dest.to_path_buf(),
        original_len: pdf.len(),
        appended: rev.bytes.len() as u64,
        objects: rev.objects,
        xref_kind: rev.kind,
        copy,
        in_place: false,
    })
}

fn in_place(pdf: &Pdf, path: &Path, rev: &RevisionBytes, f: &Faults) -> Result<UpdateReport> {
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)?;
    rfs::lock_exclusive(&file)?;
    let original = pdf.len();
    let mut started = false;
    let mut run = |file: &mut File| -> std::result::Result<(), (Error, bool)> {
        point(f, Step::Opened)?;
        check_unchanged(pdf, file).map_err(|e| (e, false))?;
        file.seek(SeekFrom::Start(original))
            .map_err(|e| (Error::from(e), false))?;
        point(f, Step::Copied)?;
        started = true;
        write_revision(file, &rev.bytes, f).map_err(|e| (Error::from(e), false))?;
        point(f, Step::Appended)?;
        file.sync_all().map_err(|e| (Error::from(e), false))?;
        point(f, Step::Synced)?;
        point(f, Step::Renamed)?;
        Ok(())
    };
    let result = run(&mut file);
    match result {
        Ok(()) => {}
        Err((e, true)) => return Err(e),
        Err((e, false)) => {
            // Roll back to the original length, durably, once appending
            // has started (a file found changed is left alone).
            if started {
                let _ = file.set_len(original);
                let _ = file.sync_all();
            }
            let _ = rfs::unlock(&file);
            return Err(e);
        }
    }
    let _ = rfs::unlock(&file);
    Ok(UpdateReport {
        path: path.to_path_buf(),
        original_len: original,
        appended: rev.bytes.len() as u64,
        objects: rev.objects,
        xref_kind: rev.kind,
        copy: None,
        in_place: true,
    })
}
