//! ZIP archives read from one contiguous byte buffer (usually a memory map).
//!
//! * [`Archive::new`] parses the end-of-central-directory record (Zip64
//!   included) and the central directory, resolves each entry's data offset
//!   from its local header, and validates: entry count within [`Limits`],
//!   data ranges inside the file, no overlapping entries, encrypted
//!   entries -> `ErrorKind::Encrypted`. Duplicate names are kept and the
//!   last copy wins (see [`Archive::duplicate_names`]). Ratio and budget
//!   limits are checked per entry at read time.
//! * [`Archive::read`] inflates one entry in one shot (libdeflate) into a
//!   buffer of exactly the declared size, checks the CRC-32 and charges the
//!   archive-wide inflated-bytes budget.
//! * [`Archive::stream`] inflates incrementally (flate2/zlib-rs) for parts
//!   too big to hold at once; size and CRC are checked at the end.
//! * [`sniff`] tells ZIP, CFB (OLE2; encrypted OOXML or legacy XLS), PDF.

mod directory;
mod error;
mod inflate;
mod sniff;

pub use error::{Error, Result};
pub use inflate::EntryReader;
pub use ream_io::{Bytes, ErrorKind, MapMode};
pub use sniff::sniff;

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// Limits enforced by an [`Archive`].
///
/// `max_entries` is checked by [`Archive::new`]; the others when an entry is
/// read ([`Archive::read_into`], [`Archive::stream`]) and before any buffer
/// is allocated, so one bad entry does not stop the others from being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most entries in the central directory. Default 100,000.
    pub max_entries: u64,
    /// Total bytes inflated over the archive's lifetime, charged with each
    /// entry's declared size when its read starts. Default 16 GiB.
    pub max_total_inflated: u64,
    /// Largest uncompressed/compressed ratio of one entry. Default 1,000.
    /// (Independently of this, a deflate entry declaring more than 1,032
    /// bytes per compressed byte is rejected as malformed.)
    pub max_ratio: u64,
    /// Entries whose uncompressed size is below this are exempt from the
    /// ratio check. Default 1 MiB.
    pub ratio_exempt_below: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_entries: 100_000,
            max_total_inflated: 16 << 30,
            max_ratio: 1_000,
            ratio_exempt_below: 1 << 20,
        }
    }
}

/// Compression method of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Stored (0).
    Stored,
    /// Deflate (8).
    Deflate,
    /// Anything else (unsupported for reading).
    Other(u16),
}

/// One entry of the central directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Name as stored (decoded as UTF-8, lossy).
    pub name: String,
    /// Compression method.
    pub method: Method,
    /// General-purpose flags.
    pub flags: u16,
    /// Declared CRC-32 of the uncompressed data.
    pub crc32: u32,
    /// Declared compressed size.
    pub compressed_size: u64,
    /// Declared uncompressed size (authoritative: reads produce exactly
    /// this many bytes or fail).
    pub uncompressed_size: u64,
    /// Offset of the local file header.
    pub header_offset: u64,
    /// Offset of the entry's data (after the local header).
    pub data_offset: u64,
}

impl Entry {
    /// True for directory entries (names ending in `/`); they are kept in
    /// the listing and normally hold no data.
    pub fn is_dir(&self) -> bool {
        self.name.ends_with('/')
    }
}

/// What kind of container some bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// A ZIP archive (XLSX, XLSM, ODS, ...).
    Zip,
    /// An OLE2/CFB file holding an encrypted OOXML package.
    EncryptedOoxml,
    /// Any other OLE2/CFB file (legacy XLS, DOC, ...).
    Cfb,
    /// A PDF.
    Pdf,
    /// None of the above.
    Unknown,
}

/// CRC-32 (IEEE, as used by ZIP) of `data`.
pub fn crc32(data: &[u8]) -> u32 {
    crc32fast::hash(data)
}

/// Lookup form of a name: backslashes become `/`, leading `/` removed.
fn normalize(name: &str) -> Cow<'_, str> {
    if name.contains('\\') {
        let s = name.replace('\\', "/");
        Cow::Owned(s.trim_start_matches('/').to_string())
    } else {
        Cow::Borrowed(name.trim_start_matches('/'))
    }
}

/// A parsed ZIP archive over shared bytes.
///
/// `Send + Sync`; every method takes `&self`, so entries can be read from
/// many threads at once. The inflated-bytes budget is shared by all of them.
pub struct Archive {
    data: Bytes,
    entries: Vec<Entry>,
    limits: Limits,
    /// Normalised name -> index.
    exact: HashMap<String, usize>,
    /// ASCII-lowercased normalised name -> index of the first distinct
    /// name that folds to it (the last copy of a duplicated name).
    folded: HashMap<String, usize>,
    /// Names seen more than once (the last copy wins).
    duplicates: Vec<String>,
    /// Bytes charged against `limits.max_total_inflated` so far.
    inflated: AtomicU64,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("data", &self.data)
            .field("entries", &self.entries.len())
            .field("limits", &self.limits)
            .field("inflated", &self.inflated())
            .finish()
    }
}

impl Archive {
    /// Lets the OS drop the first `upto` compressed bytes of `e` from
    /// memory (see [`Bytes::release`]); for streaming readers.
    pub fn release(&self, e: &Entry, upto: u64) {
        let start = usize::try_from(e.data_offset).unwrap_or(usize::MAX);
        let end = usize::try_from(e.data_offset.saturating_add(upto)).unwrap_or(usize::MAX);
        self.data.release(start, end);
    }

    /// Parses the central directory of `data`.
    ///
    /// Finds the end-of-central-directory record within the last 65,557
    /// bytes (Zip64 records included), reads every entry and its local
    /// header, and fails with a [`Malformed`](ErrorKind::Malformed) error
    /// on a missing or truncated directory, a local header or data range
    /// out of bounds or overlapping entries (duplicate names, after
    /// normalisation as in [`find`](Archive::find), are not an error: the
    /// last copy wins); with
    /// [`LimitExceeded`](ErrorKind::LimitExceeded) when the archive declares
    /// more than `limits.max_entries` entries; with
    /// [`Encrypted`](ErrorKind::Encrypted) when an entry is encrypted.
    /// Entry sizes are taken from the central directory (data descriptors
    /// are not read).
    pub fn new(data: Bytes, limits: Limits) -> Result<Archive> {
        let dir = directory::locate(&data)?;
        let entries = directory::read_entries(&data, &dir, &limits)?;
        directory::check_overlaps(&entries)?;
        let mut exact = HashMap::with_capacity(entries.len());
        let mut folded = HashMap::with_capacity(entries.len());
        let mut duplicates = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            let key = normalize(&e.name).into_owned();
            // Duplicate names: the last copy wins, as with appended
            // archives and the readers users compare against.
            let lower = key.to_ascii_lowercase();
            match exact.insert(key, i) {
                Some(prev) => {
                    duplicates.push(e.name.clone());
                    if folded.get(&lower) == Some(&prev) {
                        folded.insert(lower, i);
                    }
                }
                None => {
                    folded.entry(lower).or_insert(i);
                }
            }
        }
        Ok(Archive {
            data,
            entries,
            limits,
            exact,
            folded,
            duplicates,
            inflated: AtomicU64::new(0),
        })
    }
    /// Names that occur more than once in the directory (lookups return
    /// the last copy). Empty for a well-formed archive.
    pub fn duplicate_names(&self) -> &[String] {
        &self.duplicates
    }
    /// All entries in central-directory order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }
    /// The limits this archive enforces.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
    /// Bytes charged against [`Limits::max_total_inflated`] so far.
    pub fn inflated(&self) -> u64 {
        self.inflated.load(Ordering::Relaxed)
    }
    /// Takes back the charge of one read of `e` (its declared size) whose
    /// bytes were thrown away before use, so that reading the entry again
    /// does not count it twice against [`Limits::max_total_inflated`].
    pub fn refund(&self, e: &Entry) {
        let _ = self
            .inflated
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |cur| {
                Some(cur.saturating_sub(e.uncompressed_size))
            });
    }
    /// Looks an entry up by name: exact match first, then ASCII
    /// case-insensitive; a leading `/` and backslashes are normalised.
    /// Hash lookups, O(1).
    pub fn find(&self, name: &str) -> Option<&Entry> {
        let key = normalize(name);
        let i = match self.exact.get(key.as_ref()) {
            Some(&i) => i,
            None => *self.folded.get(&key.to_ascii_lowercase())?,
        };
        self.entries.get(i)
    }
    /// The raw (compressed) bytes of an entry: a slice of the input.
    pub fn raw_data(&self, e: &Entry) -> Result<&[u8]> {
        let range = self.raw_range(e)?;
        Ok(self.data.get(range).unwrap_or_default())
    }

    /// Where `e`'s compressed bytes lie in the archive (checked in bounds).
    fn raw_range(&self, e: &Entry) -> Result<std::ops::Range<usize>> {
        e.data_offset
            .checked_add(e.compressed_size)
            .and_then(|end| Some(usize::try_from(e.data_offset).ok()?..usize::try_from(end).ok()?))
            .filter(|r| r.end <= self.data.len())
            .ok_or_else(|| {
                Error::new(ErrorKind::Malformed, "entry data out of bounds")
                    .entry_name(e.name.clone())
                    .at(e.data_offset)
            })
    }
    /// Inflates `e` in one shot into a new buffer of exactly its size.
    /// See [`read_into`](Archive::read_into).
    pub fn read(&self, e: &Entry) -> Result<Vec<u8>> {
        let mut v = Vec::new();
        self.read_into(e, &mut v)?;
        Ok(v)
    }
    /// Inflates `e` in one shot, replacing the contents of `out`.
    ///
    /// Before allocating: checks the method (stored or deflate, else
    /// [`Unsupported`](ErrorKind::Unsupported)), the ratio limit and the
    /// archive-wide budget (charged with the declared size). Then inflates
    /// with libdeflate into a buffer of exactly the declared size; a stream
    /// producing more or fewer bytes, bad deflate data or a CRC-32 mismatch
    /// is [`Malformed`](ErrorKind::Malformed) and leaves `out` empty.
    pub fn read_into(&self, e: &Entry, out: &mut Vec<u8>) -> Result<()> {
        let raw = self.prepare(e)?;
        inflate::read_into(e, raw, out)
    }
    /// A streaming reader over the inflated bytes of `e` (flate2/zlib-rs,
    /// constant memory). Runs the same checks as
    /// [`read_into`](Archive::read_into) up front (the budget is charged
    /// with the declared size); size and CRC are verified at the end of
    /// the stream.
    pub fn stream(&self, e: &Entry) -> Result<EntryReader<'_>> {
        let raw = self.prepare(e)?;
        Ok(EntryReader::new(e, inflate::Raw::Borrowed(raw)))
    }

    /// Like [`stream`](Self::stream), but the reader holds a shared handle
    /// on the archive's bytes instead of a borrow, so it can be kept
    /// beyond the archive's borrow (a cached stream position); it can
    /// release what it consumed ([`EntryReader::release_consumed`]).
    pub fn stream_shared(&self, e: &Entry) -> Result<EntryReader<'static>> {
        self.prepare(e)?;
        let range = self.raw_range(e)?;
        Ok(EntryReader::new(
            e,
            inflate::Raw::Shared(self.data.clone(), range),
        ))
    }

    /// Per-entry checks and budget charge shared by both read paths.
    fn prepare(&self, e: &Entry) -> Result<&[u8]> {
        let raw = self.raw_data(e)?;
        inflate::check_entry(e, &self.limits)?;
        let (n, max) = (e.uncompressed_size, self.limits.max_total_inflated);
        let charged = self
            .inflated
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |cur| {
                cur.checked_add(n).filter(|&t| t <= max)
            });
        if let Err(cur) = charged {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "inflated-bytes budget of {max} exceeded: {cur} already inflated, entry declares {n}"
                ),
            )
            .entry_name(e.name.clone())
            .at(e.data_offset));
        }
        Ok(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_names() {
        assert_eq!(normalize("/xl/workbook.xml"), "xl/workbook.xml");
        assert_eq!(
            normalize("xl\\worksheets\\sheet1.xml"),
            "xl/worksheets/sheet1.xml"
        );
        assert_eq!(normalize("\\a"), "a");
        assert!(matches!(normalize("a/b"), Cow::Borrowed(_)));
    }

    #[test]
    fn archive_is_send_sync() {
        fn both<T: Send + Sync>() {}
        both::<Archive>();
    }
}
