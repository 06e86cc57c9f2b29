//! Entry decoding: per-entry limit checks, one-shot inflate (libdeflate)
//! and the streaming [`EntryReader`] (flate2 with the zlib-rs backend).

use crate::{Entry, Error, ErrorKind, Limits, Method, Result};
use flate2::{Decompress, FlushDecompress, Status};
use libdeflater::{DecompressionError, Decompressor};
use std::cell::RefCell;
use std::io;

/// Deflate cannot expand one input byte into more than 1,032 output bytes
/// (a 258-byte match coded in 2 bits); the slack covers the first literal
/// and rounding. A declared size above this bound is a lie, whatever the
/// configured limits, so no buffer is ever sized from it.
const DEFLATE_MAX_RATIO: u64 = 1032;
const DEFLATE_SLACK: u64 = 1024;

thread_local! {
    static DECOMPRESSOR: RefCell<Option<Decompressor>> = const { RefCell::new(None) };
}

fn entry_error(e: &Entry, kind: ErrorKind, msg: String) -> Error {
    Error::new(kind, msg)
        .entry_name(e.name.clone())
        .at(e.data_offset)
}

fn size_mismatch(e: &Entry, inflated: &str) -> Error {
    entry_error(
        e,
        ErrorKind::Malformed,
        format!("declared size {}, inflated {inflated}", e.uncompressed_size),
    )
}

fn crc_check(e: &Entry, computed: u32) -> Result<()> {
    if computed == e.crc32 {
        return Ok(());
    }
    Err(entry_error(
        e,
        ErrorKind::Malformed,
        format!(
            "CRC mismatch: declared {:08x}, computed {computed:08x}",
            e.crc32
        ),
    ))
}

/// Checks that `e` can be decoded within `limits` before anything is
/// allocated or inflated: supported method, ratio limit, a stored size
/// that matches its data, a deflate size that deflate could produce.
pub(crate) fn check_entry(e: &Entry, limits: &Limits) -> Result<()> {
    let (u, c) = (e.uncompressed_size, e.compressed_size);
    if let Method::Other(m) = e.method {
        return Err(entry_error(
            e,
            ErrorKind::Unsupported,
            format!("compression method {m}"),
        ));
    }
    if u >= limits.ratio_exempt_below && u > c.saturating_mul(limits.max_ratio) {
        return Err(entry_error(
            e,
            ErrorKind::LimitExceeded,
            format!(
                "compression ratio over {}:1: {u} bytes declared from {c} compressed bytes",
                limits.max_ratio
            ),
        ));
    }
    let possible = match e.method {
        Method::Stored => u == c,
        _ => {
            u <= c
                .saturating_mul(DEFLATE_MAX_RATIO)
                .saturating_add(DEFLATE_SLACK)
        }
    };
    if !possible {
        return Err(entry_error(
            e,
            ErrorKind::Malformed,
            format!("declared size {u} is impossible from {c} bytes of data"),
        ));
    }
    Ok(())
}

/// Decodes `raw` (the entry's compressed bytes) into `out`, which ends up
/// exactly `e.uncompressed_size` long; verifies size and CRC-32. The caller
/// has run [`check_entry`] and charged the budget.
pub(crate) fn read_into(e: &Entry, raw: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let n = usize::try_from(e.uncompressed_size).map_err(|_| {
        entry_error(
            e,
            ErrorKind::LimitExceeded,
            format!(
                "entry of {} bytes does not fit in memory",
                e.uncompressed_size
            ),
        )
    })?;
    match e.method {
        Method::Stored => {
            out.clear();
            out.extend_from_slice(raw);
        }
        Method::Deflate => {
            // Reuse the caller's buffer without zeroing what it already
            // holds: inflate overwrites all `n` bytes or fails (and then the
            // buffer is cleared), so stale bytes are never visible.
            if out.len() >= n {
                out.truncate(n);
            } else if out.capacity() < n {
                // A fresh zeroed allocation (calloc: large ones are mapped
                // zero pages, no memset pass over the buffer). Huge-page
                // advice was tried and dropped: see `ream_io::FillBuf::new`.
                // Big buffers are faulted in with one call, not one fault
                // per 4 KiB page while inflating.
                *out = ream_io::try_zeroed_vec(n).ok_or_else(|| {
                    entry_error(
                        e,
                        ErrorKind::LimitExceeded,
                        format!("entry of {n} bytes: the memory could not be allocated"),
                    )
                })?;
                if n >= 8 << 20 {
                    ream_io::populate_write(out);
                }
            } else {
                out.resize(n, 0);
            }
            let got = DECOMPRESSOR.with(|cell| match cell.try_borrow_mut() {
                Ok(mut slot) => slot
                    .get_or_insert_with(Decompressor::new)
                    .deflate_decompress(raw, out),
                Err(_) => Decompressor::new().deflate_decompress(raw, out),
            });
            let fail = match got {
                Ok(m) if m == n => None,
                Ok(m) => Some(size_mismatch(e, &m.to_string())),
                Err(DecompressionError::InsufficientSpace) => {
                    Some(size_mismatch(e, &format!("more than {n}")))
                }
                Err(DecompressionError::BadData) => Some(bad_data(e, raw)),
            };
            if let Some(err) = fail {
                out.clear();
                return Err(err);
            }
        }
        Method::Other(m) => {
            out.clear();
            return Err(entry_error(
                e,
                ErrorKind::Unsupported,
                format!("compression method {m}"),
            ));
        }
    }
    let crc = crc32fast::hash(out);
    if let Err(err) = crc_check(e, crc) {
        out.clear();
        return Err(err);
    }
    Ok(())
}

/// The error for deflate data libdeflate refused: the streaming reader's
/// error for the same bytes, so that a one-shot read and a stream of one
/// entry fail alike, and with its detail ("invalid stored block lengths",
/// "truncated deflate data after N bytes") where libdeflate says only
/// "bad data" (fuzz finding: the serial and the chunked open of a sheet
/// named the same fault in two ways). Runs only on this error path, over
/// one entry, in constant memory.
fn bad_data(e: &Entry, raw: &[u8]) -> Error {
    canonical_error(e, raw)
        // The streaming inflater took the data: keep libdeflate's verdict.
        .unwrap_or_else(|| entry_error(e, ErrorKind::Malformed, "bad deflate data".to_string()))
}

/// The error of one streaming pass over the whole entry in 8 KiB steps
/// (`io::copy`), `None` when it inflates cleanly. The inflater names a
/// fault where it meets it, and that depends on the output sizes asked
/// for (zlib-rs may report a bad distance on one call and only "repeated
/// call with bad state" on the next), so every read reports this pass's
/// error instead of its own (fuzz finding: the chunked and the serial
/// open of a sheet named one fault in two ways).
fn canonical_error(e: &Entry, raw: &[u8]) -> Option<Error> {
    let mut reader = EntryReader::new(e, Raw::Borrowed(raw));
    reader.canonical = true;
    io::copy(&mut reader, &mut io::sink())
        .err()
        .map(Error::from_io)
}

/// Streaming inflate of one entry; implements [`std::io::Read`].
///
/// Never produces more than the declared uncompressed size: one byte past
/// it ends the stream with an error instead of inflating further. At the
/// end the produced size and CRC-32 are checked. Errors are `InvalidData`
/// I/O errors wrapping an [`Error`] (recover it with [`Error::from_io`]);
/// once an error is returned, every later read returns it again.
pub struct EntryReader<'a> {
    entry: Entry,
    raw: Raw<'a>,
    pos: usize,
    /// `None` for stored entries.
    inflater: Option<Decompress>,
    produced: u64,
    hasher: crc32fast::Hasher,
    ended: bool,
    finished: bool,
    failed: Option<Error>,
    /// This reader is the canonical pass of [`canonical_error`].
    canonical: bool,
}

/// The compressed bytes of an entry: borrowed from the archive, or a
/// shared handle on its data (a reader that outlives the borrow).
pub(crate) enum Raw<'a> {
    Borrowed(&'a [u8]),
    Shared(ream_io::Bytes, std::ops::Range<usize>),
}

impl Raw<'_> {
    #[inline]
    fn bytes(&self) -> &[u8] {
        match self {
            Raw::Borrowed(b) => b,
            Raw::Shared(data, range) => data.get(range.clone()).unwrap_or_default(),
        }
    }
}

impl std::fmt::Debug for EntryReader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntryReader")
            .field("entry", &self.entry.name)
            .field("produced", &self.produced)
            .field("finished", &self.finished)
            .finish()
    }
}

impl<'a> EntryReader<'a> {
    /// A reader over `raw`; the caller has run [`check_entry`] and charged
    /// the budget.
    pub(crate) fn new(e: &Entry, raw: Raw<'a>) -> EntryReader<'a> {
        EntryReader {
            entry: e.clone(),
            raw,
            pos: 0,
            inflater: match e.method {
                Method::Deflate => Some(Decompress::new(false)),
                _ => None,
            },
            produced: 0,
            hasher: crc32fast::Hasher::new(),
            ended: false,
            finished: false,
            failed: None,
            canonical: false,
        }
    }

    /// For a reader from [`Archive::stream_shared`](crate::Archive::stream_shared)
    /// over a memory map: lets the OS drop the compressed pages already
    /// consumed (see [`Bytes::release`](ream_io::Bytes::release)). A no-op
    /// otherwise.
    pub fn release_consumed(&self) {
        if let Raw::Shared(data, range) = &self.raw {
            data.release(range.start, range.start.saturating_add(self.pos));
        }
    }

    /// Compressed bytes consumed so far.
    pub fn consumed(&self) -> u64 {
        self.pos as u64
    }

    /// Bytes produced so far.
    pub fn produced(&self) -> u64 {
        self.produced
    }

    fn finish(&mut self) -> Result<usize> {
        if self.produced != self.entry.uncompressed_size {
            return Err(size_mismatch(&self.entry, &self.produced.to_string()));
        }
        crc_check(&self.entry, self.hasher.clone().finalize())?;
        self.finished = true;
        Ok(0)
    }

    fn step(&mut self, buf: &mut [u8]) -> Result<usize> {
        let remaining = self.entry.uncompressed_size.saturating_sub(self.produced);
        let want = usize::try_from(remaining).map_or(buf.len(), |r| r.min(buf.len()));
        let Some(inflater) = self.inflater.as_mut() else {
            if want == 0 {
                return self.finish();
            }
            let end = self.pos.saturating_add(want);
            let src = self.raw.bytes().get(self.pos..end);
            let (Some(src), Some(dst)) = (src, buf.get_mut(..want)) else {
                return Err(size_mismatch(&self.entry, &self.produced.to_string()));
            };
            dst.copy_from_slice(src);
            self.hasher.update(src);
            self.pos = end;
            self.produced = self.produced.saturating_add(want as u64);
            return Ok(want);
        };
        let mut probe = [0u8; 1];
        loop {
            if self.ended {
                return self.finish();
            }
            // With nothing left to produce, offer one byte: getting it
            // means the entry is bigger than declared.
            let out: &mut [u8] = if want == 0 {
                &mut probe
            } else {
                buf.get_mut(..want).unwrap_or_default()
            };
            let input = self.raw.bytes().get(self.pos..).unwrap_or_default();
            let (in0, out0) = (inflater.total_in(), inflater.total_out());
            let status = match inflater.decompress(input, out, FlushDecompress::None) {
                Ok(status) => status,
                Err(err) => {
                    let own = || {
                        let msg = format!("bad deflate data: {err}");
                        entry_error(&self.entry, ErrorKind::Malformed, msg)
                    };
                    return Err(match self.canonical {
                        true => own(),
                        false => canonical_error(&self.entry, self.raw.bytes()).unwrap_or_else(own),
                    });
                }
            };
            let consumed = inflater.total_in().saturating_sub(in0);
            let made = inflater.total_out().saturating_sub(out0);
            self.pos = self
                .pos
                .saturating_add(usize::try_from(consumed).unwrap_or(usize::MAX));
            if status == Status::StreamEnd {
                self.ended = true;
            }
            if made > 0 {
                if want == 0 {
                    let more = format!("more than {}", self.entry.uncompressed_size);
                    return Err(size_mismatch(&self.entry, &more));
                }
                let made_n = usize::try_from(made).unwrap_or(0);
                self.hasher.update(out.get(..made_n).unwrap_or_default());
                self.produced = self.produced.saturating_add(made);
                return Ok(made_n);
            }
            if !self.ended && consumed == 0 {
                let msg = if self.pos >= self.raw.bytes().len() {
                    format!("truncated deflate data after {} bytes", self.produced)
                } else {
                    "bad deflate data: no progress".to_string()
                };
                return Err(entry_error(&self.entry, ErrorKind::Malformed, msg));
            }
        }
    }
}

impl io::Read for EntryReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(e) = &self.failed {
            return Err(io::Error::new(io::ErrorKind::InvalidData, e.clone()));
        }
        if self.finished || buf.is_empty() {
            return Ok(0);
        }
        self.step(buf).map_err(|e| {
            self.failed = Some(e.clone());
            io::Error::new(io::ErrorKind::InvalidData, e)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(method: Method, u: u64, c: u64) -> Entry {
        Entry {
            name: "x".into(),
            method,
            flags: 0,
            crc32: 0,
            compressed_size: c,
            uncompressed_size: u,
            header_offset: 0,
            data_offset: 30,
        }
    }

    #[test]
    fn checks_run_before_allocation() {
        let l = Limits::default();
        let bomb = entry(Method::Deflate, 1 << 40, 1000);
        assert_eq!(
            check_entry(&bomb, &l).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
        let free = Limits {
            max_ratio: u64::MAX,
            ..l
        };
        assert_eq!(
            check_entry(&bomb, &free).unwrap_err().kind(),
            ErrorKind::Malformed
        );
        let small = entry(Method::Deflate, 1000, 1);
        assert!(check_entry(&small, &l).is_ok(), "exempt below 1 MiB");
        let stored = entry(Method::Stored, 10, 9);
        assert_eq!(
            check_entry(&stored, &l).unwrap_err().kind(),
            ErrorKind::Malformed
        );
        let other = entry(Method::Other(14), 10, 10);
        let e = check_entry(&other, &l).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported);
        assert_eq!(e.message(), "compression method 14");
    }

    #[test]
    fn reader_is_send() {
        fn send<T: Send>() {}
        send::<EntryReader<'static>>();
    }
}
