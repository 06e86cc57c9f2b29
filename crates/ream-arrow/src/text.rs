//! The text form of a value in a string column.

use ream::sheet::{DateKind, Value};
use std::fmt::Write;

/// Integral floats below this magnitude are written as integers.
const MAX_EXACT_INT: f64 = 9_007_199_254_740_992.0; // 2^53

/// Appends the text of `v` to `out`: numbers in the shortest form that
/// reads back to the same f64 (integral ones below 2^53 as integers),
/// text as is, booleans `TRUE`/`FALSE`, errors as written (`#N/A`),
/// dates and date-times in ISO 8601, times of day `HH:MM:SS[.f]`,
/// durations `[-]h:mm:ss[.f]`; a date or duration outside the calendar
/// as its serial number. [`Value::Empty`] appends nothing.
pub(crate) fn push_text(out: &mut String, v: &Value<'_>) {
    match v {
        Value::Number(n) => push_number(out, *n),
        Value::String(s) => out.push_str(s),
        Value::Bool(b) => out.push_str(if *b { "TRUE" } else { "FALSE" }),
        Value::Error(e) => out.push_str(e.as_str()),
        Value::DateTime(d) => {
            let text = match d.kind {
                DateKind::Duration => d.to_duration_text(),
                DateKind::Time => Some(d.to_iso()),
                DateKind::DateTime => d.to_unix_seconds().map(|_| d.to_iso()),
            };
            match text {
                Some(t) => out.push_str(&t),
                None => push_number(out, d.serial),
            }
        }
        Value::Empty => {}
    }
}

/// Appends a number in its shortest round-trip form (see [`push_text`]).
pub(crate) fn push_number(out: &mut String, n: f64) {
    if n.fract() == 0.0 && n.abs() < MAX_EXACT_INT {
        let _ = write!(out, "{}", n as i64);
    } else {
        out.push_str(ryu::Buffer::new().format(n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ream::sheet::{CellError, ExcelDateTime};

    fn text(v: Value<'_>) -> String {
        let mut s = String::new();
        push_text(&mut s, &v);
        s
    }

    #[test]
    fn text_forms() {
        assert_eq!(text(Value::Number(7.0)), "7");
        assert_eq!(text(Value::Number(-0.1)), "-0.1");
        assert_eq!(text(Value::Number(1e300)), "1e300");
        assert_eq!(text(Value::Bool(true)), "TRUE");
        assert_eq!(text(Value::Error(CellError::NA)), "#N/A");
        let d = |serial, kind| {
            Value::DateTime(ExcelDateTime {
                serial,
                kind,
                date_1904: false,
            })
        };
        assert_eq!(text(d(45292.0, DateKind::DateTime)), "2024-01-01");
        assert_eq!(text(d(45292.5, DateKind::DateTime)), "2024-01-01T12:00:00");
        assert_eq!(text(d(0.25, DateKind::Time)), "06:00:00");
        assert_eq!(text(d(1.5, DateKind::Duration)), "36:00:00");
        assert_eq!(text(Value::Empty), "");
    }
}
