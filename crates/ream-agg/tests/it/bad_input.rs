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
        let o = AggOptions {
            threads,
            chunk_bytes: chunk,
            ..base.clone()
        };
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
    // An empty line, a lone CR, and a last line without a newline.
    check(b"a;1.0\n\nc;2.0\n", &d(), Problem::MissingDelimiter, 2, 6);
    check(
        b"a;1.0\r\n\r\nc;2.0\n",
        &d(),
        Problem::MissingDelimiter,
        2,
        7,
    );
    check(b"a;1.0\nbcd", &d(), Problem::MissingDelimiter, 2, 6);
    // A long line without delimiter whose next line has one.
    let long = format!("a;1.0\n{}\nb;1.0\n", "x".repeat(40));
    check(long.as_bytes(), &d(), Problem::MissingDelimiter, 2, 6);
}

#[test]
fn missing_field() {
    let o = AggOptions {
        value_col: 2,
        ..d()
    };
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
    let o = AggOptions {
        max_key_bytes: 3,
        ..d()
    };
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
    check(b"a;1e999\n", &d(), Problem::ValueOutOfRange, 1, 2);
    check(b"a;-1e309\n", &d(), Problem::ValueOutOfRange, 1, 2);
    // Valid decimals outside the 1BRC form are accepted unless strict.
    assert!(aggregate_bytes(b"a;100.0\na;-99.95\na;7\n", &d()).is_ok());
    let strict = AggOptions {
        strict_values: true,
        ..d()
    };
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
    let o = AggOptions {
        allow_invalid_utf8: true,
        ..d()
    };
    let agg = aggregate_bytes(data, &o).unwrap();
    assert_eq!(agg.get(b"b\xff\xfe").unwrap().count(), 1);
    let mut out = Vec::new();
    agg.write_1brc(&mut out).unwrap();
    assert_eq!(out, b"{a=1.0/1.0/1.0, b\xff\xfe=2.0/2.0/2.0}\n");
    assert_eq!(agg.get(b"b\xff\xfe").unwrap().name(), "b\u{fffd}\u{fffd}");
}

#[test]
fn too_many_keys() {
    let o = AggOptions { max_keys: 3, ..d() };
    let data = b"a;1.0\nb;1.0\na;1.0\nc;1.0\nb;1.0\nd;1.0\ne;1.0\n";
    let e = check(data, &o, Problem::TooManyKeys { max: 3 }, 6, 30);
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    assert!(aggregate_bytes(&data[..30], &o).is_ok());
    // Many keys, spread so that no single worker sees more than the limit.
    let mut big = Vec::new();
    for i in 0..5000u32 {
        big.extend_from_slice(
            format!("k{};{}\n", i % 1200, tenths((i % 1999) as i32 - 999)).as_bytes(),
        );
    }
    let o = AggOptions {
        max_keys: 1000,
        ..d()
    };
    let e = error(&big, &o);
    assert_eq!(e.problem(), &Problem::TooManyKeys { max: 1000 });
    assert_eq!(e.line(), 1001);
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
        (AggOptions { key_col: 1, ..d() }, "both 1"),
        (
            AggOptions {
                chunk_bytes: 0,
                ..d()
            },
            "chunk_bytes",
        ),
        (
            AggOptions {
                delimiter: b'\n',
                ..d()
            },
            "line break",
        ),
        (AggOptions { max_keys: 0, ..d() }, "max_keys"),
        (
            AggOptions {
                max_key_bytes: 0,
                ..d()
            },
            "max_key_bytes",
        ),
        (
            AggOptions {
                threads: 5000,
                ..d()
            },
            "threads",
        ),
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
    assert_eq!(d.chunk_bytes, 4 << 20);
    assert_eq!(d.delimiter, b';');
    assert_eq!((d.key_col, d.value_col), (0, 1));
    assert!(!d.header && !d.allow_invalid_utf8 && !d.strict_values);
    assert_eq!(d.max_key_bytes, 100);
    assert_eq!(d.max_keys, 10_000);
    assert_eq!(ream_agg::MAX_MAX_KEY_BYTES, 16 << 20);
    assert_eq!(ream_agg::MAX_MAX_KEYS, 1 << 26);
    assert_eq!(ream_agg::MAX_THREADS, 1024);
    assert_eq!(MAX_STREAM_LINE, 64 << 20);
}
