//! `ream cat`: print cells.
//!
//! * `csv` / `tsv`: one line per row from row 0 to the sheet's last row
//!   (empty lines for empty rows), so line N is row N; each line has fields
//!   from column 0 up to the row's last cell (gaps are empty fields). CSV
//!   quotes fields holding `,` `"` CR or LF (RFC 4180, quotes doubled); TSV
//!   escapes `\` tab CR LF as `\\` `\t` `\r` `\n`. Lines end in LF. With
//!   several sheets (`-s all`) every line starts with the sheet name field.
//! * `jsonl`: `{"sheet":..,"row":N,"values":[...]}` per row that has cells,
//!   values from column 0 with `null` for gaps.
//! * `cells`: `{"sheet":..,"row":R,"col":C,"type":..,"value":..}` per
//!   non-empty cell, plus `"formula"` when the cell has one.
//!
//! Values are encoded as described in [`crate::json`].

use crate::input::{open_output, open_workbook, select_sheets};
use crate::json::{write_plain, write_str, write_value};
use crate::meter::{Meter, Report, touch_cells};
use anyhow::Result;
use ream::sheet::{Cell, OpenOptions, Sheet, Value};
use std::io::{self, Write};
use std::path::PathBuf;

/// Output formats of `ream cat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Comma-separated values (RFC 4180 quoting).
    Csv,
    /// Tab-separated values (backslash escapes).
    Tsv,
    /// One JSON object per row.
    Jsonl,
    /// One JSON object per non-empty cell, with its type.
    Cells,
}

/// Arguments of `ream cat`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workbook (`-` reads standard input).
    pub file: PathBuf,
    /// Sheet name, 0-based index, or `all` [default: the first sheet].
    #[arg(short, long, value_name = "NAME|INDEX|all")]
    pub sheet: Option<String>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Csv)]
    pub format: Format,
    /// Write to this file instead of standard output (`-`: stdout).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Measure the run and print statistics on standard error.
    #[arg(long)]
    pub stats: bool,
}

/// Runs `ream cat`.
pub fn run(a: &Args) -> Result<()> {
    let meter = a.stats.then(Meter::start);
    let wb = open_workbook(&a.file, &OpenOptions::new())?;
    let sheets = select_sheets(&wb, a.sheet.as_deref())?;
    let mut out = open_output(a.output.as_ref())?;
    let tag = sheets.len() > 1;
    for s in &sheets {
        match a.format {
            Format::Csv => write_dense(&mut out, s, Sep::Comma, tag)?,
            Format::Tsv => write_dense(&mut out, s, Sep::Tab, tag)?,
            Format::Jsonl => write_jsonl(&mut out, s)?,
            Format::Cells => write_cells(&mut out, s)?,
        }
    }
    out.flush()?;
    if let Some(m) = meter {
        let m = m.stop();
        crate::stats::print_to_stderr(&Report::new(m, &wb, touch_cells(&wb)));
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sep {
    Comma,
    Tab,
}

/// Writes one text field with CSV quoting or TSV escaping.
fn write_field(w: &mut dyn Write, s: &str, sep: Sep) -> io::Result<()> {
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
fn write_dense_value(w: &mut dyn Write, v: &Value<'_>, sep: Sep) -> io::Result<()> {
    match v {
        Value::String(s) => write_field(w, s, sep),
        other => write_plain(w, other),
    }
}

/// CSV/TSV: every row from 0 to the last, fields from column 0.
fn write_dense(w: &mut dyn Write, s: &Sheet, sep: Sep, tag: bool) -> io::Result<()> {
    let sep_byte: &[u8] = if sep == Sep::Comma { b"," } else { b"\t" };
    let start_line = |w: &mut dyn Write| -> io::Result<()> {
        if tag {
            write_field(w, s.name(), sep)?;
        }
        Ok(())
    };
    let mut row = 0u32;
    let mut col = 0u32;
    let mut open = false;
    for c in s.cells() {
        if !open {
            start_line(w)?;
            open = true;
        }
        while row < c.row {
            w.write_all(b"\n")?;
            start_line(w)?;
            row += 1;
            col = 0;
        }
        if c.row < row || c.col < col {
            continue; // out of order or duplicate: keep positions stable
        }
        while col <= c.col {
            if col > 0 || tag {
                w.write_all(sep_byte)?;
            }
            col += 1;
        }
        write_dense_value(w, &c.value, sep)?;
    }
    if open {
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// JSON Lines: one object per row that has cells.
fn write_jsonl(w: &mut dyn Write, s: &Sheet) -> io::Result<()> {
    let mut name = Vec::new();
    write_str(&mut name, s.name())?;
    let mut cur: Option<u32> = None;
    let mut col = 0u32;
    for c in s.cells() {
        if cur != Some(c.row) {
            if cur.is_some() {
                w.write_all(b"]}\n")?;
            }
            w.write_all(b"{\"sheet\":")?;
            w.write_all(&name)?;
            write!(w, ",\"row\":{},\"values\":[", c.row)?;
            cur = Some(c.row);
            col = 0;
        } else if c.col < col {
            continue;
        }
        while col < c.col {
            w.write_all(if col > 0 { b",null" } else { b"null" })?;
            col += 1;
        }
        if col > 0 {
            w.write_all(b",")?;
        }
        write_value(w, &c.value)?;
        col += 1;
    }
    if cur.is_some() {
        w.write_all(b"]}\n")?;
    }
    Ok(())
}

/// One JSON object per non-empty cell.
fn write_cells(w: &mut dyn Write, s: &Sheet) -> io::Result<()> {
    let mut name = Vec::new();
    write_str(&mut name, s.name())?;
    for c in s.cells() {
        write_cell(w, &name, &c)?;
    }
    Ok(())
}

fn write_cell(w: &mut dyn Write, sheet_json: &[u8], c: &Cell<'_>) -> io::Result<()> {
    w.write_all(b"{\"sheet\":")?;
    w.write_all(sheet_json)?;
    write!(
        w,
        ",\"row\":{},\"col\":{},\"type\":\"{}\",\"value\":",
        c.row,
        c.col,
        c.value.type_name()
    )?;
    write_value(w, &c.value)?;
    if let Some(f) = c.formula {
        w.write_all(b",\"formula\":")?;
        write_str(w, f)?;
    }
    w.write_all(b"}\n")
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
}
