//! Value encoding shared by the output formats.
//!
//! JSON: numbers as JSON numbers (integral values without `.0`), strings as
//! strings, bools as `true`/`false`, errors as their Excel spelling
//! (`"#DIV/0!"`), dates and times as ISO 8601 strings, durations as seconds.
//! Plain text (CSV/TSV): the same, with bools as `TRUE`/`FALSE`.

use ream::sheet::{DateKind, Value};
use std::io::{self, Write};

/// Integral floats below this magnitude are written as integers.
const MAX_EXACT_INT: f64 = 9_007_199_254_740_992.0; // 2^53

/// Writes `s` as a JSON string (quoted and escaped).
pub fn write_str(w: &mut dyn Write, s: &str) -> io::Result<()> {
    serde_json::to_writer(w, s).map_err(io::Error::from)
}

/// Writes a JSON number: integral values without a fraction, others with
/// the shortest round-trip form; non-finite values as `null`.
pub fn write_number(w: &mut dyn Write, n: f64) -> io::Result<()> {
    if n.is_finite() && n.fract() == 0.0 && n.abs() < MAX_EXACT_INT {
        write!(w, "{}", n as i64)
    } else if n.is_finite() {
        serde_json::to_writer(w, &n).map_err(io::Error::from)
    } else {
        w.write_all(b"null")
    }
}

/// Writes a cell value as JSON (see the module docs).
pub fn write_value(w: &mut dyn Write, v: &Value<'_>) -> io::Result<()> {
    match v {
        Value::Number(n) => write_number(w, *n),
        Value::String(s) => write_str(w, s),
        Value::Bool(b) => w.write_all(if *b { b"true" } else { b"false" }),
        Value::Error(e) => write_str(w, e.as_str()),
        Value::DateTime(d) if d.kind == DateKind::Duration => write_number(w, d.as_seconds()),
        Value::DateTime(d) => write_str(w, &d.to_iso()),
        Value::Empty => w.write_all(b"null"),
    }
}

/// Writes a non-string cell value as plain text: numbers with Rust's
/// shortest round-trip formatting, `TRUE`/`FALSE`, error spellings, ISO
/// dates and times, durations in seconds. Strings are written raw (the
/// caller quotes them).
pub fn write_plain(w: &mut dyn Write, v: &Value<'_>) -> io::Result<()> {
    match v {
        Value::Number(n) => write!(w, "{n}"),
        Value::String(s) => w.write_all(s.as_bytes()),
        Value::Bool(b) => w.write_all(if *b { b"TRUE" } else { b"FALSE" }),
        Value::Error(e) => w.write_all(e.as_str().as_bytes()),
        Value::DateTime(d) if d.kind == DateKind::Duration => write!(w, "{}", d.as_seconds()),
        Value::DateTime(d) => w.write_all(d.to_iso().as_bytes()),
        Value::Empty => Ok(()),
    }
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
    use ream::sheet::{CellError, ExcelDateTime};

    fn enc(v: Value<'_>) -> String {
        let mut b = Vec::new();
        write_value(&mut b, &v).unwrap();
        String::from_utf8(b).unwrap()
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
        assert_eq!(enc(Value::Error(CellError::Div0)), r##""#DIV/0!""##);
        let d = ExcelDateTime {
            serial: 1.5,
            kind: DateKind::Duration,
            date_1904: false,
        };
        assert_eq!(enc(Value::DateTime(d)), "129600");
        let d = ExcelDateTime {
            serial: 45292.0,
            kind: DateKind::DateTime,
            date_1904: false,
        };
        assert_eq!(enc(Value::DateTime(d)), r#""2024-01-01""#);
    }

    #[test]
    fn plain_values() {
        let mut b = Vec::new();
        write_plain(&mut b, &Value::Number(2.0)).unwrap();
        write_plain(&mut b, &Value::Bool(false)).unwrap();
        assert_eq!(b, b"2FALSE");
    }
}
