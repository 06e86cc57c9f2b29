//! CSV and TSV lines of a fixed width.

use super::{Readers, WideRows, Width, row_end};
use crate::json::write_plain;
use anyhow::Result;
use ream::sheet::{RowReader, Value};
use std::io::{self, Write};

/// The field separator, and with it the quoting rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sep {
    /// CSV: RFC 4180 quoting.
    Comma,
    /// TSV: backslash escapes.
    Tab,
}

impl Sep {
    fn byte(self) -> &'static [u8] {
        match self {
            Sep::Comma => b",",
            Sep::Tab => b"\t",
        }
    }
}

/// Writes one text field with CSV quoting or TSV escaping.
pub fn write_field(w: &mut dyn Write, s: &str, sep: Sep) -> io::Result<()> {
    match sep {
        Sep::Comma => {
            if s.bytes().any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n')) {
                w.write_all(b"\"")?;
                let mut parts = s.split('"');
                if let Some(first) = parts.next() {
                    w.write_all(first.as_bytes())?;
                }
                for p in parts {
                    w.write_all(b"\"\"")?;
                    w.write_all(p.as_bytes())?;
                }
                w.write_all(b"\"")
            } else {
                w.write_all(s.as_bytes())
            }
        }
        Sep::Tab => {
            let mut start = 0;
            for (i, b) in s.bytes().enumerate() {
                let esc: &[u8] = match b {
                    b'\\' => b"\\\\",
                    b'\t' => b"\\t",
                    b'\r' => b"\\r",
                    b'\n' => b"\\n",
                    _ => continue,
                };
                w.write_all(s.as_bytes().get(start..i).unwrap_or_default())?;
                w.write_all(esc)?;
                start = i + 1;
            }
            w.write_all(s.as_bytes().get(start..).unwrap_or_default())
        }
    }
}

/// Writes a cell value as one CSV/TSV field.
fn write_value(w: &mut dyn Write, v: &Value<'_>, sep: Sep) -> io::Result<()> {
    match v {
        Value::String(s) => write_field(w, s, sep),
        other => write_plain(w, other),
    }
}

/// Writes the lines of one sheet; `sheet` is the leading sheet field
/// (`-s all`), written as `sheet` on the header line. Returns the number
/// of cells written.
pub fn write(
    w: &mut dyn Write,
    sheet: Option<&str>,
    r: Readers<'_>,
    width: &Width,
    sep: Sep,
    wide: &mut WideRows,
) -> Result<u64> {
    let mut lines = Lines {
        w,
        sheet,
        width: width.cols,
        sep,
    };
    let mut n = 0;
    if let Some(mut header) = r.header {
        lines.sheet = sheet.map(|_| "sheet");
        n += lines.rows(&mut header, None, width, wide)?;
        lines.sheet = sheet;
    }
    let mut data = r.data;
    n += lines.rows(&mut data, Some(r.first), width, wide)?;
    Ok(n)
}

struct Lines<'a> {
    w: &'a mut dyn Write,
    sheet: Option<&'a str>,
    width: u32,
    sep: Sep,
}

impl Lines<'_> {
    /// Starts a line: the sheet field, if any.
    fn start(&mut self) -> io::Result<()> {
        match self.sheet {
            Some(name) => write_field(self.w, name, self.sep),
            None => Ok(()),
        }
    }

    /// Separators for the empty fields `from..to` (the separator before
    /// field 0 only after a sheet field).
    fn gap(&mut self, from: u32, to: u32) -> io::Result<()> {
        let skip_first = from == 0 && self.sheet.is_none();
        let n = to.saturating_sub(from) - u32::from(skip_first && to > from);
        for _ in 0..n {
            self.w.write_all(self.sep.byte())?;
        }
        Ok(())
    }

    /// One line per row from `first` (when given: empty rows before each
    /// row are filled with empty lines) to the last row of `rows`.
    fn rows(
        &mut self,
        rows: &mut RowReader<'_>,
        first: Option<u32>,
        width: &Width,
        wide: &mut WideRows,
    ) -> Result<u64> {
        let mut next_line = first;
        let mut n = 0u64;
        while let Some(row) = rows.next_row()? {
            if let Some(next) = next_line.as_mut() {
                if row.index() < *next {
                    continue; // out of order: keep line positions stable
                }
                while *next < row.index() {
                    self.start()?;
                    self.gap(0, self.width)?;
                    self.w.write_all(b"\n")?;
                    *next += 1;
                }
                *next = row.index().saturating_add(1);
            }
            let end = row_end(&row);
            wide.check(width, row.index(), end);
            self.start()?;
            let mut col = 0u32;
            for c in row.cells() {
                if c.col < col {
                    continue;
                }
                self.gap(col, c.col + 1)?;
                write_value(self.w, &c.value, self.sep)?;
                col = c.col + 1;
                n += 1;
            }
            self.gap(col, self.width.max(end))?;
            self.w.write_all(b"\n")?;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(s: &str, sep: Sep) -> String {
        let mut b = Vec::new();
        write_field(&mut b, s, sep).unwrap();
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn quoting() {
        assert_eq!(field("plain", Sep::Comma), "plain");
        assert_eq!(field("a,b", Sep::Comma), "\"a,b\"");
        assert_eq!(field("say \"hi\"", Sep::Comma), "\"say \"\"hi\"\"\"");
        assert_eq!(field("l1\nl2", Sep::Comma), "\"l1\nl2\"");
        assert_eq!(field("a\tb\\c\n", Sep::Tab), "a\\tb\\\\c\\n");
        assert_eq!(field("a,\"b", Sep::Tab), "a,\"b");
    }

    fn gaps(sheet: Option<&str>, from: u32, to: u32) -> String {
        let mut b = Vec::new();
        let mut l = Lines {
            w: &mut b,
            sheet,
            width: 3,
            sep: Sep::Comma,
        };
        l.gap(from, to).unwrap();
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn separators() {
        assert_eq!(gaps(None, 0, 3), ",,", "three empty fields");
        assert_eq!(gaps(Some("S"), 0, 3), ",,,", "after the sheet field");
        assert_eq!(gaps(None, 1, 3), ",,");
        assert_eq!(gaps(None, 0, 1), "", "before field 0");
        assert_eq!(gaps(None, 0, 0), "");
        assert_eq!(gaps(None, 2, 2), "");
    }
}
