//! Integration tests of the XLSX reader.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod chunks;
mod conformance;
mod fixtures;
mod hostile;
mod ods;
mod paths;
mod rows;
mod zipkit;
