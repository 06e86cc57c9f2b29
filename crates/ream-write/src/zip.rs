//! A small ZIP writer for entries whose sizes and CRC are known before
//! they are written (every part is compressed first), so no data
//! descriptors are needed and the output may be a pipe. Zip64 records are
//! used for an entry, an offset or a count past the classic fields.

use crate::deflate::Compressed;
use crate::error::{Error, Result};
use std::io::Write;

/// The largest value a classic 32-bit field holds; at or above it Zip64 is
/// used.
const ZIP64_AT: u64 = 0xFFFF_FFFF;

/// One entry's central-directory facts.
struct Written {
    name: String,
    crc: u32,
    csize: u64,
    usize: u64,
    offset: u64,
}

/// Writes deflated entries and the central directory to `W`.
pub(crate) struct ZipWriter<W: Write> {
    out: W,
    pos: u64,
    entries: Vec<Written>,
    /// Sizes and offsets at or past this use Zip64 fields (lowered only by
    /// tests).
    zip64_at: u64,
}

/// MS-DOS date of 1980-01-01 (no clock: the output is reproducible).
const DOS_DATE: u16 = 0x0021;

fn io(e: std::io::Error) -> Error {
    Error::io("writing the workbook", e)
}

impl<W: Write> ZipWriter<W> {
    /// A writer starting at offset 0 of `out`.
    pub(crate) fn new(out: W) -> ZipWriter<W> {
        ZipWriter {
            out,
            pos: 0,
            entries: Vec::new(),
            zip64_at: ZIP64_AT,
        }
    }

    /// Uses Zip64 fields from `at` bytes on (tests).
    #[cfg(test)]
    pub(crate) fn with_zip64_at(mut self, at: u64) -> ZipWriter<W> {
        self.zip64_at = at;
        self
    }

    fn put(&mut self, b: &[u8]) -> Result<()> {
        self.out.write_all(b).map_err(io)?;
        self.pos += b.len() as u64;
        Ok(())
    }

    /// Writes one deflated entry named `name`.
    pub(crate) fn add(&mut self, name: &str, mut c: Compressed) -> Result<()> {
        let csize = c.compressed_len();
        let usize = c.raw_len;
        let offset = self.pos;
        let big = csize >= self.zip64_at || usize >= self.zip64_at;
        let mut h = Vec::with_capacity(64 + name.len());
        h.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        h.extend_from_slice(&(if big { 45u16 } else { 20 }).to_le_bytes());
        h.extend_from_slice(&0x0800u16.to_le_bytes()); // UTF-8 names
        h.extend_from_slice(&8u16.to_le_bytes()); // deflate
        h.extend_from_slice(&0u16.to_le_bytes()); // time
        h.extend_from_slice(&DOS_DATE.to_le_bytes());
        h.extend_from_slice(&c.crc.to_le_bytes());
        let field = |v: u64| if big { u32::MAX } else { v as u32 };
        h.extend_from_slice(&field(csize).to_le_bytes());
        h.extend_from_slice(&field(usize).to_le_bytes());
        h.extend_from_slice(&(name.len() as u16).to_le_bytes());
        h.extend_from_slice(&(if big { 20u16 } else { 0 }).to_le_bytes());
        h.extend_from_slice(name.as_bytes());
        if big {
            h.extend_from_slice(&1u16.to_le_bytes());
            h.extend_from_slice(&16u16.to_le_bytes());
            h.extend_from_slice(&usize.to_le_bytes());
            h.extend_from_slice(&csize.to_le_bytes());
        }
        self.put(&h)?;
        self.put(&std::mem::take(&mut c.head))?;
        let mut counted = Counted {
            out: &mut self.out,
            n: 0,
        };
        c.body.copy_to(&mut counted)?;
        self.pos += counted.n;
        self.entries.push(Written {
            name: name.to_string(),
            crc: c.crc,
            csize,
            usize,
            offset,
        });
        Ok(())
    }

    /// Writes the central directory and end records; returns the output
    /// and the archive's size.
    pub(crate) fn finish(mut self) -> Result<(W, u64)> {
        let cd_start = self.pos;
        let mut cd = Vec::new();
        for e in &self.entries {
            let mut extra = Vec::new();
            let mut field = |v: u64| {
                if v >= self.zip64_at {
                    extra.extend_from_slice(&v.to_le_bytes());
                    u32::MAX
                } else {
                    v as u32
                }
            };
            let (us, cs, off) = (field(e.usize), field(e.csize), field(e.offset));
            let z64 = !extra.is_empty();
            cd.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
            let ver: u16 = if z64 { 45 } else { 20 };
            cd.extend_from_slice(&ver.to_le_bytes());
            cd.extend_from_slice(&ver.to_le_bytes());
            cd.extend_from_slice(&0x0800u16.to_le_bytes());
            cd.extend_from_slice(&8u16.to_le_bytes());
            cd.extend_from_slice(&0u16.to_le_bytes());
            cd.extend_from_slice(&DOS_DATE.to_le_bytes());
            cd.extend_from_slice(&e.crc.to_le_bytes());
            cd.extend_from_slice(&cs.to_le_bytes());
            cd.extend_from_slice(&us.to_le_bytes());
            cd.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
            let extra_len = if z64 { extra.len() + 4 } else { 0 };
            cd.extend_from_slice(&(extra_len as u16).to_le_bytes());
            cd.extend_from_slice(&[0; 6]); // comment length, disk, internal attributes
            cd.extend_from_slice(&0u32.to_le_bytes()); // external attributes
            cd.extend_from_slice(&off.to_le_bytes());
            cd.extend_from_slice(e.name.as_bytes());
            if z64 {
                cd.extend_from_slice(&1u16.to_le_bytes());
                cd.extend_from_slice(&(extra.len() as u16).to_le_bytes());
                cd.extend_from_slice(&extra);
            }
        }
        self.put(&cd)?;
        let cd_len = cd.len() as u64;
        let count = self.entries.len() as u64;
        let z64 = count >= 0xFFFF || cd_start >= self.zip64_at || cd_len >= self.zip64_at;
        let mut end = Vec::new();
        if z64 {
            let eocd64 = self.pos;
            end.extend_from_slice(&0x0606_4b50u32.to_le_bytes());
            end.extend_from_slice(&44u64.to_le_bytes());
            end.extend_from_slice(&45u16.to_le_bytes());
            end.extend_from_slice(&45u16.to_le_bytes());
            end.extend_from_slice(&[0; 8]); // disk numbers
            end.extend_from_slice(&count.to_le_bytes());
            end.extend_from_slice(&count.to_le_bytes());
            end.extend_from_slice(&cd_len.to_le_bytes());
            end.extend_from_slice(&cd_start.to_le_bytes());
            end.extend_from_slice(&0x0706_4b50u32.to_le_bytes());
            end.extend_from_slice(&0u32.to_le_bytes());
            end.extend_from_slice(&eocd64.to_le_bytes());
            end.extend_from_slice(&1u32.to_le_bytes());
        }
        let small = |v: u64, max: u64| if z64 { max } else { v };
        end.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        end.extend_from_slice(&[0; 4]);
        let n = small(count, 0xFFFF) as u16;
        end.extend_from_slice(&n.to_le_bytes());
        end.extend_from_slice(&n.to_le_bytes());
        end.extend_from_slice(&(small(cd_len, ZIP64_AT) as u32).to_le_bytes());
        end.extend_from_slice(&(small(cd_start, ZIP64_AT) as u32).to_le_bytes());
        end.extend_from_slice(&0u16.to_le_bytes());
        self.put(&end)?;
        self.out.flush().map_err(io)?;
        Ok((self.out, self.pos))
    }
}

/// Counts bytes passed through to a writer.
struct Counted<'a, W: Write> {
    out: &'a mut W,
    n: u64,
}

impl<W: Write> Write for Counted<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.n += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deflate::deflate_all;

    fn archive(zip64_at: u64) -> Vec<u8> {
        let mut z = ZipWriter::new(Vec::new()).with_zip64_at(zip64_at);
        z.add("a.xml", deflate_all(b"<a>hello</a>", 6).unwrap())
            .unwrap();
        z.add("dir/b.xml", deflate_all(&b"b".repeat(5000), 6).unwrap())
            .unwrap();
        z.finish().unwrap().0
    }

    fn read_back(bytes: Vec<u8>) {
        let ar = ream_zip::Archive::new(
            ream_zip::Bytes::from_vec(bytes),
            ream_zip::Limits::default(),
        )
        .unwrap();
        let a = ar.find("a.xml").unwrap();
        assert_eq!(ar.read(a).unwrap(), b"<a>hello</a>");
        let b = ar.find("dir/b.xml").unwrap();
        assert_eq!(ar.read(b).unwrap(), b"b".repeat(5000));
    }

    #[test]
    fn classic_archive_reads_back() {
        read_back(archive(ZIP64_AT));
    }

    #[test]
    fn zip64_archive_reads_back() {
        let bytes = archive(0);
        assert!(bytes.windows(4).any(|w| w == 0x0606_4b50u32.to_le_bytes()));
        read_back(bytes);
    }
}
