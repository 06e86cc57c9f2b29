//! Integration tests of the XLSX reader.

mod conformance;
mod fixtures;
mod paths;
