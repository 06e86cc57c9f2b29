//! Shared strings: one byte arena plus offsets, parsed once per workbook.

/// The workbook's shared-string table, read-only after phase A.
#[derive(Debug, Default)]
pub struct SharedStrings {
    pub(crate) arena: String,
    /// `ends[i]` is the end offset of string i in `arena`; string i starts at
    /// `ends[i - 1]` (or 0).
    pub(crate) ends: Vec<u32>,
}

impl SharedStrings {
    /// Number of strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }
    /// True when there are no strings.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
    /// String `i`, if it exists.
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = match i.checked_sub(1) {
            Some(p) => *self.ends.get(p)? as usize,
            None => 0,
        };
        self.arena.get(start..end)
    }
}
