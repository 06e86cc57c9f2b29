//! The RFC 4180 reader: used when fields are quoted (any delimiter but
//! `;`) and the input holds a quote byte. Serial, through the `csv` crate:
//! a quoted field may hold delimiters and line breaks, which the newline
//! chunking of the parallel path cannot see.

use crate::error::{AggError, Fault, Problem};
use crate::line::{check_fields, show_byte};
use crate::merge::Merger;
use crate::options::AggOptions;
use std::cell::RefCell;
use std::io::Read;
use std::rc::Rc;

/// Where the reader starts in the whole input: byte offset and the number
/// of lines before it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Origin {
    pub offset: u64,
    pub lines: u64,
}

/// The bytes the `csv` reader pulled from the input, from `start` on:
/// where each record really starts (after empty lines, which `csv` skips
/// silently) and which line it is on.
#[derive(Default)]
struct Seen {
    bytes: Vec<u8>,
    start: u64,
}

/// A reader that keeps a copy of what it hands out in a shared [`Seen`].
struct Tap<R> {
    inner: R,
    seen: Rc<RefCell<Seen>>,
}

impl<R: Read> Read for Tap<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.seen
            .borrow_mut()
            .bytes
            .extend_from_slice(buf.get(..n).unwrap_or_default());
        Ok(n)
    }
}

/// Dead bytes kept in [`Seen`] before they are dropped (amortises the move).
const DROP_AFTER: usize = 1 << 16;

/// Aggregates the records of `r` into `merger`; `r` starts at `origin`
/// of the input, and `header` skips its first record. Empty lines are
/// counted; errors and skipped rows name the record's first line and byte.
pub(crate) fn aggregate(
    r: impl Read,
    origin: Origin,
    header: bool,
    opts: &AggOptions,
    merger: &mut Merger,
) -> Result<(), AggError> {
    let seen = Rc::new(RefCell::new(Seen::default()));
    let tap = Tap {
        inner: r,
        seen: Rc::clone(&seen),
    };
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(opts.delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(tap);
    let mut rec = csv::ByteRecord::new();
    // Lines before byte `done` (relative to the reader), which is where
    // the next record's gap of empty lines starts.
    let (mut lines, mut done) = (0u64, 0u64);
    let mut first = true;
    loop {
        let more = rdr.read_byte_record(&mut rec).map_err(|e| {
            let msg = format!(
                "line {}: reading the input failed: {e}",
                origin.lines + lines + 1
            );
            match e.into_kind() {
                csv::ErrorKind::Io(io) => AggError::io(msg, io),
                _ => AggError::io(msg.clone(), std::io::Error::other(msg)),
            }
        })?;
        let end = rdr.position().byte();
        let (blank, lead, nl) = {
            let s = seen.borrow();
            let raw = |a: u64, b: u64| {
                let (a, b) = ((a - s.start) as usize, (b - s.start) as usize);
                s.bytes.get(a..b).unwrap_or_default()
            };
            let part = raw(done, end);
            let lead = part
                .iter()
                .take_while(|b| matches!(b, b'\r' | b'\n'))
                .count();
            let lead = if more { lead } else { part.len() };
            let gap = part.get(..lead).unwrap_or_default();
            let gap_nl = memchr::memchr_iter(b'\n', gap).count() as u64;
            // A gap that starts inside a line (after the `\r` of a `\r\n`
            // the record ended with) closes that line first.
            let inside = done > 0 && raw(done - 1, done).first() != Some(&b'\n');
            let blank = gap_nl.saturating_sub(u64::from(inside && gap_nl > 0));
            (
                blank,
                lead as u64,
                memchr::memchr_iter(b'\n', part).count() as u64,
            )
        };
        for _ in 0..blank {
            merger.empty_line();
        }
        if !more {
            break;
        }
        let gap_lines = {
            let s = seen.borrow();
            let a = (done - s.start) as usize;
            let gap = s.bytes.get(a..a + lead as usize).unwrap_or_default();
            memchr::memchr_iter(b'\n', gap).count() as u64
        };
        let line = origin.lines + lines + gap_lines + 1;
        let at = origin.offset + done + lead;
        lines += nl;
        done = end;
        {
            let mut s = seen.borrow_mut();
            let dead = (done.saturating_sub(1) - s.start) as usize;
            if dead > DROP_AFTER {
                s.bytes.drain(..dead);
                s.start += dead as u64;
            }
        }
        if std::mem::take(&mut first) && header {
            continue;
        }
        let at = usize::try_from(at).unwrap_or(usize::MAX);
        if let Err(f) = take(&rec, at, opts, merger) {
            let skip = opts.skip_bad_rows && f.skippable();
            let e = AggError::at(f.problem, line, at as u64, f.detail);
            if skip {
                merger.bad_row(e);
            } else {
                return Err(e);
            }
        }
    }
    Ok(())
}

/// Checks and adds one record starting at byte `at`.
fn take(
    rec: &csv::ByteRecord,
    at: usize,
    opts: &AggOptions,
    merger: &mut Merger,
) -> Result<(), Fault> {
    let want = opts.key_col.max(opts.value_col);
    if rec.len() <= want {
        let (problem, detail) = if rec.len() <= 1 {
            (
                Problem::MissingDelimiter,
                format!("line has no {} delimiter", show_byte(opts.delimiter)),
            )
        } else {
            (
                Problem::MissingField {
                    col: want,
                    found: rec.len(),
                },
                format!(
                    "line has {} fields; field {want} (0-based) is needed",
                    rec.len()
                ),
            )
        };
        return Err(Fault::new(problem, at, detail));
    }
    let field = |i| rec.get(i).unwrap_or_default();
    let row = check_fields(field(opts.key_col), at, field(opts.value_col), at, opts)?;
    merger.add(row.key, row.key_at, row.value, opts)
}
