//! Type inference: what every value of a column has in common.

use crate::convert::{Class, class_of, to_date, to_i64};
use crate::options::{DType, ErrorsAs};
use ream::sheet::Value;

/// What one column's values looked like so far.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ColStats {
    /// Class of the first value.
    first: Option<Class>,
    /// The first value's row and type name.
    first_at: (u32, &'static str),
    /// First cell of another class: its row and type name.
    pub(crate) other: Option<(u32, &'static str)>,
    /// Every number fits an int64.
    all_int: bool,
    /// Every calendar value is a whole day.
    all_days: bool,
}

impl Default for ColStats {
    fn default() -> ColStats {
        ColStats {
            first: None,
            first_at: (0, ""),
            other: None,
            all_int: true,
            all_days: true,
        }
    }
}

impl ColStats {
    /// Takes one value at `row` into account.
    #[inline]
    pub(crate) fn add(&mut self, row: u32, v: &Value<'_>, errors_as: ErrorsAs, date_1904: bool) {
        let class = match v {
            Value::Empty => return,
            Value::String("") => return,
            Value::Error(_) if errors_as == ErrorsAs::Null => return,
            _ => class_of(v, date_1904),
        };
        match class {
            Class::Number if self.all_int && to_i64(v).is_none() => self.all_int = false,
            Class::Calendar if self.all_days && to_date(v, date_1904).is_none() => {
                self.all_days = false
            }
            _ => {}
        }
        match self.first {
            None => {
                self.first = Some(class);
                self.first_at = (row, v.type_name());
            }
            Some(f) if f != class && self.other.is_none() => {
                self.other = Some((row, v.type_name()));
            }
            Some(_) => {}
        }
    }

    /// Appends what `later`, the same column over later rows, found.
    pub(crate) fn merge(&mut self, later: ColStats) {
        self.all_int &= later.all_int;
        self.all_days &= later.all_days;
        match (self.first, later.first) {
            (None, _) => {
                self.first = later.first;
                self.first_at = later.first_at;
                self.other = later.other;
            }
            (Some(_), None) => {}
            (Some(a), Some(b)) if self.other.is_none() => {
                self.other = if a != b {
                    Some(later.first_at)
                } else {
                    later.other
                };
            }
            (Some(_), Some(_)) => {}
        }
    }

    /// The type of the first value's class (what the column would be
    /// without the others).
    pub(crate) fn first_kind(&self) -> DType {
        match self.first {
            None => DType::Null,
            Some(Class::Number) if self.all_int => DType::Int64,
            Some(Class::Number) => DType::Float64,
            Some(Class::Bool) => DType::Bool,
            Some(Class::Text) => DType::String,
            Some(Class::Calendar) if self.all_days => DType::Date,
            Some(Class::Calendar) => DType::Datetime,
            Some(Class::Duration) => DType::Duration,
        }
    }

    /// The inferred type: the first class's, or string when classes mix.
    pub(crate) fn dtype(&self) -> DType {
        if self.other.is_some() {
            DType::String
        } else {
            self.first_kind()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ream::sheet::{CellError, DateKind, ExcelDateTime};

    fn infer(values: &[Value<'_>], errors_as: ErrorsAs) -> ColStats {
        let mut s = ColStats::default();
        for (i, v) in values.iter().enumerate() {
            s.add(i as u32, v, errors_as, false);
        }
        s
    }

    fn dt(serial: f64, kind: DateKind) -> Value<'static> {
        Value::DateTime(ExcelDateTime {
            serial,
            kind,
            date_1904: false,
        })
    }

    #[test]
    fn type_rules() {
        use Value::*;
        let n = ErrorsAs::Null;
        assert_eq!(infer(&[], n).dtype(), DType::Null);
        assert_eq!(infer(&[Empty, String("")], n).dtype(), DType::Null);
        assert_eq!(infer(&[Number(1.0), Number(2.0)], n).dtype(), DType::Int64);
        assert_eq!(
            infer(&[Number(1.0), Number(2.5)], n).dtype(),
            DType::Float64
        );
        assert_eq!(infer(&[Number(1e19)], n).dtype(), DType::Float64);
        assert_eq!(infer(&[Bool(true), Empty], n).dtype(), DType::Bool);
        assert_eq!(infer(&[String("a"), String("")], n).dtype(), DType::String);
        let day = dt(45292.0, DateKind::DateTime);
        let noon = dt(45292.5, DateKind::DateTime);
        assert_eq!(infer(&[day, day], n).dtype(), DType::Date);
        assert_eq!(infer(&[day, noon], n).dtype(), DType::Datetime);
        let dur = dt(1.5, DateKind::Duration);
        let time = dt(0.5, DateKind::Time);
        assert_eq!(infer(&[dur, time], n).dtype(), DType::Duration);
        assert_eq!(
            infer(&[Number(1.0), Error(CellError::NA)], n).dtype(),
            DType::Int64
        );
        let s = infer(&[Number(1.0), Error(CellError::NA)], ErrorsAs::String);
        assert_eq!((s.dtype(), s.other), (DType::String, Some((1, "error"))));
    }

    #[test]
    fn merging_runs_equals_one_pass() {
        use Value::*;
        let day = dt(45292.0, DateKind::DateTime);
        let noon = dt(45292.5, DateKind::DateTime);
        let columns: Vec<Vec<Value<'static>>> = vec![
            vec![Number(1.0), Number(2.0), Number(2.5), Empty, Number(4.0)],
            vec![Empty, Empty, String("a"), Number(1.0), Bool(true)],
            vec![
                Number(1.0),
                Number(2.0),
                String("x"),
                Number(3.0),
                String("y"),
            ],
            vec![day, Empty, noon, day],
            vec![Empty, Empty, Empty],
            vec![Bool(true), Bool(false), Number(1.0)],
        ];
        for values in &columns {
            let whole = infer(values, ErrorsAs::Null);
            for cut1 in 0..=values.len() {
                for cut2 in cut1..=values.len() {
                    let mut merged = ColStats::default();
                    for (lo, hi) in [(0, cut1), (cut1, cut2), (cut2, values.len())] {
                        let mut part = ColStats::default();
                        for (i, v) in values.iter().enumerate().take(hi).skip(lo) {
                            part.add(i as u32, v, ErrorsAs::Null, false);
                        }
                        merged.merge(part);
                    }
                    assert_eq!(
                        (merged.dtype(), merged.first_kind(), merged.other),
                        (whole.dtype(), whole.first_kind(), whole.other),
                        "{values:?} cut at {cut1}, {cut2}"
                    );
                }
            }
        }
    }

    #[test]
    fn mixed_names_the_first_other_cell() {
        use Value::*;
        let s = infer(
            &[Number(1.0), Number(2.0), String("x"), Bool(true)],
            ErrorsAs::Null,
        );
        assert_eq!(s.dtype(), DType::String);
        assert_eq!(s.first_kind(), DType::Int64);
        assert_eq!(s.other, Some((2, "string")));
        let day = dt(45292.0, DateKind::DateTime);
        let s = infer(&[day, String("n/a")], ErrorsAs::Null);
        assert_eq!(
            (s.first_kind(), s.other),
            (DType::Date, Some((1, "string")))
        );
    }
}
