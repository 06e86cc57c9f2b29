//! Options and limits for opening a workbook.

pub use ream_io::MapMode;

/// Resource limits enforced while opening a workbook. Exceeding one gives an
/// [`ErrorKind::LimitExceeded`](crate::ErrorKind::LimitExceeded) error naming
/// the limit, the part and the value.
///
/// Build it from [`Limits::default`] with one method per limit:
/// `Limits::default().max_cells_per_sheet(1_000_000)`. New limits may be
/// added (the struct is `#[non_exhaustive]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
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

impl Limits {
    /// Sets [`max_inflated_bytes`](Limits::max_inflated_bytes) (default
    /// 16 GiB).
    pub fn max_inflated_bytes(mut self, bytes: u64) -> Limits {
        self.max_inflated_bytes = bytes;
        self
    }
    /// Sets [`max_inflate_ratio`](Limits::max_inflate_ratio) (default
    /// 1,000).
    pub fn max_inflate_ratio(mut self, ratio: u64) -> Limits {
        self.max_inflate_ratio = ratio;
        self
    }
    /// Sets [`max_cells_per_sheet`](Limits::max_cells_per_sheet) (default
    /// 400,000,000).
    pub fn max_cells_per_sheet(mut self, cells: u64) -> Limits {
        self.max_cells_per_sheet = cells;
        self
    }
    /// Sets [`max_string_chars`](Limits::max_string_chars) (default
    /// 16,777,216).
    pub fn max_string_chars(mut self, chars: usize) -> Limits {
        self.max_string_chars = chars;
        self
    }
    /// Sets [`max_xml_depth`](Limits::max_xml_depth) (default 256).
    pub fn max_xml_depth(mut self, depth: u32) -> Limits {
        self.max_xml_depth = depth;
        self
    }
    /// Sets [`max_zip_entries`](Limits::max_zip_entries) (default
    /// 100,000).
    pub fn max_zip_entries(mut self, entries: u64) -> Limits {
        self.max_zip_entries = entries;
        self
    }
    /// Sets [`max_formula_bytes`](Limits::max_formula_bytes) (default
    /// 1 GiB).
    pub fn max_formula_bytes(mut self, bytes: u64) -> Limits {
        self.max_formula_bytes = bytes;
        self
    }
}

/// How to open a workbook.
///
/// Build it from [`OpenOptions::new`] (every default) with one method per
/// setting: `OpenOptions::new().threads(4).limits(Limits::default())`. New
/// settings may be added (the struct is `#[non_exhaustive]`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OpenOptions {
    /// Parse worksheets on a worker pool. Default `true`.
    pub parallel: bool,
    /// Worker threads; 0 (the default) means min(sheets, available cores),
    /// and no more than one per [`AUTO_BYTES_PER_THREAD`] of sheet data,
    /// so a small workbook is read on one thread instead of paying for
    /// threads it cannot use. A number given here is used as is.
    pub threads: usize,
    /// Resource limits (see [`Limits`] for defaults).
    pub limits: Limits,
    /// How files are read: memory-mapped ([`MapMode::Map`], the default)
    /// or read into memory ([`MapMode::Read`]).
    pub map_mode: MapMode,
    /// Parse every sheet's cells at open (default `true`). With `false`
    /// only the workbook-level parts are read (phase A): sheets are listed
    /// but hold no cells, and [`Workbook::rows`](crate::Workbook::rows)
    /// streams them on demand in constant memory.
    pub load_cells: bool,
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
    /// The password of an encrypted workbook (default `None`). XLS only:
    /// a workbook encrypted with RC4 or RC4 CryptoAPI is tried first with
    /// Excel's default password "VelvetSweatshop", then with this one; a
    /// workbook neither opens is refused as
    /// [`ErrorKind::Encrypted`](crate::ErrorKind::Encrypted).
    pub password: Option<String>,
    /// Tuning knob: see [`OpenOptions::tune_chunk_bytes`].
    pub(crate) chunk_bytes: usize,
    /// Tuning knob: see [`OpenOptions::tune_stream_block`].
    pub(crate) stream_block: usize,
    /// Tuning knob: see [`OpenOptions::tune_cores`].
    pub(crate) cores: Option<usize>,
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
            stream_block: 64 << 10,
            cores: None,
            sheets_needed: None,
            sheet_needed_named: None,
            cells_of: None,
            password: None,
        }
    }
}

impl OpenOptions {
    /// Options with every default.
    pub fn new() -> OpenOptions {
        OpenOptions::default()
    }
    /// Sets [`parallel`](OpenOptions::parallel) (default `true`).
    pub fn parallel(mut self, on: bool) -> OpenOptions {
        self.parallel = on;
        self
    }
    /// Sets [`threads`](OpenOptions::threads) (default 0: min(sheets,
    /// available cores)).
    pub fn threads(mut self, n: usize) -> OpenOptions {
        self.threads = n;
        self
    }
    /// Sets [`limits`](OpenOptions::limits) (default [`Limits::default`]).
    pub fn limits(mut self, limits: Limits) -> OpenOptions {
        self.limits = limits;
        self
    }
    /// Sets [`map_mode`](OpenOptions::map_mode) (default
    /// [`MapMode::Map`]).
    pub fn map_mode(mut self, mode: MapMode) -> OpenOptions {
        self.map_mode = mode;
        self
    }
    /// Sets [`load_cells`](OpenOptions::load_cells) (default `true`).
    pub fn load_cells(mut self, on: bool) -> OpenOptions {
        self.load_cells = on;
        self
    }
    /// Sets [`sheets_needed`](OpenOptions::sheets_needed) to `Some(n)`, `n`
    /// at least 1 (default `None`: all sheets).
    pub fn sheets_needed(mut self, n: usize) -> OpenOptions {
        self.sheets_needed = Some(n.max(1));
        self
    }
    /// Sets [`sheet_needed_named`](OpenOptions::sheet_needed_named)
    /// (default `None`).
    pub fn sheet_needed_named(mut self, name: impl Into<String>) -> OpenOptions {
        self.sheet_needed_named = Some(name.into());
        self
    }
    /// Sets [`cells_of`](OpenOptions::cells_of) (default `None`: every
    /// sheet).
    pub fn cells_of(mut self, pick: SheetPick) -> OpenOptions {
        self.cells_of = Some(pick);
        self
    }
    /// Sets [`password`](OpenOptions::password) (default `None`: the
    /// default password only).
    pub fn password(mut self, password: impl Into<String>) -> OpenOptions {
        self.password = Some(password.into());
        self
    }
    /// Internal tuning knob, for tests and benchmarks only (hidden from the
    /// documentation, not part of the stable API; results never depend on
    /// it). Size of the chunks a big sheet is cut into for parallel
    /// parsing, in bytes of XML: default 4 MiB, at least 1 KiB. Sheets
    /// under 4 chunks are parsed whole; with one thread nothing is
    /// chunked. For ODS, the big tables of `content.xml` are cut into row
    /// chunks of this size for the pipeline's parsers while it is
    /// inflated.
    #[doc(hidden)]
    pub fn tune_chunk_bytes(mut self, n: usize) -> OpenOptions {
        self.chunk_bytes = n.max(1 << 10);
        self
    }
    /// Internal tuning knob, for tests and benchmarks only (hidden from the
    /// documentation, not part of the stable API; results never depend on
    /// it). First block of a streaming read
    /// ([`Workbook::rows`](crate::Workbook::rows)), in bytes of XML:
    /// default 64 KiB, at least 1 byte; each next block is twice as big,
    /// up to 4 MiB, so a request for a few rows inflates little while a
    /// full read works in big blocks. When more than one thread is allowed
    /// (`threads` 0 on a multi-core machine, or 2 and up, with
    /// `parallel`), a streamed XLSX worksheet of 1 MiB and more, and an
    /// ODS `content.xml`, is inflated ahead on one helper thread while the
    /// caller parses (blocks of at most 1 MiB, two in flight).
    #[doc(hidden)]
    pub fn tune_stream_block(mut self, n: usize) -> OpenOptions {
        self.stream_block = n.max(1);
        self
    }
    /// Internal tuning knob, for tests and benchmarks only (hidden from the
    /// documentation, not part of the stable API; results never depend on
    /// it). The cores an ODS read assumes, which cap its threads: default
    /// the available parallelism, at least 1. Lets a small machine run the
    /// pool of a bigger one.
    #[doc(hidden)]
    pub fn tune_cores(mut self, n: usize) -> OpenOptions {
        self.cores = Some(n.max(1));
        self
    }
    /// The cores reads assume (see [`OpenOptions::tune_cores`]).
    pub(crate) fn cores(&self) -> usize {
        self.cores
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
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
    /// [`effective_threads`](OpenOptions::effective_threads) for `jobs`
    /// sheets holding `bytes` of sheet data (XML or records) in all: with
    /// `threads` 0, at most one thread per [`AUTO_BYTES_PER_THREAD`].
    pub fn effective_threads_for(&self, jobs: usize, bytes: u64) -> usize {
        let n = self.effective_threads(jobs);
        if self.threads != 0 {
            return n;
        }
        let by_size = usize::try_from(bytes / AUTO_BYTES_PER_THREAD).unwrap_or(usize::MAX);
        n.min(by_size.max(1))
    }
}

/// With automatic threads (`threads` 0), the sheet data each thread must
/// have to be started: 1 MiB, a few milliseconds of parsing, well above
/// what starting and joining a thread costs.
pub const AUTO_BYTES_PER_THREAD: u64 = 1 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn automatic_threads_follow_the_data_size() {
        let auto = OpenOptions::new();
        assert_eq!(auto.effective_threads_for(8, 100 << 10), 1);
        let cores = auto.effective_threads(8);
        assert_eq!(auto.effective_threads_for(8, 64 << 20), cores);
        assert_eq!(auto.effective_threads_for(8, 2 << 20), cores.min(2));
        let given = OpenOptions::new().threads(4);
        assert_eq!(given.effective_threads_for(8, 1), 4);
    }

    #[test]
    fn tuning_defaults_and_clamps() {
        let o = OpenOptions::default();
        assert_eq!(o.chunk_bytes, 4 << 20);
        assert_eq!(o.stream_block, 64 << 10);
        assert_eq!(OpenOptions::new().tune_stream_block(0).stream_block, 1);
        // chunk_bytes is clamped to 1 KiB, not refused.
        assert_eq!(OpenOptions::new().tune_chunk_bytes(10).chunk_bytes, 1 << 10);
    }
}
