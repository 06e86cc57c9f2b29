//! `Pdf::index_objects`: every object summarized, in parallel.

use crate::sources::temp;
use crate::writer::{Rev, Xref, build, doc, obj, stream, zlib};
use ream_pdf::{ObjKind, Pdf, PdfOptions, SourceKind};

/// 50 pages (30 packed into object stream 200), 4 Flate streams, an
/// array and a string; `/Info 3 0 R`.
fn file(xref: Xref) -> Vec<u8> {
    let mut objs = doc(50);
    for i in 0..4u32 {
        let data = zlib(format!("stream {i} data").repeat(50).as_bytes());
        objs.push(stream(100 + i, "/Type /Blob /Filter /FlateDecode", &data));
    }
    objs.push(obj(77, "[1 2 3]"));
    objs.push(obj(78, "(text)"));
    let (packed, plain): (Vec<_>, Vec<_>) = objs
        .into_iter()
        .partition(|o| xref != Xref::Table && (20..50).contains(&o.num));
    let mut r = Rev::new(xref, plain);
    r.packed = packed;
    r.objstm = 200;
    r.trailer = "/Info 3 0 R".into();
    build("1.7", &[r])
}

#[test]
fn threads_agree_and_counts_match() {
    for xref in [Xref::Table, Xref::Stream, Xref::Hybrid] {
        let pdf = Pdf::from_bytes(file(xref), &PdfOptions::new()).unwrap();
        let one = pdf.index_objects(1).unwrap();
        for t in [2, 4, 0] {
            let mut other = pdf.index_objects(t).unwrap();
            other.threads = one.threads;
            assert_eq!(one, other, "{xref:?} with {t} threads");
        }
        assert!(one.errors.is_empty(), "{:?}", one.errors);
        assert_eq!(one.objects.len(), pdf.object_numbers().len());
        let ty = |t: &str| one.by_type.get(t).copied().unwrap_or(0);
        assert_eq!(ty("Page"), 50);
        assert_eq!(ty("Pages"), 1);
        assert_eq!(ty("Catalog"), 1);
        assert_eq!(ty("Blob"), 4);
        let packed = xref != Xref::Table;
        assert_eq!(ty("ObjStm"), u64::from(packed));
        assert_eq!(one.object_streams, u64::from(packed));
        let in_stream = one.objects.iter().filter(|o| o.in_stream.is_some()).count();
        assert_eq!(in_stream, if packed { 30 } else { 0 });
        let blob = one.objects.iter().find(|o| o.num == 101).unwrap();
        assert_eq!(blob.kind, ObjKind::Stream);
        assert_eq!(blob.filters, vec!["FlateDecode".to_string()]);
        assert!(blob.length.is_some_and(|n| n > 0));
        let kinds: Vec<ObjKind> = [77, 78, 3]
            .iter()
            .map(|n| one.objects.iter().find(|o| o.num == *n).unwrap().kind)
            .collect();
        assert_eq!(kinds, [ObjKind::Array, ObjKind::String, ObjKind::Dict]);
    }
}

#[test]
fn every_source_gives_the_same_index() {
    let bytes = file(Xref::Stream);
    let path = temp("objindex.pdf", &bytes);
    let base = Pdf::from_bytes(bytes, &PdfOptions::new())
        .unwrap()
        .index_objects(1)
        .unwrap();
    for kind in SourceKind::ALL {
        let opts = PdfOptions::new().source(kind).window_size(4096);
        let pdf = Pdf::open(&path, &opts).unwrap();
        let mut ix = pdf.index_objects(3).unwrap();
        ix.threads = base.threads;
        assert_eq!(ix, base, "{kind:?}");
    }
}

#[test]
fn a_corrupt_object_is_an_error_entry() {
    // Object 77's header names another number; object stream 200's data
    // is garbage (same lengths, so the offsets stay right).
    let mut bytes = file(Xref::Stream);
    let at = bytes.windows(8).position(|w| w == b"77 0 obj").unwrap();
    bytes[at..at + 2].copy_from_slice(b"79");
    let mut ix_bytes = bytes.clone();
    let pdf = Pdf::from_bytes(bytes, &PdfOptions::new()).unwrap();
    let ix = pdf.index_objects(2).unwrap();
    assert_eq!(ix.errors.len(), 1, "{:?}", ix.errors);
    assert_eq!(ix.errors[0].num, 77);
    assert_eq!(ix.objects.len() + 1, pdf.object_numbers().len());
    assert_eq!(ix.by_type.get("Page"), Some(&50));

    let s = ix_bytes
        .windows(10)
        .position(|w| w == b"200 0 obj\n")
        .unwrap();
    let data = ix_bytes[s..]
        .windows(7)
        .position(|w| w == b"stream\n")
        .unwrap()
        + s
        + 7;
    for b in &mut ix_bytes[data..data + 8] {
        *b = b'!';
    }
    let pdf = Pdf::from_bytes(ix_bytes, &PdfOptions::new()).unwrap();
    let ix = pdf.index_objects(4).unwrap();
    // The 30 packed pages, plus object 77.
    assert_eq!(ix.errors.len(), 31, "{:?}", ix.errors);
    assert_eq!(ix.by_type.get("Page"), Some(&20));
}
