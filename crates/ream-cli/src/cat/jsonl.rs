//! JSON Lines: rows as value arrays or as objects keyed by a header, and
//! one object per cell.

use super::{Readers, WideRows, Width, row_end};
use crate::json::{plain_text, write_str, write_value};
use anyhow::Result;
use ream::ColumnNamer;
use ream::sheet::{Cell, RowReader, RowRef};
use std::io::{self, Write};

/// `{"sheet":..,"row":N,"values":[...]}` per row that has cells, one value
/// per column of the width (more for a wider row), `null` for gaps.
pub fn write_arrays(
    w: &mut dyn Write,
    sheet: &str,
    r: Readers<'_>,
    width: &Width,
    wide: &mut WideRows,
) -> Result<u64> {
    let mut name = Vec::new();
    write_str(&mut name, sheet)?;
    let mut n = 0u64;
    let Readers { header, data, .. } = r;
    for mut rows in header.into_iter().chain([data]) {
        while let Some(row) = rows.next_row()? {
            let end = row_end(&row);
            wide.check(width, row.index(), end);
            w.write_all(b"{\"sheet\":")?;
            w.write_all(&name)?;
            write!(w, ",\"row\":{},\"values\":[", row.index())?;
            let mut col = 0u32;
            let sep = |w: &mut dyn Write, col: u32| w.write_all(if col > 0 { b"," } else { b"" });
            for c in row.cells() {
                if c.col < col {
                    continue;
                }
                while col < c.col {
                    sep(w, col)?;
                    w.write_all(b"null")?;
                    col += 1;
                }
                sep(w, col)?;
                write_value(w, &c.value)?;
                col += 1;
                n += 1;
            }
            while col < width.cols.max(end) {
                sep(w, col)?;
                w.write_all(b"null")?;
                col += 1;
            }
            w.write_all(b"]}\n")?;
        }
    }
    Ok(n)
}

/// Column keys from the header row, pre-encoded as JSON strings; columns
/// past the header are named on demand by the same [`ColumnNamer`].
struct Keys {
    namer: ColumnNamer,
    json: Vec<Vec<u8>>,
}

impl Keys {
    /// Names the columns of `header` (`None`: no header row in the file)
    /// up to `width`; `sheet` reserves the `sheet` key.
    fn new(header: Option<RowRef<'_>>, width: u32, sheet: bool) -> io::Result<Keys> {
        let mut keys = Keys {
            namer: ColumnNamer::new(),
            json: Vec::new(),
        };
        if sheet {
            keys.namer.reserve("sheet");
        }
        let mut texts: Vec<(u32, String)> = Vec::new();
        if let Some(row) = header {
            texts = row.cells().map(|c| (c.col, plain_text(&c.value))).collect();
        }
        let end = texts.last().map_or(0, |(c, _)| c + 1).max(width);
        let mut texts = texts.into_iter().peekable();
        for col in 0..end {
            let text = texts.next_if(|(c, _)| *c == col).map(|(_, t)| t);
            keys.push(col, text.as_deref())?;
        }
        Ok(keys)
    }

    fn push(&mut self, col: u32, text: Option<&str>) -> io::Result<()> {
        let name = self.namer.name(col as usize, text);
        let mut json = Vec::new();
        write_str(&mut json, &name)?;
        self.json.push(json);
        Ok(())
    }

    /// The JSON key of column `col`, naming columns up to it if needed.
    fn get(&mut self, col: u32) -> io::Result<&[u8]> {
        while self.json.len() <= col as usize {
            self.push(self.json.len() as u32, None)?;
        }
        Ok(self.json.get(col as usize).map_or(&[][..], Vec::as_slice))
    }
}

/// With `--header-row`: one object per data row that has cells, keyed by
/// the header names (every key in every object, `null` for gaps), after a
/// `"sheet"` key when `sheet` is given (`-s all`). The header row itself
/// is not printed.
pub fn write_objects(
    w: &mut dyn Write,
    sheet: Option<&str>,
    r: Readers<'_>,
    width: &Width,
    wide: &mut WideRows,
) -> Result<u64> {
    let mut prefix = Vec::new();
    if let Some(name) = sheet {
        prefix.extend_from_slice(b"\"sheet\":");
        write_str(&mut prefix, name)?;
    }
    let mut keys = match r.header {
        Some(mut rows) => {
            let row = rows.next_row()?;
            if let Some(row) = &row {
                wide.check(width, row.index(), row_end(row));
            }
            Keys::new(row, width.cols, sheet.is_some())?
        }
        None => Keys::new(None, width.cols, sheet.is_some())?,
    };
    let mut data = r.data;
    let mut n = 0u64;
    while let Some(row) = data.next_row()? {
        let end = row_end(&row);
        wide.check(width, row.index(), end);
        w.write_all(b"{")?;
        w.write_all(&prefix)?;
        let mut first = prefix.is_empty();
        let mut field = |w: &mut dyn Write, keys: &mut Keys, col: u32| -> io::Result<()> {
            if !std::mem::take(&mut first) {
                w.write_all(b",")?;
            }
            w.write_all(keys.get(col)?)?;
            w.write_all(b":")
        };
        let mut col = 0u32;
        for c in row.cells() {
            if c.col < col {
                continue;
            }
            while col < c.col {
                field(w, &mut keys, col)?;
                w.write_all(b"null")?;
                col += 1;
            }
            field(w, &mut keys, col)?;
            write_value(w, &c.value)?;
            col += 1;
            n += 1;
        }
        let all = (keys.json.len() as u32).max(end);
        while col < all {
            field(w, &mut keys, col)?;
            w.write_all(b"null")?;
            col += 1;
        }
        w.write_all(b"}\n")?;
    }
    Ok(n)
}

/// One JSON object per cell of `rows`; returns the cells written.
pub fn write_cells(w: &mut dyn Write, sheet: &str, rows: &mut RowReader<'_>) -> Result<u64> {
    let mut name = Vec::new();
    write_str(&mut name, sheet)?;
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
