//! `ream pdf update` and `ream pdf rewrite` on a small hand-written PDF.

use super::{BIN, assert_ok, ream, stderr, stdout, temp_dir};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// A classic-xref PDF: catalog 1, page tree 2, Info 3, `n` pages from 10.
fn minimal_pdf(n: u32) -> Vec<u8> {
    build_pdf(n, &[], "", 0)
}

/// [`minimal_pdf`] with `extra` objects, `trailer_extra` in the trailer and
/// `startxref` moved by `xref_shift` bytes (non-zero: a broken pointer the
/// reader repairs by scanning).
fn build_pdf(n: u32, extra: &[(u32, &str)], trailer_extra: &str, xref_shift: usize) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offs = Vec::new();
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 10 + i)).collect();
    let mut objs = vec![
        (1, "<< /Type /Catalog /Pages 2 0 R >>".to_string()),
        (
            2,
            format!(
                "<< /Type /Pages /Kids [{}] /Count {n} /MediaBox [0 0 612 792] >>",
                kids.join(" ")
            ),
        ),
        (3, "<< /Title (Original) /Author (tests) >>".to_string()),
    ];
    for i in 0..n {
        objs.push((10 + i, "<< /Type /Page /Parent 2 0 R >>".to_string()));
    }
    objs.extend(extra.iter().map(|(num, body)| (*num, (*body).to_string())));
    for (num, body) in &objs {
        offs.push((*num, out.len()));
        out.extend_from_slice(format!("{num} 0 obj\n{body}\nendobj\n").as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(b"xref\n0 1\n0000000000 65535 f \n");
    for (num, off) in &offs {
        out.extend_from_slice(format!("{num} 1\n{off:010} 00000 n \n").as_bytes());
    }
    let size = objs.iter().map(|o| o.0).max().unwrap_or(0) + 1;
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {size} /Root 1 0 R /Info 3 0 R {trailer_extra}>>\nstartxref\n{}\n%%EOF\n",
            xref + xref_shift
        )
        .as_bytes(),
    );
    out
}

/// An encrypted PDF (standard security handler; ream reads its structure).
fn encrypted_pdf() -> Vec<u8> {
    build_pdf(
        2,
        &[(30, "<< /Filter /Standard /V 2 /R 3 /O (x) /U (y) /P -4 >>")],
        "/Encrypt 30 0 R ",
        0,
    )
}

/// Runs `ream` with `input` on standard input.
fn ream_stdin(args: &[&str], cwd: &Path, input: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that fails before reading its input closes the pipe.
    if let Err(e) = child.stdin.take().unwrap().write_all(input) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

fn info_json(dir: &Path, file: &str) -> Value {
    let o = ream(&["pdf", "info", file, "--json"], dir);
    assert_ok(&o);
    serde_json::from_str(&stdout(&o)).unwrap()
}

fn qpdf_ok(path: &Path) {
    match Command::new("qpdf").arg("--check").arg(path).output() {
        Ok(o) => assert!(
            o.status.success(),
            "qpdf --check {}: {}",
            path.display(),
            String::from_utf8_lossy(&o.stdout)
        ),
        Err(_) => eprintln!("qpdf not installed: --check skipped"),
    }
}

#[test]
fn pdf_update_to_copy_in_place_and_replace() {
    let dir = temp_dir("pdf-update");
    let original = minimal_pdf(3);
    std::fs::write(dir.join("a.pdf"), &original).unwrap();
    // -o OUT: a copy with the revision; the input untouched.
    let o = ream(
        &[
            "pdf",
            "update",
            "a.pdf",
            "--set-info",
            "Title=Neu Ä",
            "--set-info",
            "Author=",
            "-o",
            "b.pdf",
        ],
        &dir,
    );
    assert_ok(&o);
    assert!(stdout(&o).contains("appended"), "{}", stdout(&o));
    assert_eq!(std::fs::read(dir.join("a.pdf")).unwrap(), original);
    let v = info_json(&dir, "b.pdf");
    assert_eq!(v["pages"], 3);
    assert_eq!(v["info"]["Title"], "Neu Ä");
    assert!(v["info"].get("Author").is_none(), "{v}");
    assert_eq!(v["revisions"].as_array().unwrap().len(), 2);
    qpdf_ok(&dir.join("b.pdf"));
    // --in-place: appended to the file itself.
    let o = ream(
        &[
            "pdf",
            "update",
            "b.pdf",
            "--set-info",
            "Subject=x",
            "--in-place",
            "--json",
        ],
        &dir,
    );
    assert_ok(&o);
    let rep: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(rep["in_place"], true);
    assert!(rep["appended_bytes"].as_u64().unwrap() < 65536);
    let v = info_json(&dir, "b.pdf");
    assert_eq!(v["info"]["Subject"], "x");
    assert_eq!(v["revisions"].as_array().unwrap().len(), 3);
    // No -o: the file is replaced atomically by an updated copy.
    let o = ream(
        &["pdf", "update", "a.pdf", "--set-info", "Title=Replaced"],
        &dir,
    );
    assert_ok(&o);
    let now = std::fs::read(dir.join("a.pdf")).unwrap();
    assert_eq!(&now[..original.len()], &original[..]);
    assert_eq!(info_json(&dir, "a.pdf")["info"]["Title"], "Replaced");
    // No leftovers.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains("ream-tmp")), "{names:?}");
}

#[test]
fn pdf_update_usage_errors() {
    let dir = temp_dir("pdf-usage");
    std::fs::write(dir.join("a.pdf"), minimal_pdf(1)).unwrap();
    for args in [
        &["pdf", "update", "a.pdf"][..],
        &["pdf", "update", "a.pdf", "--set-info", "NoEquals"],
        &[
            "pdf",
            "update",
            "a.pdf",
            "--set-info",
            "T=x",
            "-o",
            "b.pdf",
            "--in-place",
        ],
        &["pdf", "rewrite", "a.pdf"],
    ] {
        let o = ream(args, &dir);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
    let o = ream(&["pdf", "update", "missing.pdf", "--set-info", "T=x"], &dir);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn pdf_rewrite_keeps_pages_and_info() {
    let dir = temp_dir("pdf-rewrite");
    std::fs::write(dir.join("a.pdf"), minimal_pdf(5)).unwrap();
    for extra in [
        &[][..],
        &["--object-streams"],
        &["--direct-io", "--buffer-mb", "1"],
    ] {
        let mut args = vec!["pdf", "rewrite", "a.pdf", "out.pdf", "--json"];
        args.extend_from_slice(extra);
        let o = ream(&args, &dir);
        // A filesystem that refuses O_DIRECT (tmpfs) gives a warning: exit 3.
        if !(o.status.code() == Some(3) && stderr(&o).contains("O_DIRECT")) {
            assert_ok(&o);
        }
        let rep: Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(rep["objects"], 8, "{rep}");
        let v = info_json(&dir, "out.pdf");
        assert_eq!(v["pages"], 5);
        assert_eq!(v["info"]["Title"], "Original");
        let o = ream(&["pdf", "check", "out.pdf"], &dir);
        assert_ok(&o);
        qpdf_ok(&dir.join("out.pdf"));
    }
    assert!(Path::new(BIN).is_file());
}

#[test]
fn pdf_index_counts_objects_by_type() {
    let dir = temp_dir("pdf-index");
    let f = dir.join("idx.pdf");
    std::fs::write(&f, minimal_pdf(7)).unwrap();
    let f = f.to_str().unwrap();
    for threads in ["1", "2"] {
        let o = ream(&["pdf", "index", f, "--threads", threads, "--json"], &dir);
        assert_ok(&o);
        let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(v["objects"], 10, "{v}");
        assert_eq!(v["by_type"]["Page"], 7, "{v}");
        assert_eq!(v["by_type"]["Catalog"], 1, "{v}");
        assert_eq!(v["errors"].as_array().map_or(0, Vec::len), 0, "{v}");
    }
    let o = ream(
        &["pdf", "index", dir.join("missing.pdf").to_str().unwrap()],
        &dir,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

#[test]
fn pdf_missing_file_and_directory_are_named() {
    let dir = temp_dir("pdf-missing");
    std::fs::create_dir(dir.join("folder.pdf")).unwrap();
    for args in [
        &["pdf", "info", "nosuch.pdf"][..],
        &["pdf", "pages", "nosuch.pdf"],
        &["pdf", "show", "nosuch.pdf", "1"],
        &["pdf", "revisions", "nosuch.pdf"],
        &["pdf", "check", "nosuch.pdf"],
        &["pdf", "index", "nosuch.pdf"],
        &["pdf", "rewrite", "nosuch.pdf", "out.pdf"],
        &["pdf", "update", "nosuch.pdf", "--set-info", "T=x"],
    ] {
        let o = ream(args, &dir);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(
            stderr(&o),
            "ream: nosuch.pdf: io: No such file or directory (os error 2)\n",
            "{args:?}"
        );
    }
    let o = ream(&["pdf", "info", "folder.pdf"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "ream: folder.pdf: io: is a directory, not a PDF file\n"
    );
}

#[test]
fn pdf_reads_standard_input() {
    let dir = temp_dir("pdf-stdin");
    let pdf = minimal_pdf(3);
    let o = ream_stdin(&["pdf", "info", "-", "--json"], &dir, &pdf);
    assert_ok(&o);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["file"], "<stdin>");
    assert_eq!(v["pages"], 3);
    assert_eq!(v["info"]["Title"], "Original");
    let o = ream_stdin(&["pdf", "pages", "-"], &dir, &pdf);
    assert_ok(&o);
    assert_eq!(stdout(&o).lines().count(), 4, "{}", stdout(&o));
    let o = ream_stdin(&["pdf", "show", "-", "3", "0", "R"], &dir, &pdf);
    assert_ok(&o);
    assert_eq!(
        stdout(&o),
        "3 0 obj\n<< /Title (Original) /Author (tests) >>\n"
    );
    for args in [
        &["pdf", "check", "-"][..],
        &["pdf", "index", "-"],
        &["pdf", "revisions", "-"],
    ] {
        assert_ok(&ream_stdin(args, &dir, &pdf));
    }
    let o = ream_stdin(&["pdf", "rewrite", "-", "copy.pdf"], &dir, &pdf);
    assert_ok(&o);
    assert_eq!(info_json(&dir, "copy.pdf")["pages"], 3);
    // Standard input cannot be replaced: update needs -o.
    let o = ream_stdin(&["pdf", "update", "-", "--set-info", "T=x"], &dir, &pdf);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("give -o OUT"), "{}", stderr(&o));
    let o = ream_stdin(&["pdf", "info", "-"], &dir, b"");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "ream: <stdin>: malformed (byte 0): empty file\n"
    );
}

#[test]
fn pdf_repaired_file_warns_on_stderr_and_exits_3() {
    let dir = temp_dir("pdf-repaired");
    // startxref points 7 bytes past the xref table: repaired by scanning.
    std::fs::write(dir.join("bad.pdf"), build_pdf(2, &[], "", 7)).unwrap();
    let o = ream(&["pdf", "rewrite", "bad.pdf", "out.pdf", "--json"], &dir);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "ream: warning: byte 305: cross-reference data unreadable, rebuilt by scanning"
        ),
        "{}",
        stderr(&o)
    );
    let rep: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let warnings = rep["warnings"].as_array().unwrap();
    assert!(!warnings.is_empty(), "{rep}");
    assert!(
        warnings[0]
            .as_str()
            .unwrap()
            .contains("rebuilt by scanning"),
        "{rep}"
    );
    // The copy is sound: no warnings, exit 0.
    assert_ok(&ream(&["pdf", "check", "out.pdf"], &dir));
    // Every subcommand: exit 3 comes with the warnings on stderr.
    for args in [
        &["pdf", "info", "bad.pdf"][..],
        &["pdf", "info", "bad.pdf", "--json"],
        &["pdf", "pages", "bad.pdf"],
        &["pdf", "pages", "bad.pdf", "--json"],
        &["pdf", "show", "bad.pdf", "1"],
        &["pdf", "revisions", "bad.pdf"],
        &["pdf", "check", "bad.pdf"],
        &["pdf", "index", "bad.pdf"],
        &["pdf", "rewrite", "bad.pdf", "out.pdf"],
    ] {
        let o = ream(args, &dir);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("ream: warning: index rebuilt by scanning"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    // update refuses a repaired file (exit 1), after the warnings.
    let o = ream(
        &[
            "pdf",
            "update",
            "bad.pdf",
            "--set-info",
            "T=x",
            "-o",
            "upd.pdf",
        ],
        &dir,
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with("ream: warning: byte 305: "), "{err}");
    assert!(
        err.contains("\nream: bad.pdf: unsupported: the cross-reference data was rebuilt"),
        "{err}"
    );
    // A sound file: exit 0 and nothing on stderr.
    std::fs::write(dir.join("good.pdf"), minimal_pdf(2)).unwrap();
    for args in [
        &["pdf", "info", "good.pdf"][..],
        &["pdf", "check", "good.pdf"],
    ] {
        let o = ream(args, &dir);
        assert_ok(&o);
        assert_eq!(stderr(&o), "", "{args:?}");
    }
}

#[test]
fn pdf_unreadable_object_index_warns_check_fails() {
    let dir = temp_dir("pdf-unreadable");
    let bytes = build_pdf(2, &[(20, "<< /A (unterminated >>")], "", 0);
    std::fs::write(dir.join("b.pdf"), bytes).unwrap();
    let o = ream(&["pdf", "index", "b.pdf", "--json"], &dir);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "ream: warning: unreadable objects: 1 (listed as errors in the output)\n"
    );
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["errors"][0]["object"], 20, "{v}");
    let o = ream(&["pdf", "check", "b.pdf"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("error: object 20: malformed in object 20 0 (byte 580)"),
        "{}",
        stdout(&o)
    );
    assert!(
        stderr(&o).ends_with("ream: b.pdf: check found errors: 1 (listed on standard output)\n"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn pdf_check_of_an_encrypted_file_is_not_ok() {
    let dir = temp_dir("pdf-encrypted");
    std::fs::write(dir.join("enc.pdf"), encrypted_pdf()).unwrap();
    let o = ream(&["pdf", "check", "enc.pdf"], &dir);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(!out.lines().any(|l| l.starts_with("ok")), "{out}");
    assert!(
        out.contains("objects: 6 (streams not decoded: encrypted, not decrypted)"),
        "{out}"
    );
    assert!(
        out.contains("not checked: stream data, strings, Info, XMP"),
        "{out}"
    );
    assert_eq!(
        stderr(&o),
        "ream: enc.pdf: encrypted: the document is encrypted and cannot be decrypted: \
         /Filter /Standard V 2 R 3: /O is 1 bytes, at least 32 expected \
         (in /Encrypt object 30 0)\n"
    );
}

/// A malformed `/Encrypt` is named in the error (exit 4); a revision 6
/// file whose `/P` was changed after `/Perms` was written opens with a
/// warning naming its `/Encrypt` object (exit 3).
#[test]
fn pdf_encrypt_errors_and_perms_warnings() {
    let dir = temp_dir("pdf-encrypt-checks");
    std::fs::write(dir.join("enc.pdf"), encrypted_pdf()).unwrap();
    let o = ream(&["pdf", "info", "--password", "x", "enc.pdf"], &dir);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).ends_with(": /O is 1 bytes, at least 32 expected (in /Encrypt object 30 0)\n"),
        "{}",
        stderr(&o)
    );
    crypt_fixture(&dir, "enc-r6-aes256-objstm.pdf");
    let f = dir.join("enc-r6-aes256-objstm.pdf");
    let bytes = std::fs::read(&f).unwrap();
    let at = memchr_find(&bytes, b"/P -4 /Perms").unwrap();
    let mut tampered = bytes.clone();
    tampered[at + 4] = b'8';
    std::fs::write(dir.join("tampered.pdf"), tampered).unwrap();
    let o = ream(&["pdf", "info", "--password", "user", "tampered.pdf"], &dir);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "ream: warning: the /Perms entry does not match /P: it holds -4, /P is -8 \
             (tampered or miswritten; /P is used) (in /Encrypt object 10 0)"
        ),
        "{}",
        stderr(&o)
    );
    assert!(
        stdout(&o).contains("info.Title: Encrypted fixture"),
        "{}",
        stdout(&o)
    );
    let o = ream(
        &[
            "pdf",
            "info",
            "--password",
            "user",
            "enc-r6-aes256-objstm.pdf",
        ],
        &dir,
    );
    assert_ok(&o);
}

#[test]
fn pdf_show_absent_object_and_bad_spellings() {
    let dir = temp_dir("pdf-show");
    std::fs::write(dir.join("a.pdf"), minimal_pdf(1)).unwrap();
    let o = ream(&["pdf", "show", "a.pdf", "999"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    assert_eq!(stderr(&o), "ream: a.pdf: object 999 0 is not in the file\n");
    let o = ream(&["pdf", "show", "a.pdf", "3 1"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "ream: a.pdf: object 3 1 is not in the file (object 3 has generation 0)\n"
    );
    let o = ream(&["pdf", "show", "a.pdf", "3.5"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "ream: bad object \"3.5\": write N, N G or N G R (e.g. 12, 12 0, 12 0 R)\n"
    );
    let o = ream(&["pdf", "show", "a.pdf", "-1"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "ream: object number -1 out of range: 1 to 4294967295\n"
    );
    // The usage error comes before the file is opened.
    let o = ream(&["pdf", "show", "nosuch.pdf", "3.5"], &dir);
    assert_eq!(o.status.code(), Some(2));
    for spelling in [
        &["3"][..],
        &["3", "0"],
        &["3 0"],
        &["3", "0", "R"],
        &["3 0 R"],
    ] {
        let mut args = vec!["pdf", "show", "a.pdf"];
        args.extend_from_slice(spelling);
        let o = ream(&args, &dir);
        assert_ok(&o);
        assert!(stdout(&o).starts_with("3 0 obj\n"), "{spelling:?}");
    }
}

#[test]
fn pdf_numeric_args_out_of_range() {
    let dir = temp_dir("pdf-ranges");
    std::fs::write(dir.join("a.pdf"), minimal_pdf(1)).unwrap();
    for (args, msg) in [
        (
            &["pdf", "info", "a.pdf", "--window-mb", "-1"][..],
            "invalid value '-1' for '--window-mb <WINDOW_MB>': -1 is not in 1..=65536",
        ),
        (
            &["pdf", "index", "a.pdf", "--threads", "-2"],
            "invalid value '-2' for '--threads <THREADS>': -2 is not in 0..=1024",
        ),
        (
            &["pdf", "rewrite", "a.pdf", "o.pdf", "--buffer-mb", "0"],
            "invalid value '0' for '--buffer-mb <BUFFER_MB>': 0 is not in 1..=1024",
        ),
        (
            &[
                "pdf",
                "rewrite",
                "a.pdf",
                "o.pdf",
                "--objects-per-stream",
                "-5",
            ],
            "-5 is not in 1..=100000",
        ),
    ] {
        let o = ream(args, &dir);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(msg), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn pdf_help_lists_every_subcommand() {
    let o = ream(&["pdf", "--help"], Path::new("."));
    assert_ok(&o);
    let help = stdout(&o);
    for sub in [
        "info",
        "pages",
        "show",
        "revisions",
        "check",
        "update",
        "rewrite",
        "index",
    ] {
        let line = help
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{sub} ")))
            .unwrap_or_else(|| panic!("{sub} missing: {help}"));
        assert!(line.len() <= 100, "{line}");
    }
}

/// A qpdf-made fixture of ream-pdf (user password `user`, owner `owner`).
fn crypt_fixture(dir: &Path, name: &str) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ream-pdf/tests/data")
        .join(name);
    std::fs::copy(src, dir.join(name)).unwrap();
}

#[test]
fn pdf_password_opens_encrypted_files() {
    let dir = temp_dir("pdf-password");
    crypt_fixture(&dir, "enc-r6-aes256-objstm.pdf");
    let f = "enc-r6-aes256-objstm.pdf";
    // No password: structure read, exit 4 naming handler, V and R.
    let o = ream(&["pdf", "info", f], &dir);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("/Filter /Standard V 5 R 6, AESV3 256-bit: the document needs a password"),
        "{}",
        stderr(&o)
    );
    let o = ream(&["pdf", "info", "--json", "--password", "owner", f], &dir);
    assert_ok(&o);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["pages"], 2);
    assert_eq!(v["info"]["Title"], "Encrypted fixture");
    assert_eq!(v["encryption"]["r"], 6);
    assert_eq!(v["encryption"]["opened_with"], "owner");
    let o = ream(&["pdf", "show", "--password", "user", f, "1"], &dir);
    assert_ok(&o);
    assert!(
        stdout(&o).starts_with("% encrypted: /Filter /Standard V 5 R 6, AESV3 256-bit"),
        "{}",
        stdout(&o)
    );
    let o = ream(&["pdf", "check", "--password", "user", f], &dir);
    assert_ok(&o);
    assert!(stdout(&o).ends_with("ok\n"), "{}", stdout(&o));
    for sub in ["pages", "revisions"] {
        assert_ok(&ream(&["pdf", sub, "--password", "user", f], &dir));
    }
    let o = ream(&["pdf", "info", "--password", "wrong", f], &dir);
    assert_eq!(o.status.code(), Some(4));
    assert!(stderr(&o).contains("wrong password"), "{}", stderr(&o));
}

#[test]
fn pdf_update_and_rewrite_of_encrypted_files() {
    let dir = temp_dir("pdf-password-write");
    crypt_fixture(&dir, "enc-r3-rc4-128.pdf");
    let f = "enc-r3-rc4-128.pdf";
    let before = std::fs::metadata(dir.join(f)).unwrap().len();
    let o = ream(
        &[
            "pdf",
            "update",
            "--password",
            "user",
            "--in-place",
            "--set-info",
            "Title=Secret title",
            f,
        ],
        &dir,
    );
    assert_ok(&o);
    let after = std::fs::metadata(dir.join(f)).unwrap().len();
    assert!(after > before && after - before < 64 << 10);
    assert!(memchr_find(&std::fs::read(dir.join(f)).unwrap(), b"Secret title").is_none());
    let o = ream(&["pdf", "info", "--json", "--password", "user", f], &dir);
    assert_ok(&o);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["info"]["Title"], "Secret title");
    let o = ream(
        &[
            "pdf",
            "rewrite",
            "--password",
            "user",
            "--decrypt",
            f,
            "clear.pdf",
        ],
        &dir,
    );
    assert_ok(&o);
    let o = ream(&["pdf", "info", "--json", "clear.pdf"], &dir);
    assert_ok(&o);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["encrypted"], false);
    assert_eq!(v["info"]["Title"], "Secret title");
    let o = ream(
        &["pdf", "rewrite", "--password", "user", f, "kept.pdf"],
        &dir,
    );
    assert_ok(&o);
    assert_eq!(
        ream(&["pdf", "info", "kept.pdf"], &dir).status.code(),
        Some(4)
    );
    assert_ok(&ream(
        &["pdf", "info", "--password", "owner", "kept.pdf"],
        &dir,
    ));
}

fn memchr_find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The qpdf-made RC4 fixture with an empty user password, plus an update
/// adding signature dictionary 10 (its `/Contents` stored in the clear, as
/// ISO 32000 wants) referred to by the catalog's `/Sig`.
fn signed_fixture(dir: &Path) -> &'static str {
    crypt_fixture(dir, "enc-r3-rc4-128-emptyuser.pdf");
    let d = std::fs::read(dir.join("enc-r3-rc4-128-emptyuser.pdf")).unwrap();
    let text = String::from_utf8_lossy(&d).into_owned();
    let id_at = text.rfind("/ID [").unwrap();
    let id = &text[id_at..id_at + text[id_at..].find(']').unwrap() + 1];
    let sx_at = text.rfind("startxref").unwrap() + "startxref".len();
    let prev: u64 = text[sx_at..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let mut out = d.clone();
    if out.last() != Some(&b'\n') {
        out.push(b'\n');
    }
    let o10 = out.len();
    out.extend_from_slice(
        b"10 0 obj\n<< /Type /Sig /Filter /Adobe.PPKLite /ByteRange [0 1 2 3] \
          /Contents <3082abcd> >>\nendobj\n",
    );
    let o1 = out.len();
    out.extend_from_slice(
        b"1 0 obj\n<< /Metadata 3 0 R /Pages 4 0 R /Type /Catalog /Sig 10 0 R >>\nendobj\n",
    );
    let x = out.len();
    out.extend_from_slice(
        format!(
            "xref\n0 1\n0000000000 65535 f \n1 1\n{o1:010} 00000 n \n10 1\n{o10:010} 00000 n \n\
             trailer << /Info 2 0 R /Root 1 0 R /Size 11 {id} /Encrypt 9 0 R /Prev {prev} >>\n\
             startxref\n{x}\n%%EOF\n"
        )
        .as_bytes(),
    );
    std::fs::write(dir.join("signed.pdf"), out).unwrap();
    "signed.pdf"
}

/// `show` prints a signature's `/Contents` as stored, and `rewrite
/// --decrypt` writes it unchanged.
#[test]
fn pdf_signature_contents_are_not_decrypted() {
    let dir = temp_dir("pdf-signature");
    let f = signed_fixture(&dir);
    let o = ream(&["pdf", "show", f, "10"], &dir);
    assert_ok(&o);
    assert!(
        stdout(&o).contains("/Contents <3082ABCD>"),
        "{}",
        stdout(&o)
    );
    assert_ok(&ream(
        &["pdf", "rewrite", "--decrypt", f, "clear.pdf"],
        &dir,
    ));
    let clear = std::fs::read(dir.join("clear.pdf")).unwrap();
    assert!(memchr_find(&clear, b"/Contents <3082ABCD>").is_some());
    let o = ream(&["pdf", "check", "clear.pdf"], &dir);
    assert_ok(&o);
    qpdf_ok(&dir.join("clear.pdf"));
}
