//! The general line rules: one line, its fields.

use crate::error::{Fault, Problem};
use crate::options::AggOptions;
use crate::parse::{self, Value};

/// The line starting at `pos` without its line break (`\n` or `\r\n`), and
/// the start of the next line (`data.len()` for the last line).
pub(crate) fn line_at(data: &[u8], pos: usize) -> (&[u8], usize) {
    let rest = data.get(pos..).unwrap_or_default();
    let (len, next) = match memchr::memchr(b'\n', rest) {
        Some(i) => (i, pos + i + 1),
        None => (rest.len(), data.len()),
    };
    let line = rest.get(..len).unwrap_or_default();
    (line.strip_suffix(b"\r").unwrap_or(line), next)
}

/// `(key offset, key, value offset, value)`.
type Fields<'a> = (usize, &'a [u8], usize, &'a [u8]);

/// The key and value fields of `line` (starting at offset `pos`), with
/// their offsets: `(key_at, key, value_at, value)`. Fields are split at
/// every delimiter; fields past `key_col` and `value_col` are ignored.
pub(crate) fn split_line<'a>(
    line: &'a [u8],
    pos: usize,
    opts: &AggOptions,
) -> Result<Fields<'a>, Fault> {
    let want = opts.key_col.max(opts.value_col);
    let mut key = None;
    let mut val = None;
    let mut start = 0;
    let mut col = 0;
    loop {
        let tail = line.get(start..).unwrap_or_default();
        let end = memchr::memchr(opts.delimiter, tail).map(|i| start + i);
        let field = line
            .get(start..end.unwrap_or(line.len()))
            .unwrap_or_default();
        if col == opts.key_col {
            key = Some((pos + start, field));
        }
        if col == opts.value_col {
            val = Some((pos + start, field));
        }
        if col == want {
            break;
        }
        match end {
            Some(e) => start = e + 1,
            None if col == 0 => {
                return Err(Fault::new(
                    Problem::MissingDelimiter,
                    pos,
                    format!("line has no {} delimiter", show_byte(opts.delimiter)),
                ));
            }
            None => {
                return Err(Fault::new(
                    Problem::MissingField {
                        col: want,
                        found: col + 1,
                    },
                    pos,
                    format!(
                        "line has {} fields; field {want} (0-based) is needed",
                        col + 1
                    ),
                ));
            }
        }
        col += 1;
    }
    match (key, val) {
        (Some((ka, k)), Some((va, v))) => Ok((ka, k, va, v)),
        _ => Err(Fault::new(
            Problem::MissingDelimiter,
            pos,
            "line has no fields".into(),
        )),
    }
}

/// A byte for messages: `';'`, `'\t'`, `0x1f`.
pub(crate) fn show_byte(b: u8) -> String {
    if b.is_ascii_graphic() || b == b' ' {
        format!("'{}'", char::from(b))
    } else if b == b'\t' {
        "'\\t'".into()
    } else {
        format!("0x{b:02x}")
    }
}

/// A checked row: the key, where it starts, and the parsed value.
pub(crate) struct Row<'a> {
    pub key_at: usize,
    pub key: &'a [u8],
    pub value: Value,
}

/// Splits and checks one non-empty line (without its line break) at
/// offset `pos`: fields, key length, value. The checks on a key seen for
/// the first time are [`check_new_key`].
pub(crate) fn check_row<'a>(
    line: &'a [u8],
    pos: usize,
    opts: &AggOptions,
) -> Result<Row<'a>, Fault> {
    let (key_at, key, val_at, val) = split_line(line, pos, opts)?;
    check_fields(key, key_at, val, val_at, opts)
}

/// Checks a key (at `key_at`) and parses a value (at `val_at`).
pub(crate) fn check_fields<'a>(
    key: &'a [u8],
    key_at: usize,
    val: &[u8],
    val_at: usize,
    opts: &AggOptions,
) -> Result<Row<'a>, Fault> {
    if key.is_empty() {
        return Err(Fault::new(Problem::EmptyKey, key_at, "empty key".into()));
    }
    if key.len() > opts.max_key_bytes {
        return Err(Fault::new(
            Problem::KeyTooLong {
                max: opts.max_key_bytes,
            },
            key_at,
            format!(
                "key of {} bytes is over the limit of {} bytes",
                key.len(),
                opts.max_key_bytes
            ),
        ));
    }
    let value = parse::value(val, opts.strict_values).map_err(|p| {
        let shown = String::from_utf8_lossy(val.get(..40).unwrap_or(val));
        let msg = match p {
            Problem::ValueOutOfRange => format!(
                "value {shown:?} has more than 18 significant digits or decimals, \
                 or is 10^18 or more: exact fixed point cannot hold it"
            ),
            _ if val.is_empty() => "empty value".to_string(),
            _ if opts.strict_values => {
                format!("value {shown:?} is not in the form -?d?d.d (strict values)")
            }
            _ => format!("value {shown:?} is not a decimal number"),
        };
        Fault::new(p, val_at, msg)
    })?;
    Ok(Row { key_at, key, value })
}

/// The checks on a key seen for the first time (by a worker): UTF-8.
pub(crate) fn check_new_key(key: &[u8], key_at: usize, opts: &AggOptions) -> Result<(), Fault> {
    if opts.allow_invalid_utf8 {
        return Ok(());
    }
    std::str::from_utf8(key).map(drop).map_err(|e| {
        Fault::new(
            Problem::InvalidUtf8,
            key_at + e.valid_up_to(),
            "key is not valid UTF-8 (allow_invalid_utf8 accepts it as bytes)".into(),
        )
    })
}
