//! One test per `PdfLimits` field (LIMITS.md names them): each limit,
//! lowered, stops a file that exceeds it with a `LimitExceeded` error (or,
//! for the cache and warning bounds, bounds what is kept).

use crate::writer::{Rev, Xref, build, doc, obj, simple};
use ream_pdf::{ErrorKind, ObjRef, Pdf, PdfLimits, PdfOptions};

fn with(bytes: Vec<u8>, limits: PdfLimits) -> ream_pdf::Result<Pdf> {
    Pdf::from_bytes(bytes, &PdfOptions::new().limits(limits))
}

fn limit_err(e: &ream_pdf::Error, name: &str) {
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert!(e.message().contains(name), "{e}");
}

#[test]
fn defaults_are_documented_values() {
    let d = PdfLimits::default();
    assert_eq!(d.max_decoded_stream, 256 << 20);
    assert_eq!(d.max_nesting, 256);
    assert_eq!(d.max_object_bytes, 64 << 20);
    assert_eq!(d.max_objects, 10_000_000);
    assert_eq!(d.max_revisions, 10_000);
    assert_eq!(d.max_objstm_objects, 1_000_000);
    assert_eq!(d.objstm_cache_bytes, 64 << 20);
    assert_eq!(d.objstm_cache_streams, 256);
    assert_eq!(d.max_page_depth, 256);
    assert_eq!(d.max_pages, 10_000_000);
    assert_eq!(d.max_warnings, 1_000);
}

#[test]
fn max_object_bytes() {
    let mut objs = doc(1);
    objs.push(obj(30, &format!("({})", "x".repeat(200_000))));
    let lim = PdfLimits::default().max_object_bytes(50_000);
    let pdf = with(build("1.7", &[Rev::new(Xref::Table, objs)]), lim).unwrap();
    limit_err(
        &pdf.object(ObjRef::new(30, 0)).unwrap_err(),
        "max_object_bytes",
    );
    assert_eq!(pdf.page_count().unwrap(), 1);
}

#[test]
fn max_objects() {
    let lim = PdfLimits::default().max_objects(3);
    for xref in [Xref::Table, Xref::Stream] {
        let bytes = simple(xref, 5);
        let strict = Pdf::from_bytes(bytes.clone(), &PdfOptions::new().strict(true).limits(lim));
        limit_err(&strict.unwrap_err(), "max_objects");
        // Lenient: no repair around the limit either.
        limit_err(&with(bytes.clone(), lim).unwrap_err(), "max_objects");
        // And a repair scan of a file without xref stops at the limit.
        let broken = String::from_utf8_lossy(&bytes).replace("startxref", "startxrex");
        limit_err(&with(broken.into_bytes(), lim).unwrap_err(), "max_objects");
    }
}

#[test]
fn max_revisions() {
    let mut revs = vec![{
        let mut r = Rev::new(Xref::Table, doc(1));
        r.trailer = "/Info 3 0 R".into();
        r
    }];
    for i in 0..5 {
        let mut r = Rev::new(Xref::Table, vec![obj(3, &format!("<< /Title (v{i}) >>"))]);
        r.trailer = "/Info 3 0 R".into();
        revs.push(r);
    }
    let lim = PdfLimits::default().max_revisions(2);
    let pdf = with(build("1.7", &revs), lim).unwrap();
    assert!(
        pdf.warnings()
            .iter()
            .any(|w| w.message.contains("max_revisions")),
        "{:?}",
        pdf.warnings()
    );
    assert!(pdf.revisions().len() <= 2);
}

/// Page tree and Info in one object stream of 5 objects.
fn packed() -> Vec<u8> {
    let all = doc(3);
    let (plain, packed): (Vec<_>, Vec<_>) =
        all.into_iter().partition(|o| o.num == 1 || o.num == 10);
    let mut r = Rev::new(Xref::Stream, plain);
    r.packed = packed;
    r.objstm = 20;
    r.trailer = "/Info 3 0 R".into();
    build("1.7", &[r])
}

#[test]
fn max_objstm_objects() {
    let lim = PdfLimits::default().max_objstm_objects(2);
    let pdf = Pdf::from_bytes(packed(), &PdfOptions::new().strict(true).limits(lim));
    match pdf {
        Err(e) => limit_err(&e, "max_objstm_objects"),
        Ok(p) => limit_err(
            &p.object(ObjRef::new(2, 0)).unwrap_err(),
            "max_objstm_objects",
        ),
    }
}

#[test]
fn objstm_cache_streams_and_bytes() {
    // Two object streams, read alternately: a one-stream cache (by count
    // or by bytes) decodes on every switch, the default cache once each.
    let all = doc(4);
    let (plain, rest): (Vec<_>, Vec<_>) = all.into_iter().partition(|o| o.num == 1);
    let (a, b): (Vec<_>, Vec<_>) = rest.into_iter().partition(|o| o.num % 2 == 0);
    let mut r1 = Rev::new(Xref::Stream, plain);
    r1.packed = a;
    r1.objstm = 20;
    r1.trailer = "/Info 3 0 R".into();
    let mut r2 = Rev::new(Xref::Stream, Vec::new());
    r2.packed = b;
    r2.objstm = 21;
    r2.trailer = "/Info 3 0 R".into();
    let bytes = build("1.7", &[r1, r2]);
    let walk = |lim: PdfLimits| {
        let pdf = with(bytes.clone(), lim).unwrap();
        for _ in 0..3 {
            for n in [2, 3, 10, 11, 12, 13] {
                pdf.object(ObjRef::new(n, 0)).unwrap();
            }
        }
        assert_eq!(pdf.pages().unwrap().len(), 4);
        pdf.objstm_cache_stats().1
    };
    let default = walk(PdfLimits::default());
    assert_eq!(default, 2);
    let by_count = walk(PdfLimits::default().objstm_cache_streams(1));
    let by_bytes = walk(PdfLimits::default().objstm_cache_bytes(1));
    assert!(by_count > default + 4, "{by_count}");
    assert!(by_bytes > default + 4, "{by_bytes}");
}

#[test]
fn max_page_depth() {
    // A chain of 10 /Pages nodes above one page.
    let mut objs = vec![obj(1, "<< /Type /Catalog /Pages 100 0 R >>")];
    for d in 0..10 {
        let kid = if d == 9 { 10 } else { 101 + d };
        objs.push(obj(
            100 + d,
            &format!("<< /Type /Pages /Kids [{kid} 0 R] /Count 1 >>"),
        ));
    }
    objs.push(obj(10, "<< /Type /Page /Parent 109 0 R >>"));
    let bytes = build("1.7", &[Rev::new(Xref::Table, objs)]);
    let lim = PdfLimits::default().max_page_depth(5);
    limit_err(
        &with(bytes.clone(), lim).unwrap().pages().unwrap_err(),
        "max_page_depth",
    );
    assert_eq!(
        with(bytes, PdfLimits::default())
            .unwrap()
            .pages()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn max_pages() {
    let lim = PdfLimits::default().max_pages(5);
    let pdf = with(simple(Xref::Table, 10), lim).unwrap();
    limit_err(&pdf.pages().unwrap_err(), "max_pages");
    // The trusted count does not walk.
    assert_eq!(pdf.page_count().unwrap(), 10);
}

#[test]
fn max_warnings() {
    // 20 pages each listed twice: 20 distinct warnings.
    let mut objs = vec![obj(1, "<< /Type /Catalog /Pages 2 0 R >>")];
    let kids: Vec<String> = (0..20)
        .map(|i| format!("{} 0 R {} 0 R", 10 + i, 10 + i))
        .collect();
    objs.push(obj(
        2,
        &format!("<< /Type /Pages /Kids [{}] /Count 40 >>", kids.join(" ")),
    ));
    for i in 0..20 {
        objs.push(obj(10 + i, "<< /Type /Page /Parent 2 0 R >>"));
    }
    let bytes = build("1.7", &[Rev::new(Xref::Table, objs)]);
    let lim = PdfLimits::default().max_warnings(5);
    let pdf = with(bytes.clone(), lim).unwrap();
    assert_eq!(pdf.pages().unwrap().len(), 40);
    let w = pdf.warnings();
    assert_eq!(w.len(), 6, "{w:?}");
    assert!(w[5].message.contains("more warnings not kept"), "{w:?}");
    let all = with(bytes, PdfLimits::default()).unwrap();
    all.pages().unwrap();
    assert_eq!(all.warnings().len(), 20);
}
