//! Helpers: write a sheet, open it loaded and streamed, read it both ways.

use arrow_array::RecordBatch;
use ream::sheet::{OpenOptions, Workbook};
use ream_arrow::{ReadOptions, Table, read_sheet};
use rust_xlsxwriter::{Workbook as XWorkbook, Worksheet};

/// An xlsx with one sheet called `Data`, filled by `fill`.
pub fn xlsx(fill: impl FnOnce(&mut Worksheet)) -> Vec<u8> {
    let mut wb = XWorkbook::new();
    let ws = wb.add_worksheet();
    ws.set_name("Data").unwrap();
    fill(ws);
    wb.save_to_buffer().unwrap()
}

/// The workbook opened with its cells loaded, and opened for streaming.
pub fn both(bytes: &[u8]) -> [Workbook; 2] {
    [
        Workbook::from_bytes(bytes.to_vec(), &OpenOptions::new()).unwrap(),
        Workbook::from_bytes(bytes.to_vec(), &OpenOptions::new().load_cells(false)).unwrap(),
    ]
}

/// Reads sheet 0 loaded and streamed, checks both agree, returns one.
pub fn read(bytes: &[u8], opts: &ReadOptions) -> Table {
    let [loaded, streamed] = both(bytes);
    let a = read_sheet(&loaded, 0, opts).unwrap();
    let b = read_sheet(&streamed, 0, opts).unwrap();
    assert_eq!(a.schema, b.schema);
    assert_eq!(a.batches, b.batches);
    assert_eq!(a.warnings, b.warnings);
    a
}

/// The table's only batch.
pub fn batch(t: &Table) -> &RecordBatch {
    assert_eq!(t.batches.len(), 1);
    &t.batches[0]
}

/// Read with no header row.
pub fn no_header() -> ReadOptions {
    ReadOptions {
        header_row: None,
        ..ReadOptions::default()
    }
}
