//! Merging the per-worker tables into one owned map, and the exact
//! key-count limit across workers.

use crate::acc::Acc;
use crate::error::{Fault, Problem};
use crate::line::{check_new_key, check_row, line_at};
use crate::options::AggOptions;
use crate::output::Aggregate;
use crate::run::SliceRun;
use std::collections::{HashMap, HashSet};

/// A key's merged accumulator and the run that brought it.
struct Merged {
    acc: Acc,
    run: u64,
}

/// All keys seen so far, owned (keys are copied once per distinct key and
/// run, never per row).
#[derive(Default)]
pub(crate) struct Merger {
    map: HashMap<Box<[u8]>, Merged>,
    /// Runs settled so far (blocks of a stream).
    runs: u64,
}

impl Merger {
    /// Takes the result of one run over `data` (body from `start`): merges
    /// it, or returns the error a serial run reports first.
    ///
    /// Workers see keys out of file order (chunks on several threads, two
    /// cursors per chunk), so when the key limit may be broken (a worker's
    /// table filled up, or the keys of all workers together are too many)
    /// an exact serial pass finds the first bad row: the error path only.
    pub fn settle(
        &mut self,
        run: SliceRun,
        data: &[u8],
        start: usize,
        opts: &AggOptions,
    ) -> Result<(), Fault> {
        let this = self.runs;
        self.runs += 1;
        for t in &run.tables {
            t.for_each(|key, acc| match self.map.get_mut(key) {
                Some(m) => m.acc.merge(&acc),
                None => {
                    self.map.insert(key.into(), Merged { acc, run: this });
                }
            });
        }
        let key_fault = matches!(
            run.fault,
            Some(Fault {
                problem: Problem::TooManyKeys { .. },
                ..
            })
        );
        if key_fault || self.map.len() > opts.max_keys {
            // A worker that filled its table stopped early and others
            // stopped with it, so nothing is known past the start: check
            // everything. Otherwise every row before the first fault is
            // known to be good and the pass stops there.
            let bound = match &run.fault {
                Some(f) if !key_fault => f.offset,
                _ => data.len(),
            };
            self.serial_check(data, start, bound, this, opts)?;
        }
        match run.fault {
            Some(f) => Err(f),
            None => Ok(()),
        }
    }

    /// Checks the rows of `data` from `start` (up to the row holding
    /// `bound`) in order, counting keys after those already held: the first
    /// bad row or the first key over the limit.
    fn serial_check(
        &self,
        data: &[u8],
        start: usize,
        bound: usize,
        this: u64,
        opts: &AggOptions,
    ) -> Result<(), Fault> {
        let known = self.map.values().filter(|m| m.run < this).count();
        let mut seen: HashSet<&[u8]> = HashSet::new();
        let mut pos = start;
        while pos < data.len() && pos <= bound {
            let (line, next) = line_at(data, pos);
            let row = check_row(line, pos, opts)?;
            let old = self.map.get(row.key).is_some_and(|m| m.run < this);
            if !old && !seen.contains(row.key) {
                check_new_key(row.key, row.key_at, opts)?;
                if known + seen.len() >= opts.max_keys {
                    return Err(Fault::too_many_keys(row.key_at, opts.max_keys));
                }
                seen.insert(row.key);
            }
            pos = next;
        }
        Ok(())
    }

    /// The sorted result.
    pub fn finish(self) -> Aggregate {
        Aggregate::from_keys(self.map.into_iter().map(|(k, m)| (k, m.acc)))
    }
}
