//! What to read and how to type it: [`ReadOptions`] and its parts.

use crate::error::Error;
use arrow_schema::{DataType, TimeUnit};
use std::fmt;
use std::str::FromStr;

/// The Arrow type of a column.
///
/// | variant    | Arrow type          | holds |
/// |------------|---------------------|-------|
/// | `Null`     | `null`              | a column without any value |
/// | `Bool`     | `boolean`           | TRUE / FALSE cells |
/// | `Int64`    | `int64`             | numbers, every one integral and within ±2^63 |
/// | `Float64`  | `float64`           | numbers |
/// | `String`   | `utf8`              | text, and the text of any value in a mixed column |
/// | `Date`     | `date32`            | date-formatted whole days |
/// | `Datetime` | `timestamp[ms]`     | date-times (no time zone) |
/// | `Duration` | `duration[ms]`      | durations, and times of day (time since midnight) |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    /// Every value null.
    Null,
    /// Booleans.
    Bool,
    /// 64-bit integers.
    Int64,
    /// 64-bit floats.
    Float64,
    /// UTF-8 text.
    String,
    /// Days since 1970-01-01 (`date32`).
    Date,
    /// Milliseconds since 1970-01-01T00:00:00, no time zone (`timestamp[ms]`).
    Datetime,
    /// Elapsed milliseconds (`duration[ms]`); times of day count from midnight.
    Duration,
}

impl DType {
    /// The name [`FromStr`] reads: `null`, `bool`, `int64`, `float64`,
    /// `string`, `date`, `datetime`, `duration`.
    pub fn as_str(self) -> &'static str {
        match self {
            DType::Null => "null",
            DType::Bool => "bool",
            DType::Int64 => "int64",
            DType::Float64 => "float64",
            DType::String => "string",
            DType::Date => "date",
            DType::Datetime => "datetime",
            DType::Duration => "duration",
        }
    }

    /// The Arrow data type of a column of this type (see the table on [`DType`]).
    pub fn arrow_type(self) -> DataType {
        match self {
            DType::Null => DataType::Null,
            DType::Bool => DataType::Boolean,
            DType::Int64 => DataType::Int64,
            DType::Float64 => DataType::Float64,
            DType::String => DataType::Utf8,
            DType::Date => DataType::Date32,
            DType::Datetime => DataType::Timestamp(TimeUnit::Millisecond, None),
            DType::Duration => DataType::Duration(TimeUnit::Millisecond),
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for DType {
    type Err = Error;
    /// Reads `string`, `int64`, `float64`, `bool`, `date`, `datetime`,
    /// `duration` or `null` (exact, lower case); anything else is a usage
    /// error naming the text.
    fn from_str(s: &str) -> Result<DType, Error> {
        Ok(match s {
            "null" => DType::Null,
            "bool" => DType::Bool,
            "int64" => DType::Int64,
            "float64" => DType::Float64,
            "string" => DType::String,
            "date" => DType::Date,
            "datetime" => DType::Datetime,
            "duration" => DType::Duration,
            _ => {
                return Err(Error::usage(format!(
                    "unknown dtype '{s}' (expected string, int64, float64, bool, date, datetime or duration)"
                )));
            }
        })
    }
}

/// What a value that cannot become its column's asked type ([`ReadOptions::dtypes`]) does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnError {
    /// Stop with an [`Error`] naming the sheet and cell (the default).
    #[default]
    Raise,
    /// Make it null; one [`Warning::NullsFromBadValues`](crate::Warning::NullsFromBadValues)
    /// per column counts them.
    Null,
}

/// What error cells (`#N/A`, `#DIV/0!`, ...) become.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorsAs {
    /// Null, with one [`Warning::NullsFromErrors`](crate::Warning::NullsFromErrors)
    /// per column counting them (the default). They take no part in typing.
    #[default]
    Null,
    /// Their text (`#N/A`): they type as text, so a column of numbers with
    /// an error cell becomes a string column.
    String,
}

/// One selected column: by its name (after header naming) or its 0-based index.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ColumnSel {
    /// The column's name, exact.
    Name(String),
    /// The column's 0-based index in the sheet (`A` is 0).
    Index(usize),
}

/// Largest column index of a sheet (`XFD`), the limit of [`parse_columns`].
pub const MAX_COL: usize = 16_383;

/// Parses Excel column letters and ranges, comma-separated
/// (`"A:C,F"` -> indices 0, 1, 2, 5), case-insensitive, spaces around
/// items ignored. Columns past `XFD` or a reversed range (`C:A`) are usage
/// errors naming the item.
pub fn parse_columns(spec: &str) -> Result<Vec<ColumnSel>, Error> {
    let mut out = Vec::new();
    for item in spec.split(',') {
        let item = item.trim();
        let bad =
            |why: &str| Error::usage(format!("bad column selection '{item}' in '{spec}': {why}"));
        let (first, last) = match item.split_once(':') {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (item, item),
        };
        let first = col_index(first).ok_or_else(|| bad("expected column letters A..XFD"))?;
        let last = col_index(last).ok_or_else(|| bad("expected column letters A..XFD"))?;
        if last < first {
            return Err(bad("the range ends before it starts"));
        }
        out.extend((first..=last).map(ColumnSel::Index));
    }
    Ok(out)
}

/// The 0-based index of column letters (`A` -> 0, `AA` -> 26); `None`
/// for anything else or past [`MAX_COL`].
pub fn col_index(letters: &str) -> Option<usize> {
    if letters.is_empty() || letters.len() > 3 {
        return None;
    }
    let mut n = 0usize;
    for b in letters.bytes() {
        if !b.is_ascii_alphabetic() {
            return None;
        }
        n = n * 26 + usize::from(b.to_ascii_uppercase() - b'A') + 1;
    }
    (n - 1 <= MAX_COL).then_some(n - 1)
}

/// How [`read_sheet`](crate::read_sheet) and [`iter_batches`](crate::iter_batches)
/// read a sheet. `Default`: header in row 0, everything else off.
///
/// Rows and columns keep their places in the sheet: the table's columns
/// are the sheet's columns `A` up to the last one holding a cell (in the
/// header or the data rows), and its rows are the sheet's rows from the
/// first data row up to the last one holding a cell, empty rows included
/// as all-null rows.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadOptions {
    /// 0-based sheet row holding the column names; `None`: no header, the
    /// columns are `column_0`, `column_1`, ... Default `Some(0)`. Names are
    /// made unique and non-empty with [`ream::ColumnNamer`] (`a`, `a_1`;
    /// `__UNNAMED__{i}`).
    pub header_row: Option<u32>,
    /// Rows skipped after the header (or from row 0 without one). Default 0.
    pub skip_rows: u32,
    /// At most this many data rows (counting empty rows); `None`: all.
    pub n_rows: Option<u64>,
    /// Columns to keep, in this order; `None`: all. Unknown names and
    /// indices past the last column are usage errors.
    pub columns: Option<Vec<ColumnSel>>,
    /// Asked types by column name, overriding inference (the last entry
    /// for a name wins). Names not among the columns are usage errors.
    /// What each type takes (empty cells, and empty text outside `string`,
    /// are null; error cells follow [`errors_as`](Self::errors_as), and
    /// under [`ErrorsAs::String`] only a `string` column takes them):
    /// - `string`: every value, in the text form of the crate docs;
    /// - `int64`: integral numbers within ±2^63, date serials, decimal
    ///   integer text (trimmed);
    /// - `float64`: numbers, date serials, number text (trimmed);
    /// - `bool`: booleans, text `true`/`false` (any case);
    /// - `date`: dates at midnight, plain numbers read as date serials,
    ///   ISO 8601 text at midnight (`2024-01-31`);
    /// - `datetime`: dates and date-times, plain numbers as date serials,
    ///   ISO 8601 text (`2024-01-31`, `2024-01-31T10:20:30`,
    ///   `2024-01-31 10:20:30.5`; seconds optional, a fraction of up to 9
    ///   digits rounded to the millisecond, a trailing `Z` accepted and
    ///   dropped, other UTC offsets not taken);
    /// - `duration`: durations, times of day, plain numbers as days, text
    ///   `[-]h:mm:ss[.f]` (`36:00:00`, `06:00:00.5`, `-1:30:00`);
    /// - `null`: nothing but empty cells.
    ///
    /// Any other value follows [`on_error`](Self::on_error).
    pub dtypes: Vec<(String, DType)>,
    /// Infer types from the first N data rows only; `None`: from every
    /// row (the default). A later value that does not fit is an error.
    pub infer_rows: Option<u64>,
    /// Bad values under `dtypes`: error (default) or null.
    pub on_error: OnError,
    /// Error cells: null with a warning (default) or their text.
    pub errors_as: ErrorsAs,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            header_row: Some(0),
            skip_rows: 0,
            n_rows: None,
            columns: None,
            dtypes: Vec::new(),
            infer_rows: None,
            on_error: OnError::Raise,
            errors_as: ErrorsAs::Null,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_letters_and_ranges() {
        let sel = parse_columns("A:C, f").unwrap();
        let idx: Vec<usize> = sel
            .iter()
            .map(|s| match s {
                ColumnSel::Index(i) => *i,
                ColumnSel::Name(_) => usize::MAX,
            })
            .collect();
        assert_eq!(idx, [0, 1, 2, 5]);
        assert_eq!(col_index("XFD"), Some(MAX_COL));
        assert_eq!(col_index("AA"), Some(26));
        assert_eq!(col_index("XFE"), None);
    }

    #[test]
    fn bad_column_selections_name_the_item() {
        let e = parse_columns("A:C,1").unwrap_err().to_string();
        assert!(e.contains("'1'") && e.contains("A:C,1"), "{e}");
        let e = parse_columns("C:A").unwrap_err().to_string();
        assert!(e.contains("ends before it starts"), "{e}");
        assert!(parse_columns("").is_err());
    }

    #[test]
    fn dtype_names_round_trip() {
        for t in [
            "string", "int64", "float64", "bool", "date", "datetime", "duration", "null",
        ] {
            assert_eq!(t.parse::<DType>().unwrap().as_str(), t);
        }
        let e = "int".parse::<DType>().unwrap_err().to_string();
        assert!(e.contains("unknown dtype 'int'"), "{e}");
    }
}
