//! Integration tests of the XLSX reader.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod binary_rows;
mod chunks;
mod conformance;
mod fixtures;
mod formula_agreement;
mod formula_cells;
mod fuzz_regressions;
mod hostile;
mod limit_checks;
mod ods;
mod ods_stream;
mod ods_windowed;
mod paths;
mod rows;
mod xls;
mod xls_formulas;
mod xlsb;
mod xlsb_formulas;
mod zipkit;
