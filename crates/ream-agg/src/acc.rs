//! Per-key accumulators and their merge.
//!
//! Values in the strict 1BRC form are kept exactly, in integer tenths
//! (`i64` sum). Any other decimal value goes to a separate `f64` part. A key
//! with no `f64` part prints exactly as the 1BRC reference does.

/// The `f64` part of a key: values that were not in the `-?d?d.d` form.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FloatAcc {
    pub count: u64,
    pub sum: f64,
    pub min: f64,
    pub max: f64,
}

impl FloatAcc {
    pub const EMPTY: FloatAcc = FloatAcc {
        count: 0,
        sum: 0.0,
        min: f64::INFINITY,
        max: f64::NEG_INFINITY,
    };

    #[inline]
    pub fn add(&mut self, v: f64) {
        self.count += 1;
        self.sum += v;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    pub fn merge(&mut self, o: &FloatAcc) {
        self.count += o.count;
        self.sum += o.sum;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }
}

/// Everything known about one key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Acc {
    /// Rows with an exact (tenths) value.
    pub count: u64,
    /// Sum of the exact values, in tenths.
    pub sum: i64,
    /// Smallest exact value in tenths (`i64::MAX` when `count` is 0).
    pub min: i64,
    /// Largest exact value in tenths (`i64::MIN` when `count` is 0).
    pub max: i64,
    /// Rows with a general value.
    pub float: FloatAcc,
}

impl Acc {
    pub fn merge(&mut self, o: &Acc) {
        self.count += o.count;
        self.sum += o.sum;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.float.merge(&o.float);
    }

    /// All rows of the key.
    pub fn rows(&self) -> u64 {
        self.count + self.float.count
    }
}
