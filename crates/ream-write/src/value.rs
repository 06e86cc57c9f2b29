//! What a cell holds when it is written.

use crate::styles::NumberFormat;
use ream_sheet::CellError;

/// How a date-time serial is shown: each picks one number format of the
/// workbook's styles (see [`DateStyle::format_code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DateStyle {
    /// `yyyy-mm-dd`.
    Date,
    /// `yyyy-mm-dd hh:mm:ss`.
    DateTime,
    /// `hh:mm:ss` (a time of day: the serial's fraction).
    Time,
    /// `[h]:mm:ss` (elapsed time, hours not wrapped).
    Duration,
}

impl DateStyle {
    /// Every style, in the order of their cell formats (`s="1"` onwards).
    pub const ALL: [DateStyle; 4] = [
        DateStyle::Date,
        DateStyle::DateTime,
        DateStyle::Time,
        DateStyle::Duration,
    ];
    /// The number format code written to `styles.xml`.
    pub fn format_code(self) -> &'static str {
        match self {
            DateStyle::Date => "yyyy-mm-dd",
            DateStyle::DateTime => "yyyy-mm-dd hh:mm:ss",
            DateStyle::Time => "hh:mm:ss",
            DateStyle::Duration => "[h]:mm:ss",
        }
    }
    /// The position of this style in [`DateStyle::ALL`].
    pub(crate) fn index(self) -> usize {
        match self {
            DateStyle::Date => 0,
            DateStyle::DateTime => 1,
            DateStyle::Time => 2,
            DateStyle::Duration => 3,
        }
    }
    /// Characters the formatted value takes (for column autofit).
    pub(crate) fn display_len(self) -> usize {
        match self {
            DateStyle::Date => 10,
            DateStyle::DateTime => 19,
            DateStyle::Time | DateStyle::Duration => 8,
        }
    }
}

/// A value to write. Strings borrow from the caller.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    /// A finite number (NaN and infinities are refused: XLSX has no
    /// spelling for them).
    Number(f64),
    /// Text, at most 32,767 characters; empty text without a formula is
    /// written as no cell (readers see both as an empty cell).
    String(&'a str),
    /// A boolean.
    Bool(bool),
    /// An error value such as `#N/A`.
    Error(CellError),
    /// A date/time serial (days since the workbook's epoch, see
    /// `WriteOptions::date_1904`) shown with a date style.
    DateTime(f64, DateStyle),
    /// No value: only meaningful with a formula (a formula whose result is
    /// not known); without one the cell is skipped.
    Empty,
}

/// One cell of a row: its 0-based column, value, optional formula
/// (without the leading `=`), whose cached result is `value`, and
/// optional number format.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell<'a> {
    /// 0-based column (0..=16,383).
    pub col: u32,
    /// The value, or the formula's cached result.
    pub value: Value<'a>,
    /// Formula text without `=`, e.g. `SUM(A1:A9)`.
    pub formula: Option<&'a str>,
    /// The cell's number format (default `None`: the column's format if
    /// it has one, else a date's [`DateStyle`], else General).
    pub format: Option<NumberFormat>,
}

impl<'a> Cell<'a> {
    /// A cell with a value and no formula.
    pub fn new(col: u32, value: Value<'a>) -> Cell<'a> {
        Cell {
            col,
            value,
            formula: None,
            format: None,
        }
    }
    /// A formula cell with its cached result.
    pub fn formula(col: u32, formula: &'a str, cached: Value<'a>) -> Cell<'a> {
        Cell {
            col,
            value: cached,
            formula: Some(formula),
            format: None,
        }
    }
    /// The same cell shown with number format `f` (from
    /// [`WorkbookWriter::number_format`](crate::WorkbookWriter::number_format)).
    pub fn with_format(mut self, f: NumberFormat) -> Cell<'a> {
        self.format = Some(f);
        self
    }
}
