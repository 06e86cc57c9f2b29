//! Shared-formula expansion: shifting the relative A1 references of a
//! master formula to a dependent cell, written straight into an arena.

use crate::refs::{MAX_COL, MAX_ROW};

#[inline]
fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'\\' | b'?') || b >= 0x80
}

/// Appends `formula` to `out` with every relative row/column reference
/// moved by (`drow`, `dcol`). `$`-anchored parts stay. References that
/// would leave the grid become `#REF!`. String literals and quoted sheet
/// names are copied verbatim; function names (`LOG10(`) and defined names
/// are not references.
pub(crate) fn shift_formula(formula: &[u8], drow: i64, dcol: i64, out: &mut Vec<u8>) {
    let mut i = 0;
    let n = formula.len();
    while i < n {
        let Some(&b) = formula.get(i) else { break };
        // Literals: "text" with "" escapes, 'sheet name' with '' escapes.
        if b == b'"' || b == b'\'' {
            let start = i;
            i += 1;
            while let Some(&c) = formula.get(i) {
                i += 1;
                if c == b {
                    if formula.get(i) == Some(&b) {
                        i += 1;
                    } else {
                        break;
                    }
                }
            }
            out.extend_from_slice(formula.get(start..i).unwrap_or_default());
            continue;
        }
        // A token start: previous byte must not be part of an identifier.
        let prev_ident = i > 0 && formula.get(i - 1).copied().is_some_and(is_ident);
        if !prev_ident && (b == b'$' || b.is_ascii_alphabetic() || b.is_ascii_digit()) {
            if let Some(consumed) =
                try_shift_ref(formula.get(i..).unwrap_or_default(), drow, dcol, out)
            {
                i += consumed;
                continue;
            }
            // Not a reference: copy the whole identifier/number at once so
            // its tail is never mistaken for a reference start.
            let start = i;
            while formula
                .get(i)
                .copied()
                .is_some_and(|c| is_ident(c) || c == b'$')
            {
                i += 1;
            }
            out.extend_from_slice(formula.get(start..i).unwrap_or_default());
            continue;
        }
        out.push(b);
        i += 1;
    }
}

/// Tries to read `[$]COL[$]ROW`, `[$]COL:[$]COL` or `[$]ROW:[$]ROW` at the
/// start of `s`; on success writes the shifted form and returns the bytes
/// consumed.
fn try_shift_ref(s: &[u8], drow: i64, dcol: i64, out: &mut Vec<u8>) -> Option<usize> {
    let (cell, used) = parse_part(s)?;
    let next = s.get(used).copied();
    // A name continues (e.g. `A1B`), or a function call follows (`LOG10(`).
    if next.is_some_and(|c| is_ident(c) || c == b'(') {
        return None;
    }
    match cell {
        Part::Cell { .. } => {
            write_part(&cell, drow, dcol, out);
            Some(used)
        }
        // Whole-column or whole-row ranges need the `:other` half.
        Part::Col { .. } | Part::Row { .. } => {
            if next != Some(b':') {
                return None;
            }
            let (other, used2) = parse_part(s.get(used + 1..)?)?;
            let same_kind = matches!(
                (&cell, &other),
                (Part::Col { .. }, Part::Col { .. }) | (Part::Row { .. }, Part::Row { .. })
            );
            if !same_kind
                || s.get(used + 1 + used2)
                    .copied()
                    .is_some_and(|c| is_ident(c) || c == b'(')
            {
                return None;
            }
            write_part(&cell, drow, dcol, out);
            out.push(b':');
            write_part(&other, drow, dcol, out);
            Some(used + 1 + used2)
        }
    }
}

enum Part {
    Cell {
        col: u32,
        col_abs: bool,
        row: u32,
        row_abs: bool,
    },
    Col {
        col: u32,
        abs: bool,
    },
    Row {
        row: u32,
        abs: bool,
    },
}

fn parse_part(s: &[u8]) -> Option<(Part, usize)> {
    let mut i = 0;
    let col_abs = s.first() == Some(&b'$');
    if col_abs {
        i += 1;
    }
    let letters_start = i;
    let mut col: u32 = 0;
    while let Some(&b) = s.get(i) {
        if !b.is_ascii_alphabetic() {
            break;
        }
        col = col * 26 + u32::from(b.to_ascii_uppercase() - b'A') + 1;
        i += 1;
        if i - letters_start > 3 {
            return None;
        }
    }
    let has_col = i > letters_start;
    if has_col && col > MAX_COL + 1 {
        return None;
    }
    let row_abs = s.get(i) == Some(&b'$');
    let digits_at = if row_abs { i + 1 } else { i };
    let mut j = digits_at;
    let mut row: u32 = 0;
    while let Some(&b) = s.get(j) {
        if !b.is_ascii_digit() {
            break;
        }
        row = row.saturating_mul(10).saturating_add(u32::from(b - b'0'));
        j += 1;
        if j - digits_at > 7 {
            return None;
        }
    }
    let has_row = j > digits_at;
    match (has_col, has_row) {
        (true, true) if (1..=MAX_ROW + 1).contains(&row) => Some((
            Part::Cell {
                col: col - 1,
                col_abs,
                row: row - 1,
                row_abs,
            },
            j,
        )),
        (true, false) if !row_abs => Some((
            Part::Col {
                col: col - 1,
                abs: col_abs,
            },
            i,
        )),
        (false, true) if !col_abs && (1..=MAX_ROW + 1).contains(&row) => Some((
            Part::Row {
                row: row - 1,
                abs: row_abs,
            },
            j,
        )),
        _ => None,
    }
}

fn shifted(v: u32, d: i64, abs: bool, max: u32) -> Option<u32> {
    if abs {
        return Some(v);
    }
    let n = i64::from(v) + d;
    if n < 0 || n > i64::from(max) {
        None
    } else {
        Some(n as u32)
    }
}

fn push_col(col: u32, out: &mut Vec<u8>) {
    out.extend_from_slice(crate::model::col_name(col).as_bytes());
}

fn push_num(n: u32, out: &mut Vec<u8>) {
    let mut buf = [0u8; 10];
    let mut i = buf.len();
    let mut v = n;
    loop {
        i -= 1;
        if let Some(b) = buf.get_mut(i) {
            *b = b'0' + (v % 10) as u8;
        }
        v /= 10;
        if v == 0 || i == 0 {
            break;
        }
    }
    out.extend_from_slice(buf.get(i..).unwrap_or_default());
}

fn write_part(p: &Part, drow: i64, dcol: i64, out: &mut Vec<u8>) {
    match *p {
        Part::Cell {
            col,
            col_abs,
            row,
            row_abs,
        } => {
            match (
                shifted(col, dcol, col_abs, MAX_COL),
                shifted(row, drow, row_abs, MAX_ROW),
            ) {
                (Some(c), Some(r)) => {
                    if col_abs {
                        out.push(b'$');
                    }
                    push_col(c, out);
                    if row_abs {
                        out.push(b'$');
                    }
                    push_num(r + 1, out);
                }
                _ => out.extend_from_slice(b"#REF!"),
            }
        }
        Part::Col { col, abs } => match shifted(col, dcol, abs, MAX_COL) {
            Some(c) => {
                if abs {
                    out.push(b'$');
                }
                push_col(c, out);
            }
            None => out.extend_from_slice(b"#REF!"),
        },
        Part::Row { row, abs } => match shifted(row, drow, abs, MAX_ROW) {
            Some(r) => {
                if abs {
                    out.push(b'$');
                }
                push_num(r + 1, out);
            }
            None => out.extend_from_slice(b"#REF!"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shift(f: &str, dr: i64, dc: i64) -> String {
        let mut v = Vec::new();
        shift_formula(f.as_bytes(), dr, dc, &mut v);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn shifts_relative_parts_only() {
        assert_eq!(shift("A1+B2", 1, 0), "A2+B3");
        assert_eq!(shift("$A1+A$1+$A$1", 2, 3), "$A3+D$1+$A$1");
        assert_eq!(shift("SUM(A1:B10)*2", 1, 1), "SUM(B2:C11)*2");
        assert_eq!(shift("LOG10(A1)", 1, 0), "LOG10(A2)");
        assert_eq!(shift("\"A1\"&A1", 1, 0), "\"A1\"&A2");
        assert_eq!(shift("'My A1'!A1", 1, 0), "'My A1'!A2");
        assert_eq!(shift("Sheet2!C3", 0, 1), "Sheet2!D3");
        assert_eq!(shift("SUM(A:A)+SUM(2:2)", 1, 1), "SUM(B:B)+SUM(3:3)");
        assert_eq!(shift("A1-1.5E+3", 1, 0), "A2-1.5E+3");
        assert_eq!(shift("A1", -1, 0), "#REF!");
        assert_eq!(shift("myName+_x1", 1, 0), "myName+_x1");
        assert_eq!(shift("IF(TRUE,1,0)", 1, 0), "IF(TRUE,1,0)");
    }
}
