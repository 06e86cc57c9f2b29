//! Integration tests of ream-write: what is written reads back with
//! ream-sheet and calamine, features land in the package, limits and bad
//! calls give errors naming the cell.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::type_complexity
)]

mod errors;
mod features;
mod roundtrip;
mod template;
mod util;
