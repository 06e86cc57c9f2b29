//! A sliding window over one inflated ZIP entry, filled block by block:
//! the source of every read of a big part (the ODS loaded read, listing
//! pass and row stream).
//!
//! The window holds the bytes not yet consumed plus one more block;
//! [`Window::advance`] drops what the caller is done with and reads on.
//! Blocks start at `first_block` (64 KiB by default,
//! [`OpenOptions::stream_block`](crate::OpenOptions::stream_block)) and
//! double up to 4 MiB, or up to [`CACHE_BLOCK`] (512 KiB) when this
//! thread inflates and so also parses each block: the block is then still
//! in the core's cache (seed.ods on one thread 16-21 ms against 19-27 ms
//! with 4 MiB blocks, giant.ods unchanged). A request for the first rows of the first sheet inflates
//! little. With several threads allowed the bytes are inflated
//! ahead on a helper thread ([`Inflow`]). A UTF-16 part (legal,
//! rare; the scanners read UTF-8) is read whole and transcoded on the
//! first fill, as the loaded open does: memory is then the part's size.

use super::inflow::{CACHE_BLOCK, Inflow};
use crate::error::{Error, Result};
use ream_zip::{Archive, Entry};
use std::borrow::Cow;

/// Largest block size.
const MAX_BLOCK: usize = 4 << 20;

/// Inflated bytes of one part from offset [`base`](Self::base) on. Holds
/// a shared handle on the file's bytes, not a borrow, so a window can be
/// kept between reads (the ODS row stream caches one).
pub(crate) struct Window {
    /// The part's name, for errors.
    part: Cow<'static, str>,
    inflow: Inflow,
    buf: Vec<u8>,
    filled: usize,
    /// Offset in `content.xml` of `buf[0]`.
    pub base: u64,
    /// The part has been read to its end.
    pub eof: bool,
    block: usize,
    max_block: usize,
    checked: bool,
    /// Seconds spent waiting for inflated bytes (inflating, when direct).
    pub inflate_s: f64,
}

impl Window {
    /// A window before the first byte (call [`advance`](Self::advance));
    /// `piped`: inflate on a helper thread.
    pub(crate) fn new(
        archive: &Archive,
        entry: &Entry,
        part: impl Into<Cow<'static, str>>,
        first_block: usize,
        piped: bool,
    ) -> Result<Window> {
        let part = part.into();
        let reader = archive
            .stream_shared(entry)
            .map_err(|e| Error::from(e).in_part(part.as_ref()))?;
        Ok(Window {
            part,
            inflow: Inflow::new(reader, piped, first_block),
            buf: Vec::new(),
            filled: 0,
            base: 0,
            eof: false,
            block: first_block.clamp(1, if piped { MAX_BLOCK } else { CACHE_BLOCK }),
            max_block: if piped { MAX_BLOCK } else { CACHE_BLOCK },
            checked: false,
            inflate_s: 0.0,
        })
    }

    /// Lets blocks grow to 4 MiB again on a window that inflates on this
    /// thread (once a table is cut into row chunks for other parsers).
    pub(crate) fn full_sized(&mut self) {
        self.max_block = MAX_BLOCK;
    }

    /// The bytes in the window.
    pub(crate) fn data(&self) -> &[u8] {
        self.buf.get(..self.filled).unwrap_or_default()
    }

    /// Drops the first `keep` bytes (positions the caller holds move down
    /// by `keep`), then reads one more block unless at the end.
    pub(crate) fn advance(&mut self, keep: usize) -> Result<()> {
        let keep = keep.min(self.filled);
        if keep > 0 {
            self.buf.copy_within(keep..self.filled, 0);
        }
        self.filled -= keep;
        self.base += keep as u64;
        if self.eof {
            return Ok(());
        }
        let t = std::time::Instant::now();
        let more = self
            .inflow
            .read_more(&mut self.buf, &mut self.filled, self.block)
            .map_err(|e| e.in_part(self.part.as_ref()));
        self.inflate_s += t.elapsed().as_secs_f64();
        if !more? {
            self.eof = true;
        }
        self.block = (self.block * 2).min(self.max_block);
        if !self.checked {
            self.checked = true;
            if crate::encoding::is_utf16(self.data()) {
                self.read_whole_utf16()?;
            }
        }
        Ok(())
    }

    fn read_whole_utf16(&mut self) -> Result<()> {
        self.inflow
            .read_rest(&mut self.buf, &mut self.filled)
            .map_err(|e| e.in_part(self.part.as_ref()))?;
        crate::encoding::ensure_utf8(&mut self.buf).map_err(|e| e.in_part(self.part.as_ref()))?;
        self.filled = self.buf.len();
        self.eof = true;
        Ok(())
    }

    /// Reads on until the window holds `offset` (absolute) and at least
    /// one block after it, dropping everything before it; `offset` is then
    /// at position 0. Fails when the part ends first.
    pub(crate) fn seek(&mut self, offset: u64) -> Result<()> {
        loop {
            let rel = offset.saturating_sub(self.base);
            if rel < self.filled as u64 {
                return self.advance(rel as usize);
            }
            if self.eof {
                return Err(Error::malformed(format!(
                    "{} ends at byte {} before offset {offset}",
                    self.part,
                    self.base + self.filled as u64
                ))
                .in_part(self.part.as_ref()));
            }
            let all = self.filled;
            self.advance(all)?;
        }
    }
}
