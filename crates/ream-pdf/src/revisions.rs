//! The revisions of a file: one per xref section.

use crate::reader::Reader;
use crate::xref::{Section, XrefKind};

/// One revision (the original file or an incremental update).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revision {
    /// 1 for the oldest.
    pub number: usize,
    /// Offset of its xref section (table or stream).
    pub xref_offset: u64,
    /// The section's syntax.
    pub kind: XrefKind,
    /// First byte of the revision (the end of the previous one).
    pub start: u64,
    /// One past its last byte (after `%%EOF` and its EOL, when present).
    pub end: u64,
    /// Objects its xref section lists (in use or freed).
    pub objects: usize,
}

impl Revision {
    /// Bytes the revision occupies.
    pub fn size(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }
}

/// Revisions from sections (any order), sorted by position.
pub(crate) fn revisions(r: &Reader, sections: &[Section]) -> Vec<Revision> {
    let mut secs: Vec<&Section> = sections.iter().collect();
    secs.sort_by_key(|s| s.offset);
    let mut out = Vec::with_capacity(secs.len());
    let mut start = 0;
    for (i, s) in secs.iter().enumerate() {
        let end = match r.find_forward(s.end, s.end.saturating_add(64 << 10), b"%%EOF") {
            Ok(Some(p)) => {
                let mut e = p + 5;
                let eol = r.src_with(e, 2, <[u8]>::to_vec).unwrap_or_default();
                if eol.starts_with(b"\r\n") {
                    e += 2;
                } else if eol.starts_with(b"\n") || eol.starts_with(b"\r") {
                    e += 1;
                }
                e
            }
            _ => s.end,
        };
        let end = end.max(start);
        out.push(Revision {
            number: i + 1,
            xref_offset: s.offset,
            kind: s.kind,
            start,
            end,
            objects: s.entries.iter().filter(|(n, _)| *n != 0).count(),
        });
        start = end;
    }
    out
}

impl XrefKind {
    /// True for sections with an xref stream (stream or hybrid).
    pub fn has_stream(self) -> bool {
        !matches!(self, XrefKind::Table)
    }
}
