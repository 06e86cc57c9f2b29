//! RunLengthDecode.

use super::Sink;
use crate::error::Result;

/// Decodes runs: 0-127 copy n+1 bytes, 129-255 repeat the next byte
/// 257-n times, 128 ends. A truncated run copies what is there.
pub(crate) fn decode(input: &[u8], budget: u64) -> Result<Vec<u8>> {
    let mut sink = Sink::new(budget, input.len() * 2);
    let mut i = 0;
    while let Some(&n) = input.get(i) {
        i += 1;
        match n {
            128 => break,
            0..=127 => {
                let end = (i + n as usize + 1).min(input.len());
                sink.extend(input.get(i..end).unwrap_or_default())?;
                i = end;
            }
            _ => {
                let Some(&b) = input.get(i) else { break };
                i += 1;
                let count = 257 - n as usize;
                sink.check(count)?;
                sink.out.resize(sink.out.len() + count, b);
            }
        }
    }
    Ok(sink.out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs() {
        assert_eq!(
            decode(&[2, b'a', b'b', b'c', 254, b'x', 128, 9], 100).unwrap(),
            b"abcxxx"
        );
        assert!(decode(&[129, 0, 129, 0], 200).is_err());
    }
}
