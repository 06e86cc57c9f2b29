//! The general-tool cases: exact means however the input is written, empty
//! lines, quoted fields, skipped bad rows.

use super::paths::all_paths;
use super::text;
use ream_agg::{AggOptions, Problem, aggregate_bytes, aggregate_reader};

fn csv(a: &ream_agg::Aggregate) -> String {
    let mut out = Vec::new();
    a.write_csv(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn jsonl(a: &ream_agg::Aggregate) -> String {
    let mut out = Vec::new();
    a.write_jsonl(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn the_same_mean_however_the_values_are_written() {
    let d = AggOptions::default();
    let a = all_paths("tenths", b"a;0.1\na;0.2\n", &d);
    let b = all_paths("hundredths", b"a;0.10\na;0.20\n", &d);
    let c = all_paths("exponents", b"a;1e-1\na;+2.000E-1\n", &d);
    for x in [&a, &b, &c] {
        assert_eq!(csv(x), "key,count,min,mean,max\na,2,0.1,0.15,0.2\n");
        assert_eq!(
            jsonl(x),
            "{\"key\":\"a\",\"count\":2,\"min\":0.1,\"mean\":0.15,\"max\":0.2}\n"
        );
        assert_eq!(text(x), "{a=0.1/0.2/0.2}\n");
    }
    // Mixed scales rescale exactly; a repeating mean is rounded half away
    // from zero at 6 decimals past the key's scale.
    let m = aggregate_bytes(b"k;0.1\nk;0.25\nk;-1\nn;1\nn;2\nn;2\n", &d).unwrap();
    assert_eq!(
        csv(&m),
        "key,count,min,mean,max\nk,3,-1.0,-0.21666667,0.25\nn,3,1.0,1.6666667,2.0\n"
    );
    // 18 significant digits and 18 decimals, exactly.
    let big = aggregate_bytes(b"k;999999999999999999\nk;0.000000000000000001\n", &d).unwrap();
    let k = big.get(b"k").unwrap();
    assert_eq!(k.max_text(), "999999999999999999.0");
    assert_eq!(k.min_text(), "0.000000000000000001");
    assert_eq!(k.mean_text(), "499999999999999999.5000000000000000005");
}

#[test]
fn empty_lines_are_skipped_and_counted() {
    let d = AggOptions::default();
    let a = all_paths("trailing-blank", b"a;1.0\nb;2.0\n\n", &d);
    assert_eq!(text(&a), "{a=1.0/1.0/1.0, b=2.0/2.0/2.0}\n");
    assert_eq!((a.rows(), a.empty_lines()), (2, 1));
    let a = all_paths("blanks", b"\r\na;1.0\n\n\nb;2.0\r\n\r\n", &d);
    assert_eq!((a.rows(), a.empty_lines()), (2, 4));
    for (name, data) in [("only-newlines", &b"\n\n\n"[..]), ("empty", b"")] {
        let a = all_paths(name, data, &d);
        assert_eq!(text(&a), "{}\n");
        assert_eq!(csv(&a), "key,count,min,mean,max\n");
        assert_eq!(jsonl(&a), "");
        assert_eq!(a.empty_lines(), data.len() as u64);
    }
}

#[test]
fn quoted_fields_follow_rfc_4180() {
    let o = AggOptions::default().delimiter(b',').header(true);
    let data =
        b"city,temp\n\"Rome, IT\",12.5\nOslo,1.0\n\n\"Rome, IT\",13.0\n\"a \"\"b\"\"\nc\",2\n";
    let a = all_paths("quoted", data, &o);
    assert_eq!(
        csv(&a),
        "key,count,min,mean,max\nOslo,1,1.0,1.0,1.0\n\"Rome, IT\",2,12.5,12.75,13.0\n\"a \"\"b\"\"\nc\",1,2.0,2.0,2.0\n"
    );
    assert_eq!(a.empty_lines(), 1);
    // Quotes past the first stream block (about 1 MiB of plain rows first).
    let mut big = b"city,temp\n".to_vec();
    for i in 0..100_000 {
        big.extend_from_slice(format!("plain{},1.5\n", i % 7).as_bytes());
    }
    big.extend_from_slice(b"\"x,\ny\",2\n\"x,\ny\",3\nbad\n");
    let e = aggregate_reader(&big[..], &o).unwrap_err();
    let e2 = aggregate_bytes(&big, &o).unwrap_err();
    assert_eq!(e.problem(), &Problem::MissingDelimiter);
    assert_eq!((e.line(), e.offset()), (e2.line(), e2.offset()));
    assert_eq!(e.line(), 100_006);
    let o = o.skip_bad_rows(true);
    let a = aggregate_reader(&big[..], &o).unwrap();
    assert_eq!(a.get(b"x,\ny").unwrap().mean_text(), "2.5");
    assert_eq!((a.rows(), a.bad_rows()), (100_002, 1));
    // CRLF lines, an empty CRLF line, and a bad unquoted row: the same
    // verdict and offset as the line rules give without quotes.
    let o2 = AggOptions::default().delimiter(b',');
    let crlf = b"\"Rome, IT\",12.5\r\nOslo,1.0\r\n\r\nOslo,\"3.0\"\r\n";
    let a = all_paths("quoted-crlf", crlf, &o2);
    assert_eq!(text(&a), "{Oslo=1.0/2.0/3.0, Rome, IT=12.5/12.5/12.5}\n");
    assert_eq!(a.empty_lines(), 1);
    let e = aggregate_bytes(b"\"a\",1\nb,x\n", &o2).unwrap_err();
    let plain = aggregate_bytes(b"a,1\nb,x\n", &o2).unwrap_err();
    assert_eq!((e.line(), e.offset()), (2, 8));
    assert_eq!((plain.line(), plain.offset()), (2, 6));
    assert_eq!(e.problem(), plain.problem());
    // With `;` a quote is an ordinary byte.
    let a = aggregate_bytes(b"\"a;1.0\n", &AggOptions::default()).unwrap();
    assert!(a.get(b"\"a").is_some());
}

#[test]
fn bad_rows_are_skipped_with_line_and_offset() {
    let o = AggOptions::default().skip_bad_rows(true);
    let data = b"a;1.0\nnodelim\na;x\na;\n;2.0\na;1e99\nb\xff;1\nb;3\n\nc\n";
    let a = all_paths("skip", data, &o);
    assert_eq!(text(&a), "{a=1.0/1.0/1.0, b=3.0/3.0/3.0}\n");
    assert_eq!((a.rows(), a.bad_rows(), a.empty_lines()), (2, 7, 1));
    let shown: Vec<String> = a.first_bad_rows().iter().map(|b| b.to_string()).collect();
    assert_eq!(
        shown,
        [
            "line 2, byte 6: line has no ';' delimiter",
            "line 3, byte 16: value \"x\" is not a decimal number",
            "line 4, byte 20: empty value",
            "line 5, byte 21: empty key",
            "line 6, byte 28: value \"1e99\" has more than 18 significant digits or decimals, \
             or is 10^18 or more: exact fixed point cannot hold it",
        ]
    );
    // Limits still stop the run.
    let long = format!("{};1.0\n", "k".repeat(101));
    assert!(aggregate_bytes(long.as_bytes(), &o).is_err());
    // Without the option the first bad row is the error.
    let e = aggregate_bytes(data, &AggOptions::default()).unwrap_err();
    assert_eq!((e.line(), e.offset()), (2, 6));
}

/// The header is the first line even when it is empty, on the quoted path
/// as on the line path (fuzz finding: a chunk holding a quote sent the
/// whole input to the csv reader, which skips empty lines and took the
/// next record as the header, so serial and chunked runs disagreed).
#[test]
fn an_empty_first_line_is_the_header_on_the_quoted_path_too() {
    let o = AggOptions::default().delimiter(b',').header(true);
    let a = all_paths("empty-header", b"\nk,1\n\n\"q\",2\n", &o);
    assert_eq!(
        csv(&a),
        "key,count,min,mean,max\nk,1,1.0,1.0,1.0\nq,1,2.0,2.0,2.0\n"
    );
    assert_eq!(a.empty_lines(), 1);
    // The fuzz input: both runs report the bad value of line 2.
    let data = b"\n9,a,1.4\r\0\0\0\0\xa9,49;.9\n5,a,a,-0\"0";
    let o = o.key_col(1).value_col(2);
    for chunk_bytes in [1 << 22, 14] {
        let o = o.clone().threads(2).tune_chunk_bytes(chunk_bytes);
        for r in [aggregate_bytes(data, &o), aggregate_reader(&data[..], &o)] {
            let e = r.unwrap_err();
            assert_eq!(
                (e.problem(), e.line(), e.offset()),
                (&Problem::BadValue, 2, 5),
                "{e}"
            );
        }
    }
}

/// A quote in the header line may open a field that spans lines: every
/// path then reads the whole input as CSV (fuzz finding: the chunked run
/// checked only the lines after the header and took the field's inner
/// lines as rows).
#[test]
fn a_quoted_header_field_spanning_lines_is_read_as_csv() {
    let o = AggOptions::default().delimiter(b',').header(true);
    let a = all_paths(
        "quoted-header",
        b"id,\"two\nno delimiter\nend\"\nk,1\nk,3\n",
        &o,
    );
    assert_eq!(csv(&a), "key,count,min,mean,max\nk,2,1.0,2.0,3.0\n");
}
