//! Options of the writer, with their defaults.

use std::path::PathBuf;

/// How cell text is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strings {
    /// One shared string table for the workbook, as Excel writes it: each
    /// distinct text is stored once (memory grows with the distinct texts).
    #[default]
    Shared,
    /// Text inside each cell (`inlineStr`): constant memory whatever the
    /// number of distinct texts, bigger files when texts repeat.
    Inline,
}

/// Options of [`WorkbookWriter`](crate::WorkbookWriter).
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// How text is stored (default [`Strings::Shared`]).
    pub strings: Strings,
    /// Deflate level 0-9 of every part (default 1: fastest; 6 gives files
    /// about 15 % smaller at roughly twice the time).
    pub compression_level: u32,
    /// Compressed bytes one sheet keeps in memory while it is written
    /// before moving them to a temporary file (default 4 MiB).
    pub spill_threshold: usize,
    /// Compressed bytes all finished sheets may keep in memory until the
    /// workbook is saved; a sheet that would pass it goes to a temporary
    /// file (default 32 MiB).
    pub memory_budget: usize,
    /// Folder of the temporary files (default: the system's).
    pub temp_dir: Option<PathBuf>,
    /// Date serials count from 1904-01-01 instead of 1900 (default false).
    pub date_1904: bool,
}

impl Default for WriteOptions {
    fn default() -> WriteOptions {
        WriteOptions {
            strings: Strings::Shared,
            compression_level: 1,
            spill_threshold: 4 << 20,
            memory_budget: 32 << 20,
            temp_dir: None,
            date_1904: false,
        }
    }
}
