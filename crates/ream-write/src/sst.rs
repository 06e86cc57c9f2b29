//! The workbook's shared string table, filled from many sheet writers at
//! once.
//!
//! The table is split in shards by the text's hash, each behind its own
//! lock, and every sheet writer keeps a private cache of the texts it has
//! already looked up, so a repeated text costs a private hash lookup and
//! only a text new to that sheet touches a shard.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Number of shards (a power of two).
const SHARDS: usize = 32;

type Map = HashMap<Box<str>, u32, foldhash::fast::FixedState>;

/// Distinct texts and their indices, in first-seen order.
pub(crate) struct SharedStrings {
    shards: Vec<Mutex<Map>>,
    next: AtomicU32,
    refs: AtomicU64,
}

impl SharedStrings {
    /// An empty table.
    pub(crate) fn new() -> SharedStrings {
        SharedStrings {
            shards: (0..SHARDS).map(|_| Mutex::new(Map::default())).collect(),
            next: AtomicU32::new(0),
            refs: AtomicU64::new(0),
        }
    }

    /// The index of `text`, added when new.
    pub(crate) fn intern(&self, text: &str) -> Result<u32> {
        let h = foldhash::fast::FixedState::default().hash_one(text);
        let shard = self
            .shards
            .get((h as usize) & (SHARDS - 1))
            .ok_or_else(|| Error::usage("shared string shard out of range"))?;
        let mut map = shard.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(&i) = map.get(text) {
            return Ok(i);
        }
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        if i == u32::MAX {
            return Err(Error::limit(
                "more than 4,294,967,294 distinct texts in the shared string table",
            ));
        }
        map.insert(text.into(), i);
        Ok(i)
    }

    /// Counts `n` cells referring to the table (its `count` attribute).
    pub(crate) fn add_refs(&self, n: u64) {
        self.refs.fetch_add(n, Ordering::Relaxed);
    }

    /// Cells referring to the table.
    pub(crate) fn refs(&self) -> u64 {
        self.refs.load(Ordering::Relaxed)
    }

    /// The texts in index order.
    pub(crate) fn into_ordered(self) -> Vec<Box<str>> {
        let mut all: Vec<(u32, Box<str>)> = Vec::new();
        for shard in self.shards {
            let map = shard.into_inner().unwrap_or_else(|p| p.into_inner());
            all.extend(map.into_iter().map(|(s, i)| (i, s)));
        }
        all.sort_unstable_by_key(|(i, _)| *i);
        all.into_iter().map(|(_, s)| s).collect()
    }
}

/// A sheet writer's private cache in front of the shared table, cleared
/// when it holds [`CACHE_MAX`] texts so its memory stays bounded.
pub(crate) struct LocalCache {
    map: Map,
}

/// Texts a [`LocalCache`] holds before it starts over.
const CACHE_MAX: usize = 1 << 18;

impl LocalCache {
    /// An empty cache.
    pub(crate) fn new() -> LocalCache {
        LocalCache {
            map: Map::default(),
        }
    }

    /// The index of `text` in `table`.
    pub(crate) fn index(&mut self, table: &SharedStrings, text: &str) -> Result<u32> {
        if let Some(&i) = self.map.get(text) {
            return Ok(i);
        }
        let i = table.intern(text)?;
        if self.map.len() >= CACHE_MAX {
            self.map.clear();
        }
        self.map.insert(text.into(), i);
        Ok(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_are_dense_and_stable_across_threads() {
        let t = SharedStrings::new();
        std::thread::scope(|s| {
            for k in 0..4 {
                let t = &t;
                s.spawn(move || {
                    let mut c = LocalCache::new();
                    for i in 0..1000 {
                        let text = format!("t{}", (i * (k + 1)) % 700);
                        let a = c.index(t, &text).unwrap();
                        assert_eq!(a, t.intern(&text).unwrap());
                    }
                });
            }
        });
        let all = t.into_ordered();
        assert_eq!(all.len(), 700);
        let mut sorted: Vec<_> = all.iter().map(|s| s.to_string()).collect();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 700);
    }
}
