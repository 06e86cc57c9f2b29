//! Per-key accumulators and their merge.
//!
//! Values in the strict 1BRC form are kept in integer tenths (`i64` sum) by
//! the hot loop. Any other value goes to a separate exact part
//! ([`DecAcc`]): fixed point at the largest scale its values need, with a
//! 192-bit sum. A key with no such part prints exactly as the 1BRC
//! reference does.

use crate::decimal::{Dec, Wide, pow10};
use crate::parse::Value;

/// Exact fixed-point statistics of values at one `scale` (the largest
/// number of decimals any of them needs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DecAcc {
    pub count: u64,
    pub scale: u32,
    pub sum: Wide,
    /// Smallest value at `scale` (meaningless while `count` is 0).
    pub min: i128,
    /// Largest value at `scale` (meaningless while `count` is 0).
    pub max: i128,
}

impl DecAcc {
    pub const EMPTY: DecAcc = DecAcc {
        count: 0,
        scale: 0,
        sum: Wide::ZERO,
        min: 0,
        max: 0,
    };

    /// Moves the statistics to the larger scale `s` (exact: every value
    /// at scale at most 18 is below 10^36).
    fn rescale(&mut self, s: u32) {
        if s <= self.scale {
            return;
        }
        let k = pow10(s - self.scale);
        self.sum = self.sum.mul(k as u64);
        self.min *= k as i128;
        self.max *= k as i128;
        self.scale = s;
    }

    #[inline]
    pub fn add(&mut self, d: Dec) {
        let s = u32::from(d.scale);
        self.merge(&DecAcc {
            count: 1,
            scale: s,
            sum: Wide::from_i128(i128::from(d.m)),
            min: i128::from(d.m),
            max: i128::from(d.m),
        });
    }

    pub fn merge(&mut self, o: &DecAcc) {
        if o.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = *o;
            return;
        }
        let mut o = *o;
        let s = self.scale.max(o.scale);
        self.rescale(s);
        o.rescale(s);
        self.count += o.count;
        self.sum = self.sum.add(o.sum);
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }
}

/// Everything known about one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Acc {
    /// Rows with a strict (tenths) value.
    pub count: u64,
    /// Sum of the strict values, in tenths.
    pub sum: i64,
    /// Smallest strict value in tenths (`i64::MAX` when `count` is 0).
    pub min: i64,
    /// Largest strict value in tenths (`i64::MIN` when `count` is 0).
    pub max: i64,
    /// Rows with any other value.
    pub dec: DecAcc,
}

impl Acc {
    pub const EMPTY: Acc = Acc {
        count: 0,
        sum: 0,
        min: i64::MAX,
        max: i64::MIN,
        dec: DecAcc::EMPTY,
    };

    /// Adds one value.
    pub fn add(&mut self, v: Value) {
        match v {
            Value::Tenths(t) => {
                let t = i64::from(t);
                self.count += 1;
                self.sum += t;
                self.min = self.min.min(t);
                self.max = self.max.max(t);
            }
            Value::Dec(d) => self.dec.add(d),
        }
    }

    pub fn merge(&mut self, o: &Acc) {
        self.count += o.count;
        self.sum += o.sum;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.dec.merge(&o.dec);
    }

    /// All rows of the key.
    pub fn rows(&self) -> u64 {
        self.count + self.dec.count
    }

    /// Every value of the key in one exact accumulator.
    pub fn all(&self) -> DecAcc {
        let mut a = DecAcc::EMPTY;
        if self.count > 0 {
            a = DecAcc {
                count: self.count,
                scale: 1,
                sum: Wide::from_i128(i128::from(self.sum)),
                min: i128::from(self.min),
                max: i128::from(self.max),
            };
        }
        a.merge(&self.dec);
        a
    }
}
