//! Writing small workbooks and reading them back.

use ream_sheet::{OpenOptions, Workbook};
use ream_write::{Cell, SheetWriter, WorkbookWriter, WriteOptions};

/// One sheet to write: its name and rows of cells.
pub type Rows<'a> = Vec<(u32, Vec<Cell<'a>>)>;

/// Writes `sheets` with `opts` on `threads` threads; returns the bytes.
pub fn write(sheets: &[(&str, Rows<'_>)], opts: WriteOptions, threads: usize) -> Vec<u8> {
    let mut wb = WorkbookWriter::new(opts);
    let writers: Vec<SheetWriter> = sheets
        .iter()
        .map(|(n, _)| wb.add_sheet(n).unwrap())
        .collect();
    ream_write::write_parallel(writers, threads, |s: &mut SheetWriter| {
        let (_, rows) = &sheets[s.index()];
        for (r, cells) in rows {
            s.write_row(*r, cells)?;
        }
        Ok(())
    })
    .unwrap();
    let mut out = Vec::new();
    wb.save(&mut out).unwrap();
    out
}

/// Opens written bytes with ream-sheet, cells loaded.
pub fn open(bytes: Vec<u8>) -> Workbook {
    Workbook::from_bytes(bytes, &OpenOptions::new()).unwrap()
}

/// The text of one part of the package.
pub fn part(bytes: &[u8], name: &str) -> String {
    let ar = ream_zip::Archive::new(
        ream_zip::Bytes::from_vec(bytes.to_vec()),
        ream_zip::Limits::default(),
    )
    .unwrap();
    let e = ar.find(name).unwrap_or_else(|| panic!("no part {name}"));
    String::from_utf8(ar.read(e).unwrap()).unwrap()
}
