//! ream for Python: the `ream` extension module (PyO3, abi3, CPython 3.9+).
//!
//! Spreadsheets become [`table::Table`]s (Arrow record batches behind the
//! Arrow PyCapsule interface, so pyarrow, polars, pandas and duckdb take
//! them without copying and without ream importing any of them). The GIL
//! is released while workbooks are parsed and converted.

mod capsule;
mod errors;
mod input;
mod options;
mod read;
mod table;
mod workbook;

use pyo3::prelude::*;

/// The `ream` module.
#[pymodule]
#[pyo3(name = "ream")]
fn ream_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    m.add_class::<table::Table>()?;
    m.add_class::<table::Batch>()?;
    m.add_class::<workbook::Workbook>()?;
    m.add_class::<workbook::BatchReader>()?;
    m.add_function(wrap_pyfunction!(read::read_excel, m)?)?;
    m.add_function(wrap_pyfunction!(workbook::open, m)?)?;
    Ok(())
}
