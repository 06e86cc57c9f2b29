//! `ream cat`: print cells, streaming.
//!
//! Sheets are streamed row by row (`Workbook::rows_with`) from a workbook
//! opened without loading cells, so memory stays constant however big the
//! sheet; `--skip-rows`, `--n-rows` and `--header-row` stop the reading as
//! soon as the requested rows are out.
//!
//! * `csv` / `tsv`: one line per row from the first requested row (row 0
//!   by default) to the last (empty lines for empty rows), so line N is row
//!   first + N; with `--header-row H` row H comes first. Each line has fields
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
//!
//! With the default sheet (the first), or a sheet named exactly, an ODS
//! workbook is listed only up to that sheet's start
//! (`OpenOptions::sheets_needed`, `OpenOptions::sheet_needed_named`), so
//! `--n-rows` on a big `.ods` stops early too.

use crate::input::{open_output, open_workbook, select_sheets};
use crate::json::{write_plain, write_str, write_value};
use crate::meter::{Meter, Report};
use anyhow::Result;
use ream::sheet::{Cell, OpenOptions, RowOptions, RowReader, Sheet, Value, Workbook};
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
    /// Skip rows with an index below N (0-based row numbers).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub skip_rows: u32,
    /// Print at most N rows (data rows, after the header if any).
    #[arg(long, value_name = "N")]
    pub n_rows: Option<u64>,
    /// Print row H first as the header; data rows start after it.
    #[arg(long, value_name = "H")]
    pub header_row: Option<u32>,
    /// Measure the run and print statistics on standard error.
    #[arg(long)]
    pub stats: bool,
}

/// The rows of one sheet to print: an optional header row, then data.
fn readers<'w>(wb: &'w Workbook, s: &Sheet, a: &Args) -> Result<Vec<(u32, RowReader<'w>)>> {
    let mut out = Vec::new();
    let mut first = a.skip_rows;
    if let Some(h) = a.header_row {
        let header = RowOptions {
            skip_rows: h,
            n_rows: Some(1),
        };
        out.push((h, wb.rows_with(s.index(), header)?));
        first = first.max(h.saturating_add(1));
    }
    let data = RowOptions {
        skip_rows: first,
        n_rows: a.n_rows,
    };
    out.push((first, wb.rows_with(s.index(), data)?));
    Ok(out)
}

/// Runs `ream cat`.
pub fn run(a: &Args) -> Result<()> {
    let meter = a.stats.then(Meter::start);
    let mut opts = OpenOptions::new().load_cells(false);
    match a.sheet.as_deref() {
        // Only the first sheet is printed: an ODS listing can stop at its
        // start instead of inflating all of `content.xml`.
        None => opts = opts.sheets_needed(1),
        Some("all") => {}
        // An exact name wins over an index or a case-insensitive match
        // (`select_sheets`), so the listing may stop at the first sheet of
        // that name; without one it runs to the end and the others apply.
        Some(sel) => opts = opts.sheet_needed_named(sel),
    }
    let wb = open_workbook(&a.file, &opts)?;
    let sheets = select_sheets(&wb, a.sheet.as_deref())?;
    let mut out = open_output(a.output.as_ref())?;
    let tag = sheets.len() > 1;
    let mut counts = Vec::new();
    for s in &sheets {
        let mut n = 0u64;
        for (first, mut rows) in readers(&wb, s, a)? {
            n += match a.format {
                Format::Csv => write_dense(&mut out, s, &mut rows, first, Sep::Comma, tag)?,
                Format::Tsv => write_dense(&mut out, s, &mut rows, first, Sep::Tab, tag)?,
                Format::Jsonl => write_jsonl(&mut out, s, &mut rows)?,
                Format::Cells => write_cells(&mut out, s, &mut rows)?,
            };
        }
        counts.push((s.name().to_string(), n));
    }
    out.flush()?;
    if let Some(m) = meter {
        let m = m.stop();
        crate::stats::print_to_stderr(&Report::new(m, &wb, counts));
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

/// CSV/TSV: every row from `first` to the last, fields from column 0.
/// Returns the number of cells written.
fn write_dense(
    w: &mut dyn Write,
    s: &Sheet,
    rows: &mut RowReader<'_>,
    first: u32,
    sep: Sep,
    tag: bool,
) -> Result<u64> {
    let sep_byte: &[u8] = if sep == Sep::Comma { b"," } else { b"\t" };
    let start_line = |w: &mut dyn Write| -> io::Result<()> {
        if tag {
            write_field(w, s.name(), sep)?;
        }
        Ok(())
    };
    let mut next_line = first;
    let mut n = 0u64;
    while let Some(row) = rows.next_row()? {
        if row.index() < next_line {
            continue; // out of order: keep line positions stable
        }
        while next_line < row.index() {
            start_line(w)?;
            w.write_all(b"\n")?;
            next_line += 1;
        }
        start_line(w)?;
        let mut col = 0u32;
        for c in row.cells() {
            if c.col < col {
                continue;
            }
            while col <= c.col {
                if col > 0 || tag {
                    w.write_all(sep_byte)?;
                }
                col += 1;
            }
            write_dense_value(w, &c.value, sep)?;
            n += 1;
        }
        w.write_all(b"\n")?;
        next_line = row.index().saturating_add(1);
    }
    Ok(n)
}

/// JSON Lines: one object per row that has cells.
fn write_jsonl(w: &mut dyn Write, s: &Sheet, rows: &mut RowReader<'_>) -> Result<u64> {
    let mut name = Vec::new();
    write_str(&mut name, s.name())?;
    let mut n = 0u64;
    while let Some(row) = rows.next_row()? {
        w.write_all(b"{\"sheet\":")?;
        w.write_all(&name)?;
        write!(w, ",\"row\":{},\"values\":[", row.index())?;
        let mut col = 0u32;
        for c in row.cells() {
            if c.col < col {
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
            n += 1;
        }
        w.write_all(b"]}\n")?;
    }
    Ok(n)
}

/// One JSON object per non-empty cell.
fn write_cells(w: &mut dyn Write, s: &Sheet, rows: &mut RowReader<'_>) -> Result<u64> {
    let mut name = Vec::new();
    write_str(&mut name, s.name())?;
    let mut n = 0u64;
    while let Some(row) = rows.next_row()? {
        for c in row.cells() {
            write_cell(w, &name, &c)?;
            n += 1;
        }
    }
    Ok(n)
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
