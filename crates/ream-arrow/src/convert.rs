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

/// `s` when it is all ASCII digits (at least one, at most 18), as a number.
fn digits(s: &str) -> Option<i64> {
    let ok = !s.is_empty() && s.len() <= 18 && s.bytes().all(|b| b.is_ascii_digit());
    ok.then(|| s.parse().ok()).flatten()
}

/// Exactly two digits, at most `max`.
fn two_digits(s: &str, max: i64) -> Option<i64> {
    (s.len() == 2)
        .then(|| digits(s))
        .flatten()
        .filter(|v| *v <= max)
}

/// `SS[.f]` (seconds 00..59, a fraction of 1 to 9 digits) as milliseconds,
/// rounded to the nearest.
fn seconds_ms(s: &str) -> Option<i64> {
    let (whole, frac) = match s.split_once('.') {
        Some((w, f)) if (1..=9).contains(&f.len()) => {
            let nanos = digits(f)? * 10_i64.pow(9 - f.len() as u32);
            (w, (nanos + 500_000) / 1_000_000)
        }
        Some(_) => return None,
        None => (s, 0),
    };
    Some(two_digits(whole, 59)? * 1000 + frac)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12; // March = 0
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `YYYY-MM-DD` (year 0000..9999, a real calendar day) as days since
/// 1970-01-01.
fn iso_days(s: &str) -> Option<i64> {
    let mut parts = s.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || y.len() != 4 {
        return None;
    }
    let (y, m, d) = (digits(y)?, two_digits(m, 12)?, two_digits(d, 31)?);
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let month_days = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    (m >= 1 && (1..=month_days).contains(&d)).then(|| days_from_civil(y, m, d))
}

/// ISO 8601 text as milliseconds since 1970-01-01 (trimmed):
/// `YYYY-MM-DD`, or with a time `YYYY-MM-DDTHH:MM[:SS[.f]]` (`T` or one
/// space; `.f` 1 to 9 digits, rounded to the millisecond) and an optional
/// trailing `Z`, dropped since the column has no time zone. Other UTC
/// offsets, week or ordinal dates and `24:00` are not taken.
pub(crate) fn iso_text_ms(s: &str) -> Option<i64> {
    let s = s.trim();
    let (date, time) = match s.find(['T', ' ']) {
        Some(i) => (s.get(..i)?, Some(s.get(i + 1..)?)),
        None => (s, None),
    };
    let day_ms = iso_days(date)?.checked_mul(86_400_000)?;
    let Some(time) = time else {
        return Some(day_ms);
    };
    let time = time.strip_suffix('Z').unwrap_or(time);
    let mut parts = time.splitn(3, ':');
    let h = two_digits(parts.next()?, 23)?;
    let m = two_digits(parts.next()?, 59)?;
    let sec = match parts.next() {
        Some(x) => seconds_ms(x)?,
        None => 0,
    };
    day_ms.checked_add((h * 60 + m) * 60_000 + sec)
}

/// Duration text `[-]h:mm:ss[.f]` (trimmed; hours any number of digits
/// up to 12, not wrapped at 24; `.f` 1 to 9 digits, rounded to the
/// millisecond) as milliseconds: the form durations and times of day
/// are written in (`255:10:10`, `06:00:00.5`, `-1:30:00`).
pub(crate) fn clock_text_ms(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let mut parts = s.splitn(3, ':');
    let h = parts.next().filter(|h| h.len() <= 12).and_then(digits)?;
    let m = two_digits(parts.next()?, 59)?;
    let sec = seconds_ms(parts.next()?)?;
    let ms = h.checked_mul(3_600_000)?.checked_add(m * 60_000 + sec)?;
    Some(if neg { -ms } else { ms })
}

/// A calendar date-time's milliseconds since 1970-01-01: date-formatted
/// values, plain numbers read as serials of the workbook's date system,
/// and ISO 8601 text ([`iso_text_ms`]).
#[inline]
fn calendar_ms(v: &Value<'_>, date_1904: bool) -> Option<i64> {
    let d = match v {
        Value::DateTime(d) if d.kind == DateKind::DateTime => *d,
        Value::Number(n) => ExcelDateTime {
            serial: *n,
            kind: DateKind::DateTime,
            date_1904,
        },
        Value::String(s) => return iso_text_ms(s),
        _ => return None,
    };
    d.to_unix_seconds().and_then(|s| ms(s * 1000.0))
}

/// Date (days since 1970-01-01): dates (and serial numbers) at midnight,
/// and ISO 8601 text at midnight (`2024-01-31`, `2024-01-31T00:00:00`).
#[inline]
pub(crate) fn to_date(v: &Value<'_>, date_1904: bool) -> Option<i32> {
    let ms = calendar_ms(v, date_1904)?;
    let day = 86_400_000;
    (ms % day == 0)
        .then(|| i32::try_from(ms / day).ok())
        .flatten()
}

/// Datetime (milliseconds since 1970-01-01): dates and date-times (and
/// serial numbers), and ISO 8601 text ([`iso_text_ms`]).
#[inline]
pub(crate) fn to_datetime(v: &Value<'_>, date_1904: bool) -> Option<i64> {
    calendar_ms(v, date_1904)
}

/// Duration (milliseconds): durations, times of day (since midnight),
/// plain numbers read as days, and `[-]h:mm:ss[.f]` text ([`clock_text_ms`]).
#[inline]
pub(crate) fn to_duration(v: &Value<'_>) -> Option<i64> {
    match v {
        Value::DateTime(d) if d.kind != DateKind::DateTime => ms(d.as_seconds() * 1000.0),
        Value::Number(n) => ms(n * MS_PER_DAY),
        Value::String(s) => clock_text_ms(s),
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

    const DAY: i64 = 86_400_000;

    #[test]
    fn iso_text_into_dates() {
        let s = Value::String;
        assert_eq!(to_date(&s("2024-01-31"), false), Some(19753));
        assert_eq!(to_date(&s(" 2024-01-31T00:00:00 "), false), Some(19753));
        assert_eq!(to_date(&s("2024-01-31T10:20:30"), false), None);
        assert_eq!(to_date(&s("1970-01-01"), true), Some(0));
        assert_eq!(to_date(&s("1969-12-31"), false), Some(-1));
        assert_eq!(to_date(&s("0000-03-01"), false), Some(-719_468));
        assert_eq!(to_date(&s("2024-02-29"), false), Some(19782));
        let t = 19753 * DAY + (10 * 3600 + 20 * 60 + 30) * 1000;
        assert_eq!(to_datetime(&s("2024-01-31T10:20:30"), false), Some(t));
        assert_eq!(
            to_datetime(&s("2024-01-31 10:20:30.5"), false),
            Some(t + 500)
        );
        assert_eq!(
            to_datetime(&s("2024-01-31T10:20:30.1234Z"), false),
            Some(t + 123)
        );
        assert_eq!(
            to_datetime(&s("2024-01-31T10:20:30.9996"), false),
            Some(t + 1000)
        );
        assert_eq!(to_datetime(&s("2024-01-31T10:20"), false), Some(t - 30_000));
        assert_eq!(to_datetime(&s("2024-01-31"), false), Some(19753 * DAY));
        for bad in [
            "2023-02-29",
            "2024-13-01",
            "2024-01-00",
            "2024-1-31",
            "24-01-31",
            "2024-01-31T24:00:00",
            "2024-01-31T10:60:00",
            "2024-01-31T10:20:30+02:00",
            "2024-01-31T10:20:30.",
            "2024-01-31T10:20:30.1234567890",
            "2024-01-31T",
            "2024-01-31Z",
            "31/01/2024",
            "+2024-01-31",
            "",
            "x",
        ] {
            assert_eq!(to_datetime(&s(bad), false), None, "{bad}");
        }
    }

    #[test]
    fn clock_text_into_durations() {
        let s = Value::String;
        assert_eq!(
            to_duration(&s("255:10:10")),
            Some((255 * 3600 + 610) * 1000)
        );
        assert_eq!(to_duration(&s("06:00:00.5")), Some(21_600_500));
        assert_eq!(to_duration(&s("0:00:01.25")), Some(1250));
        assert_eq!(to_duration(&s("-1:30:00")), Some(-5_400_000));
        assert_eq!(to_duration(&s(" 1:00:00 ")), Some(3_600_000));
        for bad in [
            "1:60:00",
            "1:00",
            "1:0:00",
            "1:00:00:00",
            "h:00:00",
            "--1:00:00",
            "",
            "1:00:00.",
            "9999999999999:00:00",
        ] {
            assert_eq!(to_duration(&s(bad)), None, "{bad}");
        }
        assert_eq!(to_date(&s("1:00:00"), false), None);
    }
}
