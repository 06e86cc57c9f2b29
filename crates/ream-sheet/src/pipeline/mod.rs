//! The one read orchestration for a big part (an ODS `content.xml`) and
//! for the worksheets of an XLSX open (`sheet_pool`: one unit per sheet,
//! or per row chunk of a big sheet): how many threads run, how much XML is
//! in memory, and in which order results are joined. Nothing here knows
//! XML; a format module walks its syntax and hands units to the pool.
//!
//! * [`window`] — one inflater filling a sliding [`Window`](window::Window)
//!   of the part ahead of the reader: memory is the bytes not yet consumed
//!   plus one block, however big the part.
//! * [`pool`] — N parsers taking units (a whole table, a row chunk cut at a
//!   row start) from a bounded queue; the reading thread is one of them
//!   (it parses the oldest unit itself when the queue is full, and parses
//!   in place on the window when no other parser may run). Workers start
//!   only when a unit is handed over, so a small part stays on one thread.
//!   Memory: one window and, per parser, one unit and its result.
//! * [`join`] — results come back in any order and are joined in order.
//!
//! The thread count only sets how many parsers may run; with one, every
//! unit is parsed in place on the window (the constant-memory row stream,
//! `Workbook::rows`, is that case, one block of rows at a time).
//! [`inflow`] is the inflater's source: on the reading thread, or on one
//! helper thread a block or two ahead (also used by the XLSX row stream).

pub(crate) mod inflow;
pub(crate) mod join;
pub(crate) mod pool;
pub(crate) mod window;
