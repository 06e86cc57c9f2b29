//! The global thread budget: how many engine threads a job may use.
//!
//! Every running job holds one thread of the budget. The spare ones
//! (`budget - slots`, plus those of slots that have run out of work) sit in
//! one atomic counter; a big file takes extra ones from it with a
//! compare-and-swap, never waiting, and gives them back when done. No lock.

use std::sync::atomic::{AtomicIsize, Ordering};

/// Spare engine threads shared by the slots.
#[derive(Debug)]
pub(crate) struct ThreadBudget {
    spare: AtomicIsize,
    big_file: u64,
}

impl ThreadBudget {
    /// A budget of `budget` threads for `slots` slots; files of at least
    /// `big_file` bytes may take extra threads.
    pub(crate) fn new(budget: usize, slots: usize, big_file: u64) -> ThreadBudget {
        let spare = isize::try_from(budget).unwrap_or(isize::MAX)
            - isize::try_from(slots).unwrap_or(isize::MAX);
        ThreadBudget {
            spare: AtomicIsize::new(spare),
            big_file: big_file.max(1),
        }
    }

    /// Threads for a file of `size` bytes: 1, plus for a big file one per
    /// further multiple of the big-file size, as far as spare threads allow.
    pub(crate) fn acquire(&self, size: u64) -> usize {
        if size < self.big_file {
            return 1;
        }
        let want = isize::try_from(size / self.big_file).unwrap_or(isize::MAX);
        let mut cur = self.spare.load(Ordering::Relaxed);
        loop {
            let take = want.min(cur);
            if take <= 0 {
                return 1;
            }
            match self.spare.compare_exchange_weak(
                cur,
                cur - take,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => return 1 + usize::try_from(take).unwrap_or(0),
                Err(now) => cur = now,
            }
        }
    }

    /// Gives back the extra threads of a finished job.
    pub(crate) fn release(&self, threads: usize) {
        if threads > 1 {
            let extra = isize::try_from(threads - 1).unwrap_or(0);
            self.spare.fetch_add(extra, Ordering::AcqRel);
        }
    }

    /// A slot has no more work: its own thread becomes spare.
    pub(crate) fn retire_slot(&self) {
        self.spare.fetch_add(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_files_share_the_spare_threads() {
        let b = ThreadBudget::new(8, 2, 100);
        assert_eq!(b.acquire(99), 1);
        assert_eq!(b.acquire(350), 4, "3 extra");
        assert_eq!(b.acquire(10_000), 4, "the 3 left");
        assert_eq!(b.acquire(10_000), 1, "none left");
        b.release(4);
        b.retire_slot();
        assert_eq!(b.acquire(10_000), 5);
    }

    #[test]
    fn more_slots_than_budget_never_grants_extra() {
        let b = ThreadBudget::new(2, 4, 1);
        assert_eq!(b.acquire(1_000), 1);
        b.retire_slot();
        b.retire_slot();
        assert_eq!(b.acquire(1_000), 1);
        b.retire_slot();
        assert_eq!(b.acquire(1_000), 2);
    }
}
