//! Parsers for numeric command-line values, with range messages.
//!
//! Options taking a count accept negative numbers as values
//! (`allow_negative_numbers`), so that `--n-rows -1` is refused by these
//! parsers with the range, not by clap as an unknown argument.

/// Parses a whole number in `0..=max`; anything else gets a message
/// stating the range.
fn count(s: &str, max: u64) -> Result<u64, String> {
    let range = || format!("{s} is out of range: expected a whole number in 0..={max}");
    match s.trim().parse::<i128>() {
        Ok(n) if n < 0 => Err(range()),
        Ok(n) => u64::try_from(n)
            .ok()
            .filter(|n| *n <= max)
            .ok_or_else(range),
        Err(_) => Err(format!("{s:?} is not a whole number (expected 0..={max})")),
    }
}

/// A count that fits `u32` (row numbers).
pub fn count_u32(s: &str) -> Result<u32, String> {
    count(s, u64::from(u32::MAX)).map(|n| n as u32)
}

/// A count that fits `u64`.
pub fn count_u64(s: &str) -> Result<u64, String> {
    count(s, u64::MAX)
}

/// A count that fits `usize` (threads).
pub fn count_usize(s: &str) -> Result<usize, String> {
    count(s, usize::MAX as u64).map(|n| n as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(count_u64("5"), Ok(5));
        assert_eq!(
            count_u64("-1").unwrap_err(),
            "-1 is out of range: expected a whole number in 0..=18446744073709551615"
        );
        assert_eq!(
            count_u32("4294967296").unwrap_err(),
            "4294967296 is out of range: expected a whole number in 0..=4294967295"
        );
        assert!(count_u32("x").unwrap_err().contains("not a whole number"));
    }
}
