//! The ordered join: units finish in any order and are handed on in
//! sequence, each exactly once, so the joiner appends to what it already
//! holds instead of gathering and sorting everything at the end.

use std::collections::BTreeMap;

/// Results numbered from 0, released in order.
pub(crate) struct Ordered<T> {
    /// Sequence number of the next result to release.
    next: usize,
    /// Results that arrived before their turn.
    waiting: BTreeMap<usize, T>,
}

impl<T> Default for Ordered<T> {
    fn default() -> Self {
        Ordered {
            next: 0,
            waiting: BTreeMap::new(),
        }
    }
}

impl<T> Ordered<T> {
    /// Files result `seq`, then passes every result now next in order to
    /// `join`.
    pub(crate) fn add(&mut self, seq: usize, item: T, mut join: impl FnMut(T)) {
        self.waiting.insert(seq, item);
        while let Some(item) = self.waiting.remove(&self.next) {
            self.next += 1;
            join(item);
        }
    }

    /// How many results were released (results `0..released()`).
    pub(crate) fn released(&self) -> usize {
        self.next
    }
}

#[cfg(test)]
mod tests {
    use super::Ordered;

    #[test]
    fn releases_in_order_whatever_the_arrival() {
        let mut o = Ordered::default();
        let mut out = Vec::new();
        for seq in [2, 0, 3, 1, 5, 4] {
            o.add(seq, seq * 10, |v| out.push(v));
        }
        assert_eq!(out, vec![0, 10, 20, 30, 40, 50]);
        assert_eq!(o.released(), 6);
    }
}
