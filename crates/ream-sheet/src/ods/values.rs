//! Decoding of ODS attribute values: repeat counts, ISO dates, ISO 8601
//! durations, booleans, formula prefixes and cell-range addresses.
//!
//! Dates become serial days of the 1900 system. ODS counts days from the
//! null date 1899-12-30, which equals Excel's 1900-system serials from
//! 1900-03-01 on; earlier dates go through Excel's phantom-leap-day
//! convention ([`crate::dates::iso_to_serial`]) so that they print right.

use crate::model::DateKind;

/// Parses a repeat or span count: ASCII digits, saturating at `u64::MAX`
/// (a hostile count is clipped later, never allocated). `None` for an
/// empty or non-numeric value.
pub(crate) fn parse_count(raw: &[u8]) -> Option<u64> {
    let raw = ream_xml::trim_xml_ws(raw);
    if raw.is_empty() || !raw.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(raw.iter().fold(0u64, |acc, &d| {
        acc.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    }))
}

/// Parses `office:boolean-value` (`true`/`false`, also `1`/`0`).
pub(crate) fn parse_bool(raw: &[u8]) -> Option<bool> {
    match ream_xml::trim_xml_ws(raw) {
        r if r.eq_ignore_ascii_case(b"true") || r == b"1" => Some(true),
        r if r.eq_ignore_ascii_case(b"false") || r == b"0" => Some(false),
        _ => None,
    }
}

/// The usual shapes `YYYY-MM-DD` and `YYYY-MM-DDTHH:MM:SS` from 1900-03-01
/// on, without allocation or UTF-8 checks; `None` for anything else.
fn fast_date(raw: &[u8]) -> Option<f64> {
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let b = raw.get(r)?;
        b.iter().try_fold(0i64, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
        })
    };
    let sep = |i: usize, c: u8| raw.get(i) == Some(&c);
    if !(raw.len() == 10 || raw.len() == 19) || !sep(4, b'-') || !sep(7, b'-') {
        return None;
    }
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let month_days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if !(1900..=9999).contains(&y) || d == 0 || d > month_days || (y == 1900 && m < 3) {
        return None;
    }
    let mut secs = 0;
    if raw.len() == 19 {
        if !sep(10, b'T') || !sep(13, b':') || !sep(16, b':') {
            return None;
        }
        let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if h > 23 || mi > 59 || se > 60 {
            return None;
        }
        secs = h * 3600 + mi * 60 + se;
    }
    // The same operations, in the same order, as the general parser.
    let (m, d) = (u32::try_from(m).ok()?, u32::try_from(d).ok()?);
    let days = crate::dates::days_from_civil(y, m, d) as f64 + secs as f64 / 86_400.0;
    Some(days + 25_569.0)
}

/// Parses an `office:date-value` into (serial, kind). A value on the null
/// date 1899-12-30 with a time is a time of day (serial below 1). `None`
/// for text that is not an ISO date, or a date before 1899-12-31 (which
/// the 1900 system cannot hold).
pub(crate) fn parse_date(raw: &[u8]) -> Option<(f64, DateKind)> {
    if let Some(serial) = fast_date(raw) {
        return Some((serial, DateKind::DateTime));
    }
    let raw = ream_xml::trim_xml_ws(raw);
    if raw == b"1899-12-30" {
        return Some((0.0, DateKind::Time));
    }
    if let Some(time) = raw.strip_prefix(b"1899-12-30T") {
        let serial = crate::dates::iso_to_serial(time, false)?;
        return Some((serial, DateKind::Time));
    }
    let serial = crate::dates::iso_to_serial(raw, false)?;
    (serial >= 0.0).then_some((serial, DateKind::DateTime))
}

/// Parses an ISO 8601 duration (`office:time-value`), e.g. `PT10H10M10S`,
/// `PT10H10M10.123456S`, `-PT1H`, `P1DT2H`, into seconds. Years and months
/// (of no fixed length) are refused.
pub(crate) fn parse_duration(raw: &[u8]) -> Option<f64> {
    let s = std::str::from_utf8(ream_xml::trim_xml_ws(raw)).ok()?;
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let s = s.strip_prefix('P')?;
    let (date, time) = match s.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let mut secs = 0.0;
    let mut any = false;
    for (part, units) in [(date, &[('W', 604_800.0), ('D', 86_400.0)][..])]
        .into_iter()
        .chain(time.map(|t| (t, &[('H', 3600.0), ('M', 60.0), ('S', 1.0)][..])))
    {
        let mut rest = part;
        let mut next_unit = 0usize;
        while !rest.is_empty() {
            let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))?;
            let (num, tail) = rest.split_at(end);
            let mut chars = tail.chars();
            let unit = chars.next()?;
            let (k, &(_, scale)) = units.iter().enumerate().find(|(_, (u, _))| *u == unit)?;
            if k < next_unit || num.is_empty() {
                return None;
            }
            next_unit = k + 1;
            let v: f64 = num.replace(',', ".").parse().ok()?;
            secs += v * scale;
            any = true;
            rest = chars.as_str();
        }
    }
    if !any || !secs.is_finite() {
        return None;
    }
    Some(if neg { -secs } else { secs })
}

/// The kind a duration of `serial` days is shown as: a time of day when it
/// fits in one day, otherwise an elapsed duration.
pub(crate) fn duration_kind(serial: f64) -> DateKind {
    if (0.0..1.0).contains(&serial) {
        DateKind::Time
    } else {
        DateKind::Duration
    }
}

/// Strips the namespace prefix and `=` of a `table:formula` value:
/// `of:=SUM([.A1:.A3])` -> `SUM([.A1:.A3])` (also `oooc:=`, `msoxl:=`, `=`).
pub(crate) fn strip_formula_prefix(raw: &[u8]) -> &[u8] {
    let ns = raw.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    match raw.get(ns..) {
        Some([b':', b'=', rest @ ..]) if ns > 0 => rest,
        _ => raw.strip_prefix(b"=").unwrap_or(raw),
    }
}

/// Splits an ODF cell address `$Sheet1.$A$1` into (sheet, cell); the sheet
/// part may be quoted (`'a.b'.A1`) or absent (`.A1`).
fn split_address(s: &str) -> Option<(&str, &str)> {
    let mut in_quote = false;
    let mut dot = None;
    for (i, c) in s.char_indices() {
        match c {
            '\'' => in_quote = !in_quote,
            '.' if !in_quote => dot = Some(i),
            _ => {}
        }
    }
    let dot = dot?;
    Some((s.get(..dot)?, s.get(dot + 1..)?))
}

/// Converts an ODF range address (`$Sheet1.$A$1:.$B$2`, `$'a b'.$C$3`)
/// into Excel's notation (`Sheet1!$A$1:$B$2`, `'a b'!$C$3`); anything it
/// does not understand is returned unchanged.
pub(crate) fn range_address_to_a1(s: &str) -> String {
    let convert = || -> Option<String> {
        let (a, b) = match s.split_once(':') {
            Some((a, b)) => (a, Some(b)),
            None => (s, None),
        };
        let (sheet, c0) = split_address(a)?;
        let sheet = sheet.strip_prefix('$').unwrap_or(sheet);
        let cell_ok = |c: &str| {
            let plain: String = c.chars().filter(|&ch| ch != '$').collect();
            crate::refs::parse_a1(plain.as_bytes()).is_some()
        };
        if !cell_ok(c0) {
            return None;
        }
        let mut out = String::new();
        if !sheet.is_empty() {
            out.push_str(sheet);
            out.push('!');
        }
        out.push_str(c0);
        if let Some(b) = b {
            let (sheet2, c1) = split_address(b)?;
            let sheet2 = sheet2.strip_prefix('$').unwrap_or(sheet2);
            if !(sheet2.is_empty() || sheet2 == sheet) || !cell_ok(c1) {
                return None;
            }
            out.push(':');
            out.push_str(c1);
        }
        Some(out)
    };
    convert().unwrap_or_else(|| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(parse_count(b"16384"), Some(16_384));
        assert_eq!(parse_count(b"99999999999999999999999"), Some(u64::MAX));
        assert_eq!(parse_count(b""), None);
        assert_eq!(parse_count(b"-1"), None);
        assert_eq!(parse_count(b"1e3"), None);
    }

    #[test]
    fn durations() {
        for (text, want) in [
            ("PT10H10M10S", Some(36_610.0)),
            ("PT288H00M00S", Some(288.0 * 3600.0)),
            ("PT10H10M10.5S", Some(36_610.5)),
            ("-PT1H", Some(-3600.0)),
            ("P1DT2H", Some(93_600.0)),
            ("PT0,5S", Some(0.5)),
            ("P1Y", None),
            ("PT", None),
            ("PT1S1H", None),
            ("10:00", None),
        ] {
            assert_eq!(parse_duration(text.as_bytes()), want, "{text}");
        }
        assert_eq!(duration_kind(0.5), DateKind::Time);
        assert_eq!(duration_kind(12.0), DateKind::Duration);
    }

    proptest::proptest! {
        /// Near-date shapes, some with one byte changed: whatever the
        /// fast path accepts it reads as the general parser does, and it
        /// accepts every well-formed date from 1900-03-01 on.
        #[test]
        fn fast_dates_agree_with_the_general_parser(
            y in 1850i64..10_000,
            m in 0i64..14,
            d in 0i64..33,
            time in proptest::option::of((0i64..26, 0i64..62, 0i64..62)),
            junk in proptest::option::of((0usize..19, proptest::num::u8::ANY)),
        ) {
            let mut text = format!("{y:04}-{m:02}-{d:02}");
            if let Some((h, mi, se)) = time {
                text.push_str(&format!("T{h:02}:{mi:02}:{se:02}"));
            }
            let mut b = text.into_bytes();
            if let Some((at, c)) = junk
                && let Some(slot) = b.get_mut(at)
            {
                *slot = c;
            }
            let general = crate::dates::iso_to_serial(&b, false);
            match fast_date(&b) {
                Some(fast) => proptest::prop_assert_eq!(Some(fast), general),
                None => {
                    let well_formed = junk.is_none()
                        && (1..=12).contains(&m)
                        && y >= 1900
                        && (y, m) >= (1900, 3)
                        && time.is_none_or(|(h, mi, se)| h < 24 && mi < 60 && se <= 60);
                    proptest::prop_assert!(!well_formed || general.is_none(), "{:?}", b);
                }
            }
        }
    }

    #[test]
    fn dates() {
        assert_eq!(
            parse_date(b"2021-01-01"),
            Some((44_197.0, DateKind::DateTime))
        );
        let (s, k) = parse_date(b"1899-12-30T06:00:00").unwrap();
        assert_eq!((s, k), (0.25, DateKind::Time));
        assert_eq!(parse_date(b"1900-03-01"), Some((61.0, DateKind::DateTime)));
        assert_eq!(parse_date(b"1899-12-31"), Some((0.0, DateKind::DateTime)));
        assert_eq!(parse_date(b"1800-01-01"), None);
        assert_eq!(parse_date(b"soon"), None);
    }

    #[test]
    fn formulas_and_addresses() {
        assert_eq!(strip_formula_prefix(b"of:=SUM([.A1])"), b"SUM([.A1])");
        assert_eq!(strip_formula_prefix(b"oooc:=1+1"), b"1+1");
        assert_eq!(strip_formula_prefix(b"=A1"), b"A1");
        assert_eq!(strip_formula_prefix(b"A1:=B"), b"A1:=B");
        assert_eq!(
            range_address_to_a1("$Sheet1.$A$1:.$B$2"),
            "Sheet1!$A$1:$B$2"
        );
        assert_eq!(range_address_to_a1("$'a.b'.$C$3"), "'a.b'!$C$3");
        assert_eq!(range_address_to_a1(".A1"), "A1");
        assert_eq!(range_address_to_a1("$S.A1:$T.B2"), "$S.A1:$T.B2");
        assert_eq!(range_address_to_a1("junk"), "junk");
        assert!(parse_bool(b"true").unwrap() && !parse_bool(b"0").unwrap());
        assert_eq!(parse_bool(b"maybe"), None);
    }
}
