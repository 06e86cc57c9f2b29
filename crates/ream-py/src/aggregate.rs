//! `ream.aggregate`: the `ream agg` engine (min/mean/max of a value per
//! key over a delimited file) into a `ream.Table`.

use crate::errors::{self, Location};
use crate::input::Source;
use crate::table::Table;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use ream_agg::{
    AggError, AggOptions, Aggregate, ErrorKind, Partial, aggregate_bytes, aggregate_bytes_range,
    aggregate_lines, aggregate_path, aggregate_path_range,
};

/// Aggregates the delimited file at `path` (str, os.PathLike, bytes or a
/// binary file object) like `ream agg`: one row per key, keys sorted by
/// their bytes, columns key (string), count (uint64), and min, mean, max
/// as exact decimals (decimal128(38, s): the texts `ream agg -f csv`
/// prints; the mean exact when it terminates within 6 decimals past the
/// key's scale, else rounded half away from zero there).
///
/// Options (keyword only): delimiter=";" (one ASCII character, or "\\t" /
/// "tab"; any but ";" gives RFC 4180 quoting), key_col=0 and value_col=1
/// (0-based fields; they must differ), header=False (skip the first line),
/// threads=0 (one per core; at most 1024). Values are decimal numbers
/// (12, -0.25, 1.5e3) of at most 18 significant digits; keys at most 100
/// bytes of UTF-8.
///
/// A bad delimiter or column raises ReamError (kind "usage"); a row
/// without the fields or with a bad value MalformedError naming its line,
/// with `offset` (bytes); a missing file FileNotFoundError. The GIL is
/// released while aggregating.
#[pyfunction]
#[pyo3(signature = (path, *, delimiter=";", key_col=0, value_col=1, header=false, threads=0))]
pub fn aggregate(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    delimiter: &str,
    key_col: i64,
    value_col: i64,
    header: bool,
    threads: i64,
) -> PyResult<Table> {
    let opts = agg_options(py, delimiter, key_col, value_col, header, threads)?;
    let source = Source::from_py(path)?;
    let path_text = source.path_text();
    let result = match source {
        Source::Path(p) => py.detach(|| aggregate_path(&p, &opts)),
        Source::Bytes(b) => py.detach(|| aggregate_bytes(&b, &opts)),
    };
    let agg = result.map_err(|e| agg_err(py, &e, path_text.as_deref()))?;
    to_table(py, &agg, path_text.as_deref())
}

/// The options of `ream.aggregate` and `_agg_partial`, checked.
fn agg_options(
    py: Python<'_>,
    delimiter: &str,
    key_col: i64,
    value_col: i64,
    header: bool,
    threads: i64,
) -> PyResult<AggOptions> {
    let delimiter = ream_agg::parse_delimiter(delimiter)
        .map_err(|m| errors::usage(py, format!("delimiter: {m}")))?;
    let index = |name: &str, v: i64, max: i64| {
        usize::try_from(v)
            .ok()
            .filter(|_| v <= max)
            .ok_or_else(|| errors::usage(py, format!("{name} = {v} is not in 0..={max}")))
    };
    Ok(AggOptions::default()
        .threads(index("threads", threads, ream_agg::MAX_THREADS as i64)?)
        .delimiter(delimiter)
        .key_col(index("key_col", key_col, i64::from(u32::MAX))?)
        .value_col(index("value_col", value_col, i64::from(u32::MAX))?)
        .header(header))
}

/// An aggregate as a one-batch `ream.Table`.
fn to_table(py: Python<'_>, agg: &Aggregate, path: Option<&str>) -> PyResult<Table> {
    let batch = ream_arrow::aggregate_batch(agg)
        .map_err(|e| errors::to_py(py, e.as_sheet_error(), path))?;
    Ok(Table::new(ream_arrow::Table {
        schema: batch.schema(),
        batches: vec![batch],
        warnings: Vec::new(),
    }))
}

/// Aggregates the lines of the input at `path` (str, os.PathLike, or the
/// whole input as bytes) that start in bytes `start..end` into an exact
/// partial state (bytes) for `_agg_merge` / `_agg_finish`: what
/// `ream.ray.aggregate` runs in each task. A range owns the lines that
/// start in it; only the range holding byte 0 skips a BOM and, with
/// `header`, the header line. Options as `ream.aggregate` (threads=1
/// here), plus max_key_memory (bytes, default 512 MiB, as `ream agg`). A
/// file with quoted fields (delimiter other than ";") cannot be cut: a
/// quote in a range that is not the whole file raises ReamError (kind
/// "usage"). Errors as `ream.aggregate`, lines and offsets counted in the
/// file. The GIL is released while aggregating.
#[pyfunction]
#[pyo3(signature = (path, start, end, *, delimiter=";", key_col=0, value_col=1, header=false, threads=1, max_key_memory=None))]
#[allow(clippy::too_many_arguments)]
pub fn _agg_partial<'py>(
    py: Python<'py>,
    path: &Bound<'py, PyAny>,
    start: u64,
    end: u64,
    delimiter: &str,
    key_col: i64,
    value_col: i64,
    header: bool,
    threads: i64,
    max_key_memory: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut opts = agg_options(py, delimiter, key_col, value_col, header, threads)?;
    if let Some(m) = max_key_memory {
        opts.max_key_memory = m;
    }
    let source = Source::from_py(path)?;
    let path_text = source.path_text();
    let state = match source {
        Source::Path(p) => py.detach(|| aggregate_path_range(&p, start, end, &opts)),
        Source::Bytes(b) => py.detach(|| aggregate_bytes_range(&b, start, end, &opts)),
    };
    let state = state.map_err(|e| agg_err(py, &e, path_text.as_deref()))?;
    Ok(PyBytes::new(py, &state.to_bytes()))
}

/// Aggregates `data`, whole lines cut out of a larger input (no BOM or
/// header skipped), into a partial state (bytes): what a `ream.ray`
/// task that read its byte range from remote storage runs. `base_line`
/// and `base_offset` are the lines and bytes before `data` in the input,
/// so errors name the input's line and byte offset (base_line 0 when not
/// known: the line is then counted from `data`). Options as
/// `_agg_partial`; a quote byte with a delimiter other than ";" raises
/// ReamError (kind "usage"). The GIL is released while aggregating.
#[pyfunction]
#[pyo3(signature = (data, *, base_line=0, base_offset=0, delimiter=";", key_col=0, value_col=1, max_key_memory=None))]
#[allow(clippy::too_many_arguments)]
pub fn _agg_lines<'py>(
    py: Python<'py>,
    data: &[u8],
    base_line: u64,
    base_offset: u64,
    delimiter: &str,
    key_col: i64,
    value_col: i64,
    max_key_memory: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut opts = agg_options(py, delimiter, key_col, value_col, false, 1)?;
    if let Some(m) = max_key_memory {
        opts.max_key_memory = m;
    }
    let state = py
        .detach(|| aggregate_lines(data, (base_line, base_offset), &opts).map(|p| p.to_bytes()))
        .map_err(|e| agg_err(py, &e, None))?;
    Ok(PyBytes::new(py, &state))
}

/// Merges partial states (a list of bytes from `_agg_partial`,
/// `_agg_lines` or `_agg_merge`) into one state (bytes), exactly, in any
/// order. A value that is not such a state raises ReamError (kind
/// "usage") naming the list index and byte offset; distinct keys that
/// need more than `max_key_memory` bytes (default 512 MiB, counted as
/// `ream agg` counts them) raise LimitExceededError.
#[pyfunction]
#[pyo3(signature = (states, *, max_key_memory=ream_agg::DEFAULT_MAX_KEY_MEMORY))]
pub fn _agg_merge<'py>(
    py: Python<'py>,
    states: Vec<Vec<u8>>,
    max_key_memory: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let merged = py.detach(|| {
        let mut total = Partial::default();
        for (i, s) in states.iter().enumerate() {
            let p = Partial::from_bytes(s).map_err(|e| (Some(i), e))?;
            total
                .merge_within(p, max_key_memory)
                .map_err(|e| (None, e))?;
        }
        Ok(total.to_bytes())
    });
    let merged = merged.map_err(|(i, e): (Option<usize>, AggError)| match i {
        Some(i) => errors::usage(py, format!("states[{i}]: {e}")),
        None => agg_err(py, &e, None),
    })?;
    Ok(PyBytes::new(py, &merged))
}

/// The `ream.Table` of a partial state (bytes): the same columns and rows
/// as `ream.aggregate` over all the lines the state holds. A value that
/// is not a state raises ReamError (kind "usage").
#[pyfunction]
pub fn _agg_finish(py: Python<'_>, state: Vec<u8>) -> PyResult<Table> {
    let agg = py
        .detach(|| Partial::from_bytes(&state).map(Partial::finish))
        .map_err(|e| errors::usage(py, e.to_string()))?;
    to_table(py, &agg, None)
}

/// The Python exception for an aggregation error: the `OSError` subclass
/// of an I/O error, else its kind's class with `offset` (none for usage
/// errors); the message names the line.
fn agg_err(py: Python<'_>, e: &AggError, path: Option<&str>) -> PyErr {
    if let (Some(io), Some(p)) = (e.io_error(), path) {
        return errors::io_to_py(io, p);
    }
    let offset = match e.kind() {
        ErrorKind::Io | ErrorKind::Usage => None,
        // Line 0: a limit of merged states, at no position.
        _ if e.line() == 0 => None,
        _ => Some(e.offset()),
    };
    errors::located(
        py,
        e.kind(),
        &e.to_string(),
        Location {
            path,
            offset,
            ..Location::default()
        },
    )
}
