//! The one parser for numeric command-line values, with range messages.
//!
//! Options taking a count accept negative numbers as values
//! (`allow_negative_numbers`), so that `--n-rows -1` is refused here with
//! the range (`-1 is not in 0..=4294967295`), not by clap as an unknown
//! argument.

use clap::builder::RangedI64ValueParser;
use std::ops::RangeInclusive;

/// A whole number within `range`, converted to `T`; anything else gets
/// clap's message stating the range.
pub fn ranged<T>(range: RangeInclusive<i64>) -> RangedI64ValueParser<T>
where
    T: TryFrom<i64> + Clone + Send + Sync + 'static,
    <T as TryFrom<i64>>::Error: std::error::Error + Send + Sync + 'static,
{
    RangedI64ValueParser::new().range(range)
}

/// The largest row count or index an option accepts (`u32::MAX`).
pub const MAX_ROW: i64 = u32::MAX as i64;

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct T {
        #[arg(long, allow_negative_numbers = true, value_parser = ranged::<u32>(0..=MAX_ROW))]
        n: u32,
    }

    #[test]
    fn ranges() {
        assert_eq!(T::try_parse_from(["t", "--n", "5"]).unwrap().n, 5);
        let e = T::try_parse_from(["t", "--n", "-1"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("-1 is not in 0..=4294967295"), "{e}");
        let e = T::try_parse_from(["t", "--n", "4294967296"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not in 0..=4294967295"), "{e}");
        let e = T::try_parse_from(["t", "--n", "x"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("invalid value 'x'"), "{e}");
    }
}
