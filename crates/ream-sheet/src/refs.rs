//! A1-style cell references.

/// Excel's largest row index (0-based): 1,048,575.
pub(crate) const MAX_ROW: u32 = 1_048_575;
/// Excel's largest column index (0-based): 16,383 (XFD).
pub(crate) const MAX_COL: u32 = 16_383;

/// Parses `A1`, `$A$1`, `xfd1048576` into 0-based (row, col). Rejects
/// anything past Excel's grid, missing parts and trailing bytes.
pub(crate) fn parse_a1(s: &[u8]) -> Option<(u32, u32)> {
    let mut i = 0;
    if s.first() == Some(&b'$') {
        i += 1;
    }
    let mut col: u32 = 0;
    let col_start = i;
    while let Some(&b) = s.get(i) {
        let up = b.to_ascii_uppercase();
        if !up.is_ascii_uppercase() {
            break;
        }
        col = col.checked_mul(26)?.checked_add(u32::from(up - b'A') + 1)?;
        if col > MAX_COL + 1 {
            return None;
        }
        i += 1;
    }
    if i == col_start {
        return None;
    }
    if s.get(i) == Some(&b'$') {
        i += 1;
    }
    let row_start = i;
    let mut row: u32 = 0;
    while let Some(&b) = s.get(i) {
        if !b.is_ascii_digit() {
            return None;
        }
        row = row.checked_mul(10)?.checked_add(u32::from(b - b'0'))?;
        if row > MAX_ROW + 1 {
            return None;
        }
        i += 1;
    }
    if i == row_start || row == 0 {
        return None;
    }
    Some((row - 1, col - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_references() {
        assert_eq!(parse_a1(b"A1"), Some((0, 0)));
        assert_eq!(parse_a1(b"$B$7"), Some((6, 1)));
        assert_eq!(parse_a1(b"XFD1048576"), Some((MAX_ROW, MAX_COL)));
        assert_eq!(parse_a1(b"xfd1"), Some((0, MAX_COL)));
        assert_eq!(parse_a1(b"XFE1"), None);
        assert_eq!(parse_a1(b"A1048577"), None);
        assert_eq!(parse_a1(b"A0"), None);
        assert_eq!(parse_a1(b"1A"), None);
        assert_eq!(parse_a1(b""), None);
        assert_eq!(parse_a1(b"A1x"), None);
        assert_eq!(parse_a1(b"AAAAAAAAAAAAAAAA1"), None);
    }

    #[test]
    fn names_round_trip() {
        for col in [0u32, 25, 26, 701, 702, MAX_COL] {
            let name = crate::model::cell_name(41, col);
            assert_eq!(parse_a1(name.as_bytes()), Some((41, col)), "{name}");
        }
    }
}
