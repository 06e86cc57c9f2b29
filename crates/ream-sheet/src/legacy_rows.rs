//! Streamed rows of binary workbooks (XLS, XLSB) opened with
//! [`load_cells(false)`](crate::OpenOptions::load_cells): what the open
//! keeps so that [`Workbook::rows`](crate::Workbook::rows) can walk a
//! sheet's records block by block without loading its cells.

/// The kept source of a binary workbook opened without cells.
#[derive(Debug)]
pub(crate) enum Legacy {
    /// An XLS workbook stream with its globals.
    Xls(crate::xls::Streamable),
    /// An XLSB package with its workbook globals.
    Xlsb(crate::xlsb::Streamable),
}

/// Cells per streamed block for a block size in bytes (16 bytes a cell),
/// at least 256.
pub(crate) fn block_cells(block_bytes: usize) -> usize {
    (block_bytes / 16).max(256)
}
