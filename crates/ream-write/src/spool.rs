//! A byte buffer that moves to an unlinked temporary file past a size, so
//! a sheet's compressed bytes take bounded memory however big it grows.

use crate::error::{Error, Result};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

/// Bytes in memory up to `threshold`, then in a temporary file.
#[derive(Debug)]
pub(crate) struct Spool {
    mem: Vec<u8>,
    file: Option<File>,
    len: u64,
    threshold: usize,
    dir: Option<PathBuf>,
}

impl Spool {
    /// An empty spool that spills past `threshold` bytes into a temporary
    /// file in `dir` (the system's temporary folder when `None`).
    pub(crate) fn new(threshold: usize, dir: Option<PathBuf>) -> Spool {
        Spool {
            mem: Vec::new(),
            file: None,
            len: 0,
            threshold,
            dir,
        }
    }

    /// Bytes written so far.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Bytes held in memory.
    pub(crate) fn mem_len(&self) -> usize {
        self.mem.len()
    }

    /// Moves the bytes held in memory to the temporary file.
    pub(crate) fn spill(&mut self) -> io::Result<()> {
        let file = match &mut self.file {
            Some(f) => f,
            None => {
                let f = match &self.dir {
                    Some(d) => tempfile::tempfile_in(d)?,
                    None => tempfile::tempfile()?,
                };
                self.file.insert(f)
            }
        };
        file.write_all(&self.mem)?;
        self.mem = Vec::new();
        Ok(())
    }

    /// Copies every byte, in order, to `out`.
    pub(crate) fn copy_to(&mut self, out: &mut dyn Write) -> Result<()> {
        if let Some(f) = &mut self.file {
            let what = "reading back a spilled sheet";
            f.seek(SeekFrom::Start(0)).map_err(|e| Error::io(what, e))?;
            let mut buf = vec![0u8; 1 << 20];
            loop {
                let n = f.read(&mut buf).map_err(|e| Error::io(what, e))?;
                if n == 0 {
                    break;
                }
                out.write_all(buf.get(..n).unwrap_or_default())
                    .map_err(|e| Error::io("writing the workbook", e))?;
            }
        }
        out.write_all(&self.mem)
            .map_err(|e| Error::io("writing the workbook", e))
    }
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.mem.len() + buf.len() > self.threshold {
            self.spill()?;
            if buf.len() > self.threshold
                && let Some(f) = &mut self.file
            {
                f.write_all(buf)?;
                self.len += buf.len() as u64;
                return Ok(buf.len());
            }
        }
        self.mem.extend_from_slice(buf);
        self.len += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spills_and_reads_back_in_order() {
        let mut s = Spool::new(10, None);
        s.write_all(b"0123456").unwrap();
        assert_eq!(s.mem_len(), 7);
        s.write_all(b"789abc").unwrap();
        s.write_all(&[b'x'; 25]).unwrap();
        s.write_all(b"end").unwrap();
        assert_eq!(s.len(), 7 + 6 + 25 + 3);
        let mut out = Vec::new();
        s.copy_to(&mut out).unwrap();
        let mut want = b"0123456789abc".to_vec();
        want.extend_from_slice(&[b'x'; 25]);
        want.extend_from_slice(b"end");
        assert_eq!(out, want);
    }
}
