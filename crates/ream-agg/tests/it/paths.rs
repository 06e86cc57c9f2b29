//! Every input path (slice, mapped file, reader) and every thread count and
//! chunk size give the same result.

use super::{opts, tenths, text};
use ream_agg::{AggOptions, Aggregate, aggregate_bytes, aggregate_path, aggregate_reader};
use std::io::Read;

/// A reader that hands out at most `step` bytes per call.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn temp_file(name: &str, data: &[u8]) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ream-agg-it");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, data).unwrap();
    p
}

/// Runs every path with several thread counts and chunk sizes; all must
/// agree; returns the result.
pub fn all_paths(name: &str, data: &[u8], base: &AggOptions) -> Aggregate {
    let path = temp_file(name, data);
    let first = aggregate_bytes(data, base).unwrap();
    // Tiny chunks only for tiny inputs (a chunk per byte is slow in debug).
    let small = if data.len() < 10_000 { 1 } else { 7919 };
    for (threads, chunk) in [
        (1, 1 << 22),
        (1, small),
        (2, 3 * small),
        (2, 64),
        (8, 17 * small),
        (8, 1 << 12),
    ] {
        let o = base.clone().threads(threads).tune_chunk_bytes(chunk);
        for (how, agg) in [
            ("bytes", aggregate_bytes(data, &o).unwrap()),
            ("path", aggregate_path(&path, &o).unwrap()),
            ("reader", aggregate_reader(data, &o).unwrap()),
            (
                "trickle",
                aggregate_reader(Trickle { data, step: 1000 }, &o).unwrap(),
            ),
        ] {
            assert_eq!(
                agg, first,
                "{name}: {how}, {threads} threads, chunk {chunk}"
            );
        }
    }
    first
}

#[test]
fn line_endings_bom_and_final_newline() {
    let lf = all_paths("lf", b"b;1.0\na;-2.5\nb;3.0\n", &opts(0, 1 << 20));
    let expected = "{a=-2.5/-2.5/-2.5, b=1.0/2.0/3.0}\n";
    assert_eq!(text(&lf), expected);
    for (name, data) in [
        ("crlf", &b"b;1.0\r\na;-2.5\r\nb;3.0\r\n"[..]),
        ("no-final-newline", b"b;1.0\na;-2.5\nb;3.0"),
        ("crlf-no-final", b"b;1.0\r\na;-2.5\r\nb;3.0\r"),
        ("bom", b"\xEF\xBB\xBFb;1.0\na;-2.5\nb;3.0\n"),
        ("mixed", b"\xEF\xBB\xBFb;1.0\r\na;-2.5\nb;3.0"),
    ] {
        let agg = all_paths(name, data, &opts(0, 1 << 20));
        assert_eq!(text(&agg), expected, "{name}");
        assert_eq!(agg.rows(), 3);
        assert_eq!(agg.keys(), 2);
    }
    assert_eq!(text(&all_paths("empty", b"", &opts(0, 1 << 20))), "{}\n");
    assert_eq!(
        text(&all_paths("bom-only", b"\xEF\xBB\xBF", &opts(0, 1 << 20))),
        "{}\n"
    );
}

#[test]
fn header_other_delimiters_and_columns() {
    let o = AggOptions::default()
        .header(true)
        .delimiter(b',')
        .key_col(2)
        .value_col(0);
    let data = b"value,ignored,city\n1.5,x,Oslo\n-2,y,Bergen\n2.5,z,Oslo,extra\n";
    let agg = all_paths("columns", data, &o);
    assert_eq!(text(&agg), "{Bergen=-2.0/-2.0/-2.0, Oslo=1.5/2.0/2.5}\n");
    assert_eq!(agg.rows(), 3);
    // Tabs, header, two columns (the fast path with another delimiter).
    let o = AggOptions::default().header(true).delimiter(b'\t');
    let agg = all_paths("tabs", b"name\tt\nx\t1.0\ny\t12.5\nx\t3.0\n", &o);
    assert_eq!(text(&agg), "{x=1.0/2.0/3.0, y=12.5/12.5/12.5}\n");
    // A header line alone, with and without its newline.
    assert_eq!(
        text(&all_paths("header-only", b"a;b\n", &opts_header())),
        "{}\n"
    );
    assert_eq!(
        text(&all_paths("header-only2", b"a;b", &opts_header())),
        "{}\n"
    );
}

fn opts_header() -> AggOptions {
    AggOptions::default().header(true)
}

#[test]
fn general_values_and_writers() {
    let data = b"k;1\nk;2.25\nk;-1e1\nj;0.5\nj;1.0\nm;12.3\nm;-0.0\n";
    let agg = all_paths("general", data, &AggOptions::default());
    assert_eq!(
        text(&agg),
        "{j=0.5/0.8/1.0, k=-10.0/-2.2/2.3, m=0.0/6.2/12.3}\n"
    );
    let k = agg.get(b"k").unwrap();
    assert!(!k.is_exact());
    assert_eq!((k.min(), k.max(), k.count()), (-10.0, 2.25, 3));
    assert_eq!(k.mean(), -2.25);
    assert_eq!(
        (k.min_text(), k.mean_text(), k.max_text()),
        ("-10.0".into(), "-2.25".into(), "2.25".into())
    );
    assert_eq!(k.sum_text(), "-6.75");
    let m = agg.get(b"m").unwrap();
    assert_eq!(m.tenths(), Some((0, 62, 123)));
    let mut csv = Vec::new();
    agg.write_csv(&mut csv).unwrap();
    assert_eq!(
        String::from_utf8(csv).unwrap(),
        "key,count,min,mean,max\nj,2,0.5,0.75,1.0\nk,3,-10.0,-2.25,2.25\nm,2,0.0,6.15,12.3\n"
    );
    let mut jsonl = Vec::new();
    agg.write_jsonl(&mut jsonl).unwrap();
    let first = String::from_utf8(jsonl).unwrap();
    assert_eq!(
        first.lines().next().unwrap(),
        r#"{"key":"j","count":2,"min":0.5,"mean":0.75,"max":1.0}"#
    );
}

#[test]
fn csv_and_json_escape_keys() {
    let o = AggOptions::default().delimiter(b'|');
    let agg = aggregate_bytes(b"a,\"b\"|1.0\n", &o).unwrap();
    let mut csv = Vec::new();
    agg.write_csv(&mut csv).unwrap();
    assert!(
        String::from_utf8(csv)
            .unwrap()
            .ends_with("\"a,\"\"b\"\"\",1,1.0,1.0,1.0\n")
    );
    let mut j = Vec::new();
    agg.write_jsonl(&mut j).unwrap();
    assert!(
        String::from_utf8(j)
            .unwrap()
            .starts_with(r#"{"key":"a,\"b\"","#)
    );
}

#[test]
fn streamed_blocks_cross_lines() {
    // About 3 MiB: several 1 MiB stream blocks, lines cut at block ends.
    let mut data = Vec::new();
    let names = ["Abha", "A very long station name, over 16", "Zürich", "x"];
    for i in 0..200_000u32 {
        let name = names[(i % 4) as usize];
        let t = (i * 37 % 1999) as i32 - 999;
        data.extend_from_slice(format!("{name};{}\n", tenths(t)).as_bytes());
    }
    let o = opts(2, 1 << 16);
    let agg = all_paths("blocks", &data, &o);
    assert_eq!(agg.rows(), 200_000);
    assert_eq!(agg.keys(), 4);
}
