//! `ream.write_excel`: Arrow tables (anything with `__arrow_c_stream__`)
//! written as XLSX sheets by ream-write, one header row of column names
//! then one row per table row, sheets written in parallel.

use crate::errors::{self, Location};
use arrow_array::cast::AsArray;
use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchReader};
use arrow_schema::{DataType, TimeUnit};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods, PyDict};
use ream::write::{
    self as w, Cell, DateStyle, ErrorKind, SheetWriter, Value, WorkbookWriter, WriteOptions,
};
use std::sync::Mutex;

/// Days from Excel's 1900 epoch (serial 0 = 1899-12-30) to 1970-01-01.
const UNIX_EPOCH_SERIAL: f64 = 25_569.0;
/// Integers beyond this lose digits as doubles: they are written as text.
const EXACT_INT: i64 = 1 << 53;

/// Imports one table's C stream.
fn stream_of(obj: &Bound<'_, PyAny>) -> PyResult<RecordBatchStreamReader> {
    if !obj.hasattr("__arrow_c_stream__")? {
        return Err(PyTypeError::new_err(format!(
            "write_excel takes objects with __arrow_c_stream__ (pyarrow, polars, ream tables) \
             or a dict of them, not {}",
            obj.get_type().name()?
        )));
    }
    let capsule = obj.call_method0("__arrow_c_stream__")?;
    let capsule = capsule.cast::<PyCapsule>()?;
    let ptr = capsule.pointer_checked(Some(c"arrow_array_stream"))?;
    // SAFETY: the capsule is named "arrow_array_stream", so by the Arrow
    // PyCapsule interface it holds a valid FFI_ArrowArrayStream; from_raw
    // moves the struct out and marks the capsule's copy released, which
    // is how a consumer takes ownership under that protocol.
    #[allow(unsafe_code)]
    let stream = unsafe { FFI_ArrowArrayStream::from_raw(ptr.as_ptr().cast()) };
    RecordBatchStreamReader::try_new(stream)
        .map_err(|e| PyTypeError::new_err(format!("reading the Arrow stream: {e}")))
}

/// How a template is used: its file, sheet and start row.
struct TemplateArgs {
    path: std::path::PathBuf,
    opts: w::TemplateOptions,
}

/// Writes `data` (one table, or a dict of sheet name to table) to `path`.
#[pyfunction]
#[pyo3(signature = (data, path, *, sheet_name = "Sheet1", autofit = false, template = None, template_sheet = None, start_row = None))]
#[allow(clippy::too_many_arguments)]
pub fn write_excel(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    path: std::path::PathBuf,
    sheet_name: &str,
    autofit: bool,
    template: Option<std::path::PathBuf>,
    template_sheet: Option<&Bound<'_, PyAny>>,
    start_row: Option<u32>,
) -> PyResult<()> {
    let template = match template {
        None => {
            if template_sheet.is_some() || start_row.is_some() {
                return Err(PyTypeError::new_err(
                    "write_excel: template_sheet and start_row need template=",
                ));
            }
            None
        }
        Some(t) => {
            let mut opts = w::TemplateOptions::new();
            if let Some(s) = template_sheet {
                opts = if let Ok(i) = s.extract::<usize>() {
                    opts.sheet_index(i)
                } else if let Ok(n) = s.extract::<String>() {
                    opts.sheet_name(n)
                } else {
                    return Err(PyTypeError::new_err(
                        "write_excel: template_sheet is a sheet name (str) or 0-based index (int)",
                    ));
                };
            }
            if let Some(r) = start_row {
                opts = opts.start_row(r);
            }
            Some(TemplateArgs { path: t, opts })
        }
    };
    let mut tables: Vec<(String, RecordBatchStreamReader)> = Vec::new();
    if let Ok(d) = data.cast::<PyDict>() {
        for (k, v) in d.iter() {
            let name: String = k.extract().map_err(|_| {
                PyTypeError::new_err("write_excel: dict keys are sheet names (str)")
            })?;
            tables.push((name, stream_of(&v)?));
        }
    } else {
        tables.push((sheet_name.to_string(), stream_of(data)?));
    }
    let path_text = path.display().to_string();
    let result = py.detach(|| write_tables(tables, &path, autofit, template.as_ref()));
    result.map_err(|e| {
        let cell = e.cell().map(|(r, c)| ream::sheet::cell_name(r, c));
        errors::located(
            py,
            e.kind(),
            &e.to_string(),
            Location {
                path: Some(&path_text),
                sheet: e.sheet(),
                cell: cell.as_deref(),
                ..Location::default()
            },
        )
    })
}

fn write_tables(
    tables: Vec<(String, RecordBatchStreamReader)>,
    path: &std::path::Path,
    autofit: bool,
    template: Option<&TemplateArgs>,
) -> w::Result<()> {
    let mut wb = match template {
        None => WorkbookWriter::new(WriteOptions::default()),
        Some(t) => {
            let tpl = w::Template::open(&t.path)?;
            WorkbookWriter::with_template(WriteOptions::default(), &tpl, &t.opts)?
        }
    };
    // Serials are computed in the 1900 date system; a template's may be
    // 1904.
    let days = if wb.is_1904() { -1462.0 } else { 0.0 };
    let mut sheets = Vec::with_capacity(tables.len());
    let mut readers = Vec::with_capacity(tables.len());
    for (name, reader) in tables {
        let mut s = wb.add_sheet(&name)?;
        s.set_autofit(autofit);
        if template.is_none() {
            s.freeze_rows(1)?;
        }
        sheets.push(s);
        readers.push(Mutex::new(Some(reader)));
    }
    w::write_parallel(sheets, 0, |s| {
        let reader = readers
            .get(s.index())
            .and_then(|m| m.lock().unwrap_or_else(|p| p.into_inner()).take())
            .ok_or_else(|| w::Error::usage("no table for the sheet"))?;
        write_table(s, reader, days)
    })?;
    wb.save_path(path)?;
    Ok(())
}

/// The header row (at the sheet's start row), then every batch's rows;
/// date serials moved by `days`.
fn write_table(s: &mut SheetWriter, reader: RecordBatchStreamReader, days: f64) -> w::Result<()> {
    let schema = reader.schema();
    let header: Vec<Cell<'_>> = (0u32..)
        .zip(schema.fields().iter())
        .map(|(c, f)| Cell::new(c, Value::String(f.name())))
        .collect();
    let start = s.start_row();
    s.write_row(start, &header)?;
    let mut row = start.saturating_add(1);
    for batch in reader {
        let batch = batch.map_err(|e| {
            w::Error::new(
                ErrorKind::Malformed,
                format!("reading the Arrow stream: {e}"),
            )
        })?;
        row = write_batch(s, &batch, row, days)?;
    }
    Ok(())
}

/// One column's value at a row, owning any text it had to make.
enum Out<'a> {
    V(Value<'a>),
    Text(String),
}

fn write_batch(s: &mut SheetWriter, b: &RecordBatch, first: u32, days: f64) -> w::Result<u32> {
    let cols: Vec<&ArrayRef> = b.columns().iter().collect();
    for (name, c) in b.schema().fields().iter().zip(&cols) {
        check_type(c.data_type()).map_err(|t| {
            w::Error::new(
                ErrorKind::Unsupported,
                format!(
                    "column {:?} has Arrow type {t}, which write_excel does not write",
                    name.name()
                ),
            )
        })?;
    }
    // Dictionary columns: their keys once per batch, the values looked up.
    let cols: Vec<(&ArrayRef, Option<Vec<usize>>)> = cols
        .into_iter()
        .map(|c| {
            let keys = c.as_any_dictionary_opt().map(|d| d.normalized_keys());
            let values = c.as_any_dictionary_opt().map_or(c, |d| d.values());
            (values, keys)
        })
        .collect();
    let mut row = first;
    let mut outs: Vec<(u32, Out<'_>)> = Vec::with_capacity(cols.len());
    for i in 0..b.num_rows() {
        outs.clear();
        for (c, ((col, keys), whole)) in (0u32..).zip(cols.iter().zip(b.columns())) {
            if whole.is_null(i) {
                continue;
            }
            let at = keys.as_ref().map_or(Some(i), |k| k.get(i).copied());
            match at {
                Some(j) if !col.is_null(j) => outs.push((c, value_at(col, j))),
                _ => {}
            }
        }
        let cells: Vec<Cell<'_>> = outs
            .iter()
            .map(|(c, o)| match o {
                Out::V(Value::DateTime(x, st @ (DateStyle::Date | DateStyle::DateTime))) => {
                    Cell::new(*c, Value::DateTime(x + days, *st))
                }
                Out::V(v) => Cell::new(*c, *v),
                Out::Text(t) => Cell::new(*c, Value::String(t)),
            })
            .collect();
        if row >= w::limits::MAX_ROWS {
            return Err(w::Error::limit(
                "the table has more rows than a worksheet holds (1,048,575 after the header)",
            )
            .in_sheet(s.name()));
        }
        s.write_row(row, &cells)?;
        row += 1;
    }
    Ok(row)
}

/// `Err(type)` for Arrow types with no cell form.
fn check_type(t: &DataType) -> Result<(), String> {
    use DataType as D;
    match t {
        D::Null
        | D::Boolean
        | D::Int8
        | D::Int16
        | D::Int32
        | D::Int64
        | D::UInt8
        | D::UInt16
        | D::UInt32
        | D::UInt64
        | D::Float16
        | D::Float32
        | D::Float64
        | D::Utf8
        | D::LargeUtf8
        | D::Utf8View
        | D::Date32
        | D::Date64
        | D::Timestamp(..)
        | D::Time32(_)
        | D::Time64(_)
        | D::Duration(_)
        | D::Decimal128(..)
        | D::Decimal256(..) => Ok(()),
        D::Dictionary(_, v) if matches!(**v, D::Utf8 | D::LargeUtf8 | D::Utf8View) => Ok(()),
        other => Err(other.to_string()),
    }
}

fn num(x: f64) -> Out<'static> {
    if x.is_finite() {
        Out::V(Value::Number(x))
    } else {
        Out::V(Value::Error(ream::sheet::CellError::Num))
    }
}

fn int(i: i64) -> Out<'static> {
    if i.unsigned_abs() <= EXACT_INT as u64 {
        Out::V(Value::Number(i as f64))
    } else {
        Out::Text(i.to_string())
    }
}

/// Seconds since 1970 as a date-time serial.
fn datetime(secs: f64, style: DateStyle) -> Out<'static> {
    let serial = secs / 86_400.0 + UNIX_EPOCH_SERIAL;
    // Excel's 1900 system counts a 29 Feb 1900 that never was: serials
    // before 1 March 1900 are one lower; before 1900 there are none.
    let serial = if serial < 61.0 { serial - 1.0 } else { serial };
    if serial < 1.0 {
        return Out::Text(format!("{secs}s since 1970"));
    }
    Out::V(Value::DateTime(serial, style))
}

fn unit_secs(u: &TimeUnit) -> f64 {
    match u {
        TimeUnit::Second => 1.0,
        TimeUnit::Millisecond => 1e-3,
        TimeUnit::Microsecond => 1e-6,
        TimeUnit::Nanosecond => 1e-9,
    }
}

fn value_at<'a>(col: &'a ArrayRef, i: usize) -> Out<'a> {
    use DataType as D;
    match col.data_type() {
        D::Boolean => Out::V(Value::Bool(col.as_boolean().value(i))),
        D::Int8 => int(col.as_primitive::<Int8Type>().value(i).into()),
        D::Int16 => int(col.as_primitive::<Int16Type>().value(i).into()),
        D::Int32 => int(col.as_primitive::<Int32Type>().value(i).into()),
        D::Int64 => int(col.as_primitive::<Int64Type>().value(i)),
        D::UInt8 => int(col.as_primitive::<UInt8Type>().value(i).into()),
        D::UInt16 => int(col.as_primitive::<UInt16Type>().value(i).into()),
        D::UInt32 => int(col.as_primitive::<UInt32Type>().value(i).into()),
        D::UInt64 => {
            let v = col.as_primitive::<UInt64Type>().value(i);
            match i64::try_from(v) {
                Ok(x) => int(x),
                Err(_) => Out::Text(v.to_string()),
            }
        }
        D::Float16 => num(col.as_primitive::<Float16Type>().value(i).to_f64()),
        D::Float32 => num(col.as_primitive::<Float32Type>().value(i).into()),
        D::Float64 => num(col.as_primitive::<Float64Type>().value(i)),
        D::Utf8 => Out::V(Value::String(col.as_string::<i32>().value(i))),
        D::LargeUtf8 => Out::V(Value::String(col.as_string::<i64>().value(i))),
        D::Utf8View => Out::V(Value::String(col.as_string_view().value(i))),
        D::Date32 => {
            let d = col.as_primitive::<Date32Type>().value(i);
            datetime(f64::from(d) * 86_400.0, DateStyle::Date)
        }
        D::Date64 => {
            let ms = col.as_primitive::<Date64Type>().value(i);
            datetime(ms as f64 / 1000.0, DateStyle::DateTime)
        }
        D::Timestamp(u, _) => {
            let v = match u {
                TimeUnit::Second => col.as_primitive::<TimestampSecondType>().value(i),
                TimeUnit::Millisecond => col.as_primitive::<TimestampMillisecondType>().value(i),
                TimeUnit::Microsecond => col.as_primitive::<TimestampMicrosecondType>().value(i),
                TimeUnit::Nanosecond => col.as_primitive::<TimestampNanosecondType>().value(i),
            };
            let secs = v as f64 * unit_secs(u);
            let style = if secs.rem_euclid(86_400.0) == 0.0 {
                DateStyle::Date
            } else {
                DateStyle::DateTime
            };
            datetime(secs, style)
        }
        D::Time32(u) => {
            let v = match u {
                TimeUnit::Second => col.as_primitive::<Time32SecondType>().value(i),
                _ => col.as_primitive::<Time32MillisecondType>().value(i),
            };
            Out::V(Value::DateTime(
                f64::from(v) * unit_secs(u) / 86_400.0,
                DateStyle::Time,
            ))
        }
        D::Time64(u) => {
            let v = match u {
                TimeUnit::Microsecond => col.as_primitive::<Time64MicrosecondType>().value(i),
                _ => col.as_primitive::<Time64NanosecondType>().value(i),
            };
            Out::V(Value::DateTime(
                v as f64 * unit_secs(u) / 86_400.0,
                DateStyle::Time,
            ))
        }
        D::Duration(u) => {
            let v = match u {
                TimeUnit::Second => col.as_primitive::<DurationSecondType>().value(i),
                TimeUnit::Millisecond => col.as_primitive::<DurationMillisecondType>().value(i),
                TimeUnit::Microsecond => col.as_primitive::<DurationMicrosecondType>().value(i),
                TimeUnit::Nanosecond => col.as_primitive::<DurationNanosecondType>().value(i),
            };
            Out::V(Value::DateTime(
                v as f64 * unit_secs(u) / 86_400.0,
                DateStyle::Duration,
            ))
        }
        D::Decimal128(..) => {
            let text = col.as_primitive::<Decimal128Type>().value_as_string(i);
            text.parse::<f64>().map_or(Out::Text(text), num)
        }
        D::Decimal256(..) => {
            let text = col.as_primitive::<Decimal256Type>().value_as_string(i);
            text.parse::<f64>().map_or(Out::Text(text), num)
        }
        _ => Out::V(Value::Empty),
    }
}
