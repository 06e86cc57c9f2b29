//! Writes: incremental updates (copy and in place) with injected failures,
//! and the full rewrite; `qpdf --check` on the results when installed.

use crate::writer::{Rev, Xref, build, doc, obj, simple, stream, zlib};
use ream_pdf::write::{Faults, Step};
use ream_pdf::{Dict, ErrorKind, ObjRef, Object, Page, Pdf, PdfOptions, RewriteOptions, XrefKind};
use std::path::{Path, PathBuf};

fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ream-pdf-write-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn strict(path: &Path) -> Pdf {
    Pdf::open(path, &PdfOptions::new().strict(true)).unwrap()
}

fn info(pdf: &Pdf, key: &str) -> Option<String> {
    pdf.info()
        .unwrap()
        .into_iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.to_string())
}

/// Boxes and rotation of every page (objects are renumbered by rewrites).
type Shape = (Option<[f64; 4]>, Option<[f64; 4]>, i64);

fn shape(pages: &[Page]) -> Vec<Shape> {
    pages
        .iter()
        .map(|p| (p.media_box, p.crop_box, p.rotate))
        .collect()
}

/// A file with three revisions: a table, then an xref stream packing the
/// page tree and Info into an object stream, then a table again; a
/// stream-only variant; and a hybrid one.
fn fixtures() -> Vec<(&'static str, Vec<u8>)> {
    let mut out = vec![
        ("table", simple(Xref::Table, 3)),
        ("stream", simple(Xref::Stream, 3)),
    ];
    let all = doc(4);
    let (plain, packed): (Vec<_>, Vec<_>) =
        all.into_iter().partition(|o| o.num == 1 || o.num == 10);
    let mut r = Rev::new(Xref::Stream, plain);
    r.packed = packed;
    r.objstm = 20;
    r.trailer =
        "/Info 3 0 R /ID [<00112233445566778899AABBCCDDEEFF> <00112233445566778899AABBCCDDEEFF>]"
            .into();
    let mut r2 = Rev::new(
        Xref::Stream,
        vec![
            obj(3, "<< /Title (Second) /Producer (writer.rs) >>"),
            stream(
                30,
                "/Filter /FlateDecode",
                &zlib(b"BT /F1 12 Tf (hi) Tj ET"),
            ),
        ],
    );
    r2.trailer = "/Info 3 0 R".into();
    out.push(("objstm+update", build("1.7", &[r, r2])));
    let all = doc(3);
    let (plain, packed): (Vec<_>, Vec<_>) =
        all.into_iter().partition(|o| o.num != 11 && o.num != 12);
    let mut r = Rev::new(Xref::Hybrid, plain);
    r.packed = packed;
    r.objstm = 20;
    r.trailer = "/Info 3 0 R".into();
    let mut r2 = Rev::new(
        Xref::Table,
        vec![obj(3, "<< /Title (Hybrid then table) >>")],
    );
    r2.trailer = "/Info 3 0 R".into();
    out.push(("hybrid+table", build("1.6", &[r, r2])));
    out
}

/// `qpdf --check` output lines (the file name removed), or `None` when
/// qpdf is not installed.
fn qpdf_lines(path: &Path) -> Option<(bool, Vec<String>)> {
    let o = std::process::Command::new("qpdf")
        .arg("--check")
        .arg(path)
        .output()
        .ok()?;
    let text =
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    let p = path.display().to_string();
    let lines = text
        .lines()
        .filter(|l| l.contains("WARNING") || l.contains("ERROR"))
        .map(|l| l.replace(&p, "FILE"))
        .collect();
    Some((o.status.success() || o.status.code() == Some(3), lines))
}

/// `qpdf --check` accepts `path` with no warning that `original` (if any)
/// does not already get. Skipped with a note when qpdf is absent.
fn qpdf_check_vs(path: &Path, original: Option<&Path>) {
    let Some((ok, lines)) = qpdf_lines(path) else {
        eprintln!("qpdf not installed: --check skipped");
        return;
    };
    let known = original
        .and_then(qpdf_lines)
        .map(|(_, l)| l)
        .unwrap_or_default();
    let new: Vec<&String> = lines.iter().filter(|l| !known.contains(l)).collect();
    assert!(
        ok && new.is_empty(),
        "qpdf --check {}: {new:?}",
        path.display()
    );
}

fn qpdf_check(path: &Path) {
    qpdf_check_vs(path, None);
}

#[test]
fn update_appends_a_revision_of_the_same_kind() {
    let d = dir("kinds");
    for (name, bytes) in fixtures() {
        let src = d.join(format!("{name}.pdf"));
        std::fs::write(&src, &bytes).unwrap();
        let pdf = strict(&src);
        let pages = pdf.pages().unwrap();
        let before = pdf.revisions().len();
        let newest = pdf.newest_xref().unwrap().1;
        let mut u = pdf.update();
        u.set_info("Title", "Zażółć report")
            .set_info("Producer", "ream");
        let out = d.join(format!("{name}-updated.pdf"));
        let rep = u.write_to(&out).unwrap();
        assert_eq!(rep.original_len, bytes.len() as u64);
        assert!(!rep.in_place && rep.copy.is_some());
        let got = std::fs::read(&out).unwrap();
        assert_eq!(
            &got[..bytes.len()],
            &bytes[..],
            "{name}: original bytes kept"
        );
        assert_eq!(got.len() as u64, rep.original_len + rep.appended);
        let again = strict(&out);
        assert_eq!(
            info(&again, "Title").as_deref(),
            Some("Zażółć report"),
            "{name}"
        );
        assert_eq!(info(&again, "Producer").as_deref(), Some("ream"));
        assert_eq!(again.pages().unwrap(), pages, "{name}");
        assert_eq!(again.page_count().unwrap(), pages.len() as u64);
        let revs = again.revisions();
        assert_eq!(revs.len(), before + 1, "{name}");
        let want = if newest == XrefKind::Stream {
            XrefKind::Stream
        } else {
            XrefKind::Table
        };
        assert_eq!(revs.last().unwrap().kind, want, "{name}");
        assert_eq!(rep.xref_kind, want);
        assert!(
            again.warnings().is_empty(),
            "{name}: {:?}",
            again.warnings()
        );
        // Older values remain in the older revision.
        let old = Pdf::from_bytes(got[..bytes.len()].to_vec(), &PdfOptions::new()).unwrap();
        assert_eq!(info(&old, "Title"), info(&pdf, "Title"));
        qpdf_check_vs(&out, Some(&src));
    }
}

#[test]
fn set_add_objects_and_copy_streams() {
    let d = dir("objects");
    let (_, bytes) = fixtures().remove(2);
    let src = d.join("in.pdf");
    std::fs::write(&src, &bytes).unwrap();
    let pdf = strict(&src);
    let mut u = pdf.update();
    // Page 10 gets a new rotation and a new annotation object.
    let mut annot = Dict::new();
    annot.insert(b"Type".to_vec(), Object::Name(b"Annot".to_vec()));
    annot.insert(b"Subtype".to_vec(), Object::Name(b"Text".to_vec()));
    let a = u.add_object(Object::Dict(annot));
    let Object::Dict(mut page) = pdf.object(ObjRef::new(10, 0)).unwrap() else {
        panic!()
    };
    page.insert(b"Rotate".to_vec(), Object::Int(270));
    page.insert(b"Annots".to_vec(), Object::Array(vec![Object::Ref(a)]));
    page.insert(b"Contents".to_vec(), Object::Ref(ObjRef::new(30, 0)));
    u.set_object(ObjRef::new(10, 0), Object::Dict(page));
    // Rewrite stream 30 (copied from the file) and add a new stream.
    let s30 = pdf.object(ObjRef::new(30, 0)).unwrap();
    u.set_object(ObjRef::new(30, 0), s30);
    let mut sd = Dict::new();
    sd.insert(b"Filter".to_vec(), Object::Name(b"FlateDecode".to_vec()));
    let s = u.add_stream(sd, zlib(b"new content"));
    assert!(a.num >= 31 && s.num == a.num + 1);
    let out = d.join("out.pdf");
    u.write_to(&out).unwrap();
    let again = strict(&out);
    let pages = again.pages().unwrap();
    assert_eq!(pages[0].rotate, 270);
    let Object::Stream(st) = again.object(ObjRef::new(30, 0)).unwrap() else {
        panic!()
    };
    assert_eq!(
        again.stream_data(&st, true).unwrap(),
        b"BT /F1 12 Tf (hi) Tj ET"
    );
    let Object::Stream(st) = again.object(s).unwrap() else {
        panic!()
    };
    assert_eq!(again.stream_data(&st, true).unwrap(), b"new content");
    assert!(
        again
            .object(a)
            .unwrap()
            .as_dict()
            .unwrap()
            .is_type(b"Annot")
    );
    let size = again.trailer().int(b"Size").unwrap();
    assert!(size > i64::from(s.num));
    qpdf_check(&out);
}

#[test]
fn update_creates_info_when_missing_and_in_place_truncates_back() {
    let d = dir("inplace");
    let bytes = build("1.4", &[Rev::new(Xref::Table, doc(2))]);
    let src = d.join("noinfo.pdf");
    std::fs::write(&src, &bytes).unwrap();
    let pdf = strict(&src);
    assert!(pdf.info().unwrap().is_empty());
    let mut u = pdf.update();
    u.set_info("Title", "Fresh");
    let rep = u.write_in_place().unwrap();
    assert!(rep.in_place && rep.copy.is_none());
    assert!(rep.appended < 64 << 10);
    drop(pdf);
    let again = strict(&src);
    assert_eq!(info(&again, "Title").as_deref(), Some("Fresh"));
    assert_eq!(again.revisions().len(), 2);
    qpdf_check(&src);
    // Truncating to the original length gives the original back exactly.
    let f = std::fs::OpenOptions::new().write(true).open(&src).unwrap();
    f.set_len(bytes.len() as u64).unwrap();
    drop(f);
    assert_eq!(std::fs::read(&src).unwrap(), bytes);
}

#[test]
fn refusals() {
    let d = dir("refuse");
    let src = d.join("a.pdf");
    let bytes = simple(Xref::Table, 2);
    std::fs::write(&src, &bytes).unwrap();
    let pdf = strict(&src);
    // Nothing to do.
    assert_eq!(
        pdf.update().write_to(d.join("x.pdf")).unwrap_err().kind(),
        ErrorKind::Usage
    );
    // The file changed since it was opened: refused, not touched.
    let mut longer = bytes.clone();
    longer.extend_from_slice(b"% appended by someone else\n");
    std::fs::write(&src, &longer).unwrap();
    let mut u = pdf.update();
    u.set_info("Title", "x");
    assert!(u.write_in_place().is_err());
    assert_eq!(std::fs::read(&src).unwrap(), longer);
    assert!(u.write_to(d.join("y.pdf")).is_err());
    assert!(!d.join("y.pdf").exists());
    // In-memory documents cannot be updated in place (no file).
    let mem = Pdf::from_bytes(bytes.clone(), &PdfOptions::new()).unwrap();
    let mut u = mem.update();
    u.set_info("Title", "x");
    assert_eq!(u.write_in_place().unwrap_err().kind(), ErrorKind::Usage);
    // ... but can be written to a file.
    u.write_to(d.join("mem.pdf")).unwrap();
    assert_eq!(
        info(&strict(&d.join("mem.pdf")), "Title").as_deref(),
        Some("x")
    );
    // A repaired file: refused (the update would chain to broken data).
    let broken = String::from_utf8_lossy(&bytes).replace("startxref\n", "startxref\n9");
    let bad = Pdf::from_bytes(broken.into_bytes(), &PdfOptions::new()).unwrap();
    assert!(bad.was_repaired());
    let mut u = bad.update();
    u.set_info("Title", "x");
    assert_eq!(u.to_bytes().unwrap_err().kind(), ErrorKind::Unsupported);
    // Encrypted: refused.
    let enc = build(
        "1.4",
        &[{
            let mut r = Rev::new(Xref::Table, doc(1));
            r.objects.push(obj(
                50,
                "<< /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >>",
            ));
            r.trailer = "/Encrypt 50 0 R".into();
            r
        }],
    );
    let e = Pdf::from_bytes(enc, &PdfOptions::new().allow_encrypted(true)).unwrap();
    let mut u = e.update();
    u.set_info("Title", "x");
    assert_eq!(u.to_bytes().unwrap_err().kind(), ErrorKind::Encrypted);
    assert_eq!(
        e.rewrite(d.join("enc.pdf"), &RewriteOptions::default())
            .unwrap_err()
            .kind(),
        ErrorKind::Encrypted
    );
}

/// The file is the original, or the original plus one whole revision that
/// opens with the new Title.
fn original_or_one_more(path: &Path, original: &[u8], rev_len: u64, what: &str) -> bool {
    let got = std::fs::read(path).unwrap();
    if got == original {
        return false;
    }
    assert_eq!(&got[..original.len()], original, "{what}: prefix changed");
    assert_eq!(
        got.len() as u64,
        original.len() as u64 + rev_len,
        "{what}: partial revision"
    );
    let pdf = Pdf::open(path, &PdfOptions::new().strict(true)).unwrap();
    assert_eq!(info(&pdf, "Title").as_deref(), Some("Injected"), "{what}");
    true
}

#[test]
fn injected_failures_leave_the_original_or_one_whole_revision() {
    let d = dir("faults");
    for (name, bytes) in fixtures() {
        let src = d.join(format!("{name}.pdf"));
        let rev_len = {
            std::fs::write(&src, &bytes).unwrap();
            let pdf = strict(&src);
            let mut u = pdf.update();
            u.set_info("Title", "Injected");
            u.to_bytes().unwrap().len() as u64
        };
        let mut cases: Vec<(String, Faults)> = Vec::new();
        for n in [0, 1, 7, rev_len / 2, rev_len - 1] {
            cases.push((
                format!("fail after {n}"),
                Faults {
                    fail_after: Some(n),
                    ..Faults::default()
                },
            ));
            cases.push((
                format!("disk full after {n}"),
                Faults {
                    disk_full_after: Some(n),
                    ..Faults::default()
                },
            ));
        }
        for s in Step::ALL {
            cases.push((
                format!("fail at {s:?}"),
                Faults {
                    fail_at: Some(s),
                    ..Faults::default()
                },
            ));
            cases.push((
                format!("killed after {s:?}"),
                Faults {
                    stop_after: Some(s),
                    ..Faults::default()
                },
            ));
        }
        for in_place in [false, true] {
            for (what, f) in &cases {
                let what = format!(
                    "{name} {} {what}",
                    if in_place { "in place" } else { "copy" }
                );
                std::fs::write(&src, &bytes).unwrap();
                let pdf = strict(&src);
                let mut u = pdf.update();
                u.set_info("Title", "Injected");
                let target = if in_place { None } else { Some(src.as_path()) };
                let r = u.write_with_faults(target, f);
                drop(pdf);
                let updated = original_or_one_more(&src, &bytes, rev_len, &what);
                match &r {
                    Ok(_) => assert!(updated, "{what}: success without the revision"),
                    Err(e) => {
                        assert_eq!(e.kind(), ErrorKind::Io, "{what}: {e}");
                        if f.disk_full_after.is_some() {
                            assert!(e.to_string().contains("no space"), "{what}: {e}");
                        }
                        // Failures (not kills) never leave the revision,
                        // except past the rename (the point of no return).
                        let committed = !in_place && f.fail_at == Some(Step::Renamed);
                        if f.stop_after.is_none() && !committed {
                            assert!(!updated, "{what}: failed but updated");
                        }
                    }
                }
                // Nothing else is left in the folder but stray temporary
                // files of simulated kills.
                for entry in std::fs::read_dir(&d).unwrap() {
                    let p = entry.unwrap().path();
                    let n = p.file_name().unwrap().to_string_lossy().into_owned();
                    if n.contains("ream-tmp") {
                        assert!(f.stop_after.is_some(), "{what}: temp file left: {n}");
                        std::fs::remove_file(&p).unwrap();
                    }
                }
            }
        }
    }
}

#[test]
fn rewrite_keeps_pages_info_and_boxes() {
    let d = dir("rewrite");
    for (name, bytes) in fixtures() {
        let src = d.join(format!("{name}.pdf"));
        std::fs::write(&src, &bytes).unwrap();
        let pdf = strict(&src);
        let pages = pdf.pages().unwrap();
        let info0 = pdf.info().unwrap();
        for (tag, opts) in [
            ("plain", RewriteOptions::default()),
            (
                "objstm",
                RewriteOptions {
                    object_streams: true,
                    objects_per_stream: 2,
                    ..RewriteOptions::default()
                },
            ),
            (
                "direct",
                RewriteOptions {
                    direct_io: true,
                    buffer_size: 4096,
                    ..RewriteOptions::default()
                },
            ),
        ] {
            let out = d.join(format!("{name}-{tag}.pdf"));
            let rep = pdf.rewrite(&out, &opts).unwrap();
            assert_eq!(rep.bytes, std::fs::metadata(&out).unwrap().len());
            let again = strict(&out);
            assert_eq!(
                again.page_count().unwrap(),
                pages.len() as u64,
                "{name} {tag}"
            );
            assert_eq!(
                shape(&again.pages().unwrap()),
                shape(&pages),
                "{name} {tag}"
            );
            assert_eq!(again.info().unwrap(), info0, "{name} {tag}");
            assert_eq!(again.revisions().len(), 1);
            assert!(again.warnings().is_empty(), "{:?}", again.warnings());
            let want = if opts.object_streams {
                XrefKind::Stream
            } else {
                XrefKind::Table
            };
            assert_eq!(again.revisions()[0].kind, want);
            if opts.object_streams {
                assert!(rep.object_streams >= 1);
            }
            // Compact: object numbers 1..=objects (+ containers, xref).
            assert!(again.object_numbers().iter().all(|&n| n >= 1));
            assert_eq!(again.object_numbers()[0], 1);
            qpdf_check(&out);
        }
    }
}

#[test]
fn rewrite_drops_unreachable_objects_and_copies_big_streams() {
    let d = dir("compact");
    let mut objs = doc(2);
    // Unreachable junk, and a big stream referenced from page 10.
    objs.push(obj(90, "<< /Junk true >>"));
    let big: Vec<u8> = (0..3_000_000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    objs.push(stream(91, "/Type /XObject /Subtype /Image /Width 1000 /Height 3000 /BitsPerComponent 8 /ColorSpace /DeviceGray", &big));
    objs.retain(|o| o.num != 10);
    objs.push(obj(
        10,
        "<< /Type /Page /Parent 2 0 R /Resources << /XObject << /Im1 91 0 R >> >> >>",
    ));
    let mut r = Rev::new(Xref::Table, objs);
    r.trailer = "/Info 3 0 R".into();
    let src = d.join("in.pdf");
    std::fs::write(&src, build("1.4", &[r])).unwrap();
    let pdf = strict(&src);
    let out = d.join("out.pdf");
    let rep = pdf
        .rewrite(
            &out,
            &RewriteOptions {
                buffer_size: 1 << 20,
                ..RewriteOptions::default()
            },
        )
        .unwrap();
    assert_eq!(rep.streams, 1);
    assert!(rep.writes >= 3, "{rep:?}");
    let again = strict(&out);
    assert_eq!(again.object_numbers().len() as u64, rep.objects);
    assert!(rep.objects < pdf.object_numbers().len() as u64);
    // The image kept its bytes.
    let pages = again.pages().unwrap();
    let Object::Dict(p) = again.object(pages[0].object.unwrap()).unwrap() else {
        panic!()
    };
    let res = again.resolve(p.get(b"Resources").unwrap()).unwrap();
    let xo = again
        .resolve(res.as_dict().unwrap().get(b"XObject").unwrap())
        .unwrap();
    let im = again
        .resolve(xo.as_dict().unwrap().get(b"Im1").unwrap())
        .unwrap();
    assert_eq!(
        again.stream_data(im.as_stream().unwrap(), false).unwrap(),
        big
    );
    qpdf_check(&out);
}

/// Every corpus PDF that opens cleanly (no repair, not encrypted) survives
/// an incremental update (in memory) and a full rewrite with the same
/// pages, boxes and Info. Skips when the corpus is absent.
#[test]
fn corpus_round_trip() {
    let corpus = match std::env::var_os("REAM_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    let Ok(rd) = std::fs::read_dir(corpus.join("pdf")) else {
        eprintln!("corpus_round_trip: corpus not found; skipped");
        return;
    };
    let mut files: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pdf"))
        .collect();
    files.sort();
    let d = dir("corpus");
    let (mut tried, mut failed) = (0, Vec::new());
    let opts = PdfOptions::new();
    for f in &files {
        let Ok(pdf) = Pdf::open(f, &opts) else {
            continue;
        };
        let (Ok(pages), Ok(info0)) = (pdf.pages(), pdf.info()) else {
            continue;
        };
        if pdf.was_repaired() || pdf.newest_xref().is_none() {
            continue;
        }
        tried += 1;
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let mut u = pdf.update();
        u.set_info("Title", "ream round trip");
        let check = |what: &str, p: &Pdf, title: Option<&str>| -> Result<(), String> {
            let got = p.pages().map_err(|e| format!("{what}: pages: {e}"))?;
            if shape(&got) != shape(&pages) {
                return Err(format!("{what}: pages differ"));
            }
            let mut want = info0.clone();
            if title.is_some() {
                want.retain(|(k, _)| k != "Title");
            }
            let mut have = p.info().map_err(|e| format!("{what}: info: {e}"))?;
            if title.is_some() {
                let t = have
                    .iter()
                    .find(|(k, _)| k == "Title")
                    .map(|(_, v)| v.to_string());
                if t.as_deref() != title {
                    return Err(format!("{what}: title {t:?}"));
                }
                have.retain(|(k, _)| k != "Title");
            }
            if have != want {
                return Err(format!("{what}: info differs"));
            }
            Ok(())
        };
        let r = (|| -> Result<(), String> {
            let tail = u.to_bytes().map_err(|e| format!("update: {e}"))?;
            let mut all = std::fs::read(f).unwrap();
            all.extend_from_slice(&tail);
            let up =
                Pdf::from_bytes(all, &PdfOptions::new()).map_err(|e| format!("reopen: {e}"))?;
            if up.was_repaired() {
                return Err(format!("updated file needed repair: {:?}", up.warnings()));
            }
            check("update", &up, Some("ream round trip"))?;
            let out = d.join("rw.pdf");
            for objstm in [false, true] {
                let o = RewriteOptions {
                    object_streams: objstm,
                    sync: false,
                    ..RewriteOptions::default()
                };
                pdf.rewrite(&out, &o).map_err(|e| format!("rewrite: {e}"))?;
                let rw = Pdf::open(&out, &PdfOptions::new())
                    .map_err(|e| format!("reopen rewrite: {e}"))?;
                if rw.was_repaired() {
                    return Err(format!("rewrite needed repair: {:?}", rw.warnings()));
                }
                check(if objstm { "rewrite objstm" } else { "rewrite" }, &rw, None)?;
            }
            Ok(())
        })();
        if let Err(e) = r {
            failed.push(format!("{name}: {e}"));
        }
    }
    eprintln!("corpus_round_trip: {tried} files, {} failed", failed.len());
    assert!(tried > 0);
    assert!(
        failed.is_empty(),
        "{} of {tried} failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
