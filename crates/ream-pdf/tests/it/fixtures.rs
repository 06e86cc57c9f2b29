//! Well-formed files of every xref kind, built by `writer.rs`.

use crate::writer::{Rev, Xref, build, doc, obj, simple, stream, zlib};
use ream_pdf::{InfoValue, ObjRef, Object, Pdf, PdfOptions, XrefEntry, XrefKind};

pub fn open(bytes: Vec<u8>) -> Pdf {
    Pdf::from_bytes(bytes, &PdfOptions::new()).unwrap()
}

fn text(v: &InfoValue) -> String {
    v.to_string()
}

/// The checks every variant of `doc(3)` must pass.
fn check_doc3(pdf: &Pdf) {
    assert_eq!(pdf.version(), "1.7");
    assert_eq!(pdf.page_count().unwrap(), 3);
    let pages = pdf.pages().unwrap();
    assert_eq!(pages.len(), 3);
    assert_eq!(pages[0].object, Some(ObjRef::new(10, 0)));
    assert_eq!(pages[0].media_box, Some([0.0, 0.0, 100.0, 200.0]));
    assert_eq!(pages[0].rotate, 90);
    assert_eq!(pages[2].media_box, Some([0.0, 0.0, 612.0, 792.0]));
    assert_eq!(pages[2].rotate, 180);
    let info = pdf.info().unwrap();
    let get = |k: &str| {
        info.iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    assert_eq!(text(&get("Title")), "Caf\u{e9} \u{2022} report");
    assert_eq!(get("Author"), InfoValue::Text("\u{141}od\u{17a}".into()));
    assert_eq!(get("Trapped"), InfoValue::Name("False".into()));
    assert!(pdf.warnings().is_empty(), "{:?}", pdf.warnings());
    assert!(!pdf.was_repaired());
}

#[test]
fn classic_table() {
    let pdf = open(simple(Xref::Table, 3));
    check_doc3(&pdf);
    let revs = pdf.revisions();
    assert_eq!(revs.len(), 1);
    assert_eq!(revs[0].kind, XrefKind::Table);
    assert_eq!(revs[0].start, 0);
    assert_eq!(revs[0].end, pdf.len());
    assert_eq!(revs[0].objects, 6);
}

#[test]
fn xref_stream_with_object_stream() {
    // Pages and Info packed into object stream 20; catalog and the first
    // page stay plain.
    let all = doc(3);
    let (plain, packed): (Vec<_>, Vec<_>) =
        all.into_iter().partition(|o| o.num == 1 || o.num == 10);
    let mut r = Rev::new(Xref::Stream, plain);
    r.packed = packed;
    r.objstm = 20;
    r.trailer = "/Info 3 0 R".into();
    let pdf = open(build("1.7", &[r]));
    check_doc3(&pdf);
    assert_eq!(
        pdf.xref_entry(2),
        Some(XrefEntry::InStream {
            stream: 20,
            index: 0
        })
    );
    assert_eq!(pdf.revisions()[0].kind, XrefKind::Stream);
    let (hits, misses) = pdf.objstm_cache_stats();
    assert_eq!(misses, 1, "the object stream is decoded once");
    assert!(hits >= 3);
}

#[test]
fn hybrid_file() {
    let all = doc(3);
    let (plain, packed): (Vec<_>, Vec<_>) =
        all.into_iter().partition(|o| o.num != 11 && o.num != 12);
    let mut r = Rev::new(Xref::Hybrid, plain);
    r.packed = packed;
    r.objstm = 20;
    r.trailer = "/Info 3 0 R".into();
    let pdf = open(build("1.7", &[r]));
    check_doc3(&pdf);
    assert_eq!(pdf.revisions()[0].kind, XrefKind::Hybrid);
    assert_eq!(
        pdf.xref_entry(12),
        Some(XrefEntry::InStream {
            stream: 20,
            index: 1
        })
    );
}

#[test]
fn incremental_updates_newest_wins() {
    let mut r1 = Rev::new(Xref::Table, doc(2));
    r1.trailer = "/Info 3 0 R".into();
    // Update 1 (xref stream): new Info, page 11 freed, a third page added.
    let mut r2 = Rev::new(
        Xref::Stream,
        vec![
            obj(3, "<< /Title (Second) >>"),
            obj(
                2,
                "<< /Type /Pages /Kids [10 0 R 12 0 R 13 0 R] /Count 3 /MediaBox [0 0 1 1] >>",
            ),
            obj(12, "<< /Type /Page /Parent 2 0 R >>"),
            obj(13, "<< /Type /Page /Parent 2 0 R >>"),
        ],
    );
    r2.freed = vec![11];
    r2.trailer = "/Info 3 0 R".into();
    // Update 2 (table): only a new Info.
    let mut r3 = Rev::new(Xref::Table, vec![obj(3, "<< /Title (Third) >>")]);
    r3.trailer = "/Info 3 0 R".into();
    let bytes = build("1.4", &[r1, r2, r3]);
    let pdf = open(bytes.clone());
    assert_eq!(pdf.page_count().unwrap(), 3);
    assert_eq!(pdf.pages().unwrap().len(), 3);
    assert_eq!(
        pdf.info().unwrap(),
        vec![("Title".to_string(), InfoValue::Text("Third".into()))]
    );
    assert_eq!(pdf.object(ObjRef::new(11, 0)).unwrap(), Object::Null);
    let revs = pdf.revisions();
    assert_eq!(
        revs.iter().map(|r| r.kind).collect::<Vec<_>>(),
        [XrefKind::Table, XrefKind::Stream, XrefKind::Table]
    );
    assert_eq!(
        revs.iter().map(|r| r.objects).collect::<Vec<_>>(),
        [5, 6, 1]
    );
    assert_eq!(revs[2].end, bytes.len() as u64);
    for w in revs.windows(2) {
        assert_eq!(w[0].end, w[1].start);
    }
    // Cutting the file at a revision's end gives that revision back.
    let first = open(bytes[..revs[0].end as usize].to_vec());
    assert_eq!(first.page_count().unwrap(), 2);
    assert_eq!(
        first.info().unwrap()[0].1,
        InfoValue::Text("Caf\u{e9} \u{2022} report".into())
    );
}

#[test]
fn streams_raw_and_decoded_through_every_filter() {
    let payload: Vec<u8> = (0..5000u32)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .collect();
    let hex: Vec<u8> = zlib(&payload)
        .iter()
        .flat_map(|b| format!("{b:02x}").into_bytes())
        .chain(*b">")
        .collect();
    let lzw = weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8)
        .encode(&payload)
        .unwrap();
    let rl: Vec<u8> = payload
        .chunks(100)
        .flat_map(|c| std::iter::once((c.len() - 1) as u8).chain(c.iter().copied()))
        .chain([128])
        .collect();
    let mut objs = doc(1);
    objs.push(stream(30, "/Filter [/AHx /Fl]", &hex));
    objs.push(stream(31, "/Filter /LZWDecode", &lzw));
    objs.push(stream(32, "/Filter /RunLengthDecode", &rl));
    objs.push(stream(
        33,
        "/Filter [/FlateDecode /DCTDecode]",
        &zlib(b"\xff\xd8jpeg"),
    ));
    objs.push(obj(34, "<< /Type /Metadata >>"));
    objs.push(stream(35, "/Type /Metadata /Subtype /XML", b"<x:xmpmeta/>"));
    objs[0] = obj(1, "<< /Type /Catalog /Pages 2 0 R /Metadata 35 0 R >>");
    let pdf = open(build("1.5", &[Rev::new(Xref::Table, objs)]));
    for n in [30, 31, 32] {
        let Object::Stream(s) = pdf.object(ObjRef::new(n, 0)).unwrap() else {
            panic!()
        };
        assert_eq!(pdf.stream_data(&s, true).unwrap(), payload, "object {n}");
    }
    let Object::Stream(s) = pdf.object(ObjRef::new(33, 0)).unwrap() else {
        panic!()
    };
    assert_eq!(pdf.stream_data(&s, true).unwrap(), b"\xff\xd8jpeg");
    assert_eq!(pdf.stream_data(&s, false).unwrap(), zlib(b"\xff\xd8jpeg"));
    assert_eq!(pdf.xmp().unwrap().unwrap(), b"<x:xmpmeta/>");
    assert!(pdf.warnings().is_empty());
}

#[test]
fn indirect_length_and_object_syntax() {
    let mut objs = doc(1);
    objs.push(obj(40, "<< /Length 41 0 R >>\nstream\nabcdef\nendstream"));
    objs.push(obj(41, "6"));
    objs.push(obj(
        42,
        "[1 -2.5 (a\\)b) <00ff> /N#20x true null 7 0 R << /K [] >>]",
    ));
    let pdf = open(build("1.7", &[Rev::new(Xref::Table, objs)]));
    let Object::Stream(s) = pdf.object(ObjRef::new(40, 0)).unwrap() else {
        panic!()
    };
    assert_eq!(pdf.stream_data(&s, false).unwrap(), b"abcdef");
    let o = pdf.object(ObjRef::new(42, 0)).unwrap();
    assert_eq!(
        o.to_string(),
        "[1 -2.5 (a\\)b) <00FF> /N#20x true null 7 0 R << /K [] >>]"
    );
}
