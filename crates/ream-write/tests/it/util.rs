//! Writing small workbooks and reading them back.

use ream_sheet::{OpenOptions, Workbook};
use ream_write::{Cell, SheetWriter, WorkbookWriter, WriteOptions};

/// One sheet to write: its name and rows of cells.
pub type Rows<'a> = Vec<(u32, Vec<Cell<'a>>)>;

/// Writes `sheets` with `opts` on `threads` threads; returns the bytes.
pub fn write(sheets: &[(&str, Rows<'_>)], opts: WriteOptions, threads: usize) -> Vec<u8> {
    write_with(WorkbookWriter::new(opts), sheets, threads)
}

/// Writes `sheets` into `wb` on `threads` threads; returns the bytes.
pub fn write_with(mut wb: WorkbookWriter, sheets: &[(&str, Rows<'_>)], threads: usize) -> Vec<u8> {
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

/// A template whose first sheet has a title and a header row (bold) and
/// columns A:F in a bold, General format: new data goes to row 2.
pub fn general_template() -> Vec<u8> {
    use rust_xlsxwriter::{Format, Workbook};
    let mut wb = Workbook::new();
    let bold = Format::new().set_bold();
    let ws = wb.add_worksheet();
    ws.set_name("Plain").unwrap();
    for c in 0..6u16 {
        ws.set_column_format(c, &bold).unwrap();
    }
    ws.write_string_with_format(0, 0, "Generated", &bold)
        .unwrap();
    ws.write_string(1, 0, "first").unwrap();
    ws.write_number(1, 1, 2.5).unwrap();
    wb.save_to_buffer().unwrap()
}

/// A stored (uncompressed) ZIP of `parts`.
pub fn zip_of(parts: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in parts {
        let offset = out.len() as u32;
        let crc = ream_zip::crc32(data);
        let head = |sig: u32, central: bool| {
            let mut h = Vec::new();
            h.extend_from_slice(&sig.to_le_bytes());
            if central {
                h.extend_from_slice(&20u16.to_le_bytes());
            }
            h.extend_from_slice(&20u16.to_le_bytes());
            h.extend_from_slice(&[0; 6]); // flags, method, time
            h.extend_from_slice(&[0; 2]); // date
            h.extend_from_slice(&crc.to_le_bytes());
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(name.len() as u16).to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes());
            if central {
                h.extend_from_slice(&[0; 6]); // comment, disk, internal attributes
                h.extend_from_slice(&[0; 4]); // external attributes
                h.extend_from_slice(&offset.to_le_bytes());
            }
            h.extend_from_slice(name.as_bytes());
            h
        };
        out.extend_from_slice(&head(0x0403_4b50, false));
        out.extend_from_slice(data);
        central.extend_from_slice(&head(0x0201_4b50, true));
    }
    let at = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(parts.len() as u16).to_le_bytes());
    out.extend_from_slice(&(parts.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// Every part of a package, by name.
pub fn parts_of(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let ar = ream_zip::Archive::new(
        ream_zip::Bytes::from_vec(bytes.to_vec()),
        ream_zip::Limits::default(),
    )
    .unwrap();
    ar.entries()
        .iter()
        .map(|e| (e.name.clone(), ar.read(e).unwrap()))
        .collect()
}
