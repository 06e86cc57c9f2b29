//! `ream.Table` and `ream.Batch`: Arrow data behind the PyCapsule
//! interface, with conveniences that import pyarrow, polars or pandas
//! only when called.

use crate::capsule;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, SchemaRef};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

/// A sheet read into Arrow: columns named and typed, every row in memory.
/// Implements `__arrow_c_stream__`, so `pyarrow.table(t)`,
/// `polars.DataFrame(t)` and duckdb take it without a copy.
#[pyclass(module = "ream", frozen)]
pub struct Table {
    inner: ream_arrow::Table,
}

impl Table {
    /// Wraps a converted sheet.
    pub fn new(inner: ream_arrow::Table) -> Table {
        Table { inner }
    }
}

#[pymethods]
impl Table {
    /// Number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.inner.num_rows()
    }
    /// Number of columns.
    #[getter]
    fn num_columns(&self) -> usize {
        self.inner.schema.fields().len()
    }
    /// Column names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        column_names(&self.inner.schema)
    }
    /// `[(name, type)]`, type one of null, bool, int64, float64, string,
    /// date, datetime, duration.
    #[getter]
    fn schema(&self) -> Vec<(String, String)> {
        schema_pairs(&self.inner.schema)
    }
    fn __len__(&self) -> usize {
        self.inner.num_rows()
    }
    fn __repr__(&self) -> String {
        repr("Table", self.inner.num_rows(), &self.inner.schema)
    }
    /// The Arrow C stream of the table's batches; `requested_schema` is
    /// ignored (the columns keep their types).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        capsule::stream_capsule(py, &self.inner.schema, self.inner.batches.clone())
    }
    /// The Arrow C schema of the table.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        capsule::schema_capsule(py, &self.inner.schema)
    }
    /// A `pyarrow.Table` (imports pyarrow, and not pandas: read through
    /// `pyarrow.RecordBatchReader.from_stream`, pyarrow 15+, where
    /// `pyarrow.table(t)` would first import pandas to rule out a
    /// DataFrame; older pyarrow goes through `pyarrow.table`).
    fn to_arrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let pa = slf.py().import("pyarrow")?;
        match pa.getattr("RecordBatchReader")?.getattr("from_stream") {
            Ok(from_stream) => from_stream.call1((slf,))?.call_method0("read_all"),
            Err(_) => pa.call_method1("table", (slf,)),
        }
    }
    /// A `polars.DataFrame` (imports polars; no pyarrow needed).
    fn to_polars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("polars")?.call_method1("DataFrame", (slf,))
    }
    /// A `pandas.DataFrame` (imports pyarrow and pandas).
    fn to_pandas<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Table::to_arrow(slf)?.call_method0("to_pandas")
    }
}

/// One record batch from `Workbook.iter_batches`. Implements
/// `__arrow_c_array__` (a struct array of the columns) and
/// `__arrow_c_schema__`.
#[pyclass(module = "ream", frozen)]
pub struct Batch {
    inner: RecordBatch,
}

impl Batch {
    /// Wraps a record batch.
    pub fn new(inner: RecordBatch) -> Batch {
        Batch { inner }
    }
}

#[pymethods]
impl Batch {
    /// Number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.inner.num_rows()
    }
    /// Column names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        column_names(&self.inner.schema())
    }
    /// `[(name, type)]`, as `Table.schema`.
    #[getter]
    fn schema(&self) -> Vec<(String, String)> {
        schema_pairs(&self.inner.schema())
    }
    fn __len__(&self) -> usize {
        self.inner.num_rows()
    }
    fn __repr__(&self) -> String {
        repr("Batch", self.inner.num_rows(), &self.inner.schema())
    }
    /// `(schema capsule, array capsule)` of the batch as a struct array;
    /// `requested_schema` is ignored.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        capsule::array_capsules(py, &self.inner)
    }
    /// The Arrow C schema of the batch.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        capsule::schema_capsule(py, &self.inner.schema())
    }
    /// A `pyarrow.RecordBatch` (imports pyarrow).
    fn to_arrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.py()
            .import("pyarrow")?
            .call_method1("record_batch", (slf,))
    }
}

fn column_names(schema: &SchemaRef) -> Vec<String> {
    schema.fields().iter().map(|f| f.name().clone()).collect()
}

fn schema_pairs(schema: &SchemaRef) -> Vec<(String, String)> {
    schema
        .fields()
        .iter()
        .map(|f| (f.name().clone(), type_name(f.data_type())))
        .collect()
}

/// The `dtypes=` name of an Arrow type ream produces (Arrow's own text
/// for any other).
fn type_name(t: &DataType) -> String {
    match t {
        DataType::Null => "null",
        DataType::Boolean => "bool",
        DataType::Int64 => "int64",
        DataType::Float64 => "float64",
        DataType::Utf8 => "string",
        DataType::Date32 => "date",
        DataType::Timestamp(_, _) => "datetime",
        DataType::Duration(_) => "duration",
        other => return other.to_string(),
    }
    .to_string()
}

fn repr(what: &str, rows: usize, schema: &SchemaRef) -> String {
    let cols: Vec<String> = schema_pairs(schema)
        .into_iter()
        .map(|(n, t)| format!("{n}: {t}"))
        .collect();
    format!("ream.{what}({rows} rows; {})", cols.join(", "))
}
