//! Allocation-free XML scanning primitives for worksheet-shaped XML.
//!
//! This is not a general XML parser. It walks tags over a borrowed byte
//! slice with `memchr`, hands out element names (namespace prefix stripped)
//! and raw attribute bytes as sub-slices, and decodes text straight into a
//! caller-owned buffer with the five predefined entities and character
//! references resolved. Nothing is allocated per tag, attribute or text run;
//! names are matched as bytes and never materialised.
//!
//! Why hand-written: on worksheet XML, a general pull parser (quick-xml)
//! spends most of its time in generic event plumbing and attribute
//! iteration; this scanner knows the shapes `<c r=".." s=".." t=".."><v>..`
//! take and touches each byte about once. Document type declarations are
//! refused ([`XmlError`]): no entity is ever expanded.

mod scan;
mod text;

pub use scan::{
    Attrs, QualifiedAttrs, Tag, TagKind, find_tag_end, local_name, next_tag, skip_element,
};
pub use text::{trim_xml_ws, unescape_into, unescape_len_hint};

/// A scanning error: a static description and the byte offset (relative to
/// the slice that was scanned) where it was detected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XmlError {
    /// Byte offset of the problem in the scanned slice.
    pub offset: usize,
    /// What is wrong.
    pub message: &'static str,
    /// True when the input ended inside markup or text: more bytes may
    /// complete it (streaming callers feed more; at end of input it is a
    /// truncation).
    pub truncated: bool,
}

impl std::fmt::Display for XmlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (byte {})", self.message, self.offset)
    }
}

impl std::error::Error for XmlError {}

pub(crate) fn err(offset: usize, message: &'static str) -> XmlError {
    XmlError {
        offset,
        message,
        truncated: false,
    }
}

pub(crate) fn truncated(offset: usize, message: &'static str) -> XmlError {
    XmlError {
        offset,
        message,
        truncated: true,
    }
}
