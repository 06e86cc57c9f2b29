//! ream for Python: the `ream._ream` extension module (PyO3, abi3, CPython
//! 3.9+), re-exported by the `ream` package (python/ream/__init__.py).
//!
//! Spreadsheets become [`table::Table`]s (Arrow record batches behind the
//! Arrow PyCapsule interface, so pyarrow, polars, pandas and duckdb take
//! them without copying and without ream importing any of them). The GIL
//! is released while workbooks are parsed and converted.
//!
//! The other engines: PDFs ([`pdf`]: info, pages, Info updates),
//! aggregation ([`aggregate`], `ream agg`) and batches ([`batch`],
//! `ream batch`, records streamed as dicts).

mod aggregate;
mod batch;
mod capsule;
mod channel;
mod errors;
mod input;
mod options;
mod pdf;
mod read;
mod table;
mod workbook;
mod write;

use pyo3::prelude::*;

/// The `ream._ream` extension module; `ream` re-exports all of it.
#[pymodule]
#[pyo3(name = "_ream")]
fn ream_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    m.add_class::<table::Table>()?;
    m.add_class::<table::Batch>()?;
    m.add_class::<workbook::Workbook>()?;
    m.add_class::<workbook::BatchReader>()?;
    m.add_function(wrap_pyfunction!(read::read_excel, m)?)?;
    m.add_function(wrap_pyfunction!(write::write_excel, m)?)?;
    m.add_function(wrap_pyfunction!(workbook::open, m)?)?;
    m.add_class::<batch::BatchIter>()?;
    m.add_function(wrap_pyfunction!(pdf::pdf_info, m)?)?;
    m.add_function(wrap_pyfunction!(pdf::pdf_pages, m)?)?;
    m.add_function(wrap_pyfunction!(pdf::pdf_set_info, m)?)?;
    m.add_function(wrap_pyfunction!(aggregate::aggregate, m)?)?;
    m.add_function(wrap_pyfunction!(aggregate::_agg_partial, m)?)?;
    m.add_function(wrap_pyfunction!(aggregate::_agg_lines, m)?)?;
    m.add_function(wrap_pyfunction!(aggregate::_agg_merge, m)?)?;
    m.add_function(wrap_pyfunction!(aggregate::_agg_finish, m)?)?;
    m.add_function(wrap_pyfunction!(batch::batch, m)?)?;
    m.add_function(wrap_pyfunction!(batch::_batch_worker, m)?)?;
    Ok(())
}
