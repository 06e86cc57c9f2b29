//! One value into one Arrow type: the rules of [`ReadOptions::dtypes`](crate::ReadOptions::dtypes),
//! also used by inference so the inferred type always holds every value.

use ream::sheet::{DateKind, ExcelDateTime, Value};

/// Milliseconds per day.
const MS_PER_DAY: f64 = 86_400_000.0;
/// 2^63 as f64: integral numbers in `-2^63 .. 2^63` fit an i64.
const I64_BOUND: f64 = 9_223_372_036_854_775_808.0;

/// A finite f64 as an i64 when it is integral and fits. A cast and a
/// compare: `f64::fract` is a libm call on baseline x86-64 (no SSE4.1),
/// which cost a fifth of type inference on `many`.
#[inline]
fn exact_i64(n: f64) -> Option<i64> {
    if !(-I64_BOUND..I64_BOUND).contains(&n) {
        return None;
    }
    let i = n as i64;
    (i as f64 == n).then_some(i)
}

/// `x` rounded half away from zero, when finite and within i64 (the
/// same as `f64::round`, without its libm call).
#[inline]
fn round_i64(x: f64) -> Option<i64> {
    if !(-I64_BOUND..I64_BOUND).contains(&x) {
        return None;
    }
    // Truncation toward zero; `x - t` is exact (below 2^52 both share
    // the exponent range, above it `x` is integral).
    let t = x as i64;
    let f = x - t as f64;
    let r = if f >= 0.5 {
        t.checked_add(1)?
    } else if f <= -0.5 {
        t.checked_sub(1)?
    } else {
        t
    };
    Some(r)
}

/// Milliseconds, rounded, when finite and within i64.
#[inline]
fn ms(x: f64) -> Option<i64> {
    round_i64(x)
}

/// Bool: booleans, and text `true`/`false` (any case, trimmed).
#[inline]
pub(crate) fn to_bool(v: &Value<'_>) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) => {
            let s = s.trim();
            if s.eq_ignore_ascii_case("true") {
                Some(true)
            } else if s.eq_ignore_ascii_case("false") {
                Some(false)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Int64: integral numbers within ±2^63 (a date's serial too), and text
/// holding a decimal integer (trimmed).
#[inline]
pub(crate) fn to_i64(v: &Value<'_>) -> Option<i64> {
    match v {
        Value::Number(n) => exact_i64(*n),
        Value::DateTime(d) => exact_i64(d.serial),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Float64: numbers (a date's serial too), and text holding a number (trimmed).
#[inline]
pub(crate) fn to_f64(v: &Value<'_>) -> Option<f64> {
    match v {
        Value::Number(n) => Some(*n),
        Value::DateTime(d) => Some(d.serial),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A calendar date-time's milliseconds since 1970-01-01: date-formatted
/// values, and plain numbers read as serials of the workbook's date system.
#[inline]
fn calendar_ms(v: &Value<'_>, date_1904: bool) -> Option<i64> {
    let d = match v {
        Value::DateTime(d) if d.kind == DateKind::DateTime => *d,
        Value::Number(n) => ExcelDateTime {
            serial: *n,
            kind: DateKind::DateTime,
            date_1904,
        },
        _ => return None,
    };
    d.to_unix_seconds().and_then(|s| ms(s * 1000.0))
}

/// Date (days since 1970-01-01): dates (and serial numbers) at midnight.
#[inline]
pub(crate) fn to_date(v: &Value<'_>, date_1904: bool) -> Option<i32> {
    let ms = calendar_ms(v, date_1904)?;
    let day = 86_400_000;
    (ms % day == 0)
        .then(|| i32::try_from(ms / day).ok())
        .flatten()
}

/// Datetime (milliseconds since 1970-01-01): dates and date-times (and
/// serial numbers).
#[inline]
pub(crate) fn to_datetime(v: &Value<'_>, date_1904: bool) -> Option<i64> {
    calendar_ms(v, date_1904)
}

/// Duration (milliseconds): durations, times of day (since midnight), and
/// plain numbers read as days.
#[inline]
pub(crate) fn to_duration(v: &Value<'_>) -> Option<i64> {
    match v {
        Value::DateTime(d) if d.kind != DateKind::DateTime => ms(d.as_seconds() * 1000.0),
        Value::Number(n) => ms(n * MS_PER_DAY),
        _ => None,
    }
}

/// What inference sees in a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// A number (int64 if integral and within range, else float64).
    Number,
    /// A boolean.
    Bool,
    /// Text (error cells too under `ErrorsAs::String`).
    Text,
    /// A calendar date or date-time.
    Calendar,
    /// A duration or a time of day.
    Duration,
}

/// The class of a value with a value (not null, not empty text, not an
/// error cell): a date outside what its type holds counts as its serial
/// number, so the inferred type always takes it.
#[inline]
pub(crate) fn class_of(v: &Value<'_>, date_1904: bool) -> Class {
    match v {
        Value::Number(_) => Class::Number,
        Value::Bool(_) => Class::Bool,
        Value::DateTime(d) => match d.kind {
            DateKind::DateTime if calendar_ms(v, date_1904).is_some() => Class::Calendar,
            DateKind::Time | DateKind::Duration if to_duration(v).is_some() => Class::Duration,
            _ => Class::Number,
        },
        _ => Class::Text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(serial: f64, kind: DateKind) -> Value<'static> {
        Value::DateTime(ExcelDateTime {
            serial,
            kind,
            date_1904: false,
        })
    }

    #[test]
    fn numbers() {
        assert_eq!(to_i64(&Value::Number(3.0)), Some(3));
        assert_eq!(to_i64(&Value::Number(3.5)), None);
        assert_eq!(to_i64(&Value::Number(1e19)), None);
        assert_eq!(to_i64(&Value::String(" 42 ")), Some(42));
        assert_eq!(to_i64(&Value::Bool(true)), None);
        assert_eq!(to_f64(&Value::String("2.5")), Some(2.5));
        assert_eq!(to_f64(&Value::String("x")), None);
        assert_eq!(to_bool(&Value::String("TRUE")), Some(true));
        assert_eq!(to_bool(&Value::Number(1.0)), None);
    }

    #[test]
    fn rounding_matches_f64_round() {
        let cases = [
            0.0,
            0.49999999999999994,
            0.5,
            1.5,
            2.5,
            -0.5,
            -1.5,
            -2.4999,
            1e15 + 0.5,
            4503599627370495.5,
            4503599627370497.0,
            9.2e18,
            -9.2e18,
            9.3e18,
            f64::NAN,
            f64::INFINITY,
            -0.0,
            123456.789,
        ];
        for x in cases {
            let want = exact_i64_slow(x.round());
            assert_eq!(round_i64(x), want, "{x}");
        }
        for x in [3.0, 3.5, -7.0, 1e19, f64::NAN, -I64_BOUND] {
            assert_eq!(exact_i64(x), exact_i64_slow(x), "{x}");
        }
    }

    /// The definition: integral and within range.
    fn exact_i64_slow(n: f64) -> Option<i64> {
        (n.fract() == 0.0 && (-I64_BOUND..I64_BOUND).contains(&n)).then_some(n as i64)
    }

    #[test]
    fn dates() {
        assert_eq!(
            to_date(&dt(45292.0, DateKind::DateTime), false),
            Some(19723)
        );
        assert_eq!(to_date(&dt(45292.5, DateKind::DateTime), false), None);
        assert_eq!(
            to_datetime(&dt(45292.5, DateKind::DateTime), false),
            Some(19723 * 86_400_000 + 43_200_000)
        );
        assert_eq!(to_date(&Value::Number(45292.0), false), Some(19723));
        assert_eq!(to_duration(&dt(1.5, DateKind::Duration)), Some(129_600_000));
        assert_eq!(to_duration(&dt(0.25, DateKind::Time)), Some(21_600_000));
        assert_eq!(to_duration(&dt(0.25, DateKind::DateTime)), None);
        assert_eq!(class_of(&dt(1e9, DateKind::DateTime), false), Class::Number);
        assert_eq!(class_of(&dt(0.5, DateKind::Time), false), Class::Duration);
    }
}
