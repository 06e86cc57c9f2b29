//! FlateDecode (zlib, or raw deflate when the zlib header is broken).

use super::over_budget;
use crate::error::{Error, Result};
use flate2::{Decompress, FlushDecompress, Status};
use ream_io::ErrorKind;

/// Inflates `input` into at most `budget` bytes. A stream that is corrupt
/// or cut short after producing output gives that output and a warning;
/// one that produces nothing is an error.
pub(crate) fn inflate(input: &[u8], budget: u64) -> Result<(Vec<u8>, Vec<String>)> {
    let zlib = input.len() >= 2
        && input.first().is_some_and(|b| b & 0x0f == 8)
        && input
            .first()
            .zip(input.get(1))
            .is_some_and(|(a, b)| (u16::from(*a) << 8 | u16::from(*b)) % 31 == 0);
    match run(input, zlib, budget) {
        Ok(r) => Ok(r),
        Err(e) if zlib || e.kind() == ErrorKind::LimitExceeded => Err(e),
        Err(_) if !zlib => run(input, true, budget),
        Err(e) => Err(e),
    }
}

fn run(input: &[u8], zlib: bool, budget: u64) -> Result<(Vec<u8>, Vec<String>)> {
    let mut z = Decompress::new(zlib);
    let first = (input.len().saturating_mul(4).saturating_add(64) as u64)
        .min(budget)
        .min(64 << 20);
    let mut out: Vec<u8> = Vec::with_capacity(first as usize);
    let mut warnings = Vec::new();
    loop {
        let rest = input.get(z.total_in() as usize..).unwrap_or_default();
        if out.len() == out.capacity() {
            if out.len() as u64 >= budget {
                // The budget is used up: fine only if nothing more comes out.
                let mut probe = [0u8; 1];
                let before = z.total_out();
                let _ = z.decompress(rest, &mut probe, FlushDecompress::None);
                if z.total_out() > before {
                    return Err(over_budget(budget));
                }
                break;
            }
            let room = (budget - out.len() as u64).min(out.capacity().clamp(4096, 16 << 20) as u64);
            out.reserve_exact(room as usize);
        }
        let (in0, out0) = (z.total_in(), z.total_out());
        match z.decompress_vec(rest, &mut out, FlushDecompress::None) {
            Ok(Status::StreamEnd) => break,
            Ok(_) if z.total_in() == in0 && z.total_out() == out0 => {
                if out.is_empty() && !rest.is_empty() {
                    return Err(Error::new(
                        ErrorKind::Malformed,
                        "flate data makes no progress",
                    ));
                }
                if !input.is_empty() {
                    warnings.push("flate stream ends without its end marker".to_string());
                }
                break;
            }
            Ok(_) => {}
            Err(e) if out.is_empty() => {
                return Err(Error::new(ErrorKind::Malformed, format!("flate: {e}")));
            }
            Err(e) => {
                warnings.push(format!("flate: {e}; kept {} decoded bytes", out.len()));
                break;
            }
        }
    }
    Ok((out, warnings))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;

    pub(crate) fn zlib(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn inflates_and_guards() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 7) as u8).collect();
        let z = zlib(&data);
        assert_eq!(inflate(&z, 200_000).unwrap().0, data);
        assert!(inflate(&z, 199_999).is_err());
        // Cut short: the prefix and a warning.
        let (v, w) = inflate(&z[..z.len() / 2], 1 << 20).unwrap();
        assert!(!v.is_empty() && data.starts_with(&v));
        assert!(!w.is_empty());
        // Raw deflate without the zlib header.
        assert_eq!(inflate(&z[2..], 1 << 20).unwrap().0, data);
        assert!(inflate(b"\xff\xff\xff\xff", 100).is_err());
        assert_eq!(inflate(&zlib(b""), 0).unwrap().0, b"");
    }
}
