//! Where a streaming reader gets its inflated bytes (the XLSX row stream in
//! `rows.rs`, the window in `window.rs`): inflated on the calling
//! thread, or on a helper thread one or two blocks ahead (a two-stage
//! pipeline: the helper inflates while the caller scans or parses, so a
//! stream on two cores costs about the larger of the two, not their sum).
//! Errors carry no part name; the caller adds it.
//!
//! The helper sends filled blocks over a channel of two slots and takes
//! spent buffers back for reuse, so at most three blocks of at most
//! [`PIPE_BLOCK`] bytes are in flight: memory stays constant. Dropping the
//! inflow closes the channel; the helper stops at its next send.

use crate::error::{Error, Result};
use ream_zip::EntryReader;
use std::io::Read;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// Largest block for a reader that parses each block on the thread that
/// just inflated it (no helper): the block is then still in that core's
/// cache and the buffer stays small. ODS
/// seed on one thread: inflating took 4.5-5.2 ms instead of about 7.6 with
/// 4 MiB blocks.
pub(crate) const CACHE_BLOCK: usize = 512 << 10;

/// Largest block the helper inflates at once.
const PIPE_BLOCK: usize = 1 << 20;

/// A block from the helper: bytes (empty at the end), or its error.
type Block = Result<Vec<u8>>;

/// The source of inflated bytes.
pub(crate) enum Inflow {
    /// Inflated on the caller's thread.
    Direct(Box<EntryReader<'static>>),
    /// Inflated ahead on a helper thread.
    Piped {
        blocks: Receiver<Block>,
        spent: SyncSender<Vec<u8>>,
    },
}

fn io_error(e: std::io::Error) -> Error {
    Error::from(ream_zip::Error::from_io(e))
}

/// Fills `buf[*filled..want]` from `reader` (stopping early only at the
/// end); returns false at the end of the entry.
fn fill(
    reader: &mut EntryReader<'_>,
    buf: &mut [u8],
    filled: &mut usize,
    want: usize,
) -> Result<bool> {
    while *filled < want {
        let Some(room) = buf.get_mut(*filled..want) else {
            break;
        };
        let n = reader.read(room).map_err(io_error)?;
        if n == 0 {
            reader.release_consumed();
            return Ok(false);
        }
        *filled += n;
    }
    reader.release_consumed();
    Ok(true)
}

/// The helper: inflates blocks of `first`, doubling up to [`PIPE_BLOCK`],
/// until the end, an error, or the window is gone.
fn pump(
    mut reader: EntryReader<'static>,
    first: usize,
    blocks: SyncSender<Block>,
    spent: Receiver<Vec<u8>>,
) {
    let mut size = first.clamp(1, PIPE_BLOCK);
    loop {
        let mut v = spent.try_recv().unwrap_or_default();
        v.clear();
        v.resize(size, 0);
        let mut n = 0;
        let more = fill(&mut reader, &mut v, &mut n, size);
        let (block, stop) = match more {
            Ok(more) => {
                v.truncate(n);
                (Ok(v), !more && n == 0)
            }
            Err(e) => (Err(e), true),
        };
        let end_after = matches!(&block, Ok(v) if v.len() < size);
        if blocks.send(block).is_err() || stop {
            return;
        }
        if end_after {
            // The entry ended inside this block: say so with an empty one.
            let _ = blocks.send(Ok(Vec::new()));
            return;
        }
        size = (size * 2).min(PIPE_BLOCK);
    }
}

impl Inflow {
    /// Reads `reader` on this thread, or (with `piped`) on a helper thread
    /// in blocks starting at `first` bytes.
    pub fn new(reader: EntryReader<'static>, piped: bool, first: usize) -> Inflow {
        if !piped {
            return Inflow::Direct(Box::new(reader));
        }
        let (tx, blocks) = sync_channel(2);
        let (spent, back) = sync_channel(4);
        let spawned = std::thread::Builder::new()
            .name("ream-inflate".into())
            .spawn(move || pump(reader, first, tx, back));
        match spawned {
            Ok(_) => Inflow::Piped { blocks, spent },
            // No thread to be had: the caller gets an error at its first
            // read rather than a silent fallback that would need the
            // reader back.
            Err(e) => {
                let (tx, blocks) = sync_channel(1);
                let _ = tx.send(Err(Error::new(
                    crate::ErrorKind::Io,
                    format!("could not start the inflate thread: {e}"),
                )));
                let (spent, _) = sync_channel(1);
                Inflow::Piped { blocks, spent }
            }
        }
    }

    /// Appends about `want` more bytes to `buf[..*filled]` (growing it);
    /// returns false at the end of the entry.
    pub fn read_more(
        &mut self,
        buf: &mut Vec<u8>,
        filled: &mut usize,
        want: usize,
    ) -> Result<bool> {
        match self {
            Inflow::Direct(reader) => {
                let end = *filled + want;
                if buf.len() < end {
                    buf.resize(end, 0);
                }
                fill(reader, buf, filled, end)
            }
            Inflow::Piped { blocks, spent } => {
                let v = match blocks.recv() {
                    Ok(block) => block?,
                    Err(_) => Vec::new(),
                };
                if v.is_empty() {
                    return Ok(false);
                }
                buf.truncate(*filled);
                buf.extend_from_slice(&v);
                *filled = buf.len();
                let _ = spent.try_send(v);
                Ok(true)
            }
        }
    }

    /// Appends everything left to `buf[..*filled]`; for parts that must be
    /// read whole (UTF-16).
    pub fn read_rest(&mut self, buf: &mut Vec<u8>, filled: &mut usize) -> Result<()> {
        while self.read_more(buf, filled, PIPE_BLOCK)? {}
        buf.truncate(*filled);
        Ok(())
    }
}
