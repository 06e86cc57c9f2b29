//! Streamed rows of an XLSB worksheet opened without cells: the part is
//! inflated in blocks (like a streamed XLSX worksheet, through
//! [`Inflow`]), whole records are parsed as they arrive, and a block of
//! cells ends before the row header of a new row once it holds enough
//! cells. Memory: one block of records and of cells (a single record may
//! not exceed [`MAX_RECORD`]).

use super::records::{Records, malformed, record_head};
use super::sheet::SheetWalk;
use super::workbook::Globals;
use crate::error::{Error, ErrorKind, Result};
use crate::options::Limits;
use crate::pipeline::inflow::{CACHE_BLOCK, Inflow};
use crate::sst::SharedStrings;
use crate::store::CellStore;
use ream_zip::Archive;
use std::sync::Arc;

/// Largest record accepted while streaming (Excel's records are at most
/// a few KiB; a shared-string or formula record a few MiB).
const MAX_RECORD: usize = 64 << 20;
/// BrtRowHdr.
const ROW_HDR: u16 = 0;

/// An XLSB package opened without cells, kept for streamed rows.
#[derive(Debug)]
pub(crate) struct Streamable {
    pub(super) archive: Archive,
    pub(super) g: Globals,
    pub(super) sst: Arc<SharedStrings>,
}

/// One worksheet's rows, a block at a time.
pub(crate) struct XlsbRows<'w> {
    walk: SheetWalk<'w>,
    inflow: Inflow,
    part: &'w str,
    buf: Vec<u8>,
    filled: usize,
    /// Part offset of `buf[0]`.
    base: usize,
    block: usize,
    cells: usize,
    eof: bool,
    done: bool,
}

impl<'w> XlsbRows<'w> {
    /// Rows of sheet `index`, in blocks of about `block_cells` cells,
    /// inflating `block_bytes` at first.
    pub(crate) fn new(
        src: &'w Streamable,
        index: usize,
        limits: &'w Limits,
        block_bytes: usize,
        block_cells: usize,
    ) -> Result<XlsbRows<'w>> {
        let e = src
            .g
            .sheets
            .get(index)
            .ok_or_else(|| Error::new(ErrorKind::Usage, format!("no sheet {index}")))?;
        let part = e.part.as_str();
        let named = |err: Error| err.in_part(part).in_sheet(e.name.clone());
        let entry = src.archive.find(part).cloned().ok_or_else(|| {
            named(Error::malformed(format!(
                "part {part} is missing from the package"
            )))
        })?;
        let reader = src
            .archive
            .stream_shared(&entry)
            .map_err(|err| named(Error::from(err)))?;
        let block = block_bytes.clamp(1, CACHE_BLOCK);
        Ok(XlsbRows {
            walk: SheetWalk::new(part, &e.name, &src.g, &src.sst, limits),
            inflow: Inflow::new(reader, false, block),
            part,
            buf: Vec::new(),
            filled: 0,
            base: 0,
            block,
            cells: block_cells.max(1),
            eof: false,
            done: false,
        })
    }

    /// The current block's cells.
    pub(crate) fn block(&self) -> &CellStore {
        self.walk.store()
    }

    /// Reads the next block; false at the end of the part.
    pub(crate) fn refill(&mut self) -> Result<bool> {
        self.walk.clear_block();
        if self.done {
            return Ok(false);
        }
        loop {
            let mut used = 0;
            let mut cut = false;
            while let Some((typ, n)) =
                record_head(self.buf.get(used..self.filled).unwrap_or_default())
            {
                if typ == ROW_HDR && self.walk.store().cells.len() >= self.cells {
                    cut = true;
                    break;
                }
                let one = self.buf.get(used..used + n).unwrap_or_default();
                let mut recs = Records::with_base(one, self.part, self.base + used);
                if let Some(r) = recs.next_record()? {
                    self.walk.record(r)?;
                }
                used += n;
            }
            self.buf.copy_within(used..self.filled, 0);
            self.filled -= used;
            self.base += used;
            if cut {
                self.walk.seal_block();
                return Ok(true);
            }
            if self.eof {
                if self.filled > 0 {
                    // Let the record reader name what is wrong with the rest.
                    let rest = self.buf.get(..self.filled).unwrap_or_default();
                    Records::with_base(rest, self.part, self.base).next_record()?;
                    return Err(malformed(self.part, "a truncated record", self.base));
                }
                self.done = true;
                self.walk.seal_block();
                return Ok(!self.walk.store().cells.is_empty());
            }
            if self.filled > MAX_RECORD {
                return Err(Error::limit(format!(
                    "a record longer than {MAX_RECORD} bytes while streaming"
                ))
                .in_part(self.part)
                .at_offset(self.base as u64));
            }
            self.eof = !self
                .inflow
                .read_more(&mut self.buf, &mut self.filled, self.block)
                .map_err(|e| e.in_part(self.part))?;
            self.block = (self.block * 2).min(CACHE_BLOCK);
        }
    }
}
