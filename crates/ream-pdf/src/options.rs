//! Options and limits for opening a PDF.

use crate::crypt::Password;
use ream_io::{SourceKind, SourceOptions};

/// Limits a hostile file cannot push the reader past. Exceeding one is an
/// error of kind `LimitExceeded` naming the limit.
///
/// Build it from [`PdfLimits::default`] with one method per limit:
/// `PdfLimits::default().max_pages(1_000)`. New limits may be added (the
/// struct is `#[non_exhaustive]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
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

impl PdfLimits {
    /// Sets [`max_decoded_stream`](PdfLimits::max_decoded_stream) (default
    /// 256 MiB).
    pub fn max_decoded_stream(mut self, bytes: u64) -> PdfLimits {
        self.max_decoded_stream = bytes;
        self
    }
    /// Sets [`max_nesting`](PdfLimits::max_nesting) (default 256).
    pub fn max_nesting(mut self, depth: usize) -> PdfLimits {
        self.max_nesting = depth;
        self
    }
    /// Sets [`max_object_bytes`](PdfLimits::max_object_bytes) (default
    /// 64 MiB).
    pub fn max_object_bytes(mut self, bytes: u64) -> PdfLimits {
        self.max_object_bytes = bytes;
        self
    }
    /// Sets [`max_objects`](PdfLimits::max_objects) (default 10,000,000).
    pub fn max_objects(mut self, n: u64) -> PdfLimits {
        self.max_objects = n;
        self
    }
    /// Sets [`max_revisions`](PdfLimits::max_revisions) (default 10,000).
    pub fn max_revisions(mut self, n: usize) -> PdfLimits {
        self.max_revisions = n;
        self
    }
    /// Sets [`max_objstm_objects`](PdfLimits::max_objstm_objects) (default
    /// 1,000,000).
    pub fn max_objstm_objects(mut self, n: u64) -> PdfLimits {
        self.max_objstm_objects = n;
        self
    }
    /// Sets [`objstm_cache_bytes`](PdfLimits::objstm_cache_bytes) (default
    /// 64 MiB).
    pub fn objstm_cache_bytes(mut self, bytes: u64) -> PdfLimits {
        self.objstm_cache_bytes = bytes;
        self
    }
    /// Sets [`objstm_cache_streams`](PdfLimits::objstm_cache_streams)
    /// (default 256).
    pub fn objstm_cache_streams(mut self, n: usize) -> PdfLimits {
        self.objstm_cache_streams = n;
        self
    }
    /// Sets [`max_page_depth`](PdfLimits::max_page_depth) (default 256).
    pub fn max_page_depth(mut self, depth: usize) -> PdfLimits {
        self.max_page_depth = depth;
        self
    }
    /// Sets [`max_pages`](PdfLimits::max_pages) (default 10,000,000).
    pub fn max_pages(mut self, n: u64) -> PdfLimits {
        self.max_pages = n;
        self
    }
    /// Sets [`max_warnings`](PdfLimits::max_warnings) (default 1,000).
    pub fn max_warnings(mut self, n: usize) -> PdfLimits {
        self.max_warnings = n;
        self
    }
}

/// How [`Pdf::open`](crate::Pdf::open) reads a file.
///
/// Defaults: whole-file mapping, lenient (broken xref data is repaired by
/// scanning, with warnings), encrypted files decrypted with the empty user
/// password (else refused), no other password, [`PdfLimits`] defaults.
/// Build it from [`PdfOptions::new`] with one method per setting:
/// `PdfOptions::new().strict(true).limits(PdfLimits::default())`. New
/// settings may be added (the struct is `#[non_exhaustive]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct PdfOptions {
    /// The byte source and its sizes (see [`ream_io::SourceOptions`]).
    /// Default: chosen by size ([`SourceKind::Auto`]: the sliding window
    /// for files of [`AUTO_WINDOW_FROM`](ream_io::AUTO_WINDOW_FROM) bytes and
    /// more, the whole file mapped below), a 64 MiB window and a 256 KiB
    /// read-ahead buffer for the sources that use them.
    pub source: SourceOptions,
    /// Refuse to repair: a broken xref or object offset is an error.
    /// Default false.
    pub strict: bool,
    /// Open encrypted files that cannot be decrypted anyway (wrong or
    /// missing password, unsupported security handler): structure only
    /// (page tree, trailer), strings stay encrypted and stream data is
    /// refused. Default false: such a file gives an `Encrypted` error.
    /// Files that decrypt open fully either way.
    pub allow_encrypted: bool,
    /// The password tried after the empty user password, as user password
    /// and then as owner password (standard security handler). Default
    /// none. At most 127 bytes are used (32 for revisions 2 to 4).
    pub password: Option<Password>,
    /// Resource limits (default [`PdfLimits::default`]).
    pub limits: PdfLimits,
}

impl PdfOptions {
    /// Default options.
    pub fn new() -> PdfOptions {
        PdfOptions::default()
    }

    /// Uses the byte source `kind` (default [`SourceKind::Auto`]).
    pub fn source(mut self, kind: SourceKind) -> PdfOptions {
        self.source.kind = kind;
        self
    }

    /// Sets the whole [`source`](PdfOptions::source): kind and sizes.
    pub fn source_options(mut self, source: SourceOptions) -> PdfOptions {
        self.source = source;
        self
    }

    /// Sets the sliding window's view size in bytes (default 64 MiB;
    /// rounded up to the page size).
    pub fn window_size(mut self, bytes: usize) -> PdfOptions {
        self.source.window_size = bytes;
        self
    }

    /// Sets the read-ahead buffer size in bytes (default 256 KiB).
    pub fn buffer_size(mut self, bytes: usize) -> PdfOptions {
        self.source.buffer_size = bytes;
        self
    }

    /// Refuses repairs when `strict` (default false).
    pub fn strict(mut self, strict: bool) -> PdfOptions {
        self.strict = strict;
        self
    }

    /// Opens encrypted files that cannot be decrypted for their structure
    /// when `allow` (default false).
    pub fn allow_encrypted(mut self, allow: bool) -> PdfOptions {
        self.allow_encrypted = allow;
        self
    }

    /// Sets the password tried after the empty one, as user and as owner
    /// password (default none; truncated to 127 bytes).
    pub fn password(mut self, password: &str) -> PdfOptions {
        self.password = Some(Password::new(password));
        self
    }

    /// Sets the limits (default [`PdfLimits::default`]).
    pub fn limits(mut self, limits: PdfLimits) -> PdfOptions {
        self.limits = limits;
        self
    }
}
