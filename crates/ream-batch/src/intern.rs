//! A string interner: one shared copy of each repeated string (directories,
//! sheet names, error messages) in the batch's in-memory catalog.
//!
//! It is owned by the collector thread and needs no lock; only the
//! benchmark's `intern_on_worker` mode puts one behind a global `Mutex`, to
//! measure the design the dispatcher avoids.

use std::collections::HashSet;
use std::sync::Arc;

/// Interned strings, each stored once.
#[derive(Debug, Default)]
pub struct Interner {
    set: HashSet<Arc<str>>,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Interner {
        Interner::default()
    }
    /// The shared copy of `s` (made on first sight).
    pub fn intern(&mut self, s: &str) -> Arc<str> {
        if let Some(a) = self.set.get(s) {
            return Arc::clone(a);
        }
        let a: Arc<str> = Arc::from(s);
        self.set.insert(Arc::clone(&a));
        a
    }
    /// Distinct strings held.
    pub fn len(&self) -> usize {
        self.set.len()
    }
    /// True when nothing was interned.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_copy_per_string() {
        let mut i = Interner::new();
        let a = i.intern("Sheet1");
        let b = i.intern(&String::from("Sheet1"));
        assert!(Arc::ptr_eq(&a, &b));
        i.intern("Sheet2");
        assert_eq!(i.len(), 2);
        assert!(!i.is_empty());
    }
}
