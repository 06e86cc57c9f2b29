//! Options and limits for opening a PDF.

use ream_io::{SourceKind, SourceOptions};

/// Limits a hostile file cannot push the reader past. Exceeding one is an
/// error of kind `LimitExceeded` naming the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PdfLimits {
    /// Decode budget of one stream: the most bytes any filter of its chain
    /// may produce (the flate-bomb guard). Default 256 MiB.
    pub max_decoded_stream: u64,
    /// Deepest nesting of arrays and dictionaries. Default 256.
    pub max_nesting: usize,
    /// Largest text of one non-stream object (and of a classic xref
    /// section). Default 64 MiB.
    pub max_object_bytes: u64,
    /// Most entries in the merged cross-reference index. Default 10,000,000.
    pub max_objects: u64,
    /// Most xref sections followed along `/Prev`. Default 10,000.
    pub max_revisions: usize,
    /// Most objects one object stream may declare (`/N`). Default 1,000,000.
    pub max_objstm_objects: u64,
    /// Decoded object streams kept in the LRU cache, in bytes. Default 64 MiB.
    pub objstm_cache_bytes: u64,
    /// Decoded object streams kept in the LRU cache, in streams. Default 256.
    pub objstm_cache_streams: usize,
    /// Deepest page tree. Default 256.
    pub max_page_depth: usize,
    /// Most pages a tree walk collects. Default 10,000,000.
    pub max_pages: u64,
    /// Most warnings kept (later ones are counted, not stored). Default 1,000.
    pub max_warnings: usize,
}

impl Default for PdfLimits {
    fn default() -> PdfLimits {
        PdfLimits {
            max_decoded_stream: 256 << 20,
            max_nesting: 256,
            max_object_bytes: 64 << 20,
            max_objects: 10_000_000,
            max_revisions: 10_000,
            max_objstm_objects: 1_000_000,
            objstm_cache_bytes: 64 << 20,
            objstm_cache_streams: 256,
            max_page_depth: 256,
            max_pages: 10_000_000,
            max_warnings: 1_000,
        }
    }
}

/// How [`Pdf::open`](crate::Pdf::open) reads a file.
///
/// Defaults: whole-file mapping, lenient (broken xref data is repaired by
/// scanning, with warnings), encrypted files refused, [`PdfLimits`] defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PdfOptions {
    /// The byte source and its sizes (see [`ream_io::SourceOptions`]).
    pub source: SourceOptions,
    /// Refuse to repair: a broken xref or object offset is an error.
    pub strict: bool,
    /// Open encrypted files anyway (structure only: page tree, trailer;
    /// strings stay encrypted and stream data is refused). Default false:
    /// `/Encrypt` gives an `Encrypted` error.
    pub allow_encrypted: bool,
    /// Resource limits.
    pub limits: PdfLimits,
}

impl PdfOptions {
    /// Default options.
    pub fn new() -> PdfOptions {
        PdfOptions::default()
    }

    /// Uses the byte source `kind`.
    pub fn source(mut self, kind: SourceKind) -> PdfOptions {
        self.source.kind = kind;
        self
    }

    /// Sets the sliding window's view size in bytes.
    pub fn window_size(mut self, bytes: usize) -> PdfOptions {
        self.source.window_size = bytes;
        self
    }

    /// Sets the read-ahead buffer size in bytes.
    pub fn buffer_size(mut self, bytes: usize) -> PdfOptions {
        self.source.buffer_size = bytes;
        self
    }

    /// Refuses repairs when `strict`.
    pub fn strict(mut self, strict: bool) -> PdfOptions {
        self.strict = strict;
        self
    }

    /// Opens encrypted files for their structure when `allow`.
    pub fn allow_encrypted(mut self, allow: bool) -> PdfOptions {
        self.allow_encrypted = allow;
        self
    }

    /// Sets the limits.
    pub fn limits(mut self, limits: PdfLimits) -> PdfOptions {
        self.limits = limits;
        self
    }
}
