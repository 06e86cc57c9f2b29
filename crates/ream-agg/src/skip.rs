//! [`Skipped`]: the rows a worker passed over (empty lines, and malformed
//! rows with `skip_bad_rows`).

use crate::error::Fault;
use crate::options::REPORTED_BAD_ROWS;

/// Empty lines and skipped malformed rows of one worker or run.
#[derive(Debug, Default, Clone)]
pub(crate) struct Skipped {
    pub empty: u64,
    pub bad: u64,
    /// The [`REPORTED_BAD_ROWS`] bad rows of lowest offset, sorted.
    pub first: Vec<Fault>,
}

impl Skipped {
    /// Counts a skipped bad row and keeps it if it is among the first.
    pub fn bad_row(&mut self, f: Fault) {
        self.bad += 1;
        self.keep(f);
    }

    fn keep(&mut self, f: Fault) {
        let at = self.first.partition_point(|g| g.offset < f.offset);
        if at < REPORTED_BAD_ROWS {
            self.first.insert(at, f);
            self.first.truncate(REPORTED_BAD_ROWS);
        }
    }

    /// Adds another worker's counts and rows.
    pub fn merge(&mut self, o: Skipped) {
        self.empty += o.empty;
        self.bad += o.bad;
        for f in o.first {
            self.keep(f);
        }
    }
}
