//! Read options from Python keyword arguments, shared by `read_excel`,
//! `Workbook.read` and `Workbook.iter_batches`.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use ream_arrow::{ColumnSel, DType, ErrorsAs, OnError, ReadOptions, parse_columns};

/// The keyword arguments [`read_options`] takes.
pub const NAMES: [&str; 8] = [
    "header_row",
    "skip_rows",
    "n_rows",
    "columns",
    "dtypes",
    "infer_rows",
    "on_error",
    "errors_as",
];

/// Builds [`ReadOptions`] from `kwargs` (see [`NAMES`]; defaults as in
/// [`ReadOptions::default`]). Unknown keywords are a `TypeError`, bad
/// values a `ValueError` or `TypeError` naming the option.
pub fn read_options(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<ReadOptions> {
    let mut o = ReadOptions::default();
    let Some(kwargs) = kwargs else {
        return Ok(o);
    };
    for (k, v) in kwargs.iter() {
        let key: String = k.extract()?;
        let named = |e: PyErr| -> PyErr {
            let py = v.py();
            let msg = format!("{key}: {}", e.value(py));
            if e.is_instance_of::<PyValueError>(py) {
                PyValueError::new_err(msg)
            } else {
                PyTypeError::new_err(msg)
            }
        };
        match key.as_str() {
            "header_row" => o.header_row = v.extract().map_err(named)?,
            "skip_rows" => o.skip_rows = v.extract().map_err(named)?,
            "n_rows" => o.n_rows = v.extract().map_err(named)?,
            "infer_rows" => o.infer_rows = v.extract().map_err(named)?,
            "columns" => o.columns = columns(&v).map_err(named)?,
            "dtypes" => o.dtypes = dtypes(&v).map_err(named)?,
            "on_error" => o.on_error = on_error(&v).map_err(named)?,
            "errors_as" => o.errors_as = errors_as(&v).map_err(named)?,
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "unexpected keyword argument '{key}' (expected one of {})",
                    NAMES.join(", ")
                )));
            }
        }
    }
    Ok(o)
}

/// `None`; a str of Excel letters and ranges (`"A:C,F"`); or a list of
/// column names (str) and 0-based indices (int).
fn columns(v: &Bound<'_, PyAny>) -> PyResult<Option<Vec<ColumnSel>>> {
    if v.is_none() {
        return Ok(None);
    }
    if let Ok(s) = v.cast::<PyString>() {
        let spec = s.to_cow()?;
        return parse_columns(&spec)
            .map(Some)
            .map_err(|e| PyValueError::new_err(e.message().to_string()));
    }
    let mut out = Vec::new();
    for item in v.try_iter()? {
        let item = item?;
        if let Ok(i) = item.extract::<usize>() {
            out.push(ColumnSel::Index(i));
        } else if let Ok(s) = item.extract::<String>() {
            out.push(ColumnSel::Name(s));
        } else {
            return Err(PyTypeError::new_err(
                "expected column names (str) or 0-based indices (int >= 0)",
            ));
        }
    }
    Ok(Some(out))
}

/// `None` or a dict of column name to type name.
fn dtypes(v: &Bound<'_, PyAny>) -> PyResult<Vec<(String, DType)>> {
    if v.is_none() {
        return Ok(Vec::new());
    }
    let d = v
        .cast::<PyDict>()
        .map_err(|_| PyTypeError::new_err("expected a dict of column name to type name"))?;
    let mut out = Vec::with_capacity(d.len());
    for (name, t) in d.iter() {
        let name: String = name.extract()?;
        let t: String = t.extract()?;
        let t = t
            .parse::<DType>()
            .map_err(|e| PyValueError::new_err(format!("column '{name}': {}", e.message())))?;
        out.push((name, t));
    }
    Ok(out)
}

/// `"raise"` or `"null"`.
fn on_error(v: &Bound<'_, PyAny>) -> PyResult<OnError> {
    match v.extract::<String>()?.as_str() {
        "raise" => Ok(OnError::Raise),
        "null" => Ok(OnError::Null),
        s => Err(PyValueError::new_err(format!(
            "'{s}' is not one of 'raise', 'null'"
        ))),
    }
}

/// `"null"` or `"string"`.
fn errors_as(v: &Bound<'_, PyAny>) -> PyResult<ErrorsAs> {
    match v.extract::<String>()?.as_str() {
        "null" => Ok(ErrorsAs::Null),
        "string" => Ok(ErrorsAs::String),
        s => Err(PyValueError::new_err(format!(
            "'{s}' is not one of 'null', 'string'"
        ))),
    }
}
