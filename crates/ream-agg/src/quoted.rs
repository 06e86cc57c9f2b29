//! The RFC 4180 reader: used when fields are quoted (any delimiter but
//! `;`) and the input holds a quote byte. Serial, through the `csv` crate:
//! a quoted field may hold delimiters and line breaks, which the newline
//! chunking of the parallel path cannot see.

use crate::error::{AggError, Fault, Problem};
use crate::line::{check_fields, check_row, show_byte};
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
    // Records end at `\n` only (a lone `\r` is data, as on the line
    // path); a `\r` before it is stripped from the last field.
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(opts.delimiter)
        .terminator(csv::Terminator::Any(b'\n'))
        .has_headers(false)
        .flexible(true)
        .from_reader(tap);
    let mut rec = csv::ByteRecord::new();
    let mut raw = Vec::new();
    // Lines before byte `done` (relative to the reader), where the next
    // record's run of empty lines starts.
    let (mut lines, mut done) = (0u64, 0u64);
    let mut first = true;
    loop {
        let more = rdr.read_byte_record(&mut rec).map_err(|e| {
            let line = origin.lines + lines + 1;
            let msg = format!("line {line}: reading the input failed: {e}");
            match e.into_kind() {
                csv::ErrorKind::Io(io) => AggError::io(msg, io),
                _ => AggError::io(msg.clone(), std::io::Error::other(msg)),
            }
        })?;
        let end = rdr.position().byte();
        let (blank, nl) = {
            let s = seen.borrow();
            let (a, b) = ((done - s.start) as usize, (end - s.start) as usize);
            let part = s.bytes.get(a..b).unwrap_or_default();
            let blank = part.iter().take_while(|&&b| b == b'\n').count();
            raw.clear();
            raw.extend_from_slice(part.get(blank..).unwrap_or_default());
            (
                blank as u64,
                memchr::memchr_iter(b'\n', part).count() as u64,
            )
        };
        // The header is the input's first line, even an empty one (as on
        // the line path); the csv reader skips empty lines, so an empty
        // first line is taken here and the record after it is data.
        let header_blank = u64::from(first && header && blank > 0);
        if header_blank == 1 {
            first = false;
        }
        for _ in header_blank..blank {
            merger.empty_line();
        }
        if !more {
            break;
        }
        let line = origin.lines + lines + blank + 1;
        let at = usize::try_from(origin.offset + done + blank).unwrap_or(usize::MAX);
        lines += nl;
        done = end;
        {
            let mut s = seen.borrow_mut();
            let dead = (done - s.start) as usize;
            if dead > DROP_AFTER {
                s.bytes.drain(..dead);
                s.start += dead as u64;
            }
        }
        if std::mem::take(&mut first) && header {
            continue;
        }
        let text = raw.strip_suffix(b"\n").unwrap_or(&raw);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let done_row = if text.is_empty() {
            merger.empty_line();
            Ok(())
        } else if memchr::memchr(b'"', text).is_none() {
            // Unquoted: the line rules, for the same verdicts and offsets
            // as the parallel path.
            check_row(text, at, opts).and_then(|r| merger.add(r.key, r.key_at, r.value, opts))
        } else {
            take(&rec, at, opts, merger)
        };
        if let Err(f) = done_row {
            let skip = opts.skip_bad_rows && f.skippable();
            let e = AggError::at(f.problem, line, f.offset as u64, f.detail);
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
    // The record's line break is `\n`; a `\r` before it ends the last field.
    let last = rec.len().saturating_sub(1);
    let field = |i: usize| {
        let f = rec.get(i).unwrap_or_default();
        if i == last {
            f.strip_suffix(b"\r").unwrap_or(f)
        } else {
            f
        }
    };
    let row = check_fields(field(opts.key_col), at, field(opts.value_col), at, opts)?;
    merger.add(row.key, row.key_at, row.value, opts)
}
