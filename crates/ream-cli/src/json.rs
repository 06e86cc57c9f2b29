//! Value encoding shared by the output formats: one form per value type.
//!
//! | value            | JSON (`jsonl`, `cells`)    | text (`csv`, `tsv`)   |
//! |------------------|----------------------------|-----------------------|
//! | number           | number: `1`, `1.5`, `1e+308` | the same digits     |
//! | string           | string                     | the text (quoted or escaped by the format) |
//! | bool             | `true` / `false`           | `TRUE` / `FALSE`      |
//! | error            | `{"error":"#DIV/0!"}`      | `#DIV/0!`             |
//! | date, date-time  | `"2024-01-01"`, `"2024-01-01T10:10:10.123456"` | the same text |
//! | time of day      | `"10:10:10.5"`             | the same text         |
//! | duration         | `"255:10:10"`              | the same text         |
//! | empty (a formula without a cached value) | `null` | empty field      |
//!
//! Numbers: the shortest text that reads back to the same f64 ([`write_number`]);
//! integral values below 2^53 without a fraction or exponent. Times keep the
//! fraction of a second rounded to microseconds, trailing zeros trimmed.
//! Durations are `[-]h:mm:ss[.f]`, hours not wrapped at 24. A date, time or
//! duration outside the calendar (year 0..9999, ±10^9 days) is written as
//! its serial number.

use ream::sheet::{DateKind, ExcelDateTime, Value};
use std::io::{self, Write};

/// Integral floats below this magnitude are written as integers.
const MAX_EXACT_INT: f64 = 9_007_199_254_740_992.0; // 2^53

/// Writes `s` as a JSON string (quoted and escaped).
pub fn write_str(w: &mut dyn Write, s: &str) -> io::Result<()> {
    serde_json::to_writer(w, s).map_err(io::Error::from)
}

/// Writes a finite number in the one form every output uses: integral
/// values below 2^53 as integers (`7`, `-3`), others in the shortest form
/// that reads back to the same f64 (`0.1`, `1e+308`, `-1e-308`), a valid
/// JSON number. Returns false, writing nothing, for NaN and infinities.
pub fn write_finite(w: &mut dyn Write, n: f64) -> io::Result<bool> {
    if !n.is_finite() {
        return Ok(false);
    }
    if n.fract() == 0.0 && n.abs() < MAX_EXACT_INT {
        write!(w, "{}", n as i64)?;
    } else {
        serde_json::to_writer(w, &n).map_err(io::Error::from)?;
    }
    Ok(true)
}

/// Writes a JSON number ([`write_finite`]); non-finite values as `null`.
pub fn write_number(w: &mut dyn Write, n: f64) -> io::Result<()> {
    if !write_finite(w, n)? {
        w.write_all(b"null")?;
    }
    Ok(())
}

/// The text of a date, time or duration; `None` outside the calendar (the
/// caller writes the serial number instead).
fn date_text(d: &ExcelDateTime) -> Option<String> {
    match d.kind {
        DateKind::Duration => d.to_duration_text(),
        DateKind::Time => Some(d.to_iso()),
        DateKind::DateTime => d.to_unix_seconds().map(|_| d.to_iso()),
    }
}

/// Writes a cell value as JSON (see the module docs).
pub fn write_value(w: &mut dyn Write, v: &Value<'_>) -> io::Result<()> {
    match v {
        Value::Number(n) => write_number(w, *n),
        Value::String(s) => write_str(w, s),
        Value::Bool(b) => w.write_all(if *b { b"true" } else { b"false" }),
        Value::Error(e) => {
            w.write_all(b"{\"error\":")?;
            write_str(w, e.as_str())?;
            w.write_all(b"}")
        }
        Value::DateTime(d) => match date_text(d) {
            Some(text) => write_str(w, &text),
            None => write_number(w, d.serial),
        },
        Value::Empty => w.write_all(b"null"),
    }
}

/// Writes a cell value as plain text (see the module docs); strings raw
/// (the caller quotes or escapes them), non-finite numbers as nothing.
pub fn write_plain(w: &mut dyn Write, v: &Value<'_>) -> io::Result<()> {
    match v {
        Value::Number(n) => write_finite(w, *n).map(drop),
        Value::String(s) => w.write_all(s.as_bytes()),
        Value::Bool(b) => w.write_all(if *b { b"TRUE" } else { b"FALSE" }),
        Value::Error(e) => w.write_all(e.as_str().as_bytes()),
        Value::DateTime(d) => match date_text(d) {
            Some(text) => w.write_all(text.as_bytes()),
            None => write_finite(w, d.serial).map(drop),
        },
        Value::Empty => Ok(()),
    }
}

/// A cell value as plain text ([`write_plain`]) in a string.
pub fn plain_text(v: &Value<'_>) -> String {
    let mut buf = Vec::new();
    let _ = write_plain(&mut buf, v);
    String::from_utf8(buf).unwrap_or_default()
}

/// A cell value as a [`serde_json::Value`] (for small documents).
pub fn to_json(v: &Value<'_>) -> serde_json::Value {
    let mut buf = Vec::new();
    match write_value(&mut buf, v) {
        Ok(()) => serde_json::from_slice(&buf).unwrap_or(serde_json::Value::Null),
        Err(_) => serde_json::Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ream::sheet::CellError;

    fn enc(v: Value<'_>) -> String {
        let mut b = Vec::new();
        write_value(&mut b, &v).unwrap();
        String::from_utf8(b).unwrap()
    }

    fn date(serial: f64, kind: DateKind) -> Value<'static> {
        Value::DateTime(ExcelDateTime {
            serial,
            kind,
            date_1904: false,
        })
    }

    #[test]
    fn json_values() {
        assert_eq!(enc(Value::Number(1.0)), "1");
        assert_eq!(enc(Value::Number(-3.0)), "-3");
        assert_eq!(enc(Value::Number(1.5)), "1.5");
        assert_eq!(enc(Value::Number(0.1)), "0.1");
        assert_eq!(enc(Value::Number(f64::NAN)), "null");
        assert_eq!(enc(Value::String("a\"b")), r#""a\"b""#);
        assert_eq!(enc(Value::Bool(true)), "true");
        assert_eq!(
            enc(Value::Error(CellError::Div0)),
            r##"{"error":"#DIV/0!"}"##
        );
        assert_eq!(enc(date(1.5, DateKind::Duration)), r#""36:00:00""#);
        assert_eq!(enc(date(45292.0, DateKind::DateTime)), r#""2024-01-01""#);
        assert_eq!(enc(date(-5.0, DateKind::DateTime)), "-5");
        assert_eq!(enc(Value::Empty), "null");
    }

    #[test]
    fn numbers_are_short_and_exact() {
        for (n, text) in [
            (1e308, "1e+308"),
            (-1e-308, "-1e-308"),
            (9_007_199_254_740_991.0, "9007199254740991"),
            (1e16, "1e+16"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
        ] {
            assert_eq!(plain_text(&Value::Number(n)), text);
            assert_eq!(enc(Value::Number(n)), text);
            assert_eq!(text.parse::<f64>().unwrap().to_bits(), n.to_bits());
        }
        assert_eq!(plain_text(&Value::Number(f64::INFINITY)), "");
    }

    #[test]
    fn plain_values() {
        assert_eq!(plain_text(&Value::Bool(false)), "FALSE");
        assert_eq!(plain_text(&Value::Error(CellError::NA)), "#N/A");
        assert_eq!(plain_text(&Value::Empty), "");
        let serial = 10.632_060_185_185_2; // 255:10:10 as written in files
        assert_eq!(plain_text(&date(serial, DateKind::Duration)), "255:10:10");
        let t = 36_610.123_456 / 86_400.0;
        assert_eq!(plain_text(&date(t, DateKind::Time)), "10:10:10.123456");
    }
}
