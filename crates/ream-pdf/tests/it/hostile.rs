//! Hostile inputs: each gives a clear error or a warned repair, in
//! bounded time and memory.

use crate::fixtures::open;
use crate::writer::{Rev, Xref, build, doc, obj, simple, stream, zlib};
use ream_pdf::{ErrorKind, ObjRef, Object, Pdf, PdfLimits, PdfOptions};

fn lenient(bytes: Vec<u8>) -> ream_pdf::Result<Pdf> {
    Pdf::from_bytes(bytes, &PdfOptions::new())
}

fn strict(bytes: Vec<u8>) -> ream_pdf::Result<Pdf> {
    Pdf::from_bytes(bytes, &PdfOptions::new().strict(true))
}

fn has_warning(pdf: &Pdf, needle: &str) -> bool {
    pdf.warnings().iter().any(|w| w.message.contains(needle))
}

/// Touches everything a reader would.
fn exercise(pdf: &Pdf) {
    let _ = pdf.page_count();
    let _ = pdf.pages();
    let _ = pdf.info();
    let _ = pdf.xmp();
    for n in pdf.object_numbers() {
        if let Ok(Object::Stream(s)) = pdf.object(ObjRef::new(n, 0)) {
            let _ = pdf.stream_data(&s, true);
        }
    }
}

fn replace(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    let i = bytes
        .windows(from.len())
        .rposition(|w| w == from.as_bytes())
        .unwrap();
    [&bytes[..i], to.as_bytes(), &bytes[i + from.len()..]].concat()
}

#[test]
fn truncation_at_every_point_never_panics() {
    for xref in [Xref::Table, Xref::Stream] {
        let all = doc(3);
        let (plain, packed): (Vec<_>, Vec<_>) =
            all.into_iter().partition(|o| o.num == 1 || o.num == 10);
        let mut r = Rev::new(xref, plain);
        if xref == Xref::Stream {
            r.packed = packed;
            r.objstm = 20;
        } else {
            r.objects.extend(packed);
        }
        r.trailer = "/Info 3 0 R".into();
        let bytes = build("1.7", &[r]);
        for cut in (0..bytes.len()).step_by(3) {
            if let Ok(pdf) = lenient(bytes[..cut].to_vec()) {
                exercise(&pdf);
            }
            let _ = strict(bytes[..cut].to_vec());
        }
    }
}

#[test]
fn startxref_pointing_at_garbage_is_repaired() {
    let bytes = simple(Xref::Table, 2);
    let xref_at = String::from_utf8_lossy(&bytes).rfind("xref\n0 1").unwrap();
    let bad = replace(&bytes, &format!("startxref\n{xref_at}"), "startxref\n77");
    let pdf = lenient(bad.clone()).unwrap();
    assert!(pdf.was_repaired());
    assert!(has_warning(&pdf, "rebuilt by scanning"));
    assert_eq!(pdf.pages().unwrap().len(), 2);
    assert_eq!(pdf.info().unwrap().len(), 3);
    let e = strict(bad).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Malformed);
    assert!(e.offset().is_some());
}

#[test]
fn prev_cycle_is_a_warning() {
    let mut r1 = Rev::new(Xref::Table, doc(2));
    r1.trailer = "/Info 3 0 R".into();
    let r2 = Rev::new(Xref::Table, vec![obj(3, "<< /Title (New) >>")]);
    let bytes = build("1.7", &[r1, r2]);
    // Point the newest section's /Prev at itself.
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let newest = text.rfind("\nxref\n").unwrap() + 1;
    let prev = text.rfind("/Prev ").unwrap();
    let old: String = text[prev + 6..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let bad = replace(&bytes, &format!("/Prev {old}"), &format!("/Prev {newest}"));
    let pdf = lenient(bad).unwrap();
    assert!(has_warning(&pdf, "/Prev chain loops back"));
    assert_eq!(pdf.pages().unwrap().len(), 2);
    assert_eq!(pdf.info().unwrap()[0].1.to_string(), "New");
}

#[test]
fn bad_w_is_an_error_or_a_repair() {
    let bytes = simple(Xref::Stream, 2);
    let bad = replace(&bytes, "/W [1 4 2]", "/W [1 9 2]");
    let e = strict(bad.clone()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Malformed);
    assert!(e.message().contains("/W"), "{e}");
    let pdf = lenient(bad).unwrap();
    assert!(pdf.was_repaired());
    assert_eq!(pdf.pages().unwrap().len(), 2);
}

#[test]
fn object_stream_containing_itself() {
    // The xref stream says object stream 20 lives inside object stream 20.
    let all = doc(2);
    let (plain, packed): (Vec<_>, Vec<_>) = all.into_iter().partition(|o| o.num == 1);
    let mut r = Rev::new(Xref::Stream, plain);
    r.packed = packed;
    r.objstm = 20;
    let bytes = build("1.7", &[r]);
    // Rewrite the row of object 20 (type 1) into type 2 pointing at 20:
    // simpler to build the hostile xref by hand.
    let pdf = lenient(bytes.clone()).unwrap();
    assert_eq!(pdf.pages().unwrap().len(), 2);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let objstm_at = text.find("20 0 obj").unwrap();
    let mut hand = bytes[..text.find("21 0 obj").unwrap()].to_vec();
    let xref_at = hand.len();
    // W [1 2 1]: 0 free, 1 plain, 2..=11 in stream 20, 20 in stream 20.
    let mut rows = vec![0u8, 0, 0, 0, 1, 0, 0, 0];
    let one = text.find("1 0 obj").unwrap() as u16;
    rows[5..7].copy_from_slice(&one.to_be_bytes());
    for i in 0..3u8 {
        rows.extend_from_slice(&[2, 0, 20, i]);
    }
    rows.extend_from_slice(&[2, 0, 20, 0]);
    let _ = objstm_at;
    hand.extend_from_slice(
        format!("21 0 obj\n<< /Type /XRef /W [1 2 1] /Size 22 /Index [0 2 2 1 10 2 20 1] /Root 1 0 R /Length {} >>\nstream\n", rows.len()).as_bytes(),
    );
    hand.extend_from_slice(&rows);
    hand.extend_from_slice(
        format!("\nendstream\nendobj\nstartxref\n{xref_at}\n%%EOF\n").as_bytes(),
    );
    let pdf = strict(hand.clone()).unwrap();
    let e = pdf.object(ObjRef::new(2, 0)).unwrap_err();
    assert!(e.message().contains("object stream 20"), "{e}");
    assert!(pdf.pages().is_err());
    // Lenient: the scan finds object stream 20 in the file and recovers.
    let pdf = lenient(hand).unwrap();
    exercise(&pdf);
    assert_eq!(pdf.pages().unwrap().len(), 2);
}

#[test]
fn page_tree_cycle_is_bounded() {
    let objs = vec![
        obj(1, "<< /Type /Catalog /Pages 2 0 R >>"),
        obj(2, "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>"),
        obj(3, "<< /Type /Page /Parent 2 0 R >>"),
        obj(4, "<< /Type /Pages /Kids [2 0 R 4 0 R 3 0 R] /Count 1 >>"),
    ];
    let pdf = open(build("1.7", &[Rev::new(Xref::Table, objs)]));
    let pages = pdf.pages().unwrap();
    assert!(pages.len() <= 4, "{pages:?}");
    assert!(has_warning(&pdf, "page tree cycle"));
}

#[test]
fn count_that_lies() {
    let bytes = simple(Xref::Table, 2);
    let bad = replace(&bytes, "/Count 2", "/Count 9999999");
    let pdf = open(bad);
    assert_eq!(pdf.page_count().unwrap(), 9_999_999);
    assert_eq!(pdf.pages().unwrap().len(), 2);
    assert!(has_warning(
        &pdf,
        "root /Count says 9999999 pages, the page tree holds 2"
    ));
}

#[test]
fn length_beyond_eof() {
    let mut objs = doc(1);
    objs.push(obj(30, "<< /Length 999999 >>\nstream\nabc\nendstream"));
    let pdf = open(build("1.7", &[Rev::new(Xref::Table, objs.clone())]));
    let Object::Stream(s) = pdf.object(ObjRef::new(30, 0)).unwrap() else {
        panic!()
    };
    assert_eq!(pdf.stream_data(&s, false).unwrap(), b"abc");
    assert!(has_warning(&pdf, "/Length 999999 is wrong"));
    // Without endstream: a clear error.
    let bytes = build("1.7", &[Rev::new(Xref::Table, objs)]);
    let bad = replace(&bytes, "abc\nendstream", "abc\nendstrXam");
    let pdf = open(bad);
    let Object::Stream(s) = pdf.object(ObjRef::new(30, 0)).unwrap() else {
        panic!()
    };
    let e = pdf.stream_data(&s, false).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Malformed);
    assert!(e.message().contains("past the end"), "{e}");
}

#[test]
fn deeply_nested_arrays_hit_the_depth_limit() {
    let mut objs = doc(1);
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    objs.push(obj(30, &deep));
    let pdf = Pdf::from_bytes(
        build("1.7", &[Rev::new(Xref::Table, objs)]),
        &PdfOptions::new().strict(true),
    )
    .unwrap();
    let e = pdf.object(ObjRef::new(30, 0)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    assert!(e.message().contains("max_nesting"));
    assert_eq!(pdf.pages().unwrap().len(), 1);
}

#[test]
fn flate_bomb_hits_the_decode_budget() {
    let bomb = zlib(&vec![0u8; 50 << 20]);
    let mut objs = doc(1);
    objs.push(stream(30, "/Filter /FlateDecode", &bomb));
    let limits = PdfLimits::default().max_decoded_stream(1 << 20);
    let pdf = Pdf::from_bytes(
        build("1.7", &[Rev::new(Xref::Table, objs)]),
        &PdfOptions::new().limits(limits),
    )
    .unwrap();
    let Object::Stream(s) = pdf.object(ObjRef::new(30, 0)).unwrap() else {
        panic!()
    };
    let e = pdf.stream_data(&s, true).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    assert!(e.message().contains("max_decoded_stream"), "{e}");
    assert_eq!(pdf.stream_data(&s, false).unwrap().len(), bomb.len());
}

#[test]
fn missing_trailer_is_repaired() {
    let bytes = simple(Xref::Table, 3);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let cut = text.rfind("xref\n0 1").unwrap();
    let no_tail = bytes[..cut].to_vec();
    let pdf = lenient(no_tail.clone()).unwrap();
    assert!(pdf.was_repaired());
    assert!(has_warning(&pdf, "no startxref"));
    assert_eq!(pdf.pages().unwrap().len(), 3);
    assert!(pdf.revisions().is_empty());
    assert!(strict(no_tail).is_err());
}

#[test]
fn encrypted_is_refused_or_opened_for_structure() {
    let mut objs = doc(2);
    objs.push(obj(
        30,
        "<< /Filter /Standard /V 2 /R 3 /O (x) /U (y) /P -4 >>",
    ));
    let mut r = Rev::new(Xref::Table, objs);
    r.trailer = "/Info 3 0 R /Encrypt 30 0 R".into();
    let bytes = build("1.7", &[r]);
    assert_eq!(
        lenient(bytes.clone()).unwrap_err().kind(),
        ErrorKind::Encrypted
    );
    let pdf = Pdf::from_bytes(bytes, &PdfOptions::new().allow_encrypted(true)).unwrap();
    assert!(pdf.is_encrypted());
    assert_eq!(pdf.page_count().unwrap(), 2);
    assert_eq!(pdf.info().unwrap_err().kind(), ErrorKind::Encrypted);
}

#[test]
fn not_a_pdf() {
    assert_eq!(
        lenient(Vec::new()).unwrap_err().kind(),
        ErrorKind::Malformed
    );
    assert!(lenient(b"hello world, no objects here".to_vec()).is_err());
    assert!(lenient(vec![0xff; 10_000]).is_err());
}

#[test]
fn a_directory_is_called_a_directory() {
    let dir = std::env::temp_dir();
    for source in ["mmap", "window", "buffered", "pread"] {
        let opts = PdfOptions::new().source(source.parse().unwrap());
        let e = Pdf::open(&dir, &opts).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Io);
        assert_eq!(e.to_string(), "io: is a directory, not a PDF file");
    }
}
