//! `ream.pdf_info`, `ream.pdf_pages` and `ream.pdf_set_info`: the PDF
//! engine, with the reports `ream pdf info --json` and
//! `ream pdf update --json` print (built by `ream_pdf::report`).

use crate::errors::{self, Location};
use crate::input::Source;
use crate::table::Table;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use ream_pdf::{InfoReport, Object, Pdf, PdfOptions};
use std::path::PathBuf;
use std::time::Instant;

/// The Python exception for a PDF error on `path`: its kind's class, with
/// `offset` and (for an error inside an object) `part` = `"object N G"`.
pub fn pdf_err(py: Python<'_>, e: &ream_pdf::Error, path: Option<&str>) -> PyErr {
    let part = e
        .object()
        .map(|r| format!("object {} {}", r.num, r.generation));
    errors::located(
        py,
        e.kind(),
        &e.to_string(),
        Location {
            path,
            part: part.as_deref(),
            offset: e.offset(),
            ..Location::default()
        },
    )
}

/// Opens the PDF in `source` with the GIL released, decrypting an
/// encrypted one with the empty password or `password` (as user, then
/// owner password); one that cannot be decrypted opens for its structure
/// and the callers refuse it. A missing path raises FileNotFoundError, a
/// directory IsADirectoryError.
fn open(py: Python<'_>, source: Source, password: Option<&str>) -> PyResult<Pdf> {
    let path = source.path_text();
    let opts = PdfOptions::new().allow_encrypted(true);
    let opts = match password {
        Some(p) => opts.password(p),
        None => opts,
    };
    let opened = match source {
        Source::Path(p) => {
            crate::input::check_file(&p)
                .map_err(|e| errors::io_to_py(&e, &p.display().to_string()))?;
            py.detach(|| Pdf::open(&p, &opts))
        }
        Source::Bytes(b) => py.detach(|| Pdf::from_bytes(b, &opts)),
    };
    opened.map_err(|e| pdf_err(py, &e, path.as_deref()))
}

/// EncryptedError for an encrypted document that could not be decrypted
/// (no or wrong password, unsupported handler), naming the handler, V
/// and R.
fn refuse_encrypted(py: Python<'_>, pdf: &Pdf, path: Option<&str>) -> PyResult<()> {
    if !pdf.is_locked() {
        return Ok(());
    }
    let why = format!(
        "the document is encrypted and cannot be decrypted: {}",
        pdf.encryption()
            .and_then(|e| e.error.clone())
            .unwrap_or_default()
    );
    Err(errors::located(
        py,
        ream_pdf::ErrorKind::Encrypted,
        &why,
        Location {
            path,
            ..Location::default()
        },
    ))
}

/// Issues each of the reader's warnings (repairs, lenient parses) as a
/// `ream.ReamWarning`.
fn warn(py: Python<'_>, pdf: &Pdf, path: Option<&str>) -> PyResult<()> {
    let texts: Vec<String> = pdf
        .warnings()
        .iter()
        .map(|w| match path {
            Some(p) => format!("{p}: {w}"),
            None => w.to_string(),
        })
        .collect();
    errors::warn_texts(py, &texts)
}

/// The document summary of the PDF at `path` (str, os.PathLike or bytes),
/// as a dict with the keys and values of `ream pdf info --json`: file,
/// bytes, version, pages, pages_verified, encrypted, encryption (None for
/// a clear file; else handler, v, r, key_bits, stream_method,
/// string_method, encrypt_metadata, permissions, opened_with, error),
/// repaired, objects,
/// info (Info entries: texts as str, names as "/Name"), xmp_bytes (None
/// without XMP), revisions (number, xref_offset, kind, start, size,
/// objects) and warnings (also issued as ReamWarning).
///
/// `verify_pages=True` counts pages by walking the page tree instead of
/// trusting `/Count`. An encrypted document is decrypted with the empty
/// password or `password` (tried as user, then owner password); when
/// neither opens it, EncryptedError names the handler, V and R. A broken
/// file raises MalformedError with
/// `offset` (and `part`, the object) where known; a missing file
/// FileNotFoundError. The GIL is released while the file is read.
#[pyfunction]
#[pyo3(signature = (path, *, password=None, verify_pages=false))]
pub fn pdf_info<'py>(
    py: Python<'py>,
    path: &Bound<'py, PyAny>,
    password: Option<&str>,
    verify_pages: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let source = Source::from_py(path)?;
    let path_text = source.path_text();
    let p = path_text.as_deref();
    let pdf = open(py, source, password)?;
    refuse_encrypted(py, &pdf, p)?;
    let file = p.unwrap_or("<bytes>");
    let (rep, text) = py.detach(|| {
        let rep = InfoReport::new(&pdf, verify_pages);
        let text = serde_json::to_string(&rep.to_json(&pdf, file));
        (rep, text)
    });
    if let Err(e) = &rep.pages {
        return Err(pdf_err(py, e, p));
    }
    let text = text.map_err(|e| errors::usage(py, format!("the info report as JSON: {e}")))?;
    warn(py, &pdf, p)?;
    py.import("json")?.call_method1("loads", (text,))
}

/// The pages of the PDF at `path` (str, os.PathLike or bytes) as a
/// `ream.Table`, one row per page, the columns of `ream pdf pages`:
/// number (uint64, from 1), object ("12 0"; None for an inline page),
/// media_box and crop_box (lists of four floats [x0, y0, x1, y1], own or
/// inherited; None when absent) and rotate (int64: 0, 90, 180 or 270).
///
/// The page tree is walked (no trust in `/Count`). Errors as `pdf_info`:
/// EncryptedError for an encrypted document that neither the empty
/// password nor `password` opens, MalformedError for a page tree that cannot be read. The reader's
/// warnings are issued as ReamWarning. The GIL is released while reading.
#[pyfunction]
#[pyo3(signature = (path, *, password=None))]
pub fn pdf_pages(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    password: Option<&str>,
) -> PyResult<Table> {
    let source = Source::from_py(path)?;
    let path_text = source.path_text();
    let p = path_text.as_deref();
    let pdf = open(py, source, password)?;
    refuse_encrypted(py, &pdf, p)?;
    let pages = py.detach(|| pdf.pages()).map_err(|e| pdf_err(py, &e, p))?;
    let batch =
        ream_arrow::pages_batch(&pages).map_err(|e| errors::to_py(py, e.as_sheet_error(), p))?;
    warn(py, &pdf, p)?;
    Ok(Table::new(ream_arrow::Table {
        schema: batch.schema(),
        batches: vec![batch],
        warnings: Vec::new(),
    }))
}

/// Sets Info entries of the PDF at `path` in one appended revision (an
/// incremental update: the original bytes are never changed), like
/// `ream pdf update --set-info`. `info` maps keys ("Title"; a leading "/"
/// is dropped; no blanks) to str values, or to None to remove the key.
///
/// Exactly one destination: `out=PATH` writes a copy of the file with the
/// revision appended (written beside `out`, fsynced and renamed into
/// place), `in_place=True` appends to `path` itself under an exclusive
/// lock (any failure truncates it back). Neither or both, an empty `info`
/// or a bad key raise ReamError (kind "usage"); a value that is not str or
/// None raises TypeError. An encrypted document keeps its encryption (the
/// new values are encrypted with its key); `password` opens it when the
/// empty password does not, else EncryptedError. Returns the dict of
/// `ream pdf update --json`: file, original_bytes, appended_bytes,
/// objects, xref, in_place, copy, seconds. The GIL is released while
/// writing.
#[pyfunction]
#[pyo3(signature = (path, info, *, out=None, in_place=false, password=None))]
pub fn pdf_set_info<'py>(
    py: Python<'py>,
    path: PathBuf,
    info: &Bound<'py, PyDict>,
    out: Option<PathBuf>,
    in_place: bool,
    password: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let dest = match (&out, in_place) {
        (Some(_), true) => {
            return Err(errors::usage(
                py,
                "give either out= or in_place=True, not both",
            ));
        }
        (None, false) => {
            return Err(errors::usage(
                py,
                "give out=PATH (a new file) or in_place=True (append to path)",
            ));
        }
        (o, _) => o.clone(),
    };
    let entries = info_entries(py, info)?;
    let path_text = path.display().to_string();
    let pdf = open(py, Source::Path(path), password)?;
    refuse_encrypted(py, &pdf, Some(&path_text))?;
    let written = py.detach(|| {
        let mut u = pdf.update();
        for (k, v) in &entries {
            match v {
                Some(v) => u.set_info(k, v),
                None => u.set_info_object(k, Object::Null),
            };
        }
        let t0 = Instant::now();
        let rep = match &dest {
            Some(d) => u.write_to(d),
            None => u.write_in_place(),
        }?;
        let v = ream_pdf::report::update_json(&rep, t0.elapsed().as_secs_f64());
        Ok::<_, ream_pdf::Error>(serde_json::to_string(&v))
    });
    let shown = dest
        .as_ref()
        .map_or(path_text.clone(), |d| d.display().to_string());
    let text = written
        .map_err(|e| pdf_err(py, &e, Some(&shown)))?
        .map_err(|e| errors::usage(py, format!("the update report as JSON: {e}")))?;
    warn(py, &pdf, Some(&path_text))?;
    py.import("json")?.call_method1("loads", (text,))
}

/// The `(key, value)` pairs of `info`, keys normalised; values None
/// remove the key.
fn info_entries(
    py: Python<'_>,
    info: &Bound<'_, PyDict>,
) -> PyResult<Vec<(String, Option<String>)>> {
    if info.is_empty() {
        return Err(errors::usage(py, "nothing to update: info is empty"));
    }
    let mut entries = Vec::with_capacity(info.len());
    for (k, v) in info.iter() {
        let key: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err("info keys must be str"))?;
        let norm = ream_pdf::report::info_key(&key).ok_or_else(|| {
            errors::usage(
                py,
                format!("info key {key:?}: bad key (empty or with blanks)"),
            )
        })?;
        let value = if v.is_none() {
            None
        } else {
            let s = v
                .cast::<PyString>()
                .map_err(|_| PyTypeError::new_err(format!("info[{key:?}] must be str or None")))?;
            Some(s.to_cow()?.into_owned())
        };
        entries.push((norm.to_string(), value));
    }
    Ok(entries)
}
