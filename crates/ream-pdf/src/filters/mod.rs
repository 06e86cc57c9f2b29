//! Stream filters, each bounded by a decode budget (bomb guard).
//!
//! Decoded: FlateDecode (with PNG/TIFF predictors), LZWDecode (same
//! predictors), ASCIIHexDecode, ASCII85Decode, RunLengthDecode. Image
//! codecs (DCTDecode, JPXDecode, JBIG2Decode, CCITTFaxDecode) are passed
//! through raw: decoding stops at the first of them. Crypt and unknown
//! filters are `Unsupported`.

mod ascii;
mod flate;
mod lzw;
mod predictor;
mod runlength;

use crate::error::{Error, Result};
use crate::object::Dict;
use ream_io::ErrorKind;

/// One filter of a stream's chain with its parameters.
#[derive(Debug, Clone)]
pub(crate) struct Filter {
    pub name: Vec<u8>,
    pub parms: Option<Dict>,
}

/// The result of running a chain.
#[derive(Debug, Default)]
pub(crate) struct Decoded {
    pub data: Vec<u8>,
    /// The image filter the chain stopped at (its input is `data`).
    pub raw_filter: Option<String>,
    /// Recoverable problems (a corrupt deflate tail, for instance).
    pub warnings: Vec<String>,
}

/// The canonical name of a filter (abbreviations expanded).
fn canonical(name: &[u8]) -> &[u8] {
    match name {
        b"AHx" => b"ASCIIHexDecode",
        b"A85" => b"ASCII85Decode",
        b"LZW" => b"LZWDecode",
        b"Fl" => b"FlateDecode",
        b"RL" => b"RunLengthDecode",
        b"CCF" => b"CCITTFaxDecode",
        b"DCT" => b"DCTDecode",
        n => n,
    }
}

/// Appends to `out` while enforcing `budget` bytes.
pub(crate) struct Sink {
    pub out: Vec<u8>,
    pub budget: u64,
}

impl Sink {
    pub fn new(budget: u64, hint: usize) -> Sink {
        let cap = hint.min(budget.min(1 << 26) as usize);
        Sink {
            out: Vec::with_capacity(cap),
            budget,
        }
    }

    pub fn check(&self, extra: usize) -> Result<()> {
        if self.out.len() as u64 + extra as u64 > self.budget {
            return Err(over_budget(self.budget));
        }
        Ok(())
    }

    pub fn push(&mut self, b: u8) -> Result<()> {
        self.check(1)?;
        self.out.push(b);
        Ok(())
    }

    pub fn extend(&mut self, b: &[u8]) -> Result<()> {
        self.check(b.len())?;
        self.out.extend_from_slice(b);
        Ok(())
    }
}

pub(crate) fn over_budget(budget: u64) -> Error {
    Error::limit(format!(
        "decoded stream exceeds max_decoded_stream ({budget} bytes)"
    ))
}

/// Runs `filters` over `raw`; every intermediate and the final output is
/// limited to `budget` bytes.
pub(crate) fn decode(raw: &[u8], filters: &[Filter], budget: u64) -> Result<Decoded> {
    let mut d = Decoded::default();
    let mut cur: Option<Vec<u8>> = None;
    for f in filters {
        let input: &[u8] = cur.as_deref().unwrap_or(raw);
        let name = canonical(&f.name);
        let parms = f.parms.as_ref();
        let next = match name {
            b"FlateDecode" => {
                let (v, warn) = flate::inflate(input, budget)?;
                d.warnings.extend(warn);
                predictor::apply(v, parms, budget)?
            }
            b"LZWDecode" => {
                let early = parms.and_then(|p| p.int(b"EarlyChange")).unwrap_or(1) != 0;
                let (v, warn) = lzw::decode(input, early, budget)?;
                d.warnings.extend(warn);
                predictor::apply(v, parms, budget)?
            }
            b"ASCIIHexDecode" => ascii::hex(input, budget)?,
            b"ASCII85Decode" => ascii::a85(input, budget)?,
            b"RunLengthDecode" => runlength::decode(input, budget)?,
            b"DCTDecode" | b"JPXDecode" | b"JBIG2Decode" | b"CCITTFaxDecode" => {
                d.raw_filter = Some(String::from_utf8_lossy(name).into_owned());
                break;
            }
            other => {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    format!(
                        "filter /{} is not supported",
                        String::from_utf8_lossy(other)
                    ),
                ));
            }
        };
        cur = Some(next);
    }
    d.data = cur.unwrap_or_else(|| raw.to_vec());
    if d.data.len() as u64 > budget {
        return Err(over_budget(budget));
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::Object;

    fn f(name: &str) -> Filter {
        Filter {
            name: name.as_bytes().to_vec(),
            parms: None,
        }
    }

    #[test]
    fn chains() {
        let z = flate::tests::zlib(b"hello hello hello");
        let hex: String = z.iter().map(|b| format!("{b:02x}")).collect();
        let d = decode(hex.as_bytes(), &[f("AHx"), f("Fl")], 1000).unwrap();
        assert_eq!(d.data, b"hello hello hello");
        let d = decode(b"xyz", &[f("DCTDecode")], 1000).unwrap();
        assert_eq!(
            (d.data.as_slice(), d.raw_filter.as_deref()),
            (&b"xyz"[..], Some("DCTDecode"))
        );
        let e = decode(b"", &[f("Crypt")], 10).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported);
    }

    #[test]
    fn budget_applies_to_every_filter() {
        let z = flate::tests::zlib(&vec![0u8; 100_000]);
        let e = decode(&z, &[f("FlateDecode")], 10_000).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
        let mut parms = Dict::new();
        parms.insert(b"Predictor".to_vec(), Object::Int(12));
        let _ = parms;
    }
}
