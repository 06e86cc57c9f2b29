//! Delimited text: is it text, and how many rows, columns and first-column
//! keys does it hold.
//!
//! One pass over the mapped bytes. `memchr3` jumps between the only bytes
//! that matter (delimiter, quote, newline), so runs of field text are
//! skipped at SIMD speed instead of being looked at one byte at a time.

use crate::raw::TextSummary;
use std::collections::HashSet;

/// Bytes looked at to decide whether a file is text.
const SNIFF_BYTES: usize = 8 << 10;
/// Delimiters tried, in order of preference on a tie.
const DELIMITERS: [u8; 4] = [b',', b'\t', b';', b'|'];

/// True when `data` looks like text: not empty, no NUL byte and valid
/// UTF-8 in its first 8 KiB (a multi-byte character cut at that boundary is
/// fine). A UTF-8 byte-order mark is allowed.
pub fn looks_like_text(data: &[u8]) -> bool {
    let head = data.get(..SNIFF_BYTES.min(data.len())).unwrap_or(data);
    if head.is_empty() || memchr::memchr(0, head).is_some() {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        // Only an incomplete sequence at the very end of a cut head.
        Err(e) => e.error_len().is_none() && head.len() < data.len(),
    }
}

/// Guesses the delimiter from the first line: the candidate seen most often
/// outside double quotes, `None` if none is seen.
fn guess_delimiter(data: &[u8]) -> Option<u8> {
    let mut counts = [0usize; DELIMITERS.len()];
    let mut quoted = false;
    for &b in data {
        match b {
            b'"' => quoted = !quoted,
            b'\n' if !quoted => break,
            _ if !quoted => {
                if let Some(i) = DELIMITERS.iter().position(|&d| d == b)
                    && let Some(c) = counts.get_mut(i)
                {
                    *c += 1;
                }
            }
            _ => {}
        }
    }
    let (best, n) = counts
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(&a.0)))?;
    (*n > 0).then(|| DELIMITERS.get(best).copied()).flatten()
}

/// Counts rows, columns and distinct first-column keys of `data` (at most
/// `key_cap` keys are remembered; the count then stops and is flagged).
///
/// Rows end at `\n` outside double quotes; a `\r` before it and a UTF-8
/// byte-order mark are dropped; empty lines are not rows. Keys are the raw
/// bytes of the first field (quotes kept), borrowed from `data`, so
/// counting allocates only the set.
pub fn scan(data: &[u8], key_cap: usize) -> TextSummary {
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let delim = guess_delimiter(data);
    // Without a delimiter the scanner looks for a byte that cannot occur in
    // UTF-8 text instead, so every line is one field.
    let d = delim.unwrap_or(0xFF);
    let mut keys: HashSet<&[u8]> = HashSet::new();
    let mut capped = false;
    let mut rows = 0u64;
    let mut columns = 0usize;
    let mut max_columns = 0usize;
    let mut row_start = 0usize;
    let mut key_end: Option<usize> = None;
    let mut fields = 1usize;
    let mut quoted = false;
    let mut pos = 0usize;
    let mut end_row = |start: usize, end: usize, key_end: Option<usize>, fields: usize| {
        let mut line = data.get(start..end).unwrap_or_default();
        if let Some(l) = line.strip_suffix(b"\r") {
            line = l;
        }
        if line.is_empty() {
            return;
        }
        rows += 1;
        if rows == 1 {
            columns = fields;
        }
        max_columns = max_columns.max(fields);
        let key_len = key_end
            .map_or(line.len(), |k| k.saturating_sub(start))
            .min(line.len());
        let key = line.get(..key_len).unwrap_or_default();
        if !capped && !keys.contains(key) {
            if keys.len() >= key_cap {
                capped = true;
            } else {
                keys.insert(key);
            }
        }
    };
    while let Some(off) = data
        .get(pos..)
        .and_then(|rest| memchr::memchr3(d, b'"', b'\n', rest))
    {
        let at = pos + off;
        match data.get(at).copied() {
            Some(b'"') => quoted = !quoted,
            Some(b'\n') if !quoted => {
                end_row(row_start, at, key_end, fields);
                row_start = at + 1;
                key_end = None;
                fields = 1;
            }
            Some(b) if b == d && !quoted => {
                if fields == 1 {
                    key_end = Some(at);
                }
                fields += 1;
            }
            _ => {}
        }
        pos = at + 1;
    }
    end_row(row_start, data.len(), key_end, fields);
    TextSummary {
        rows,
        columns,
        max_columns,
        delimiter: delim.map(|b| char::from(b).to_string()),
        keys: keys.len() as u64,
        keys_capped: capped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_or_not() {
        assert!(looks_like_text(b"a,b\n1,2\n"));
        assert!(!looks_like_text(b""));
        assert!(!looks_like_text(b"a\0b"));
        assert!(!looks_like_text(b"\xFF\xFEa"));
        // A character cut at the 8 KiB boundary is still text.
        let mut long = vec![b'a'; SNIFF_BYTES - 1];
        long.extend_from_slice("é".as_bytes());
        assert!(looks_like_text(&long));
        // ...but not when the file really ends there.
        assert!(!looks_like_text(&long[..SNIFF_BYTES]));
    }

    #[test]
    fn csv_rows_columns_keys() {
        let s = scan(
            b"city,temp\nOslo,1\r\nRome,2\n\nOslo,3\n\"Sao, Paulo\",4",
            100,
        );
        assert_eq!(s.rows, 5);
        assert_eq!(s.columns, 2);
        assert_eq!(s.max_columns, 2);
        assert_eq!(s.delimiter.as_deref(), Some(","));
        assert_eq!(s.keys, 4, "city, Oslo, Rome, \"Sao, Paulo\"");
        assert!(!s.keys_capped);
    }

    #[test]
    fn quoted_newlines_and_other_delimiters() {
        let s = scan(b"a;b;c\n\"x\ny\";2;3;4\n", 10);
        assert_eq!((s.rows, s.columns, s.max_columns), (2, 3, 4));
        assert_eq!(s.delimiter.as_deref(), Some(";"));
        let s = scan(b"Hamburg;12.0\nBulawayo;8.9\n", 10);
        assert_eq!(s.keys, 2);
        let s = scan(b"one\ntwo\ntwo\n", 10);
        assert_eq!((s.rows, s.columns, s.keys), (3, 1, 2));
        assert_eq!(s.delimiter, None);
        let s = scan(b"\xEF\xBB\xBFa\tb\n", 10);
        assert_eq!(s.delimiter.as_deref(), Some("\t"));
        assert_eq!(s.columns, 2);
    }

    #[test]
    fn key_cap() {
        let data: String = (0..50).map(|i| format!("k{i},1\n")).collect();
        let s = scan(data.as_bytes(), 10);
        assert_eq!(s.keys, 10);
        assert!(s.keys_capped);
        assert_eq!(s.rows, 50);
    }

    #[test]
    fn empty_and_blank() {
        let s = scan(b"", 10);
        assert_eq!((s.rows, s.columns, s.keys), (0, 0, 0));
        let s = scan(b"\n\r\n\n", 10);
        assert_eq!(s.rows, 0);
    }
}
