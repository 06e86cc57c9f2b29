//! The Arrow PyCapsule interface: schemas, arrays and streams as capsules
//! holding arrow-rs's C data interface structs.
//!
//! Each capsule owns its struct; a consumer moves the struct out (and
//! nulls its `release`), and a capsule dropped unconsumed releases it
//! (the structs' `Drop` calls `release` when it is set).

use arrow_array::ffi::to_ffi;
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{Array, RecordBatch, RecordBatchIterator, StructArray};
use arrow_schema::SchemaRef;
use arrow_schema::ffi::FFI_ArrowSchema;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

/// An `arrow_schema` capsule for `schema` (a struct type whose fields are
/// the columns).
pub fn schema_capsule<'py>(py: Python<'py>, schema: &SchemaRef) -> PyResult<Bound<'py, PyCapsule>> {
    let ffi = FFI_ArrowSchema::try_from(schema.as_ref())
        .map_err(|e| PyValueError::new_err(format!("exporting the Arrow schema: {e}")))?;
    PyCapsule::new_with_value(py, ffi, c"arrow_schema")
}

/// An `arrow_array_stream` capsule streaming `batches` (cheap clones:
/// the columns' buffers are shared, not copied).
pub fn stream_capsule<'py>(
    py: Python<'py>,
    schema: &SchemaRef,
    batches: Vec<RecordBatch>,
) -> PyResult<Bound<'py, PyCapsule>> {
    let reader = RecordBatchIterator::new(batches.into_iter().map(Ok), schema.clone());
    let ffi = FFI_ArrowArrayStream::new(Box::new(reader));
    PyCapsule::new_with_value(py, ffi, c"arrow_array_stream")
}

/// The `(arrow_schema, arrow_array)` capsule pair of one record batch,
/// exported as a struct array.
pub fn array_capsules<'py>(py: Python<'py>, batch: &RecordBatch) -> PyResult<Bound<'py, PyTuple>> {
    let data = StructArray::from(batch.clone()).into_data();
    let (array, schema) = to_ffi(&data)
        .map_err(|e| PyValueError::new_err(format!("exporting the Arrow batch: {e}")))?;
    let schema = PyCapsule::new_with_value(py, schema, c"arrow_schema")?;
    let array = PyCapsule::new_with_value(py, array, c"arrow_array")?;
    PyTuple::new(py, [schema.into_any(), array.into_any()])
}
