//! Fixed bounds from the review in LIMITS.md ("All limits at a glance")
//! that had no test exceeding them.

use crate::writer::{Rev, Xref, build, doc, obj};
use ream_pdf::{ErrorKind, ObjRef, Object, Pdf, PdfOptions};

/// A chain of indirect references is followed at most 32 deep: objects
/// 100..=139 each hold a reference to the next, 140 holds 42.
#[test]
fn reference_chain_longer_than_32_is_an_error() {
    let mut objs = doc(1);
    for n in 100..140 {
        objs.push(obj(n, &format!("{} 0 R", n + 1)));
    }
    objs.push(obj(140, "42"));
    let pdf = Pdf::from_bytes(
        build("1.7", &[Rev::new(Xref::Table, objs)]),
        &PdfOptions::new(),
    )
    .unwrap();
    let short = pdf.resolve(&Object::Ref(ObjRef::new(130, 0))).unwrap();
    assert_eq!(short, Object::Int(42));
    let e = pdf.resolve(&Object::Ref(ObjRef::new(100, 0))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Malformed, "{e}");
    assert!(e.message().contains("reference chain too long"), "{e}");
}

/// The byte-source sizes are not limits (a longer request gets a view or
/// buffer of its own size, see `sources::every_source_agrees`); their
/// defaults are what LIMITS.md says.
#[test]
fn source_defaults_are_documented_values() {
    let s = PdfOptions::default().source;
    assert_eq!(s.kind, ream_pdf::SourceKind::Auto);
    assert_eq!(s.window_size, 64 << 20);
    assert_eq!(s.buffer_size, 256 << 10);
}
