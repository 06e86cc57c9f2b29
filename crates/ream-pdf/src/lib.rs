//! Random-access PDF reader for gigabyte files.
//!
//! [`Pdf::open`] reads the header, finds `startxref` in the tail and
//! follows the cross-reference sections along `/Prev` newest-first
//! (classic tables, xref streams, hybrid files), merging them into one
//! index. Nothing else is read until asked: objects are parsed lazily by
//! number, object streams are decoded on demand into a bounded LRU cache.
//! Bytes come from a [`ream_io::ByteSource`] chosen in [`PdfOptions`]
//! (whole mapping, sliding window, read-ahead buffer, plain reads).
//!
//! Broken files: when `startxref`, an xref section or an object offset is
//! wrong, the index is rebuilt by scanning for `N G obj` and `trailer`
//! ([`Pdf::warnings`] says so); [`PdfOptions::strict`] refuses instead.
//! Every stream filter runs under a decode budget, nesting is bounded,
//! and every limit is a field of [`PdfLimits`].
//!
//! Encrypted files (standard security handler: RC4 40 to 128 bits, AES-128
//! and AES-256 with revisions 2 to 6, crypt filters, clear-text metadata)
//! are decrypted lazily, object by object, with the empty password or
//! [`PdfOptions::password`] as user or owner password; [`Pdf::encryption`]
//! says how. Updates and rewrites keep the encryption. A file no password
//! opens is an `Encrypted` error naming the handler, V and R (or, with
//! [`PdfOptions::allow_encrypted`], opens for its structure only).
//!
//! Writes ([`write`](mod@write)): incremental updates that append a revision and
//! never touch the original bytes ([`Pdf::update`]), and full rewrites
//! through large sequential buffers ([`Pdf::rewrite`]).

mod crypt;
mod doc;
mod error;
mod filters;
#[cfg(feature = "fuzz")]
#[doc(hidden)]
pub mod fuzz_api;
mod index;
mod info;
mod lexer;
mod object;
mod objindex;
mod objstm;
mod options;
mod pages;
mod parser;
mod reader;
pub mod report;
mod revisions;
mod syntax;
mod text;
pub mod write;
mod xref;

pub use crypt::{Encryption, MAX_PASSWORD, Password};
pub use doc::Pdf;
pub use error::{Error, Result, Warning};
pub use info::InfoValue;
pub use object::{Dict, ObjRef, Object, Stream};
pub use objindex::{ObjKind, ObjSummary, ObjectIndex, ObjectIndexError};
pub use options::{PdfLimits, PdfOptions};
pub use pages::{Page, Rect};
/// Copy methods reported by [`UpdateReport`].
pub use ream_io::fs::CopyMethod;
pub use ream_io::{AUTO_WINDOW_FROM, ErrorKind, IoCounters, SourceKind, SourceOptions};
pub use report::InfoReport;
pub use revisions::Revision;
pub use text::decode_text;
pub use write::{RewriteOptions, RewriteReport, Update, UpdateReport};
pub use xref::{XrefEntry, XrefKind};
