//! Integration tests of ream-arrow: sheets written with rust_xlsxwriter
//! read back as Arrow, and the third-party corpus.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod batches;
mod common;
mod options;
mod smoke;
mod types;
