//! Raw deflate of ZIP entries: a streaming body deflated as it is written
//! into a [`Spool`], and small in-memory parts.
//!
//! A worksheet's head (declaration, dimension, views, column widths) is
//! known only once its rows are written, so it is deflated on its own and
//! ended with a sync flush: that leaves a byte-aligned, non-final block
//! sequence, and the body's deflate stream is valid right after it. The
//! entry's CRC-32 is the head's combined with the body's.

use crate::spool::Spool;
use flate2::Compression;
use flate2::write::DeflateEncoder;
use std::io::{self, Write};

/// A compressed ZIP entry: optional sync-flushed head bytes then the body.
#[derive(Debug)]
pub(crate) struct Compressed {
    /// Deflated bytes that come first (sync-flushed, not final).
    pub head: Vec<u8>,
    /// The rest of the deflate stream, ending with its final block.
    pub body: Spool,
    /// CRC-32 of the uncompressed entry.
    pub crc: u32,
    /// Uncompressed size.
    pub raw_len: u64,
}

impl Compressed {
    /// Compressed size.
    pub fn compressed_len(&self) -> u64 {
        self.head.len() as u64 + self.body.len()
    }
}

/// Deflates bytes as they come into a spool, counting CRC and size.
pub(crate) struct BodyDeflater {
    enc: DeflateEncoder<Spool>,
    crc: crc32fast::Hasher,
    raw_len: u64,
}

impl BodyDeflater {
    /// A deflater at `level` (0-9) writing into `spool`.
    pub(crate) fn new(level: u32, spool: Spool) -> BodyDeflater {
        BodyDeflater {
            enc: DeflateEncoder::new(spool, Compression::new(level.min(9))),
            crc: crc32fast::Hasher::new(),
            raw_len: 0,
        }
    }

    /// Deflates `data`.
    pub(crate) fn write(&mut self, data: &[u8]) -> io::Result<()> {
        self.crc.update(data);
        self.raw_len += data.len() as u64;
        self.enc.write_all(data)
    }

    /// Ends the stream; `head` (uncompressed, may be empty) is deflated
    /// at `level` and put in front.
    pub(crate) fn finish(self, head: &[u8], level: u32) -> io::Result<Compressed> {
        let body = self.enc.finish()?;
        let mut crc = crc32fast::Hasher::new();
        crc.update(head);
        crc.combine(&self.crc);
        let head_bytes = if head.is_empty() {
            Vec::new()
        } else {
            deflate_sync(head, level)?
        };
        Ok(Compressed {
            head: head_bytes,
            body,
            crc: crc.finalize(),
            raw_len: head.len() as u64 + self.raw_len,
        })
    }
}

/// Deflates `data` ending with a sync flush: non-final blocks, byte
/// aligned, so another deflate stream may follow.
pub(crate) fn deflate_sync(data: &[u8], level: u32) -> io::Result<Vec<u8>> {
    let mut enc = DeflateEncoder::new(Vec::new(), Compression::new(level.min(9)));
    enc.write_all(data)?;
    enc.flush()?;
    // The bytes so far end at the sync point; dropping the encoder then
    // writes its final block into the emptied buffer, which is discarded.
    Ok(std::mem::take(enc.get_mut()))
}

/// Deflates a whole small part into one complete stream.
pub(crate) fn deflate_all(data: &[u8], level: u32) -> io::Result<Compressed> {
    let spool = Spool::new(usize::MAX, None);
    let mut d = BodyDeflater::new(level, spool);
    d.write(data)?;
    d.finish(&[], level)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn head_then_body_inflates_to_both() {
        let head = b"<worksheet><dimension ref=\"A1:B2\"/>".repeat(3);
        let body = b"<row r=\"1\"><c r=\"A1\"><v>1</v></c></row>".repeat(1000);
        let mut d = BodyDeflater::new(6, Spool::new(64, None));
        d.write(&body).unwrap();
        let mut c = d.finish(&head, 6).unwrap();
        let mut all = c.head.clone();
        c.body.copy_to(&mut all).unwrap();
        let mut out = Vec::new();
        flate2::read::DeflateDecoder::new(&all[..])
            .read_to_end(&mut out)
            .unwrap();
        let mut want = head.clone();
        want.extend_from_slice(&body);
        assert_eq!(out, want);
        assert_eq!(c.crc, crc32fast::hash(&want));
        assert_eq!(c.raw_len, want.len() as u64);
        assert_eq!(c.compressed_len(), all.len() as u64);
    }
}
