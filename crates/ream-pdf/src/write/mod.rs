//! Writing PDFs: incremental updates (append-only, crash-safe) and the full
//! rewrite ("save as") with large sequential, optionally unbuffered writes.
//!
//! * [`Update`] (from [`Pdf::update`](crate::Pdf::update)) appends changed
//!   and new objects plus one cross-reference section of the same kind as
//!   the newest one (a table after a table or hybrid section, a stream
//!   after a stream) with `/Prev` and `/Size`. The original bytes are never
//!   changed; see [`Update::write_to`] (copy, fsync, atomic rename) and
//!   [`Update::write_in_place`] (append under an exclusive lock, truncate
//!   back on failure).
//! * [`Pdf::rewrite`](crate::Pdf::rewrite) writes the live objects,
//!   renumbered, through one 4 MiB aligned buffer, with object streams and
//!   `O_DIRECT` as options ([`RewriteOptions`]).

mod commit;
mod rewrite;
mod ser;
mod sink;
mod update;

pub use commit::{Faults, Step, UpdateReport};
pub use rewrite::{RewriteOptions, RewriteReport};
pub use ser::text_string;
pub use update::Update;
