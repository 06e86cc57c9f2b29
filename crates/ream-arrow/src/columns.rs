//! Column builders: one Arrow builder per output column, filled cell by
//! cell with nulls padding the rows without a value.

use crate::convert::{to_bool, to_date, to_datetime, to_duration, to_f64, to_i64};
use crate::options::{DType, ErrorsAs};
use crate::text::push_text;
use arrow_array::ArrayRef;
use arrow_array::builder::{
    BooleanBuilder, Date32Builder, DurationMillisecondBuilder, Float64Builder, Int64Builder,
    NullBuilder, StringBuilder, TimestampMillisecondBuilder,
};
use ream::sheet::Value;
use std::sync::Arc;

/// The builder of one column, by type.
enum Builder {
    Null(NullBuilder),
    Bool(BooleanBuilder),
    Int(Int64Builder),
    Float(Float64Builder),
    Str(StringBuilder),
    Date(Date32Builder),
    Datetime(TimestampMillisecondBuilder),
    Duration(DurationMillisecondBuilder),
}

/// What became of one pushed value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pushed {
    /// Appended (a value, or a null for an empty cell).
    Ok,
    /// An error cell appended as null ([`ErrorsAs::Null`]).
    ErrorNull,
    /// Not convertible to the column's type; nothing appended.
    Bad,
}

/// One output column being built.
pub(crate) struct ColumnBuild {
    builder: Builder,
    /// Rows appended so far in this batch.
    len: usize,
    errors_as: ErrorsAs,
    date_1904: bool,
    /// Reused buffer for the text of non-text values.
    scratch: String,
}

impl ColumnBuild {
    /// An empty column of `dtype` with room for `capacity` rows.
    pub(crate) fn new(dtype: DType, capacity: usize, errors_as: ErrorsAs, date_1904: bool) -> Self {
        let c = capacity;
        let builder = match dtype {
            DType::Null => Builder::Null(NullBuilder::new()),
            DType::Bool => Builder::Bool(BooleanBuilder::with_capacity(c)),
            DType::Int64 => Builder::Int(Int64Builder::with_capacity(c)),
            DType::Float64 => Builder::Float(Float64Builder::with_capacity(c)),
            DType::String => Builder::Str(StringBuilder::with_capacity(c, c.saturating_mul(8))),
            DType::Date => Builder::Date(Date32Builder::with_capacity(c)),
            DType::Datetime => Builder::Datetime(TimestampMillisecondBuilder::with_capacity(c)),
            DType::Duration => Builder::Duration(DurationMillisecondBuilder::with_capacity(c)),
        };
        ColumnBuild {
            builder,
            len: 0,
            errors_as,
            date_1904,
            scratch: String::new(),
        }
    }

    /// Appends `n` nulls.
    #[inline]
    fn append_nulls(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        match &mut self.builder {
            Builder::Null(b) => b.append_nulls(n),
            Builder::Bool(b) => b.append_nulls(n),
            Builder::Int(b) => b.append_nulls(n),
            Builder::Float(b) => b.append_nulls(n),
            Builder::Str(b) => b.append_nulls(n),
            Builder::Date(b) => b.append_nulls(n),
            Builder::Datetime(b) => b.append_nulls(n),
            Builder::Duration(b) => b.append_nulls(n),
        }
        self.len += n;
    }

    /// Appends `v` as row `at` of the batch (rows before it without a
    /// value become nulls). `at` never goes back.
    #[inline]
    pub(crate) fn push(&mut self, at: usize, v: &Value<'_>) -> Pushed {
        self.append_nulls(at.saturating_sub(self.len));
        let is_text = matches!(self.builder, Builder::Str(_));
        let pushed = match v {
            Value::Empty => Pushed::Ok,
            Value::String(s) if s.is_empty() && !is_text => Pushed::Ok,
            Value::Error(_) if self.errors_as == ErrorsAs::Null => Pushed::ErrorNull,
            Value::Error(_) if !is_text => return Pushed::Bad,
            _ => return self.push_value(v),
        };
        self.append_nulls(1);
        pushed
    }

    /// Appends a value that is neither empty nor a null-making error.
    #[inline]
    fn push_value(&mut self, v: &Value<'_>) -> Pushed {
        let d1904 = self.date_1904;
        let ok = match &mut self.builder {
            Builder::Null(_) => false,
            Builder::Bool(b) => to_bool(v).map(|x| b.append_value(x)).is_some(),
            Builder::Int(b) => to_i64(v).map(|x| b.append_value(x)).is_some(),
            Builder::Float(b) => to_f64(v).map(|x| b.append_value(x)).is_some(),
            Builder::Date(b) => to_date(v, d1904).map(|x| b.append_value(x)).is_some(),
            Builder::Datetime(b) => to_datetime(v, d1904).map(|x| b.append_value(x)).is_some(),
            Builder::Duration(b) => to_duration(v).map(|x| b.append_value(x)).is_some(),
            Builder::Str(b) => {
                if let Value::String(s) = v {
                    b.append_value(s);
                } else {
                    self.scratch.clear();
                    push_text(&mut self.scratch, v);
                    b.append_value(&self.scratch);
                }
                true
            }
        };
        if ok {
            self.len += 1;
            Pushed::Ok
        } else {
            Pushed::Bad
        }
    }

    /// Appends a null for a value that did not fit ([`Pushed::Bad`]).
    pub(crate) fn push_null(&mut self) {
        self.append_nulls(1);
    }

    /// The column of `rows` rows (padded with nulls), leaving the builder
    /// empty for the next batch.
    pub(crate) fn finish(&mut self, rows: usize) -> ArrayRef {
        self.append_nulls(rows.saturating_sub(self.len));
        self.len = 0;
        match &mut self.builder {
            Builder::Null(b) => Arc::new(b.finish()),
            Builder::Bool(b) => Arc::new(b.finish()),
            Builder::Int(b) => Arc::new(b.finish()),
            Builder::Float(b) => Arc::new(b.finish()),
            Builder::Str(b) => Arc::new(b.finish()),
            Builder::Date(b) => Arc::new(b.finish()),
            Builder::Datetime(b) => Arc::new(b.finish()),
            Builder::Duration(b) => Arc::new(b.finish()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use ream::sheet::CellError;

    #[test]
    fn empty_values_and_empty_text() {
        let mut n = ColumnBuild::new(DType::Int64, 4, ErrorsAs::Null, false);
        assert_eq!(n.push(0, &Value::Number(1.0)), Pushed::Ok);
        assert_eq!(n.push(1, &Value::Empty), Pushed::Ok);
        assert_eq!(n.push(2, &Value::String("")), Pushed::Ok);
        assert_eq!(n.push(3, &Value::Error(CellError::NA)), Pushed::ErrorNull);
        assert_eq!(n.push(5, &Value::String("x")), Pushed::Bad);
        n.push_null();
        let a = n.finish(7);
        let got: Vec<_> = a.as_primitive::<Int64Type>().iter().collect();
        assert_eq!(got, [Some(1), None, None, None, None, None, None]);

        let mut s = ColumnBuild::new(DType::String, 4, ErrorsAs::String, false);
        assert_eq!(s.push(1, &Value::String("")), Pushed::Ok);
        assert_eq!(s.push(2, &Value::Empty), Pushed::Ok);
        assert_eq!(s.push(3, &Value::Error(CellError::Div0)), Pushed::Ok);
        let a = s.finish(4);
        let got: Vec<_> = a.as_string::<i32>().iter().collect();
        assert_eq!(got, [None, Some(""), None, Some("#DIV/0!")]);

        let mut z = ColumnBuild::new(DType::Null, 0, ErrorsAs::Null, false);
        assert_eq!(z.push(0, &Value::Empty), Pushed::Ok);
        assert_eq!(z.push(1, &Value::Bool(true)), Pushed::Bad);
        assert_eq!(z.finish(3).logical_null_count(), 3);
        let mut b = ColumnBuild::new(DType::Float64, 0, ErrorsAs::String, false);
        assert_eq!(b.push(0, &Value::Error(CellError::NA)), Pushed::Bad);
    }
}
