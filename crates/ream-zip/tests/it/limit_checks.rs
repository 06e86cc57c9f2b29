//! Limits from the review in LIMITS.md ("All limits at a glance"): the
//! documented defaults, and the fixed end-record search window.

use crate::writer::{Ent, zip};
use ream_zip::{Archive, Bytes, ErrorKind, Limits};

#[test]
fn defaults_are_documented_values() {
    let l = Limits::default();
    assert_eq!(l.max_entries, 100_000);
    assert_eq!(l.max_total_inflated, 16 << 30);
    assert_eq!(l.max_ratio, 1_000);
    assert_eq!(l.ratio_exempt_below, 1 << 20);
}

/// The end-of-central-directory record is looked for in the last 65,557
/// bytes (22-byte record plus the longest comment); trailing data longer
/// than that hides it.
#[test]
fn end_record_past_the_search_window_is_not_found() {
    let mut bytes = zip(&[Ent::stored("a.txt", b"hello")]);
    bytes.extend(std::iter::repeat_n(b'x', 65_536));
    let e = Archive::new(Bytes::from_vec(bytes), Limits::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Malformed, "{e}");
    assert!(
        e.message().contains("no end-of-central-directory record"),
        "{e}"
    );
}
