//! Excel serial dates (1900 and 1904 systems) and number-format detection.

use crate::model::{DateKind, ExcelDateTime};

/// Days from 0000-03-01 to 1970-01-01 in the proleptic Gregorian calendar
/// algorithm below (Howard Hinnant's civil-from-days).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Converts a serial to seconds since 1970-01-01 (UTC, no leap seconds).
///
/// 1900 system: serial 1 is 1900-01-01; Excel's fictitious 1900-02-29
/// (serial 60) is kept as a day of its own only in the sense that serials
/// below 61 are shifted by one day so that 1900-03-01 (61) is right.
/// Serial 60 (the phantom 1900-02-29) therefore maps to 1900-03-01.
pub(crate) fn serial_to_unix(serial: f64, date_1904: bool) -> Option<f64> {
    if !serial.is_finite() || !(0.0..2_958_466.0).contains(&serial) {
        return None;
    }
    // Unix epoch (1970-01-01) expressed as a serial.
    let epoch = if date_1904 {
        24_107.0
    } else if serial < 61.0 {
        // Before the phantom leap day: serial 1 = 1900-01-01.
        25_568.0
    } else {
        25_569.0
    };
    Some((serial - epoch) * 86_400.0)
}

/// Microseconds per day.
const US_PER_DAY: i64 = 86_400_000_000;

/// Largest duration given as `[h]:mm:ss`, in days (about 2.7 million
/// years).
const MAX_DURATION_DAYS: f64 = 1e9;

/// Relative precision assumed of a serial as files write it: 15
/// significant digits (Excel's, LibreOffice's), or the float arithmetic of
/// writers that compute serials from dates (openpyxl), are within a few
/// units of 1e-15 of the value meant.
const SERIAL_PRECISION: f64 = 2e-15;

/// Microseconds of `secs`, a value computed from `serial`, rounded to the
/// fewest fractional digits (0 to 6) that stay within the precision the
/// serial holds ([`SERIAL_PRECISION`]): `10:10:10.5` or `04:04:00` rather
/// than the float noise around them, `10:10:10.123456` where the serial
/// resolves microseconds (a time of day always does; a date-time of this
/// era to about 10 microseconds).
fn micros(secs: f64, serial: f64) -> i64 {
    let tol = (serial.abs() * SERIAL_PRECISION * 86_400.0).max(1e-9);
    let us = (secs * 1e6).round() as i64;
    let mut step = 1_000_000i64;
    while step > 1 {
        let half = step / 2;
        let rounded = (us + if us < 0 { -half } else { half }) / step * step;
        if (rounded as f64 / 1e6 - secs).abs() <= tol {
            return rounded;
        }
        step /= 10;
    }
    us
}

/// Splits seconds since the epoch into (days, seconds of day,
/// microseconds), rounding as [`micros`] does.
fn split(secs: f64, serial: f64) -> (i64, u32, u32) {
    let us = micros(secs, serial);
    let days = us.div_euclid(US_PER_DAY);
    let rem = us.rem_euclid(US_PER_DAY);
    (days, (rem / 1_000_000) as u32, (rem % 1_000_000) as u32)
}

/// Writes `.ffffff` with trailing zeros trimmed; nothing when `us` is 0.
fn push_fraction(out: &mut String, us: u32) {
    use std::fmt::Write;
    if us != 0 {
        let digits = format!("{us:06}");
        let _ = write!(out, ".{}", digits.trim_end_matches('0'));
    }
}

fn push_time(out: &mut String, sod: u32, us: u32) {
    use std::fmt::Write;
    let _ = write!(
        out,
        "{:02}:{:02}:{:02}",
        sod / 3600,
        sod / 60 % 60,
        sod % 60
    );
    push_fraction(out, us);
}

/// A duration as `[-]h:mm:ss[.ffffff]`: whole hours (no padding, no upper
/// bound), minutes and seconds, then the fraction rounded to microseconds
/// with trailing zeros trimmed; a leading `-` when negative. `None` for a
/// non-finite serial or one beyond [`MAX_DURATION_DAYS`].
pub(crate) fn duration_text(serial: f64) -> Option<String> {
    use std::fmt::Write;
    if !serial.is_finite() || serial.abs() > MAX_DURATION_DAYS {
        return None;
    }
    let mut out = String::new();
    let us = micros(serial.abs() * 86_400.0, serial);
    if serial < 0.0 && us != 0 {
        out.push('-');
    }
    let secs = us / 1_000_000;
    let _ = write!(
        out,
        "{}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    push_fraction(&mut out, (us % 1_000_000) as u32);
    Some(out)
}

pub(crate) fn to_iso(d: &ExcelDateTime) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    match d.kind {
        DateKind::Duration => match duration_text(d.serial) {
            Some(text) => return text,
            None => {
                let _ = write!(out, "{}", d.serial * 86_400.0);
            }
        },
        DateKind::Time => {
            let fract = d.serial.fract().abs();
            let (_, sod, us) = split(fract * 86_400.0, fract);
            push_time(&mut out, sod, us);
        }
        DateKind::DateTime => match serial_to_unix(d.serial, d.date_1904) {
            None => {
                let _ = write!(out, "{}", d.serial);
            }
            Some(secs) => {
                let (days, sod, us) = split(secs, d.serial);
                let (y, m, dd) = civil_from_days(days);
                let _ = write!(out, "{y:04}-{m:02}-{dd:02}");
                if sod != 0 || us != 0 {
                    out.push('T');
                    push_time(&mut out, sod, us);
                }
            }
        },
    }
    out
}

/// Built-in number format ids that Excel shows as dates or times.
pub(crate) fn builtin_date_kind(id: u32) -> Option<DateKind> {
    match id {
        14..=17 | 22 | 27..=36 | 50..=58 | 71..=76 | 78..=81 => Some(DateKind::DateTime),
        18..=21 | 45 | 47 => Some(DateKind::Time),
        46 => Some(DateKind::Duration),
        _ => None,
    }
}

/// Classifies a custom number format code: date/time tokens outside quotes,
/// brackets and escapes make it a date; `[h]`, `[m]`, `[s]` make it a
/// duration; only h/m/s tokens make it a time of day.
pub(crate) fn format_date_kind(code: &str) -> Option<DateKind> {
    // Only the first section (before ';') decides, like Excel's display of
    // positive numbers.
    let b = code.as_bytes();
    let mut i = 0;
    let mut has_date = false;
    let mut has_time = false;
    let mut has_elapsed = false;
    while let Some(&c) = b.get(i) {
        match c {
            b';' => break,
            b'"' => {
                i += 1;
                while let Some(&q) = b.get(i) {
                    if q == b'"' {
                        break;
                    }
                    i += 1;
                }
            }
            b'\\' | b'_' | b'*' => i += 1,
            b'[' => {
                let start = i + 1;
                while let Some(&q) = b.get(i) {
                    if q == b']' {
                        break;
                    }
                    i += 1;
                }
                let inner = b.get(start..i).unwrap_or_default();
                if !inner.is_empty()
                    && inner
                        .iter()
                        .all(|x| matches!(x.to_ascii_lowercase(), b'h' | b'm' | b's'))
                {
                    has_elapsed = true;
                }
            }
            _ if b
                .get(i..i + 7)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"general")) =>
            {
                i += 6
            }
            b'E' | b'e' if matches!(b.get(i + 1), Some(b'+' | b'-')) => return None,
            _ => match c.to_ascii_lowercase() {
                b'y' | b'd' | b'e' | b'g' => has_date = true,
                b'h' | b's' => has_time = true,
                b'm' => has_time = true,
                b'a' => {
                    // AM/PM or A/P
                    let rest = b.get(i..).unwrap_or_default();
                    if rest.get(..5).is_some_and(|w| w.eq_ignore_ascii_case(b"am/pm")) {
                        has_time = true;
                        i += 4;
                    } else if rest.get(..3).is_some_and(|w| w.eq_ignore_ascii_case(b"a/p")) {
                        has_time = true;
                        i += 2;
                    }
                }
                b'0' | b'#' | b'?'
                    // digit placeholders: a number format unless date parts
                    // appear too (e.g. "ss.000" handled by has_time)
                    if !has_date && !has_time && !has_elapsed => {
                        return None;
                    }
                _ => {}
            },
        }
        i += 1;
    }
    if has_elapsed {
        Some(DateKind::Duration)
    } else if has_date {
        Some(DateKind::DateTime)
    } else if has_time {
        Some(DateKind::Time)
    } else {
        None
    }
}

/// Days from 1970-01-01 to the civil date (inverse of `civil_from_days`).
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from(if m > 2 { m - 3 } else { m + 9 });
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The kind a date-formatted value is shown as: durations stay durations;
/// otherwise a serial in [0, 1) has no date part and is a time of day, and
/// anything else is a date (with time), whatever the format shows.
pub(crate) fn kind_for(format_kind: DateKind, serial: f64) -> DateKind {
    match format_kind {
        DateKind::Duration => DateKind::Duration,
        _ if (0.0..1.0).contains(&serial) => DateKind::Time,
        _ => DateKind::DateTime,
    }
}

/// Parses `HH:MM[:SS[.fff]]` into seconds.
fn parse_hms(t: &str) -> Option<f64> {
    let t = t.trim_end_matches('Z');
    let mut parts = t.split(':');
    let h: f64 = parts.next()?.parse().ok()?;
    let mi: f64 = parts.next().unwrap_or("0").parse().ok()?;
    let se: f64 = parts.next().unwrap_or("0").parse().ok()?;
    if parts.next().is_some()
        || !(0.0..24.0).contains(&h)
        || !(0.0..60.0).contains(&mi)
        || !(0.0..61.0).contains(&se)
    {
        return None;
    }
    Some(h * 3600.0 + mi * 60.0 + se)
}

/// Parses an ISO 8601 `t="d"` cell value (`YYYY-MM-DD[THH:MM[:SS[.fff]]]`)
/// into a serial of the workbook's date system.
pub(crate) fn iso_to_serial(raw: &[u8], date_1904: bool) -> Option<f64> {
    let s = std::str::from_utf8(raw).ok()?.trim();
    // A time of day alone (`10:10:10`) is a serial below 1.
    if !s.contains('-') && s.contains(':') {
        return Some(parse_hms(s.trim_start_matches('T'))? / 86_400.0);
    }
    let (date, time) = match s.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let mut it = date.split('-');
    let y: i64 = it.next()?.parse().ok()?;
    let m: u32 = it.next()?.parse().ok()?;
    let d: u32 = it.next()?.parse().ok()?;
    if it.next().is_some() {
        return None;
    }
    let month_days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => return None,
    };
    if !(0..=9999).contains(&y) || d == 0 || d > month_days {
        return None;
    }
    let secs = match time {
        Some(t) => parse_hms(t)?,
        None => 0.0,
    };
    let days = days_from_civil(y, m, d) as f64 + secs / 86_400.0;
    let serial = if date_1904 {
        days + 24_107.0
    } else {
        let s = days + 25_569.0;
        if s < 61.0 { s - 1.0 } else { s }
    };
    Some(serial)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso(serial: f64, kind: DateKind, date_1904: bool) -> String {
        to_iso(&ExcelDateTime {
            serial,
            kind,
            date_1904,
        })
    }

    #[test]
    fn serials_1900() {
        assert_eq!(iso(1.0, DateKind::DateTime, false), "1900-01-01");
        assert_eq!(iso(59.0, DateKind::DateTime, false), "1900-02-28");
        // Excel's phantom 1900-02-29 has no real date; 61 is 1900-03-01.
        assert_eq!(iso(61.0, DateKind::DateTime, false), "1900-03-01");
        assert_eq!(iso(25_569.0, DateKind::DateTime, false), "1970-01-01");
        assert_eq!(
            iso(45_292.5, DateKind::DateTime, false),
            "2024-01-01T12:00:00"
        );
        assert_eq!(iso(0.25, DateKind::Time, false), "06:00:00");
    }

    #[test]
    fn sub_second_digits() {
        let t = (10.0 * 3600.0 + 10.0 * 60.0 + 10.123_456) / 86_400.0;
        assert_eq!(iso(t, DateKind::Time, false), "10:10:10.123456");
        let t = (10.0 * 3600.0 + 10.0 * 60.0 + 10.5) / 86_400.0;
        assert_eq!(iso(t, DateKind::Time, false), "10:10:10.5");
        let t = 36_610.123 / 86_400.0;
        assert_eq!(iso(t, DateKind::Time, false), "10:10:10.123");
        assert_eq!(
            iso(45_292.0 + t, DateKind::DateTime, false),
            "2024-01-01T10:10:10.123"
        );
        // A time of day resolves microseconds...
        let t = 36_610.000_001 / 86_400.0;
        assert_eq!(iso(t, DateKind::Time, false), "10:10:10.000001");
        // ...a date-time serial about 10 microseconds: LibreOffice's 15
        // digits (02:01:59.999998 in microseconds) and openpyxl's
        // arithmetic (04:03:59.9999993) read as the minute they mean.
        assert_eq!(
            iso(43_853.084_722_222_2, DateKind::DateTime, false),
            "2020-01-23T02:02:00"
        );
        assert_eq!(
            iso(43_875.169_444_444_44, DateKind::DateTime, false),
            "2020-02-14T04:04:00"
        );
        assert_eq!(
            iso(42_556.391_541_647_82, DateKind::DateTime, false),
            "2016-07-05T09:23:49.19837"
        );
    }

    #[test]
    fn durations() {
        // 255:10:10 as a file writes it (15 digits): the seconds carry
        // float noise (918610.0000000013), the text not.
        let serial = 10.632_060_185_185_2;
        assert_ne!(serial * 86_400.0, 918_610.0);
        let text = |s: f64| duration_text(s).unwrap_or_default();
        assert_eq!(text(serial), "255:10:10");
        assert_eq!(iso(serial, DateKind::Duration, false), "255:10:10");
        assert_eq!(text(-serial), "-255:10:10");
        assert_eq!(text(1.5), "36:00:00");
        assert_eq!(text(0.0), "0:00:00");
        assert_eq!(text(-1e-12), "0:00:00");
        assert_eq!(text(1.25 / 86_400.0), "0:00:01.25");
        assert_eq!(duration_text(1e300), None);
        assert_eq!(duration_text(f64::NAN), None);
    }

    #[test]
    fn serials_1904() {
        assert_eq!(iso(0.0, DateKind::DateTime, true), "1904-01-01");
        assert_eq!(iso(24_107.0, DateKind::DateTime, true), "1970-01-01");
    }

    #[test]
    fn detects_formats() {
        assert_eq!(format_date_kind("yyyy-mm-dd"), Some(DateKind::DateTime));
        assert_eq!(format_date_kind("d/m/yy h:mm"), Some(DateKind::DateTime));
        assert_eq!(format_date_kind("h:mm AM/PM"), Some(DateKind::Time));
        assert_eq!(format_date_kind("[h]:mm:ss"), Some(DateKind::Duration));
        assert_eq!(format_date_kind("0.00"), None);
        assert_eq!(format_date_kind("#,##0"), None);
        assert_eq!(format_date_kind("\"Day\" 0"), None);
        assert_eq!(format_date_kind("[Red]0.00"), None);
        assert_eq!(
            format_date_kind("[$-409]mmmm d, yyyy"),
            Some(DateKind::DateTime)
        );
        assert_eq!(format_date_kind("General"), None);
        assert_eq!(builtin_date_kind(14), Some(DateKind::DateTime));
        assert_eq!(builtin_date_kind(2), None);
        assert_eq!(kind_for(DateKind::Time, 42_213.29), DateKind::DateTime);
        assert_eq!(kind_for(DateKind::DateTime, 0.0), DateKind::Time);
        assert_eq!(kind_for(DateKind::Duration, 3.5), DateKind::Duration);
        assert_eq!(iso_to_serial(b"10:10:10", false), Some(36_610.0 / 86_400.0));
        assert_eq!(iso_to_serial(b"2024-02-30", false), None);
        assert_eq!(iso_to_serial(b"2024-01-01T25:00:00", false), None);
        assert_eq!(iso_to_serial(b"1900-01-01", false), Some(1.0));
    }
}
