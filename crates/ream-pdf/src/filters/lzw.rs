//! LZWDecode (MSB-first codes, 8-bit literals, EarlyChange).

use super::over_budget;
use crate::error::{Error, Result};
use ream_io::ErrorKind;
use weezl::{BitOrder, LzwStatus, decode::Decoder};

/// Decodes LZW into at most `budget` bytes. Corrupt data after some output
/// keeps that output with a warning.
pub(crate) fn decode(
    input: &[u8],
    early_change: bool,
    budget: u64,
) -> Result<(Vec<u8>, Vec<String>)> {
    let mut dec = if early_change {
        Decoder::with_tiff_size_switch(BitOrder::Msb, 8)
    } else {
        Decoder::new(BitOrder::Msb, 8)
    };
    let mut out = Vec::new();
    let mut buf = vec![0u8; 64 << 10];
    let mut rest = input;
    let mut warnings = Vec::new();
    loop {
        let r = dec.decode_bytes(rest, &mut buf);
        rest = rest.get(r.consumed_in..).unwrap_or_default();
        let produced = buf.get(..r.consumed_out).unwrap_or_default();
        if out.len() as u64 + produced.len() as u64 > budget {
            return Err(over_budget(budget));
        }
        out.extend_from_slice(produced);
        match r.status {
            Ok(LzwStatus::Done) => break,
            Ok(LzwStatus::NoProgress) => {
                if !rest.is_empty() || out.is_empty() && !input.is_empty() {
                    warnings.push("LZW data ends without an end code".to_string());
                }
                break;
            }
            Ok(LzwStatus::Ok) => {
                if rest.is_empty() && r.consumed_out == 0 {
                    break;
                }
            }
            Err(e) if out.is_empty() => {
                return Err(Error::new(ErrorKind::Malformed, format!("LZW: {e}")));
            }
            Err(e) => {
                warnings.push(format!("LZW: {e}; kept {} decoded bytes", out.len()));
                break;
            }
        }
    }
    Ok((out, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip() {
        let data: Vec<u8> = b"-----A---B".repeat(50);
        let enc = weezl::encode::Encoder::with_tiff_size_switch(BitOrder::Msb, 8)
            .encode(&data)
            .unwrap();
        assert_eq!(decode(&enc, true, 1000).unwrap().0, data);
        assert_eq!(
            decode(&enc, true, 10).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
        // The classic example from the PDF reference (EarlyChange 1).
        let ex = [0x80, 0x0B, 0x60, 0x50, 0x22, 0x0C, 0x0C, 0x85, 0x01];
        assert_eq!(decode(&ex, true, 100).unwrap().0, b"-----A---B");
    }
}
