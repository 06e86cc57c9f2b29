//! The merged cross-reference index: object number -> [`XrefEntry`].
//!
//! Object numbers are mostly dense (1..`/Size`), so entries live in a
//! vector indexed by number (16 bytes each, a third of a hash map's cost
//! with its growth peaks); numbers far beyond the count (a hostile or
//! oddly numbered file) go to a hash map, so a huge number cannot make the
//! vector huge.

use crate::xref::XrefEntry;
use std::collections::HashMap;

/// Slack above the entry count that the dense part may span.
const DENSE_SLACK: usize = 65_536;

/// Object number -> where it lives.
#[derive(Debug, Clone, Default)]
pub(crate) struct Index {
    dense: Vec<Option<XrefEntry>>,
    sparse: HashMap<u32, XrefEntry>,
    len: usize,
}

impl Index {
    /// An empty index whose dense part is sized for numbers below `hint`
    /// (capped by `count`, the number of entries expected).
    pub fn with_hint(hint: usize, count: usize) -> Index {
        let n = hint.min(count.saturating_mul(2).saturating_add(DENSE_SLACK));
        Index {
            dense: vec![None; n],
            sparse: HashMap::new(),
            len: 0,
        }
    }

    /// The entry of `num`.
    pub fn get(&self, num: &u32) -> Option<&XrefEntry> {
        match self.dense.get(*num as usize) {
            Some(slot) => slot.as_ref(),
            None => self.sparse.get(num),
        }
    }

    fn room_for(&mut self, num: u32) -> bool {
        let i = num as usize;
        if i < self.dense.len() {
            return true;
        }
        if i < self.len.saturating_mul(2).saturating_add(DENSE_SLACK) {
            // Move any sparse entries that now fall in the dense range.
            self.dense.resize(i + 1, None);
            let moved: Vec<u32> = self
                .sparse
                .keys()
                .copied()
                .filter(|k| (*k as usize) <= i)
                .collect();
            for k in moved {
                if let (Some(e), Some(slot)) =
                    (self.sparse.remove(&k), self.dense.get_mut(k as usize))
                {
                    *slot = Some(e);
                }
            }
            return true;
        }
        false
    }

    /// Sets the entry of `num`.
    pub fn insert(&mut self, num: u32, e: XrefEntry) {
        if self.room_for(num) {
            if let Some(slot) = self.dense.get_mut(num as usize)
                && slot.replace(e).is_none()
            {
                self.len += 1;
            }
        } else if self.sparse.insert(num, e).is_none() {
            self.len += 1;
        }
    }

    /// Sets the entry of `num` unless it has one.
    pub fn insert_if_absent(&mut self, num: u32, e: XrefEntry) {
        if self.get(&num).is_none() {
            self.insert(num, e);
        }
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every `(number, entry)`, dense part ascending, then the rest.
    pub fn iter(&self) -> impl Iterator<Item = (u32, XrefEntry)> + '_ {
        self.dense
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.map(|e| (i as u32, e)))
            .chain(self.sparse.iter().map(|(n, e)| (*n, *e)))
    }

    /// The highest number held.
    pub fn max_num(&self) -> Option<u32> {
        let d = self
            .dense
            .iter()
            .rposition(Option::is_some)
            .map(|i| i as u32);
        d.into_iter().chain(self.sparse.keys().copied()).max()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn dense_sparse_and_growth() {
        let e = |o| XrefEntry::InFile {
            offset: o,
            generation: 0,
        };
        let mut ix = Index::with_hint(10, 5);
        ix.insert(3, e(30));
        ix.insert_if_absent(3, e(31));
        ix.insert(4_000_000_000, e(40));
        ix.insert(20, e(20));
        assert_eq!(ix.get(&3), Some(&e(30)));
        assert_eq!(ix.get(&4_000_000_000), Some(&e(40)));
        assert_eq!(ix.get(&20), Some(&e(20)));
        assert_eq!(ix.get(&5), None);
        assert_eq!(ix.len(), 3);
        assert_eq!(ix.max_num(), Some(4_000_000_000));
        let mut all: Vec<u32> = ix.iter().map(|(n, _)| n).collect();
        all.sort_unstable();
        assert_eq!(all, [3, 20, 4_000_000_000]);
        assert!(ix.dense.len() < 100_000);
    }
}
