//! The workbook model: typed cell values, ranges and the small parts.

use std::fmt;

/// Writes the A1-style name of a 0-based (row, col), e.g. `(0, 0)` -> `A1`.
pub fn cell_name(row: u32, col: u32) -> String {
    let mut s = col_name(col);
    s.push_str(&(u64::from(row) + 1).to_string());
    s
}

/// The column letters of a 0-based column index (`0` -> `A`, `26` -> `AA`).
pub fn col_name(col: u32) -> String {
    let mut buf = [0u8; 8];
    let mut n = u64::from(col) + 1;
    let mut i = buf.len();
    while n > 0 && i > 0 {
        i -= 1;
        let rem = ((n - 1) % 26) as u8;
        if let Some(b) = buf.get_mut(i) {
            *b = b'A' + rem;
        }
        n = (n - 1) / 26;
    }
    String::from_utf8_lossy(buf.get(i..).unwrap_or_default()).into_owned()
}

/// A rectangular cell range, 0-based and inclusive on both ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CellRange {
    /// First row (0-based).
    pub first_row: u32,
    /// First column (0-based).
    pub first_col: u32,
    /// Last row (0-based, inclusive).
    pub last_row: u32,
    /// Last column (0-based, inclusive).
    pub last_col: u32,
}

impl CellRange {
    /// Parses `A1` or `A1:C3` (with optional `$` markers). Returns `None` for
    /// anything else, including whole-row/column forms.
    pub fn parse(s: &str) -> Option<CellRange> {
        let (a, b) = match s.split_once(':') {
            Some((a, b)) => (a, b),
            None => (s, s),
        };
        let (r0, c0) = crate::refs::parse_a1(a.as_bytes())?;
        let (r1, c1) = crate::refs::parse_a1(b.as_bytes())?;
        Some(CellRange {
            first_row: r0.min(r1),
            first_col: c0.min(c1),
            last_row: r0.max(r1),
            last_col: c0.max(c1),
        })
    }
    /// Number of rows covered.
    pub fn height(&self) -> u64 {
        u64::from(self.last_row) - u64::from(self.first_row) + 1
    }
    /// Number of columns covered.
    pub fn width(&self) -> u64 {
        u64::from(self.last_col) - u64::from(self.first_col) + 1
    }
}

impl fmt::Display for CellRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = cell_name(self.first_row, self.first_col);
        if self.first_row == self.last_row && self.first_col == self.last_col {
            f.write_str(&a)
        } else {
            write!(f, "{a}:{}", cell_name(self.last_row, self.last_col))
        }
    }
}

/// An error value stored in a cell (`#DIV/0!` and friends).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CellError {
    /// `#NULL!`
    Null,
    /// `#DIV/0!`
    Div0,
    /// `#VALUE!`
    Value,
    /// `#REF!`
    Ref,
    /// `#NAME?`
    Name,
    /// `#NUM!`
    Num,
    /// `#N/A`
    NA,
    /// `#GETTING_DATA`
    GettingData,
    /// `#SPILL!`
    Spill,
    /// `#CALC!`
    Calc,
    /// `#FIELD!`
    Field,
    /// `#BLOCKED!`
    Blocked,
    /// `#CONNECT!`
    Connect,
    /// `#BUSY!`
    Busy,
    /// `#UNKNOWN!`
    Unknown,
    /// `#PYTHON!`
    Python,
}

impl CellError {
    const ALL: [(CellError, &'static str); 16] = [
        (CellError::Null, "#NULL!"),
        (CellError::Div0, "#DIV/0!"),
        (CellError::Value, "#VALUE!"),
        (CellError::Ref, "#REF!"),
        (CellError::Name, "#NAME?"),
        (CellError::Num, "#NUM!"),
        (CellError::NA, "#N/A"),
        (CellError::GettingData, "#GETTING_DATA"),
        (CellError::Spill, "#SPILL!"),
        (CellError::Calc, "#CALC!"),
        (CellError::Field, "#FIELD!"),
        (CellError::Blocked, "#BLOCKED!"),
        (CellError::Connect, "#CONNECT!"),
        (CellError::Busy, "#BUSY!"),
        (CellError::Unknown, "#UNKNOWN!"),
        (CellError::Python, "#PYTHON!"),
    ];
    /// The error as Excel writes it, e.g. `#DIV/0!`.
    pub fn as_str(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(e, _)| *e == self)
            .map(|(_, s)| *s)
            .unwrap_or("#VALUE!")
    }
    /// Parses Excel's spelling (exact bytes).
    pub fn from_bytes(b: &[u8]) -> Option<CellError> {
        Self::ALL
            .iter()
            .find(|(_, s)| s.as_bytes() == b)
            .map(|(e, _)| *e)
    }
    pub(crate) fn code(self) -> u8 {
        Self::ALL.iter().position(|(e, _)| *e == self).unwrap_or(0) as u8
    }
    pub(crate) fn from_code(c: u8) -> CellError {
        Self::ALL
            .get(usize::from(c))
            .map(|(e, _)| *e)
            .unwrap_or(CellError::Value)
    }
}

impl fmt::Display for CellError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a date-formatted number means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DateKind {
    /// A calendar date, possibly with a time of day.
    DateTime,
    /// A time of day only (format shows no date part and the serial is < 1).
    Time,
    /// An elapsed duration (`[h]:mm:ss` style formats).
    Duration,
}

/// A number whose number format makes it a date, time or duration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExcelDateTime {
    /// The raw serial number (days since the epoch of the date system).
    pub serial: f64,
    /// How to interpret it.
    pub kind: DateKind,
    /// True when the workbook uses the 1904 date system.
    pub date_1904: bool,
}

impl ExcelDateTime {
    /// The value in seconds: since 1970-01-01 for dates, since midnight for
    /// times, elapsed for durations. `None` for serials outside year 0..9999.
    pub fn to_unix_seconds(&self) -> Option<f64> {
        crate::dates::serial_to_unix(self.serial, self.date_1904)
    }
    /// ISO 8601: `YYYY-MM-DD` (midnight dates), `YYYY-MM-DDTHH:MM:SS[.f]`,
    /// `HH:MM:SS[.f]` for times, where `.f` is the fraction of a second in
    /// the fewest digits (at most 6: microseconds) that stay within the
    /// precision the serial holds, so float noise is dropped (absent when
    /// zero; a time of day resolves microseconds, a date-time serial of
    /// this era about 10). Durations are given as [`to_duration_text`](Self::to_duration_text)
    /// (seconds as a number when that is `None`); a date serial outside
    /// year 0..9999 as the serial number.
    pub fn to_iso(&self) -> String {
        crate::dates::to_iso(self)
    }
    /// The serial as an elapsed duration, `[-]h:mm:ss[.f]`: whole hours
    /// (not padded, not wrapped at 24), minutes, seconds, and the fraction
    /// as for [`to_iso`](Self::to_iso) (`255:10:10`,
    /// `0:00:01.25`, `-1:30:00`). Whatever the [`kind`](Self::kind). `None`
    /// for a non-finite serial or one beyond ±10^9 days.
    pub fn to_duration_text(&self) -> Option<String> {
        crate::dates::duration_text(self.serial)
    }
    /// Duration or time of day in seconds (fractional part of the serial
    /// times 86,400 for times, whole serial for durations).
    pub fn as_seconds(&self) -> f64 {
        match self.kind {
            DateKind::Time => self.serial.fract() * 86_400.0,
            _ => self.serial * 86_400.0,
        }
    }
}

/// A typed cell value, borrowing strings from the workbook.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    /// A number (integers are numbers too, as in Excel).
    Number(f64),
    /// Text: shared, inline, rich (flattened) or a formula's string result.
    String(&'a str),
    /// A boolean.
    Bool(bool),
    /// An error value.
    Error(CellError),
    /// A number formatted as a date, time or duration.
    DateTime(ExcelDateTime),
    /// A cell that exists without a value: a formula whose result was not
    /// saved with the file (`<f>A1*2</f><v></v>`, common in files written
    /// by openpyxl). Its formula text is in [`Cell::formula`].
    Empty,
}

impl Value<'_> {
    /// A short type name used in JSON output: `number`, `string`, `bool`,
    /// `error`, `date`, `time`, `duration`, `empty`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Bool(_) => "bool",
            Value::Error(_) => "error",
            Value::Empty => "empty",
            Value::DateTime(d) => match d.kind {
                DateKind::DateTime => "date",
                DateKind::Time => "time",
                DateKind::Duration => "duration",
            },
        }
    }
}

/// One non-empty cell, borrowed from a [`Sheet`](crate::Sheet).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell<'a> {
    /// 0-based row.
    pub row: u32,
    /// 0-based column.
    pub col: u32,
    /// The (cached) value.
    pub value: Value<'a>,
    /// The formula text without the leading `=`, when the cell has one
    /// (shared formulas expanded to this cell).
    pub formula: Option<&'a str>,
}

/// What kind of sheet a workbook entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SheetKind {
    /// An ordinary grid of cells.
    Worksheet,
    /// A sheet holding only a chart.
    Chartsheet,
    /// An Excel 5 dialog sheet.
    DialogSheet,
    /// An Excel 4 macro sheet.
    MacroSheet,
}

impl SheetKind {
    /// Lower-case name for output.
    pub fn as_str(self) -> &'static str {
        match self {
            SheetKind::Worksheet => "worksheet",
            SheetKind::Chartsheet => "chartsheet",
            SheetKind::DialogSheet => "dialogsheet",
            SheetKind::MacroSheet => "macrosheet",
        }
    }
}

/// Whether a sheet tab is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Visibility {
    /// Shown (the default).
    #[default]
    Visible,
    /// Hidden; the user can unhide it.
    Hidden,
    /// Hidden; only code can unhide it.
    VeryHidden,
}

impl Visibility {
    /// Lower-case name for output: `visible`, `hidden`, `veryHidden`.
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Visible => "visible",
            Visibility::Hidden => "hidden",
            Visibility::VeryHidden => "veryHidden",
        }
    }
}

/// A cell comment (legacy note or threaded comment text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    /// 0-based row.
    pub row: u32,
    /// 0-based column.
    pub col: u32,
    /// Author name, empty when absent.
    pub author: String,
    /// Plain text (rich runs flattened).
    pub text: String,
}

/// An Excel table (ListObject).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// Internal name.
    pub name: String,
    /// Name shown to users.
    pub display_name: String,
    /// Covered range, header row included.
    pub range: CellRange,
    /// Column names in order.
    pub columns: Vec<String>,
}

/// A hyperlink attached to a cell range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hyperlink {
    /// Cells the link covers.
    pub range: CellRange,
    /// External target (URL, file) resolved through the sheet's relationships.
    pub target: Option<String>,
    /// In-workbook location (e.g. `Sheet2!A1`).
    pub location: Option<String>,
    /// Display text, when given.
    pub display: Option<String>,
}

/// A workbook- or sheet-scoped defined name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinedName {
    /// The name, e.g. `_xlnm.Print_Area` or `Totals`.
    pub name: String,
    /// The formula or reference it stands for.
    pub formula: String,
    /// Index of the sheet it is local to, `None` for workbook scope.
    pub local_sheet: Option<usize>,
    /// True when the name is hidden.
    pub hidden: bool,
}

/// What a drawing object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DrawingKind {
    /// A picture.
    Image,
    /// A chart.
    Chart,
}

/// An image or chart placed on a sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drawing {
    /// Picture or chart.
    pub kind: DrawingKind,
    /// Top-left anchor cell (0-based row, col), when anchored to a cell.
    pub anchor: Option<(u32, u32)>,
    /// The part holding the image bytes or chart XML.
    pub part: String,
    /// The chart title, when the chart has a literal one.
    pub title: Option<String>,
}

/// Timings and counts measured while opening a workbook.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct OpenStats {
    /// Phase A wall seconds: map, ZIP directory, workbook-level parts
    /// (workbook, rels, shared strings, styles).
    pub phase_a_s: f64,
    /// Phase B wall seconds: inflate and parse all worksheets on the pool.
    pub phase_b_s: f64,
    /// Phase C wall seconds: small parts (comments, tables, drawings, ...).
    pub phase_c_s: f64,
    /// Sum over workers of seconds spent inflating worksheet parts.
    pub inflate_s: f64,
    /// Sum over workers of seconds spent parsing worksheet XML.
    pub parse_s: f64,
    /// Worker threads used in phase B (1 means the serial loop ran).
    pub threads: usize,
    /// Non-empty cells stored, all sheets.
    pub cells: u64,
    /// Bytes of worksheet XML inflated.
    pub inflated_bytes: u64,
    /// Chunks of big sheets parsed in parallel (0 when no sheet was
    /// chunked); for ODS, the row chunks and whole tables handed to the
    /// pipeline's pool.
    pub chunks: u64,
    /// Big sheets that were parsed sequentially after all because a chunk
    /// boundary fell inside markup that looked like a row end (ODS: 1 when
    /// the units did not stitch into their tables, e.g. a cut inside a row
    /// group, and `content.xml` was read again with every table parsed in
    /// place).
    pub chunk_fallbacks: u64,
    /// ODS: `content.xml` was read over a sliding window (a block of XML
    /// in memory, plus the units in flight) instead of inflated whole.
    pub windowed: bool,
}
