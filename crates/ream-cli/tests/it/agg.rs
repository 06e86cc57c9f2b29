//! `ream agg` on small delimited files.

use super::{BIN, assert_ok, ream, stderr, stdout, temp_dir};
use std::io::Write;
use std::process::{Command, Stdio};

const DATA: &str = "Hamburg;12.0\nBulawayo;8.9\nPalembang;38.8\nHamburg;34.2\nBulawayo;-2.5\n";
const OUT: &str = "{Bulawayo=-2.5/3.2/8.9, Hamburg=12.0/23.1/34.2, Palembang=38.8/38.8/38.8}\n";

#[test]
fn agg_prints_the_1brc_line_from_a_file_and_stdin() {
    let dir = temp_dir("agg");
    std::fs::write(dir.join("m.txt"), DATA).unwrap();
    for threads in ["1", "2", "0"] {
        let o = ream(
            &["agg", "m.txt", "--threads", threads, "--chunk-bytes", "7"],
            &dir,
        );
        assert_ok(&o);
        assert_eq!(stdout(&o), OUT);
        assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    }
    let mut child = Command::new(BIN)
        .args(["agg", "-", "--stats"])
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(DATA.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_ok(&o);
    assert_eq!(stdout(&o), OUT);
    let err = stderr(&o);
    assert!(
        err.contains("5 rows, 3 keys") && err.contains("threads"),
        "{err}"
    );
}

#[test]
fn agg_formats_and_columns() {
    let dir = temp_dir("agg-formats");
    std::fs::write(dir.join("m.txt"), DATA).unwrap();
    let o = ream(&["agg", "m.txt", "--format", "csv"], &dir);
    assert_ok(&o);
    assert_eq!(
        stdout(&o).lines().take(2).collect::<Vec<_>>(),
        ["key,count,min,mean,max", "Bulawayo,2,-2.5,3.2,8.9"]
    );
    let o = ream(&["agg", "m.txt", "-f", "jsonl"], &dir);
    assert_ok(&o);
    let first: serde_json::Value =
        serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert_eq!(first["key"], "Bulawayo");
    assert_eq!(first["count"], 2);
    assert_eq!(first["mean"], 3.2);
    std::fs::write(
        dir.join("t.tsv"),
        "when\tcity\ttemp\nmon\tOslo\t1.5\ntue\tOslo\t2.5\n",
    )
    .unwrap();
    let args = [
        "agg",
        "t.tsv",
        "--delimiter",
        "tab",
        "--header",
        "--key-col",
        "1",
        "--value-col",
        "2",
    ];
    let o = ream(&args, &dir);
    assert_ok(&o);
    assert_eq!(stdout(&o), "{Oslo=1.5/2.0/2.5}\n");
}

#[test]
fn agg_errors_name_the_line_and_exit_codes() {
    let dir = temp_dir("agg-bad");
    std::fs::write(dir.join("bad.txt"), "a;1.0\nb;x\n").unwrap();
    let o = ream(&["agg", "bad.txt"], &dir);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with("ream: bad.txt: line 2, byte 8: "), "{err}");
    assert!(err.contains("not a decimal number"), "{err}");
    let o = ream(&["agg", "missing.txt"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("missing.txt"));
    std::fs::write(dir.join("m.txt"), DATA).unwrap();
    for args in [
        &["agg", "m.txt", "--key-col", "1"][..],
        &["agg", "m.txt", "--delimiter", "ab"],
        &["agg", "m.txt", "--format", "yaml"],
        &["agg", "m.txt", "--max-key-memory", "0"],
    ] {
        let o = ream(args, &dir);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
    // One-byte keys cost 193 bytes: the sixth distinct key is over 1K.
    std::fs::write(dir.join("k.txt"), "a;1\nb;1\nc;1\nd;1\ne;1\nf;1\n").unwrap();
    let o = ream(&["agg", "k.txt", "--max-key-memory", "1K"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(
            "line 6, byte 20: the distinct keys need more than the key-table budget of 1 KiB"
        ),
        "{}",
        stderr(&o)
    );
}

/// Runs `ream agg ARGS` with `input` on standard input.
fn agg_stdin(args: &[&str], input: &[u8]) -> std::process::Output {
    let mut child = Command::new(BIN)
        .arg("agg")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn agg_means_are_exact_however_the_input_is_written() {
    for input in ["a;0.1\na;0.2\n", "a;0.10\na;0.20\n"] {
        let o = agg_stdin(&["-", "-f", "csv"], input.as_bytes());
        assert_ok(&o);
        assert_eq!(
            stdout(&o),
            "key,count,min,mean,max\na,2,0.1,0.15,0.2\n",
            "{input}"
        );
        let o = agg_stdin(&["-", "-f", "jsonl"], input.as_bytes());
        assert_eq!(
            stdout(&o),
            "{\"key\":\"a\",\"count\":2,\"min\":0.1,\"mean\":0.15,\"max\":0.2}\n"
        );
        let o = agg_stdin(&["-"], input.as_bytes());
        assert_eq!(stdout(&o), "{a=0.1/0.2/0.2}\n");
    }
    let o = agg_stdin(&["--help"], b"");
    assert!(
        stdout(&o).contains("rounded half away from zero"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn agg_skips_empty_lines_and_counts_them() {
    let o = agg_stdin(&["-", "--stats"], b"a;1.0\nb;2.0\n\n");
    assert_ok(&o);
    assert_eq!(stdout(&o), "{a=1.0/1.0/1.0, b=2.0/2.0/2.0}\n");
    assert!(
        stderr(&o).contains("2 rows, 2 keys, 1 empty lines"),
        "{}",
        stderr(&o)
    );
    for (format, want) in [
        ("1brc", "{}\n"),
        ("csv", "key,count,min,mean,max\n"),
        ("jsonl", ""),
    ] {
        let o = agg_stdin(&["-", "-f", format], b"\n\n\n");
        assert_ok(&o);
        assert_eq!(stdout(&o), want, "{format}");
    }
}

#[test]
fn agg_takes_fifty_thousand_keys_by_default() {
    let dir = temp_dir("agg-50k");
    let mut data = String::new();
    for i in 0..50_000 {
        data += &format!("station{i};{}.5\n", i % 90);
    }
    std::fs::write(dir.join("k.txt"), data).unwrap();
    let o = ream(&["agg", "k.txt", "-f", "csv"], &dir);
    assert_ok(&o);
    assert_eq!(stdout(&o).lines().count(), 50_001);
}

#[test]
fn agg_reads_quoted_csv_fields() {
    let o = agg_stdin(
        &["-", "-d", ",", "-f", "csv"],
        b"\"Rome, IT\",12.5\n\"Rome, IT\",13.5\nOslo,1.0\n",
    );
    assert_ok(&o);
    assert_eq!(
        stdout(&o),
        "key,count,min,mean,max\nOslo,1,1.0,1.0,1.0\n\"Rome, IT\",2,12.5,13.0,13.5\n"
    );
}

#[test]
fn agg_skip_bad_rows_warns_with_line_and_offset() {
    let o = agg_stdin(&["-", "--skip-bad-rows"], b"a;1.0\nnodelim\na;x\nb;2.0\n");
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert_eq!(stdout(&o), "{a=1.0/1.0/1.0, b=2.0/2.0/2.0}\n");
    let err = stderr(&o);
    assert!(
        err.contains("ream: warning: -: line 2, byte 6: line has no ';' delimiter"),
        "{err}"
    );
    assert!(
        err.contains("line 3, byte 16: value \"x\" is not a decimal number"),
        "{err}"
    );
    assert!(err.contains("2 bad rows skipped"), "{err}");
    let o = agg_stdin(&["-"], b"a;1.0\nnodelim\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("ream: -: line 2, byte 6: "),
        "{}",
        stderr(&o)
    );
}

#[test]
fn agg_messages_name_the_file_once_and_ranges() {
    let dir = temp_dir("agg-msgs");
    let o = ream(&["agg", "nosuch.xlsx"], &dir);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert_eq!(err.matches("nosuch.xlsx").count(), 1, "{err}");
    assert_eq!(err.matches("No such file").count(), 1, "{err}");
    for (args, want) in [
        (
            &["agg", "x", "--threads", "-1"][..],
            "-1 is not in 0..=1024",
        ),
        (&["agg", "x", "--key-col", "-3"], "-3 is not in 0..="),
        (&["agg", "x", "--chunk-bytes", "0"], "0 is not in 1..="),
        (
            &["agg", "x", "--max-key-memory", "-5"],
            "-5 is not in 1024..=",
        ),
    ] {
        let o = ream(args, &dir);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
    }
}
