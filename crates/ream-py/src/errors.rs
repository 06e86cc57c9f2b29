//! Exceptions and warnings: ream's error kinds as Python classes, with
//! the location of the error as attributes.

use pyo3::create_exception;
use pyo3::exceptions::{
    PyException, PyFileNotFoundError, PyIsADirectoryError, PyNotADirectoryError, PyOSError,
    PyPermissionError, PyUserWarning,
};
use pyo3::prelude::*;
use ream::sheet::{ErrorKind, cell_name};
use ream_arrow::Warning;
use std::ffi::CString;

create_exception!(
    ream,
    ReamError,
    PyException,
    "A file ream cannot read, or a request it cannot meet. Attributes: kind (malformed, unsupported, limit_exceeded, encrypted, usage, io), path, part, sheet, cell (A1 style), offset (bytes): None where not known. Usage errors (unknown sheet or column, a value that does not fit the asked dtype) are ReamError itself."
);
create_exception!(
    ream,
    MalformedError,
    ReamError,
    "The file breaks its format's rules (truncated, corrupt, inconsistent)."
);
create_exception!(
    ream,
    LimitExceededError,
    ReamError,
    "A resource limit (size, inflate ratio, cell count, depth) was exceeded."
);
create_exception!(
    ream,
    UnsupportedFormatError,
    ReamError,
    "Not a format ream reads, or a feature of it that ream does not implement."
);
create_exception!(
    ream,
    EncryptedError,
    ReamError,
    "The file is encrypted or password-protected."
);
create_exception!(
    ream,
    ReamWarning,
    PyUserWarning,
    "Something a read changed without failing (error cells or bad values read as null)."
);
create_exception!(
    ream,
    MixedTypesWarning,
    PyUserWarning,
    "A column mixing types was read as string; every value is kept, as text."
);

/// Adds the exception and warning classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ReamError", py.get_type::<ReamError>())?;
    m.add("MalformedError", py.get_type::<MalformedError>())?;
    m.add("LimitExceededError", py.get_type::<LimitExceededError>())?;
    m.add(
        "UnsupportedFormatError",
        py.get_type::<UnsupportedFormatError>(),
    )?;
    m.add("EncryptedError", py.get_type::<EncryptedError>())?;
    m.add("ReamWarning", py.get_type::<ReamWarning>())?;
    m.add("MixedTypesWarning", py.get_type::<MixedTypesWarning>())?;
    Ok(())
}

/// The Python exception for a ream error on `path` (None for in-memory
/// input): the class of its kind (an `OSError` for I/O), with `kind`,
/// `path`, `part`, `sheet`, `cell` and `offset` set.
pub fn to_py(py: Python<'_>, e: &ream::sheet::Error, path: Option<&str>) -> PyErr {
    let cell = e.cell().map(|(r, c)| cell_name(r, c));
    located(
        py,
        e.kind(),
        &e.to_string(),
        Location {
            path,
            part: e.part(),
            sheet: e.sheet(),
            cell: cell.as_deref(),
            offset: e.offset(),
        },
    )
}

/// Where an error happened, as the exception attributes give it; `None`
/// where not known.
#[derive(Debug, Default, Clone, Copy)]
pub struct Location<'a> {
    /// The file.
    pub path: Option<&'a str>,
    /// The part of the file: a ZIP member, or a PDF object (`object 12 0`).
    pub part: Option<&'a str>,
    /// The sheet.
    pub sheet: Option<&'a str>,
    /// The cell, A1 style.
    pub cell: Option<&'a str>,
    /// The byte offset.
    pub offset: Option<u64>,
}

/// The Python exception of error kind `kind` with `message` (prefixed
/// with the path when there is one) and the attributes of `at`.
pub fn located(py: Python<'_>, kind: ErrorKind, message: &str, at: Location<'_>) -> PyErr {
    let msg = match at.path {
        Some(p) => format!("{p}: {message}"),
        None => message.to_string(),
    };
    let err = match kind {
        ErrorKind::Io => PyOSError::new_err(msg),
        ErrorKind::Malformed => MalformedError::new_err(msg),
        ErrorKind::LimitExceeded => LimitExceededError::new_err(msg),
        ErrorKind::Unsupported => UnsupportedFormatError::new_err(msg),
        ErrorKind::Encrypted => EncryptedError::new_err(msg),
        // Usage, and any kind added later: the base class.
        _ => ReamError::new_err(msg),
    };
    let value = err.value(py);
    let attrs: [(&str, Option<Py<PyAny>>); 6] = [
        (
            "kind",
            Some(
                kind.as_str()
                    .into_pyobject(py)
                    .map(|s| s.into_any().unbind())
                    .unwrap_or_else(|_| py.None()),
            ),
        ),
        ("path", at.path.map(|p| str_obj(py, p))),
        ("part", at.part.map(|p| str_obj(py, p))),
        ("sheet", at.sheet.map(|s| str_obj(py, s))),
        ("cell", at.cell.map(|c| str_obj(py, c))),
        (
            "offset",
            at.offset
                .and_then(|o| o.into_pyobject(py).ok())
                .map(|o| o.into_any().unbind()),
        ),
    ];
    for (name, v) in attrs {
        // Setting an attribute on a fresh exception instance cannot fail
        // short of memory exhaustion; the error is still raised without it.
        let _ = value.setattr(name, v.unwrap_or_else(|| py.None()));
    }
    err
}

/// A usage error (ReamError, kind `usage`) with `message`.
pub fn usage(py: Python<'_>, message: impl Into<String>) -> PyErr {
    to_py(
        py,
        &ream::sheet::Error::new(ErrorKind::Usage, message),
        None,
    )
}

/// A Python `str` object.
fn str_obj(py: Python<'_>, s: &str) -> Py<PyAny> {
    pyo3::types::PyString::new(py, s).into_any().unbind()
}

/// The `OSError` subclass for an error opening `path`, with `errno`,
/// `strerror` and `filename` set like Python's own `open()`.
pub fn io_to_py(e: &std::io::Error, path: &str) -> PyErr {
    use std::io::ErrorKind as K;
    let errno = e.raw_os_error().unwrap_or(0);
    // The OS text without Rust's " (os error N)" suffix, as Python prints it.
    let text = e.to_string();
    let text = match text.rfind(" (os error ") {
        Some(i) => text[..i].to_string(),
        None => text,
    };
    let args = (errno, text, path.to_string());
    match e.kind() {
        K::NotFound => PyFileNotFoundError::new_err(args),
        K::PermissionDenied => PyPermissionError::new_err(args),
        K::IsADirectory => PyIsADirectoryError::new_err(args),
        K::NotADirectory => PyNotADirectoryError::new_err(args),
        _ => PyOSError::new_err(args),
    }
}

/// Issues `warnings` as Python warnings: [`MixedTypesWarning`] for mixed
/// columns, [`ReamWarning`] for the others. Under `-W error` the first
/// one raised becomes the error.
pub fn warn_all(py: Python<'_>, warnings: &[Warning]) -> PyResult<()> {
    for w in warnings {
        let category = match w {
            Warning::MixedTypes { .. } => py.get_type::<MixedTypesWarning>(),
            _ => py.get_type::<ReamWarning>(),
        };
        let text = CString::new(w.to_string().replace('\0', " ")).unwrap_or_default();
        PyErr::warn(py, category.as_any(), &text, 1)?;
    }
    Ok(())
}

/// Issues each of `texts` as a [`ReamWarning`].
pub fn warn_texts(py: Python<'_>, texts: &[String]) -> PyResult<()> {
    let category = py.get_type::<ReamWarning>();
    for t in texts {
        let text = CString::new(t.replace('\0', " ")).unwrap_or_default();
        PyErr::warn(py, category.as_any(), &text, 1)?;
    }
    Ok(())
}
