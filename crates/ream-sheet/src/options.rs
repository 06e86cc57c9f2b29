//! Options and limits for opening a workbook.

pub use ream_io::MapMode;

/// Resource limits enforced while opening a workbook. Exceeding one gives an
/// [`ErrorKind::LimitExceeded`](crate::ErrorKind::LimitExceeded) error naming
/// the limit, the part and the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Total bytes inflated from the ZIP, all parts together. Default 16 GiB.
    pub max_inflated_bytes: u64,
    /// Largest allowed inflated/compressed ratio of one entry (entries under
    /// 1 MiB inflated are exempt). Default 1,000 (real XLSX parts rarely
    /// exceed 100; zip bombs reach millions).
    pub max_inflate_ratio: u64,
    /// Cells stored per sheet (with a value or a formula). Default
    /// 400,000,000.
    pub max_cells_per_sheet: u64,
    /// Longest cell string in characters: shared, inline, `t="str"` and
    /// ODS strings alike. Default 16 Mi (16,777,216): Excel's 32,767 is
    /// its cell-editing limit, not the file format's, and files written
    /// by other tools exceed it. One string then holds at most 64 MiB of
    /// UTF-8; all text together stays bounded by the inflated bytes (and,
    /// for ODS spaces, the repeat budget).
    pub max_string_chars: usize,
    /// Deepest XML element nesting. Default 256.
    pub max_xml_depth: u32,
    /// Most ZIP entries. Default 100,000.
    pub max_zip_entries: u64,
    /// Bytes of formula text stored per sheet, shared formulas expanded.
    /// Default 1 GiB (a small file can otherwise expand one long shared
    /// formula into every cell of a column).
    pub max_formula_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_inflated_bytes: 16 << 30,
            max_inflate_ratio: 1_000,
            max_cells_per_sheet: 400_000_000,
            max_string_chars: 16 << 20,
            max_xml_depth: 256,
            max_zip_entries: 100_000,
            max_formula_bytes: 1 << 30,
        }
    }
}

/// How to open a workbook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenOptions {
    /// Parse worksheets on a worker pool. Default `true`.
    pub parallel: bool,
    /// Worker threads; 0 (the default) means min(sheets, available cores).
    pub threads: usize,
    /// Resource limits (see [`Limits`] for defaults).
    pub limits: Limits,
    /// How files are read: memory-mapped (default) or read into memory.
    pub map_mode: MapMode,
    /// Parse every sheet's cells at open (default `true`). With `false`
    /// only the workbook-level parts are read (phase A): sheets are listed
    /// but hold no cells, and [`Workbook::rows`](crate::Workbook::rows)
    /// streams them on demand in constant memory.
    pub load_cells: bool,
    /// Size of the chunks a big sheet is cut into for parallel parsing, in
    /// bytes of XML. Default 4 MiB. Sheets under 4 chunks are parsed whole;
    /// with one thread nothing is chunked. For ODS, a `content.xml` of at
    /// least 2 chunks is, with 3 threads or more, inflated and parsed at
    /// the same time in row chunks of this size; with 1 or 2 threads it
    /// is read over a sliding window instead of whole (with 2, see
    /// [`row_chunks_min`](OpenOptions::row_chunks_min)).
    pub chunk_bytes: usize,
    /// ODS on two threads: the least number of chunks of
    /// [`chunk_bytes`](OpenOptions::chunk_bytes) a `content.xml` must
    /// hold for its big tables to be cut into row chunks parsed by the
    /// second thread. Smaller parts are inflated ahead on the second
    /// thread while the first parses, which was as fast or faster up to
    /// 240 MB of XML (BENCHMARKS.md, session 9). Default 64 (256 MiB
    /// with the default chunk size); results never depend on it.
    pub row_chunks_min: usize,
    /// First block of a streaming read ([`Workbook::rows`](crate::Workbook::rows)),
    /// in bytes of XML. Default 64 KiB; each next block is twice as big,
    /// up to 4 MiB, so a request for a few rows inflates little while a
    /// full read works in big blocks. Results never depend on it. When
    /// more than one thread is allowed (`threads` 0 on a multi-core
    /// machine, or 2 and up, with `parallel`), a streamed XLSX worksheet
    /// of 1 MiB and more, and an ODS `content.xml`, is inflated ahead on
    /// one helper thread while the caller parses (blocks of at most 1 MiB,
    /// two in flight).
    pub stream_block: usize,
    /// A hint that only the first `n` sheets will be read (default `None`:
    /// all). An ODS workbook opened without cells then stops its listing
    /// pass at the start of sheet `n - 1`, so the first rows of the first
    /// sheet come without inflating the rest of `content.xml`: `sheets()`
    /// holds those `n` sheets only, named ranges after them are not
    /// listed, the part's size and CRC go unchecked (it is not read to
    /// its end), and the streamed sheets share the repeat budget among
    /// the listed tables only. Ignored by XLSX (its sheet list is read
    /// whole at no cost) and by opens that load cells.
    pub sheets_needed: Option<usize>,
    /// A hint that only the sheet of this exact (case-sensitive) name will
    /// be read (default `None`). An ODS workbook opened without cells then
    /// stops its listing pass at the start of the first sheet of that
    /// name, with the same consequences as
    /// [`sheets_needed`](OpenOptions::sheets_needed) (which it combines
    /// with: the listing stops at whichever comes first). When no sheet
    /// has the name the listing runs to the end as usual. Ignored by XLSX
    /// and by opens that load cells.
    pub sheet_needed_named: Option<String>,
    /// Load the cells of this one sheet only (default `None`: every
    /// sheet). The other sheets are listed without cells, as with
    /// [`load_cells(false)`](OpenOptions::load_cells), and stream on
    /// demand. A name matches as
    /// [`Workbook::sheet_by_name`](crate::Workbook::sheet_by_name) does;
    /// when nothing matches no sheet is loaded. XLSX only: ODS keeps every
    /// sheet in one part and loads them all. No effect without
    /// `load_cells`.
    pub cells_of: Option<SheetPick>,
}

/// One sheet, by 0-based index or by name (see [`OpenOptions::cells_of`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SheetPick {
    /// 0-based position in the workbook's sheet list.
    Index(usize),
    /// Name: exact first, then ASCII case-insensitive.
    Name(String),
}

impl SheetPick {
    /// The position among `names` this pick chooses, if any.
    pub fn position<'a>(&self, names: impl Iterator<Item = &'a str> + Clone) -> Option<usize> {
        match self {
            SheetPick::Index(i) => (*i < names.clone().count()).then_some(*i),
            SheetPick::Name(n) => names
                .clone()
                .position(|s| s == n)
                .or_else(|| names.clone().position(|s| s.eq_ignore_ascii_case(n))),
        }
    }
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions {
            parallel: true,
            threads: 0,
            limits: Limits::default(),
            map_mode: MapMode::Map,
            load_cells: true,
            chunk_bytes: 4 << 20,
            row_chunks_min: 64,
            stream_block: 64 << 10,
            sheets_needed: None,
            sheet_needed_named: None,
            cells_of: None,
        }
    }
}

impl OpenOptions {
    /// Options with every default.
    pub fn new() -> OpenOptions {
        OpenOptions::default()
    }
    /// Sets [`parallel`](OpenOptions::parallel).
    pub fn parallel(mut self, on: bool) -> OpenOptions {
        self.parallel = on;
        self
    }
    /// Sets [`threads`](OpenOptions::threads).
    pub fn threads(mut self, n: usize) -> OpenOptions {
        self.threads = n;
        self
    }
    /// Sets [`limits`](OpenOptions::limits).
    pub fn limits(mut self, limits: Limits) -> OpenOptions {
        self.limits = limits;
        self
    }
    /// Sets [`chunk_bytes`](OpenOptions::chunk_bytes) (at least 1 KiB).
    pub fn chunk_bytes(mut self, n: usize) -> OpenOptions {
        self.chunk_bytes = n.max(1 << 10);
        self
    }
    /// Sets [`row_chunks_min`](OpenOptions::row_chunks_min) (at least 1).
    pub fn row_chunks_min(mut self, n: usize) -> OpenOptions {
        self.row_chunks_min = n.max(1);
        self
    }
    /// Sets [`sheets_needed`](OpenOptions::sheets_needed) (at least 1).
    pub fn sheets_needed(mut self, n: usize) -> OpenOptions {
        self.sheets_needed = Some(n.max(1));
        self
    }
    /// Sets [`sheet_needed_named`](OpenOptions::sheet_needed_named).
    pub fn sheet_needed_named(mut self, name: impl Into<String>) -> OpenOptions {
        self.sheet_needed_named = Some(name.into());
        self
    }
    /// Sets [`stream_block`](OpenOptions::stream_block) (at least 1 byte).
    pub fn stream_block(mut self, n: usize) -> OpenOptions {
        self.stream_block = n.max(1);
        self
    }
    /// Sets [`cells_of`](OpenOptions::cells_of).
    pub fn cells_of(mut self, pick: SheetPick) -> OpenOptions {
        self.cells_of = Some(pick);
        self
    }
    /// Sets [`load_cells`](OpenOptions::load_cells).
    pub fn load_cells(mut self, on: bool) -> OpenOptions {
        self.load_cells = on;
        self
    }
    /// Threads phase B will use for `jobs` worksheets.
    pub fn effective_threads(&self, jobs: usize) -> usize {
        if !self.parallel || jobs <= 1 {
            return 1;
        }
        let want = if self.threads == 0 {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        } else {
            self.threads
        };
        want.min(jobs).max(1)
    }
}
