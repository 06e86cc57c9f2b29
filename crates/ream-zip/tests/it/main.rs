//! Integration tests for ream-zip: every archive is built in the test by
//! the small writer in `writer.rs`.

// Test helpers (outside #[test] fns) may panic on broken fixtures.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod limit_checks;
mod writer;

use proptest::prelude::*;
use ream_zip::{Archive, Bytes, Container, Entry, Error, ErrorKind, Limits, Method, sniff};
use std::io::Read;
use writer::{Ent, Opts, build, deflated_zeros, zip};

fn open(bytes: Vec<u8>) -> Result<Archive, Error> {
    Archive::new(Bytes::from_vec(bytes), Limits::default())
}

fn open_with(bytes: Vec<u8>, limits: Limits) -> Result<Archive, Error> {
    Archive::new(Bytes::from_vec(bytes), limits)
}

/// Reads `e` through the streaming reader with `chunk`-sized reads.
fn stream_all(a: &Archive, e: &Entry, chunk: usize) -> Result<Vec<u8>, Error> {
    let mut r = a.stream(e)?;
    let mut out = Vec::new();
    let mut buf = vec![0; chunk];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Ok(out),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => return Err(Error::from_io(e)),
        }
    }
}

fn text(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| format!("<row r=\"{i}\"><c>{}</c></row>\n", i * 7 % 1000))
        .collect::<String>()
        .into_bytes()
}

fn sample() -> Vec<Ent> {
    vec![
        Ent::stored("[Content_Types].xml", b"<Types/>"),
        Ent::stored("xl/", b""),
        Ent::deflated("xl/worksheets/sheet1.xml", &text(5000)),
        Ent::deflated_ld("xl/sharedStrings.xml", &text(300)),
        Ent::stored("empty.bin", b""),
        Ent::deflated("empty.deflate", b""),
        Ent::stored("xl/media/image1.png", &text(50)),
    ]
}

fn sample_data() -> Vec<(String, Vec<u8>)> {
    let t = |n| text(n);
    vec![
        ("[Content_Types].xml".into(), b"<Types/>".to_vec()),
        ("xl/".into(), vec![]),
        ("xl/worksheets/sheet1.xml".into(), t(5000)),
        ("xl/sharedStrings.xml".into(), t(300)),
        ("empty.bin".into(), vec![]),
        ("empty.deflate".into(), vec![]),
        ("xl/media/image1.png".into(), t(50)),
    ]
}

fn check_sample(a: &Archive) {
    let want = sample_data();
    assert_eq!(a.entries().len(), want.len());
    for (e, (name, data)) in a.entries().iter().zip(&want) {
        assert_eq!(&e.name, name);
        assert_eq!(e.uncompressed_size, data.len() as u64);
        assert_eq!(&a.read(e).unwrap(), data, "{name}");
        for chunk in [1, 7, 4096, 1 << 20] {
            assert_eq!(
                &stream_all(a, e, chunk).unwrap(),
                data,
                "{name} chunk {chunk}"
            );
        }
    }
}

#[test]
fn round_trip_stored_and_deflated() {
    let a = open(zip(&sample())).unwrap();
    check_sample(&a);
    let sheet = a.find("xl/worksheets/sheet1.xml").unwrap();
    assert_eq!(sheet.method, Method::Deflate);
    assert!(sheet.compressed_size < sheet.uncompressed_size);
    let png = a.find("xl/media/image1.png").unwrap();
    assert_eq!(png.method, Method::Stored);
    assert_eq!(a.raw_data(png).unwrap(), &text(50)[..]);
    assert!(a.find("xl/").unwrap().is_dir());
    assert!(!png.is_dir());
    let mut buf = b"old contents".to_vec();
    a.read_into(a.find("empty.bin").unwrap(), &mut buf).unwrap();
    assert!(buf.is_empty());
}

#[test]
fn zip64_records_and_extra_fields() {
    let bytes = build(
        &sample(),
        &Opts {
            zip64: true,
            ..Opts::default()
        },
    );
    let a = open(bytes).unwrap();
    check_sample(&a);
}

#[test]
fn zip64_with_data_descriptors() {
    let o = Opts {
        zip64: true,
        descriptor: true,
        ..Opts::default()
    };
    check_sample(&open(build(&sample(), &o)).unwrap());
}

#[test]
fn archive_comment_even_one_holding_a_fake_eocd() {
    let mut comment = b"made by a test ".to_vec();
    comment.extend_from_slice(b"PK\x05\x06 not a record");
    let a = open(build(
        &sample(),
        &Opts {
            comment,
            ..Opts::default()
        },
    ))
    .unwrap();
    check_sample(&a);
    let long = Opts {
        comment: vec![b'c'; 65535],
        ..Opts::default()
    };
    check_sample(&open(build(&sample(), &long)).unwrap());
}

#[test]
fn data_descriptor_sizes_come_from_central_directory() {
    let a = open(build(
        &sample(),
        &Opts {
            descriptor: true,
            ..Opts::default()
        },
    ))
    .unwrap();
    assert!(a.entries().iter().all(|e| e.flags & 8 != 0));
    check_sample(&a);
}

#[test]
fn empty_archive_and_empty_input() {
    let a = open(zip(&[])).unwrap();
    assert!(a.entries().is_empty());
    assert!(a.find("x").is_none());
    let e = open(Vec::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Malformed);
    assert_eq!(
        e.message(),
        "not a ZIP archive: no end-of-central-directory record"
    );
}

#[test]
fn random_garbage_is_rejected() {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for len in [1usize, 21, 22, 100, 5000, 70_000] {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        assert!(open(bytes).is_err(), "{len} random bytes");
    }
}

#[test]
fn every_truncation_is_an_error() {
    let full = zip(&sample());
    for cut in 0..full.len() {
        let r = open(full[..cut].to_vec());
        assert!(r.is_err(), "cut at {cut} of {}", full.len());
    }
    let z64 = build(
        &sample(),
        &Opts {
            zip64: true,
            ..Opts::default()
        },
    );
    for cut in 0..z64.len() {
        assert!(open(z64[..cut].to_vec()).is_err(), "zip64 cut at {cut}");
    }
}

#[test]
fn bad_crc_is_detected_by_both_readers() {
    let mut e = Ent::deflated("a.xml", &text(100));
    e.crc ^= 1;
    let mut s = Ent::stored("b.bin", b"hello");
    s.crc ^= 0x8000_0000;
    let a = open(zip(&[e, s])).unwrap();
    for entry in a.entries() {
        let err = a.read(entry).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Malformed);
        assert!(
            err.message().starts_with("CRC mismatch: declared "),
            "{err}"
        );
        assert_eq!(err.entry(), Some(entry.name.as_str()));
        let serr = stream_all(&a, entry, 64).unwrap_err();
        assert_eq!(serr.message(), err.message());
    }
}

#[test]
fn lying_uncompressed_size_bigger_and_smaller() {
    let data = text(200);
    let n = data.len() as u64;
    let mut big = Ent::deflated("big", &data);
    big.size = n + 10;
    let mut small = Ent::deflated_ld("small", &data);
    small.size = n - 10;
    let mut stored = Ent::stored("stored", &data);
    stored.size = n + 1;
    let a = open(zip(&[big, small, stored])).unwrap();

    let e = a.find("big").unwrap();
    let msg = format!("declared size {}, inflated {n}", n + 10);
    assert_eq!(a.read(e).unwrap_err().message(), msg);
    assert_eq!(stream_all(&a, e, 100).unwrap_err().message(), msg);

    let e = a.find("small").unwrap();
    let msg = format!("declared size {0}, inflated more than {0}", n - 10);
    assert_eq!(a.read(e).unwrap_err().message(), msg);
    let mut out = Vec::new();
    assert!(a.read_into(e, &mut out).is_err());
    assert!(out.is_empty(), "no partial output after an error");
    assert_eq!(stream_all(&a, e, 100).unwrap_err().message(), msg);

    let e = a.find("stored").unwrap();
    assert_eq!(a.read(e).unwrap_err().kind(), ErrorKind::Malformed);
    assert_eq!(
        stream_all(&a, e, 100).unwrap_err().kind(),
        ErrorKind::Malformed
    );
}

#[test]
fn zip_bomb_ratio_limit_spares_other_entries() {
    // A genuine stream: 4 MiB from the same generator inflates correctly.
    // (Deflated zeros exceed even the default 1000:1, hence the relaxed limit.)
    let relaxed = Limits {
        max_ratio: 2000,
        ..Limits::default()
    };
    let four = open_with(zip(&[deflated_zeros("z", 4)]), relaxed).unwrap();
    let z = &four.entries()[0];
    assert_eq!(four.read(z).unwrap(), vec![0u8; 4 << 20]);
    assert_eq!(stream_all(&four, z, 1 << 16).unwrap(), vec![0u8; 4 << 20]);
    let strict = open(zip(&[deflated_zeros("z", 4)])).unwrap();
    assert_eq!(
        strict.read(&strict.entries()[0]).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
    let bomb = deflated_zeros("bomb.xml", 50);
    let c = bomb.raw.len() as u64;
    assert!(c < (50 << 20) / 500, "about 1000:1, {c} bytes");
    let limits = Limits {
        max_ratio: 100,
        ..Limits::default()
    };
    let a = open_with(zip(&[bomb, Ent::deflated("ok.xml", &text(10))]), limits).unwrap();
    let e = a.find("bomb.xml").unwrap();
    let err = a.read(e).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    assert_eq!(err.entry(), Some("bomb.xml"));
    assert!(err.message().contains(&(50u64 << 20).to_string()), "{err}");
    assert!(err.message().contains(&c.to_string()), "{err}");
    assert_eq!(a.stream(e).unwrap_err().kind(), ErrorKind::LimitExceeded);
    assert_eq!(a.inflated(), 0, "a refused entry is not charged");
    assert_eq!(a.read(a.find("ok.xml").unwrap()).unwrap(), text(10));
}

#[test]
fn huge_declared_size_fails_before_allocating() {
    let mut e = Ent::deflated("huge", &text(100));
    e.size = 1 << 40;
    let bytes = build(
        &[e],
        &Opts {
            zip64: true,
            ..Opts::default()
        },
    );
    // Default limits: the ratio check refuses it.
    let a = open(bytes.clone()).unwrap();
    let mut out = Vec::new();
    assert_eq!(a.entries()[0].uncompressed_size, 1 << 40);
    let err = a.read_into(&a.entries()[0], &mut out).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    assert_eq!(out.capacity(), 0, "nothing allocated");
    // No limits at all: deflate's own 1032:1 bound still refuses it.
    let none = Limits {
        max_entries: u64::MAX,
        max_total_inflated: u64::MAX,
        max_ratio: u64::MAX,
        ratio_exempt_below: u64::MAX,
    };
    let a = open_with(bytes, none).unwrap();
    let err = a.read_into(&a.entries()[0], &mut out).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
    assert_eq!(out.capacity(), 0, "nothing allocated");
    assert!(a.stream(&a.entries()[0]).is_err());
}

#[test]
fn total_inflated_budget() {
    let entries: Vec<Ent> = (0..3)
        .map(|i| Ent::deflated(&format!("part{i}"), &[b'x'; 1000]))
        .collect();
    let limits = Limits {
        max_total_inflated: 2500,
        ..Limits::default()
    };
    let a = open_with(zip(&entries), limits).unwrap();
    a.read(&a.entries()[0]).unwrap();
    let mut r = a.stream(&a.entries()[1]).unwrap();
    assert_eq!(a.inflated(), 2000, "streams are charged up front");
    let mut sink = Vec::new();
    r.read_to_end(&mut sink).unwrap();
    let err = a.read(&a.entries()[2]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    assert_eq!(err.entry(), Some("part2"));
    assert_eq!(
        a.stream(&a.entries()[0]).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
    assert_eq!(a.inflated(), 2000);
}

#[test]
fn overlapping_entries_are_rejected() {
    // Two central entries share one local header and one stream.
    let mut b = Ent::deflated("b.xml", &text(100));
    b.same_header_as = Some(0);
    let err = open(zip(&[Ent::deflated("a.xml", &text(100)), b])).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
    assert_eq!(err.message(), "entries a.xml and b.xml overlap");
    // An entry whose declared compressed size runs into the next header.
    let mut a = Ent::stored("a.bin", b"aaaa");
    a.csize = Some(10);
    let err = open(zip(&[a, Ent::stored("b.bin", b"bbbb")])).unwrap_err();
    assert_eq!(err.message(), "entries a.bin and b.bin overlap");
}

#[test]
fn duplicate_names_last_copy_wins() {
    let dup = zip(&[Ent::stored("a.txt", b"1"), Ent::stored("a.txt", b"2")]);
    let a = open(dup).unwrap();
    assert_eq!(a.duplicate_names(), ["a.txt".to_string()]);
    assert_eq!(a.read(a.find("a.txt").unwrap()).unwrap(), b"2");
    let slash = zip(&[Ent::stored("a.txt", b"1"), Ent::stored("/a.txt", b"2")]);
    let a = open(slash).unwrap();
    assert_eq!(a.duplicate_names().len(), 1);
    assert_eq!(a.read(a.find("A.TXT").unwrap()).unwrap(), b"2");
}

#[test]
fn encrypted_entry() {
    let mut e = Ent::stored("secret.xml", b"xxxxxxxxxxxx");
    e.flags = 1;
    let err = open(zip(&[Ent::stored("a", b"a"), e])).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Encrypted);
    assert_eq!(err.message(), "entry is encrypted");
    assert_eq!(err.entry(), Some("secret.xml"));
}

#[test]
fn unsupported_method() {
    let mut e = Ent::stored("a.bz2", b"BZh9");
    e.method = 12;
    let a = open(zip(&[e])).unwrap();
    assert_eq!(a.entries()[0].method, Method::Other(12));
    let err = a.read(&a.entries()[0]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert_eq!(err.message(), "compression method 12");
    assert_eq!(
        a.stream(&a.entries()[0]).unwrap_err().kind(),
        ErrorKind::Unsupported
    );
}

/// A fault met after some output is named alike whatever the output
/// sizes asked for (zlib-rs may name a bad distance on one call and only
/// "repeated call with bad state" on the next) and by the one-shot read:
/// the error of one canonical streaming pass.
#[test]
fn a_fault_mid_stream_is_named_alike_for_every_read_size() {
    let base = Ent::deflated("a.xml", &text(2000));
    let mut faults = 0;
    for at in (40..base.raw.len()).step_by(97) {
        let mut e = Ent::deflated("a.xml", &text(2000));
        e.raw[at] ^= 0x5A;
        let a = open(zip(&[e])).unwrap();
        let Err(want) = a.read(&a.entries()[0]) else {
            continue;
        };
        faults += 1;
        for chunk in [1, 7, 50, 4096, 1 << 20] {
            let got = stream_all(&a, &a.entries()[0], chunk).unwrap_err();
            assert_eq!(
                got.to_string(),
                want.to_string(),
                "fault at {at}, chunk {chunk}"
            );
        }
    }
    assert!(faults > 10, "{faults}");
}

/// Bad deflate data fails alike read in one shot (libdeflate) and
/// streamed (zlib-rs): same kind and message, with the streaming
/// decoder's detail.
#[test]
fn bad_deflate_data() {
    let mut e = Ent::deflated("a.xml", &text(100));
    e.raw = vec![0xFF; e.raw.len()];
    let a = open(zip(&[e])).unwrap();
    let err = a.read(&a.entries()[0]).unwrap_err();
    assert!(err.message().starts_with("bad deflate data"), "{err}");
    let serr = stream_all(&a, &a.entries()[0], 50).unwrap_err();
    assert_eq!(serr.kind(), ErrorKind::Malformed);
    assert_eq!(serr.to_string(), err.to_string());
    // A stored block whose length and its complement disagree.
    let mut b = Ent::deflated("b.xml", &text(100));
    b.raw = vec![0x00, 0x05, 0x00, 0x05, 0x00, b'x', b'x', b'x', b'x', b'x'];
    let a = open(zip(&[b])).unwrap();
    let err = a.read(&a.entries()[0]).unwrap_err();
    assert!(err.message().contains("stored block"), "{err}");
    let serr = stream_all(&a, &a.entries()[0], 50).unwrap_err();
    assert_eq!(serr.to_string(), err.to_string());
    // A stream cut short inside the file.
    let mut t = Ent::deflated("t.xml", &text(100));
    t.raw.truncate(t.raw.len() / 2);
    let a = open(zip(&[t])).unwrap();
    let err = a.read(&a.entries()[0]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
    let serr = stream_all(&a, &a.entries()[0], 50).unwrap_err();
    assert_eq!(serr.to_string(), err.to_string());
}

#[test]
fn entry_count_limit() {
    let entries: Vec<Ent> = (0..3).map(|i| Ent::stored(&format!("{i}"), b"x")).collect();
    let limits = Limits {
        max_entries: 2,
        ..Limits::default()
    };
    let err = open_with(zip(&entries), limits).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
}

#[test]
fn bad_local_header_signature() {
    let mut bytes = zip(&[Ent::stored("a", b"a")]);
    bytes[0] = b'X';
    let err = open(bytes).unwrap_err();
    assert_eq!(err.message(), "bad local file header signature");
    assert_eq!(err.offset(), Some(0));
    assert_eq!(err.entry(), Some("a"));
}

#[test]
fn find_normalises_names() {
    let a = open(zip(&[
        Ent::stored("xl/workbook.xml", b"1"),
        Ent::stored("A.txt", b"upper"),
        Ent::stored("a.txt", b"lower"),
        Ent::stored("docProps\\app.xml", b"2"),
    ]))
    .unwrap();
    assert_eq!(a.find("/xl/workbook.xml").unwrap().name, "xl/workbook.xml");
    assert_eq!(a.find("XL/Workbook.XML").unwrap().name, "xl/workbook.xml");
    assert_eq!(
        a.find("\\xl\\workbook.xml").unwrap().name,
        "xl/workbook.xml"
    );
    assert_eq!(a.find("A.txt").unwrap().name, "A.txt");
    assert_eq!(a.find("a.txt").unwrap().name, "a.txt");
    assert_eq!(
        a.find("A.TXT").unwrap().name,
        "A.txt",
        "first of the folded"
    );
    assert_eq!(
        a.find("docprops/app.xml").unwrap().name,
        "docProps\\app.xml"
    );
    assert!(a.find("missing").is_none());
}

#[test]
fn errors_survive_io_round_trip() {
    let mut e = Ent::stored("b.bin", b"hello");
    e.crc = 0;
    let a = open(zip(&[e])).unwrap();
    let mut r = a.stream(&a.entries()[0]).unwrap();
    let mut v = Vec::new();
    let io = r.read_to_end(&mut v).unwrap_err();
    assert_eq!(io.kind(), std::io::ErrorKind::InvalidData);
    let err = Error::from_io(io);
    assert_eq!(err.entry(), Some("b.bin"));
    // Errors are sticky.
    let again = Error::from_io(r.read(&mut [0; 8]).unwrap_err());
    assert_eq!(again.message(), err.message());
}

#[test]
fn sniff_each_container() {
    assert_eq!(sniff(&zip(&sample())), Container::Zip);
    assert_eq!(sniff(&zip(&[])), Container::Zip);
    assert_eq!(sniff(b"%PDF-1.7\n%\xE2\xE3"), Container::Pdf);
    let mut cfb = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1".to_vec();
    cfb.resize(512, 0);
    assert_eq!(sniff(&cfb), Container::Cfb);
    for c in "EncryptedPackage".bytes() {
        cfb.extend_from_slice(&[c, 0]);
    }
    assert_eq!(sniff(&cfb), Container::EncryptedOoxml);
    assert_eq!(sniff(b""), Container::Unknown);
    assert_eq!(sniff(b"a,b,c\n1,2,3\n"), Container::Unknown);
}

#[test]
fn entries_read_in_parallel() {
    let a = open(zip(&sample())).unwrap();
    let want = sample_data();
    std::thread::scope(|s| {
        for (e, (_, data)) in a.entries().iter().zip(&want) {
            let a = &a;
            s.spawn(move || assert_eq!(&a.read(e).unwrap(), data));
        }
    });
}

/// Opens and reads everything both ways; must never panic.
fn exercise(bytes: Vec<u8>) {
    let limits = Limits {
        max_total_inflated: 64 << 20,
        ..Limits::default()
    };
    if let Ok(a) = open_with(bytes, limits) {
        for e in a.entries() {
            let one = a.read(e);
            let two = stream_all(&a, e, 333);
            if let (Ok(x), Ok(y)) = (&one, &two) {
                assert_eq!(x, y);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        exercise(bytes);
    }

    #[test]
    fn damaged_archives_never_panic(
        cut in prop::option::of(any::<prop::sample::Index>()),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..8), 0..8),
        zip64 in any::<bool>(),
    ) {
        let entries = [
            Ent::stored("a.xml", &text(20)),
            Ent::deflated("xl/b.xml", &text(300)),
            Ent::deflated_ld("c.xml", &text(100)),
        ];
        let mut bytes = build(&entries, &Opts { zip64, ..Opts::default() });
        for (i, bit) in flips {
            let at = i.index(bytes.len());
            bytes[at] ^= 1 << bit;
        }
        if let Some(cut) = cut {
            let keep = cut.index(bytes.len());
            bytes.truncate(keep);
        }
        exercise(bytes);
    }
}
