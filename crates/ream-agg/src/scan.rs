//! One worker's row loop: the fixed-point fast path for `key;value` lines
//! and the general line parser every other case falls back to.

use crate::error::Fault;
use crate::line::{Row, check_new_key, check_row, line_at};
use crate::options::AggOptions;
use crate::parse::Value;
use crate::skip::Skipped;
use crate::table::{Table, hash, key_cost, key_words};

use crate::fast::{self, SAFE_TAIL};

/// Rows parsed side by side in the hot loop (independent dependency
/// chains for the CPU to overlap).
const CURSORS: usize = 2;
use crate::run::line_start_at;

/// A worker: its table and the input it reads.
pub(crate) struct Scanner<'a, 'o> {
    data: &'a [u8],
    opts: &'o AggOptions,
    pub table: Table,
    pub skipped: Skipped,
    fast: bool,
}

impl<'a, 'o> Scanner<'a, 'o> {
    pub fn new(data: &'a [u8], opts: &'o AggOptions) -> Scanner<'a, 'o> {
        Scanner {
            data,
            opts,
            table: Table::new(),
            skipped: Skipped::default(),
            fast: opts.two_columns(),
        }
    }

    /// Aggregates the lines starting in `pos..end` (`pos` at a line start).
    pub fn run(&mut self, pos: usize, end: usize) -> Result<(), Fault> {
        if self.fast {
            self.run_fast(pos, end)
        } else {
            let mut pos = pos;
            while pos < end {
                pos = self.slow_line(pos)?;
            }
            Ok(())
        }
    }

    /// The hot loop for `key<delim>value` lines. A row takes this path when
    /// its key is already in the table and its value is in the strict form
    /// with a `\n` ending; anything else (new key, CRLF, general number,
    /// bad input, the last bytes of the input) goes through `slow_line`,
    /// which gives the same result or the error.
    fn run_fast(&mut self, pos: usize, end: usize) -> Result<(), Fault> {
        let data = self.data;
        // Rows starting before `safe` can load 32 bytes without checks.
        let safe = data.len().saturating_sub(SAFE_TAIL);
        let (delim, max_key) = (self.opts.delimiter, self.opts.max_key_bytes);
        // CURSORS cursors over equal parts of the range, cut at line starts.
        let mut cur = [pos; CURSORS];
        let mut ends = [end; CURSORS];
        for k in 1..CURSORS {
            let cut = line_start_at(data, pos, pos + (end - pos) * k / CURSORS).min(end);
            if let (Some(c), Some(e)) = (cur.get_mut(k), ends.get_mut(k - 1)) {
                *c = cut;
                *e = cut;
            }
        }
        let crlf = crlf_at(data, pos);
        let mut fault = None;
        while cur.iter().zip(&ends).all(|(c, e)| *c < (*e).min(safe)) {
            let mut view = self.table.view();
            let stop = if crlf {
                fast::rows_n::<CURSORS, true>(data, &mut view, delim, max_key, &mut cur, &ends)
            } else {
                fast::rows_n::<CURSORS, false>(data, &mut view, delim, max_key, &mut cur, &ends)
            };
            let Some(i) = stop else {
                break;
            };
            let Some(c) = cur.get_mut(i) else { break };
            match self.slow_line(*c) {
                Ok(next) => *c = next,
                Err(f) => {
                    // Counts only if the parts before this one have none:
                    // they are finished first, below.
                    fault = Some((i, f));
                    break;
                }
            }
        }
        // Finish the parts in order, one cursor each; the first error in
        // file order wins.
        let stop = fault.as_ref().map_or(CURSORS, |(i, _)| *i);
        for (c, e) in cur.iter().zip(&ends).take(stop) {
            self.one_cursor(*c, *e, safe, crlf)?;
        }
        match fault {
            Some((_, f)) => Err(f),
            None => Ok(()),
        }
    }

    /// The rows from `pos` to `end` with one cursor.
    fn one_cursor(
        &mut self,
        mut pos: usize,
        end: usize,
        safe: usize,
        crlf: bool,
    ) -> Result<(), Fault> {
        let (delim, max_key) = (self.opts.delimiter, self.opts.max_key_bytes);
        while pos < end {
            if pos < safe {
                let mut view = self.table.view();
                let (data, to) = (self.data, end.min(safe));
                pos = if crlf {
                    fast::rows::<true>(data, &mut view, delim, max_key, pos, to)
                } else {
                    fast::rows::<false>(data, &mut view, delim, max_key, pos, to)
                };
                if pos >= end {
                    break;
                }
            }
            // A row the fast loop leaves: new key, other value form, bad
            // input, or one of the last rows of the input.
            pos = self.slow_line(pos)?;
        }
        Ok(())
    }

    /// Parses the whole line at `pos` by the general rules, adds it (or
    /// counts it as empty or, with `skip_bad_rows`, as bad), and returns
    /// the start of the next line.
    #[inline(never)]
    pub fn slow_line(&mut self, pos: usize) -> Result<usize, Fault> {
        let (line, next) = line_at(self.data, pos);
        if line.is_empty() {
            self.skipped.empty += 1;
            return Ok(next);
        }
        match self.take_line(line, pos) {
            Err(f) if self.opts.skip_bad_rows && f.skippable() => self.skipped.bad_row(f),
            r => r?,
        }
        Ok(next)
    }

    /// Checks and adds one non-empty line at `pos`.
    fn take_line(&mut self, line: &'a [u8], pos: usize) -> Result<(), Fault> {
        let Row { key_at, key, value } = check_row(line, pos, self.opts)?;
        let (w0, w1) = key_words(key);
        let h = hash(w0, key.len());
        if self.table.find(w0, w1, key, h).is_none() {
            self.new_key(key, key_at, w0, w1, h)?;
        }
        match value {
            Value::Tenths(t) => {
                if let Some(s) = self.table.find(w0, w1, key, h) {
                    s.add(t);
                }
            }
            Value::Dec(d) => {
                self.table.add_dec(w0, w1, key, h, d);
            }
        }
        Ok(())
    }

    /// Checks a key seen for the first time by this worker and inserts it.
    fn new_key(
        &mut self,
        key: &'a [u8],
        key_at: usize,
        w0: u64,
        w1: u64,
        h: u64,
    ) -> Result<(), Fault> {
        check_new_key(key, key_at, self.opts)?;
        let max = self.opts.max_key_memory;
        if self.table.cost().saturating_add(key_cost(key)) > max {
            return Err(Fault::key_memory(key_at, max));
        }
        // `insert` refuses only an arena past 4 GiB, over any budget a
        // table of that size needs.
        match self.table.insert(w0, w1, key, h) {
            Some(_) => Ok(()),
            None => Err(Fault::key_memory(key_at, max)),
        }
    }
}

/// True when the line starting at `pos` ends with `\r\n`: the fast loop
/// then expects CRLF on every row (others take the general parser).
fn crlf_at(data: &[u8], pos: usize) -> bool {
    let rest = data.get(pos..).unwrap_or_default();
    memchr::memchr(b'\n', rest).is_some_and(|i| i > 0 && rest.get(i - 1) == Some(&b'\r'))
}
