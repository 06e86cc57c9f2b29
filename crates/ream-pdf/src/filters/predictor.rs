//! PNG (10-15) and TIFF (2) predictors after Flate/LZW.

use super::over_budget;
use crate::error::{Error, Result};
use crate::object::Dict;
use ream_io::ErrorKind;

/// Undoes the predictor named in `parms` (none: `data` unchanged).
pub(crate) fn apply(data: Vec<u8>, parms: Option<&Dict>, budget: u64) -> Result<Vec<u8>> {
    let Some(p) = parms else { return Ok(data) };
    let predictor = p.int(b"Predictor").unwrap_or(1);
    if predictor <= 1 {
        return Ok(data);
    }
    let colors = p.int(b"Colors").unwrap_or(1);
    let bpc = p.int(b"BitsPerComponent").unwrap_or(8);
    let columns = p.int(b"Columns").unwrap_or(1);
    if !(1..=32).contains(&colors)
        || ![1, 2, 4, 8, 16].contains(&bpc)
        || !(1..=1 << 24).contains(&columns)
    {
        return Err(Error::new(ErrorKind::Malformed, "bad predictor parameters"));
    }
    let bits_per_pixel = (colors * bpc) as usize;
    let bpp = bits_per_pixel.div_ceil(8);
    let row = (bits_per_pixel * columns as usize).div_ceil(8);
    match predictor {
        2 => tiff(data, bpp, row, bpc),
        10..=15 => png(&data, bpp, row, budget),
        _ => Err(Error::new(
            ErrorKind::Unsupported,
            format!("predictor {predictor}"),
        )),
    }
}

fn png(data: &[u8], bpp: usize, row: usize, budget: u64) -> Result<Vec<u8>> {
    let rows = data.len().div_ceil(row + 1);
    if (rows * row) as u64 > budget {
        return Err(over_budget(budget));
    }
    let mut out = Vec::with_capacity(rows * row);
    let mut prev = vec![0u8; row];
    let mut cur = vec![0u8; row];
    for chunk in data.chunks(row + 1) {
        let Some((&ty, src)) = chunk.split_first() else {
            break;
        };
        cur.fill(0);
        for i in 0..src.len().min(row) {
            let x = src.get(i).copied().unwrap_or(0);
            let a = if i >= bpp {
                cur.get(i - bpp).copied().unwrap_or(0)
            } else {
                0
            };
            let b = prev.get(i).copied().unwrap_or(0);
            let c = if i >= bpp {
                prev.get(i - bpp).copied().unwrap_or(0)
            } else {
                0
            };
            let v = match ty {
                0 => x,
                1 => x.wrapping_add(a),
                2 => x.wrapping_add(b),
                3 => x.wrapping_add(((u16::from(a) + u16::from(b)) / 2) as u8),
                4 => x.wrapping_add(paeth(a, b, c)),
                _ => {
                    return Err(Error::new(
                        ErrorKind::Malformed,
                        format!("PNG row filter {ty}"),
                    ));
                }
            };
            if let Some(slot) = cur.get_mut(i) {
                *slot = v;
            }
        }
        out.extend_from_slice(cur.get(..src.len().min(row)).unwrap_or_default());
        std::mem::swap(&mut prev, &mut cur);
    }
    Ok(out)
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = i16::from(a) + i16::from(b) - i16::from(c);
    let (pa, pb, pc) = (
        (p - i16::from(a)).abs(),
        (p - i16::from(b)).abs(),
        (p - i16::from(c)).abs(),
    );
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

fn tiff(mut data: Vec<u8>, bpp: usize, row: usize, bpc: i64) -> Result<Vec<u8>> {
    if bpc != 8 {
        return Err(Error::new(
            ErrorKind::Unsupported,
            format!("TIFF predictor with {bpc} bits per component"),
        ));
    }
    for r in data.chunks_mut(row) {
        for i in bpp..r.len() {
            let left = r.get(i - bpp).copied().unwrap_or(0);
            if let Some(x) = r.get_mut(i) {
                *x = x.wrapping_add(left);
            }
        }
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::Object;

    fn parms(pred: i64, columns: i64) -> Dict {
        let mut d = Dict::new();
        d.insert(b"Predictor".to_vec(), Object::Int(pred));
        d.insert(b"Columns".to_vec(), Object::Int(columns));
        d
    }

    #[test]
    fn png_up_and_sub() {
        // Two rows of 3 bytes: row 1 "Sub", row 2 "Up".
        let enc = vec![1, 1, 1, 1, 2, 1, 1, 1];
        let out = apply(enc, Some(&parms(12, 3)), 100).unwrap();
        assert_eq!(out, vec![1, 2, 3, 2, 3, 4]);
        let e = apply(vec![9, 0, 0, 0], Some(&parms(12, 3)), 100).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Malformed);
        assert_eq!(
            apply(vec![0, 5, 6, 7], Some(&parms(15, 3)), 100).unwrap(),
            vec![5, 6, 7]
        );
    }

    #[test]
    fn tiff_and_paeth() {
        let mut d = parms(2, 3);
        d.insert(b"Colors".to_vec(), Object::Int(1));
        assert_eq!(apply(vec![1, 1, 1], Some(&d), 100).unwrap(), vec![1, 2, 3]);
        assert_eq!(paeth(10, 20, 15), 15);
    }
}
