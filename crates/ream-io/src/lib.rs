//! Byte sources shared by every ream engine.
//!
//! Inputs are read as one contiguous `&[u8]`: either a read-only memory map
//! of a file or an owned buffer. [`Bytes`] is a cheap, clonable handle
//! (`Arc` inside) so that workers on many threads can borrow slices of the
//! same input without copying. This is the one crate that may use `unsafe`
//! (creating a memory map); every such block carries a `// SAFETY:` comment.

#![deny(unsafe_code)]

mod bytes;
mod error;

pub use bytes::{Bytes, MapMode};
pub use error::ErrorKind;
