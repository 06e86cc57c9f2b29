//! Every bad-input case: the problem, line and offset, the same on every
//! path, thread count and chunk size.

use super::{opts, tenths};
use ream_agg::{
    AggError, AggOptions, ErrorKind, MAX_STREAM_LINE, Problem, aggregate_bytes, aggregate_reader,
};
use std::io::Read;

/// The error of `data` under `base`, checked to be the same for every
/// thread count, chunk size and the reader path.
fn error(data: &[u8], base: &AggOptions) -> AggError {
    let first = aggregate_bytes(data, base).unwrap_err();
    let small = if data.len() < 10_000 { 1 } else { 997 };
    for (threads, chunk) in [
        (1, 1 << 20),
        (1, small),
        (2, 5 * small),
        (8, small),
        (8, 64),
    ] {
        let o = base.clone().threads(threads).tune_chunk_bytes(chunk);
        for (how, e) in [
            ("bytes", aggregate_bytes(data, &o).unwrap_err()),
            ("reader", aggregate_reader(data, &o).unwrap_err()),
        ] {
            let got = (e.problem(), e.line(), e.offset(), e.to_string());
            let want = (
                first.problem(),
                first.line(),
                first.offset(),
                first.to_string(),
            );
            assert_eq!(got, want, "{how}, {threads} threads, chunk {chunk}");
        }
    }
    first
}

fn check(data: &[u8], o: &AggOptions, problem: Problem, line: u64, offset: u64) -> AggError {
    let e = error(data, o);
    assert_eq!(e.problem(), &problem, "{e}");
    assert_eq!((e.line(), e.offset()), (line, offset), "{e}");
    assert!(
        e.to_string()
            .starts_with(&format!("line {line}, byte {offset}: ")),
        "{e}"
    );
    e
}

fn d() -> AggOptions {
    AggOptions::default()
}

#[test]
fn line_without_delimiter() {
    let e = check(
        b"a;1.0\nbcd\nc;2.0\n",
        &d(),
        Problem::MissingDelimiter,
        2,
        6,
    );
    assert!(e.to_string().contains("no ';' delimiter"), "{e}");
    assert_eq!(e.kind(), ErrorKind::Malformed);
    // A line of blanks, and a last line without a newline.
    check(b"a;1.0\n \nc;2.0\n", &d(), Problem::MissingDelimiter, 2, 6);
    check(b"a;1.0\nbcd", &d(), Problem::MissingDelimiter, 2, 6);
    // A long line without delimiter whose next line has one.
    let long = format!("a;1.0\n{}\nb;1.0\n", "x".repeat(40));
    check(long.as_bytes(), &d(), Problem::MissingDelimiter, 2, 6);
}

#[test]
fn missing_field() {
    let o = d().value_col(2);
    check(
        b"a;x;1.0\nb;1.0\n",
        &o,
        Problem::MissingField { col: 2, found: 2 },
        2,
        8,
    );
}

#[test]
fn empty_key() {
    check(b"a;1.0\n;2.0\n", &d(), Problem::EmptyKey, 2, 6);
}

#[test]
fn key_over_the_limit() {
    let ok = format!("{};1.0\n", "k".repeat(100));
    assert_eq!(aggregate_bytes(ok.as_bytes(), &d()).unwrap().keys(), 1);
    let bad = format!("a;1.0\n{};1.0\n", "k".repeat(101));
    let e = check(bad.as_bytes(), &d(), Problem::KeyTooLong { max: 100 }, 2, 6);
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    assert!(e.to_string().contains("101 bytes"), "{e}");
    let o = d().max_key_bytes(3);
    assert!(aggregate_bytes(b"abc;1.0\n", &o).is_ok());
    check(
        b"abc;1.0\nabcd;1.0\n",
        &o,
        Problem::KeyTooLong { max: 3 },
        2,
        8,
    );
}

#[test]
fn bad_and_out_of_range_values() {
    let e = check(b"a;1.0\nb;x1\n", &d(), Problem::BadValue, 2, 8);
    assert!(
        e.to_string().contains("\"x1\" is not a decimal number"),
        "{e}"
    );
    for bad in [
        "", "-", "1.2.3", "nan", "inf", "1,5", " 1.0", "0x1", "1.0;2",
    ] {
        let data = format!("a;1.0\nb;{bad}\n");
        // "1.0;2" in the two-column shape: the value is "1.0", later fields ignored.
        if bad == "1.0;2" {
            assert!(aggregate_bytes(data.as_bytes(), &d()).is_ok());
            continue;
        }
        check(data.as_bytes(), &d(), Problem::BadValue, 2, 8);
    }
    let e = check(b"a;1e999\n", &d(), Problem::ValueOutOfRange, 1, 2);
    assert!(e.to_string().contains("18 significant digits"), "{e}");
    check(b"a;-1e309\n", &d(), Problem::ValueOutOfRange, 1, 2);
    // Too many digits or decimals for exact fixed point: never rounded.
    for big in [
        "1234567890.123456789",
        "0.0000000000000000001",
        "1e18",
        "1000000000000000000",
    ] {
        let data = format!("a;1.0\nb;{big}\n");
        check(data.as_bytes(), &d(), Problem::ValueOutOfRange, 2, 8);
    }
    let e = check(b"a;1.0\nb;\n", &d(), Problem::BadValue, 2, 8);
    assert!(e.to_string().contains("empty value"), "{e}");
    // Valid decimals outside the 1BRC form are accepted unless strict.
    assert!(aggregate_bytes(b"a;100.0\na;-99.95\na;7\n", &d()).is_ok());
    let strict = d().strict_values(true);
    for (bad, line) in [
        ("100.0", 2),
        ("-99.95", 2),
        ("7", 2),
        ("+1.0", 2),
        (".5", 2),
    ] {
        let data = format!("a;99.9\nb;{bad}\n");
        let e = check(data.as_bytes(), &strict, Problem::BadValue, line, 9);
        assert!(e.to_string().contains("strict"), "{e}");
    }
    assert!(aggregate_bytes(b"a;-99.9\nb;99.9\nc;-0.0\n", &strict).is_ok());
}

#[test]
fn invalid_utf8_keys() {
    let data = b"a;1.0\nb\xff\xfe;2.0\n";
    let e = check(data, &d(), Problem::InvalidUtf8, 2, 7);
    assert!(e.to_string().contains("UTF-8"), "{e}");
    let o = d().allow_invalid_utf8(true);
    let agg = aggregate_bytes(data, &o).unwrap();
    assert_eq!(agg.get(b"b\xff\xfe").unwrap().count(), 1);
    let mut out = Vec::new();
    agg.write_1brc(&mut out).unwrap();
    assert_eq!(out, b"{a=1.0/1.0/1.0, b\xff\xfe=2.0/2.0/2.0}\n");
    assert_eq!(agg.get(b"b\xff\xfe").unwrap().name(), "b\u{fffd}\u{fffd}");
}

#[test]
fn key_memory_over_the_budget() {
    // One-byte keys cost 193 bytes: five fit 1 KiB, the sixth (`f`) not.
    let o = d().max_key_memory(1024);
    let data = b"a;1.0\nb;1.0\na;1.0\nc;1.0\nb;1.0\nd;1.0\ne;1.0\nf;1.0\ng;1.0\n";
    let e = check(data, &o, Problem::KeyMemory { max: 1024 }, 8, 42);
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    assert!(e.to_string().contains("budget of 1 KiB"), "{e}");
    assert!(e.to_string().contains("max_key_memory"), "{e}");
    assert!(aggregate_bytes(&data[..42], &o).is_ok());
    // Many keys, spread so that no single worker goes over the budget.
    let mut big = Vec::new();
    for i in 0..5000u32 {
        big.extend_from_slice(
            format!("k{};{}\n", i % 1200, tenths((i % 1999) as i32 - 999)).as_bytes(),
        );
    }
    let max = 200_000;
    let o = d().max_key_memory(max);
    // The first row whose new key brings the cost over: keys k0.. in order.
    let (mut cost, mut line) = (0, 0);
    for i in 0..1200u32 {
        cost += format!("k{i}").len() + ream_agg::KEY_OVERHEAD_BYTES;
        if cost > max {
            line = u64::from(i) + 1;
            break;
        }
    }
    let e = error(&big, &o);
    assert_eq!(e.problem(), &Problem::KeyMemory { max });
    assert_eq!(e.line(), line);
}

#[test]
fn fifty_thousand_keys_by_default() {
    let mut data = Vec::new();
    for i in 0..100_000u32 {
        data.extend_from_slice(
            format!("key{};{}\n", i % 50_000, tenths(i as i32 % 999)).as_bytes(),
        );
    }
    let agg = aggregate_bytes(&data, &d()).unwrap();
    assert_eq!((agg.keys(), agg.rows()), (50_000, 100_000));
    let agg = aggregate_reader(&data[..], &d()).unwrap();
    assert_eq!(agg.keys(), 50_000);
}

#[test]
fn the_first_error_wins_in_parallel() {
    // Errors at lines 3001 and 6001 and 9001 (a bad value, a missing
    // delimiter, an empty key): every run reports line 3001.
    let mut data = Vec::new();
    for i in 1..=10_000u32 {
        let line = match i {
            3001 => "bad;value".to_string(),
            6001 => "nodelimiter".to_string(),
            9001 => ";1.0".to_string(),
            _ => format!("s{};{}", i % 50, tenths((i % 1999) as i32 - 999)),
        };
        data.extend_from_slice(line.as_bytes());
        data.push(b'\n');
    }
    let e = error(&data, &opts(0, 1 << 20));
    assert_eq!((e.problem(), e.line()), (&Problem::BadValue, 3001));
    // With only the later errors left, the next one wins.
    let fixed = String::from_utf8(data)
        .unwrap()
        .replace("bad;value", "bad;1.0");
    let e = error(fixed.as_bytes(), &opts(0, 1 << 20));
    assert_eq!((e.problem(), e.line()), (&Problem::MissingDelimiter, 6001));
}

#[test]
fn usage_errors() {
    for (o, what) in [
        (d().key_col(1), "both 1"),
        (d().tune_chunk_bytes(0), "chunk_bytes"),
        (d().delimiter(b'\n'), "line break"),
        (d().max_key_memory(0), "max_key_memory"),
        (d().delimiter(b'"'), "quote"),
        (d().max_key_bytes(0), "max_key_bytes"),
        (d().threads(5000), "threads"),
    ] {
        let e = aggregate_bytes(b"a;1.0\n", &o).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage);
        assert!(e.to_string().contains(what), "{e}");
    }
    let e = ream_agg::aggregate_path("/nonexistent/ream-agg".as_ref(), &d()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(e.to_string().contains("/nonexistent/ream-agg"), "{e}");
}

#[test]
fn streamed_line_over_the_limit() {
    let input = std::io::repeat(b'x').take(MAX_STREAM_LINE as u64 + 10);
    let e = aggregate_reader(input, &d()).unwrap_err();
    assert_eq!(
        e.problem(),
        &Problem::LineTooLong {
            max: MAX_STREAM_LINE
        }
    );
    assert_eq!((e.line(), e.offset()), (1, 0));
}

/// A reader that fails after some bytes.
struct Failing(usize);

impl Read for Failing {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.0 == 0 {
            return Err(std::io::Error::other("disk on fire"));
        }
        let n = self.0.min(buf.len()).min(6);
        buf[..n].copy_from_slice(&b"a;1.0\n"[..n]);
        self.0 -= n;
        Ok(n)
    }
}

#[test]
fn read_errors() {
    let e = aggregate_reader(Failing(12), &d()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(e.to_string().contains("disk on fire"), "{e}");
}

#[test]
fn defaults_are_documented_values() {
    // LIMITS.md, "Aggregation": keep the table and the code in step.
    let d = AggOptions::default();
    assert_eq!(d.threads, 0);
    assert_eq!(d.delimiter, b';');
    assert_eq!((d.key_col, d.value_col), (0, 1));
    assert!(!d.header && !d.allow_invalid_utf8 && !d.strict_values);
    assert_eq!(d.max_key_bytes, 100);
    assert_eq!(d.max_key_memory, 512 << 20);
    assert!(!d.skip_bad_rows);
    assert_eq!(ream_agg::KEY_OVERHEAD_BYTES, 192);
    assert_eq!(ream_agg::REPORTED_BAD_ROWS, 5);
    assert_eq!(ream_agg::MAX_MAX_KEY_BYTES, 16 << 20);
    assert_eq!(ream_agg::MIN_MAX_KEY_MEMORY, 1 << 10);
    assert_eq!(ream_agg::MAX_MAX_KEY_MEMORY, 1 << 40);
    assert_eq!(ream_agg::MAX_THREADS, 1024);
    assert_eq!(MAX_STREAM_LINE, 64 << 20);
}
