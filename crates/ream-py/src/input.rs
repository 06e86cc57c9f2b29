//! Where a workbook comes from: a path (str or os.PathLike), bytes, or a
//! binary file object; and opening it with the GIL released.

use crate::errors;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use ream::io::Bytes;
use ream::sheet::{MapMode, OpenOptions, Workbook};
use std::path::PathBuf;

/// A workbook source taken from Python.
pub enum Source {
    /// A file on disk.
    Path(PathBuf),
    /// The file's bytes (from `bytes` or a file object's `read()`).
    Bytes(Vec<u8>),
}

impl Source {
    /// Reads `obj`: `bytes` are the file's contents; an object with a
    /// `read` method is read to its end (it must return bytes); anything
    /// else must be a str or os.PathLike path.
    pub fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Source> {
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(Source::Bytes(b.as_bytes().to_vec()));
        }
        if obj.hasattr("read")? {
            let data = obj.call_method0("read")?;
            let b = data.cast::<PyBytes>().map_err(|_| {
                PyTypeError::new_err(
                    "the file object's read() returned no bytes: open it in binary mode ('rb')",
                )
            })?;
            return Ok(Source::Bytes(b.as_bytes().to_vec()));
        }
        obj.extract::<PathBuf>().map(Source::Path).map_err(|_| {
            PyTypeError::new_err(format!(
                "path must be str, os.PathLike, bytes or a binary file object, not {}",
                obj.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })
    }

    /// The path as text, for messages and the errors' `path` attribute.
    pub fn path_text(&self) -> Option<String> {
        match self {
            Source::Path(p) => Some(p.display().to_string()),
            Source::Bytes(_) => None,
        }
    }

    /// Opens the workbook with `opts`, the GIL released; also returns
    /// the file's bytes (mapped or in memory, shared with the workbook). A
    /// missing or unreadable path raises the matching `OSError` subclass
    /// (`FileNotFoundError`, `IsADirectoryError`, `PermissionError`).
    pub fn open(self, py: Python<'_>, opts: &OpenOptions) -> PyResult<(Workbook, Bytes)> {
        let path = self.path_text();
        let bytes = match self {
            Source::Path(p) => open_file(&p, opts.map_mode)
                .map_err(|e| errors::io_to_py(&e, &p.display().to_string()))?,
            Source::Bytes(b) => Bytes::from_vec(b),
        };
        let src = bytes.clone();
        let opened = py.detach(move || Workbook::from_source(src, opts));
        let wb = opened.map_err(|e| errors::to_py(py, &e, path.as_deref()))?;
        Ok((wb, bytes))
    }
}

/// Maps (or reads) the file at `p`; a directory fails as `EISDIR` (the
/// map of a directory would fail with a less telling error).
fn open_file(p: &std::path::Path, mode: MapMode) -> std::io::Result<Bytes> {
    check_file(p)?;
    Bytes::open(p, mode)
}

/// Checks that `p` exists and is not a directory: the `io::Error` to
/// raise (ENOENT, EISDIR, EACCES, ...) before an engine opens it.
pub fn check_file(p: &std::path::Path) -> std::io::Result<()> {
    if std::fs::metadata(p)?.is_dir() {
        // EISDIR (21 on Linux and macOS), so errno and strerror are set.
        return Err(std::io::Error::from_raw_os_error(21));
    }
    Ok(())
}
