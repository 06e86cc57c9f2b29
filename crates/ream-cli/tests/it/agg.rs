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
        &["agg", "m.txt", "--max-keys", "0"],
    ] {
        let o = ream(args, &dir);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
    let o = ream(&["agg", "m.txt", "--max-keys", "2"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("line 3, byte 26: more than 2 distinct keys"),
        "{}",
        stderr(&o)
    );
}
