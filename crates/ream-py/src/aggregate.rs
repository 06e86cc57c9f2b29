//! `ream.aggregate`: the `ream agg` engine (min/mean/max of a value per
//! key over a delimited file) into a `ream.Table`.

use crate::errors::{self, Location};
use crate::input::Source;
use crate::table::Table;
use pyo3::prelude::*;
use ream_agg::{AggError, AggOptions, ErrorKind, aggregate_bytes, aggregate_path};

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
    let delimiter = ream_agg::parse_delimiter(delimiter)
        .map_err(|m| errors::usage(py, format!("delimiter: {m}")))?;
    let index = |name: &str, v: i64, max: i64| {
        usize::try_from(v)
            .ok()
            .filter(|_| v <= max)
            .ok_or_else(|| errors::usage(py, format!("{name} = {v} is not in 0..={max}")))
    };
    let opts = AggOptions {
        threads: index("threads", threads, ream_agg::MAX_THREADS as i64)?,
        delimiter,
        key_col: index("key_col", key_col, i64::from(u32::MAX))?,
        value_col: index("value_col", value_col, i64::from(u32::MAX))?,
        header,
        ..AggOptions::default()
    };
    let source = Source::from_py(path)?;
    let path_text = source.path_text();
    let result = match source {
        Source::Path(p) => py.detach(|| aggregate_path(&p, &opts)),
        Source::Bytes(b) => py.detach(|| aggregate_bytes(&b, &opts)),
    };
    let agg = result.map_err(|e| agg_err(py, &e, path_text.as_deref()))?;
    let batch = ream_arrow::aggregate_batch(&agg)
        .map_err(|e| errors::to_py(py, e.as_sheet_error(), path_text.as_deref()))?;
    Ok(Table::new(ream_arrow::Table {
        schema: batch.schema(),
        batches: vec![batch],
        warnings: Vec::new(),
    }))
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
