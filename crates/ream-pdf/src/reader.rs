//! Reads through a byte source: growing prefixes, searches, stream ranges.

use crate::error::{Error, Result};
use crate::object::{ObjRef, Object};
use crate::options::PdfLimits;
use crate::parser::parse_indirect;
use ream_io::{ByteSource, ByteSourceExt};
use std::sync::Arc;

/// First read size for one object: one page, like the seed's baseline.
const FIRST_READ: usize = 4096;
/// Chunk size of forward searches.
const SEARCH_CHUNK: usize = 1 << 20;

/// The byte source plus the limits that bound reads from it.
#[derive(Debug, Clone)]
pub(crate) struct Reader {
    pub src: Arc<dyn ByteSource>,
    pub limits: PdfLimits,
}

impl Reader {
    /// File length.
    pub fn len(&self) -> u64 {
        self.src.len()
    }

    /// Runs `f(bytes, complete)` on the bytes at `offset`, first `first`
    /// of them, then 4x more each time `f` reports that they ran out,
    /// up to `max` bytes or the end of the file.
    pub fn parse_at<T>(
        &self,
        offset: u64,
        first: usize,
        max: u64,
        mut f: impl FnMut(&[u8], bool) -> Result<T>,
    ) -> Result<T> {
        let len = self.len();
        if offset > len {
            return Err(Error::malformed(
                offset,
                format!("offset beyond the end of the file ({len} bytes)"),
            ));
        }
        let max = max.max(first as u64).min(len - offset);
        let mut n = (first as u64).min(max) as usize;
        loop {
            let r = self
                .src
                .with(offset, n, |b| f(b, offset + b.len() as u64 >= len))?;
            match r {
                Err(e) if e.is_eof() && (n as u64) < max => {
                    n = (n as u64).saturating_mul(4).min(max) as usize;
                }
                Err(e) if e.is_eof() => {
                    let limit = max < len - offset;
                    return Err(if limit {
                        Error::limit(format!(
                            "object text longer than max_object_bytes ({})",
                            self.limits.max_object_bytes
                        ))
                        .at(offset)
                    } else {
                        e
                    });
                }
                r => return r,
            }
        }
    }

    /// Parses the indirect object at `offset`.
    pub fn indirect_at(&self, offset: u64) -> Result<(ObjRef, Object)> {
        let depth = self.limits.max_nesting;
        self.parse_at(
            offset,
            FIRST_READ,
            self.limits.max_object_bytes,
            |b, complete| parse_indirect(b, offset, complete, depth),
        )
    }

    /// The first position at or after `from` (before `until`) where
    /// `needle` starts.
    pub fn find_forward(&self, from: u64, until: u64, needle: &[u8]) -> Result<Option<u64>> {
        let until = until.min(self.len());
        let finder = memchr::memmem::Finder::new(needle);
        let mut at = from;
        while at < until {
            let n = ((until - at) as usize).min(SEARCH_CHUNK);
            let hit = self.src.with(at, n, |b| finder.find(b))?;
            if let Some(i) = hit {
                return Ok(Some(at + i as u64));
            }
            if at + (n as u64) >= until {
                break;
            }
            at += (n - needle.len().min(n)).max(1) as u64;
        }
        Ok(None)
    }

    /// Runs `f` on the bytes `offset..offset + len` (clamped at EOF).
    pub fn src_with<R>(&self, offset: u64, len: usize, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
        self.src.with(offset, len, f).map_err(Error::from)
    }

    /// The last `n` bytes of the file and where they start.
    pub fn tail(&self, n: u64) -> Result<(u64, Vec<u8>)> {
        let start = self.len().saturating_sub(n);
        let v = self.src.read_vec(start, (self.len() - start) as usize)?;
        Ok((start, v))
    }

    /// Checks that `endstream` follows `end` (after optional whitespace).
    pub fn endstream_at(&self, end: u64) -> Result<bool> {
        if end > self.len() {
            return Ok(false);
        }
        self.src
            .with(end, 64, |b| {
                let skip = b.iter().take_while(|c| crate::lexer::is_ws(**c)).count();
                let rest = b.get(skip..).unwrap_or_default();
                rest.starts_with(b"endstream") || rest.starts_with(b"endobj")
            })
            .map_err(Error::from)
    }

    /// Finds the data length of a stream starting at `data` by searching
    /// for `endstream` (the EOL before it is not part of the data).
    pub fn scan_stream_end(&self, data: u64) -> Result<Option<u64>> {
        let Some(p) = self.find_forward(data, self.len(), b"endstream")? else {
            return Ok(None);
        };
        let mut end = p;
        let before = self
            .src
            .with(p.saturating_sub(2).max(data), 2, <[u8]>::to_vec)?;
        let lead = (p - p.saturating_sub(2).max(data)) as usize;
        let tail = before.get(..lead).unwrap_or_default();
        if tail.ends_with(b"\r\n") {
            end -= 2;
        } else if tail.ends_with(b"\n") || tail.ends_with(b"\r") {
            end -= 1;
        }
        Ok(Some(end - data))
    }

    /// The data range of a stream: the declared `length` when `endstream`
    /// follows it, else the length found by scanning (with a warning).
    pub fn stream_len(&self, data: u64, length: Option<u64>) -> Result<(u64, Option<String>)> {
        if let Some(n) = length
            && let Some(end) = data.checked_add(n)
            && end <= self.len()
            && self.endstream_at(end)?
        {
            return Ok((n, None));
        }
        match (self.scan_stream_end(data)?, length) {
            (Some(found), Some(n)) => Ok((
                found,
                Some(format!(
                    "stream /Length {n} is wrong; {found} found by scanning"
                )),
            )),
            (Some(found), None) => Ok((
                found,
                Some(format!(
                    "stream without a usable /Length; {found} found by scanning"
                )),
            )),
            (None, Some(n)) if data.saturating_add(n) <= self.len() => {
                Ok((n, Some("stream has no endstream".to_string())))
            }
            (None, Some(n)) => Err(Error::malformed(
                data,
                format!(
                    "stream /Length {n} runs past the end of the file and no endstream follows"
                ),
            )),
            (None, None) => Err(Error::malformed(
                data,
                "stream without /Length or endstream",
            )),
        }
    }
}
