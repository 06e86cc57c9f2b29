//! Merging the per-worker tables into one owned map, the exact key-memory
//! limit across workers, and the serial adds of the quoting reader.

use crate::acc::Acc;
use crate::error::{AggError, BadRow, Fault, Problem};
use crate::line::{check_new_key, check_row, line_at};
use crate::options::{AggOptions, REPORTED_BAD_ROWS};
use crate::output::{Aggregate, Skips};
use crate::parse::Value;
use crate::run::SliceRun;
use crate::table::key_cost;
use std::collections::{HashMap, HashSet};

/// A key's merged accumulator and the run that brought it.
struct Merged {
    acc: Acc,
    run: u64,
}

/// All keys seen so far, owned (keys are copied once per distinct key and
/// run, never per row), and the rows skipped so far.
#[derive(Default)]
pub(crate) struct Merger {
    map: HashMap<Box<[u8]>, Merged>,
    /// [`key_cost`] of the keys in `map`.
    cost: usize,
    /// Runs settled so far (blocks of a stream).
    runs: u64,
    skips: Skips,
}

impl Merger {
    /// Takes the result of one run over `data` (body from `start`; `data`
    /// starts at line `base_line + 1` and byte `base_off` of the input):
    /// merges it, or returns the error a serial run reports first.
    ///
    /// Workers see keys out of file order (chunks on several threads, two
    /// cursors per chunk), so when the key budget may be broken (a
    /// worker's table filled up, or the keys of all workers together cost
    /// too much) an exact serial pass finds the first bad row: the error
    /// path only.
    pub fn settle(
        &mut self,
        run: SliceRun,
        data: &[u8],
        start: usize,
        opts: &AggOptions,
        base: (u64, u64),
    ) -> Result<(), AggError> {
        let this = self.runs;
        self.runs += 1;
        for t in &run.tables {
            t.for_each(|key, acc| match self.map.get_mut(key) {
                Some(m) => m.acc.merge(&acc),
                None => {
                    self.cost = self.cost.saturating_add(key_cost(key));
                    self.map.insert(key.into(), Merged { acc, run: this });
                }
            });
        }
        let key_fault = matches!(
            run.fault,
            Some(Fault {
                problem: Problem::KeyMemory { .. },
                ..
            })
        );
        let located = |f: Fault| f.locate(data).shifted(base.0, base.1);
        if key_fault || self.cost > opts.max_key_memory {
            // A worker that filled its table stopped early and others
            // stopped with it, so nothing is known past the start: check
            // everything. Otherwise every row before the first fault is
            // known to be good and the pass stops there.
            let bound = match &run.fault {
                Some(f) if !key_fault => f.offset,
                _ => data.len(),
            };
            self.serial_check(data, start, bound, this, opts)
                .map_err(located)?;
        }
        if let Some(f) = run.fault {
            return Err(located(f));
        }
        self.skips.empty += run.skipped.empty;
        self.skips.bad += run.skipped.bad;
        for e in Fault::locate_all(run.skipped.first, data) {
            self.push_bad(e.shifted(base.0, base.1));
        }
        Ok(())
    }

    /// Checks the rows of `data` from `start` (up to the row holding
    /// `bound`) in order, adding up the cost of keys after those already
    /// held: the first bad row or the first key over the budget.
    fn serial_check(
        &self,
        data: &[u8],
        start: usize,
        bound: usize,
        this: u64,
        opts: &AggOptions,
    ) -> Result<(), Fault> {
        let mut cost: usize = self
            .map
            .iter()
            .filter(|(_, m)| m.run < this)
            .map(|(k, _)| key_cost(k))
            .sum();
        let mut seen: HashSet<&[u8]> = HashSet::new();
        let mut pos = start;
        while pos < data.len() && pos <= bound {
            let (line, next) = line_at(data, pos);
            let at = pos;
            pos = next;
            if line.is_empty() {
                continue;
            }
            let row = match check_row(line, at, opts) {
                Ok(r) => r,
                Err(f) if opts.skip_bad_rows && f.skippable() => continue,
                Err(f) => return Err(f),
            };
            let old = self.map.get(row.key).is_some_and(|m| m.run < this);
            if !old && !seen.contains(row.key) {
                match check_new_key(row.key, row.key_at, opts) {
                    Err(f) if opts.skip_bad_rows && f.skippable() => continue,
                    r => r?,
                }
                cost = cost.saturating_add(key_cost(row.key));
                if cost > opts.max_key_memory {
                    return Err(Fault::key_memory(row.key_at, opts.max_key_memory));
                }
                seen.insert(row.key);
            }
        }
        Ok(())
    }

    /// Adds one row in input order (the quoting reader): the key's first
    /// sight is checked (UTF-8, key budget) here.
    pub fn add(
        &mut self,
        key: &[u8],
        key_at: usize,
        value: Value,
        opts: &AggOptions,
    ) -> Result<(), Fault> {
        if let Some(m) = self.map.get_mut(key) {
            m.acc.add(value);
            return Ok(());
        }
        check_new_key(key, key_at, opts)?;
        let cost = self.cost.saturating_add(key_cost(key));
        if cost > opts.max_key_memory {
            return Err(Fault::key_memory(key_at, opts.max_key_memory));
        }
        self.cost = cost;
        let mut acc = Acc::EMPTY;
        acc.add(value);
        self.map.insert(
            key.into(),
            Merged {
                acc,
                run: self.runs,
            },
        );
        Ok(())
    }

    /// Counts an empty line.
    pub fn empty_line(&mut self) {
        self.skips.empty += 1;
    }

    /// Counts a skipped bad row and keeps it if it is among the first.
    pub fn bad_row(&mut self, e: AggError) {
        self.skips.bad += 1;
        self.push_bad(e);
    }

    fn push_bad(&mut self, e: AggError) {
        if self.skips.first.len() < REPORTED_BAD_ROWS {
            self.skips.first.push(BadRow::from(e));
        }
    }

    /// The keys with their accumulators, and the rows skipped.
    pub fn into_parts(self) -> (HashMap<Box<[u8]>, Acc>, Skips) {
        let map = self.map.into_iter().map(|(k, m)| (k, m.acc)).collect();
        (map, self.skips)
    }

    /// The sorted result.
    pub fn finish(self) -> Aggregate {
        Aggregate::from_keys(self.map.into_iter().map(|(k, m)| (k, m.acc)), self.skips)
    }
}
