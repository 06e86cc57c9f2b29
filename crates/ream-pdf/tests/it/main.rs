//! Integration tests for ream-pdf: small PDFs built by the test-only writer
//! in `writer.rs`, hostile inputs, every byte source, and the corpus.

// Test helpers (outside #[test] fns) may panic on broken fixtures.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod conformance;
mod crypt;
mod fixtures;
mod hostile;
mod limit_checks;
mod limits;
mod objindex;
mod sources;
mod write;
mod writer;
