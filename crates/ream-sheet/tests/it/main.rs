//! Integration tests of the XLSX reader.

mod fixtures;
mod paths;
