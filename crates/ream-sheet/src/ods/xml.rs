//! Small scanner helpers for `content.xml`: attributes with their
//! namespace prefix (ODS has both `office:value-type` and
//! `calcext:value-type`), attribute text decoded into a reused buffer, and
//! scanner errors turned into crate errors with absolute offsets.

use crate::error::Error;
use ream_xml::{Tag, TagKind, XmlError};

/// The raw value of the attribute with local name `local` (any prefix).
pub(crate) fn attr<'a>(tag: &Tag<'a>, local: &[u8]) -> Option<&'a [u8]> {
    tag.attributes().find(|(n, _)| *n == local).map(|(_, v)| v)
}

/// Decodes an attribute value into an owned string (used for names,
/// authors and links, never per cell).
pub(crate) fn attr_string(raw: &[u8], scratch: &mut Vec<u8>) -> Result<String, XmlError> {
    scratch.clear();
    ream_xml::unescape_into(raw, scratch)?;
    Ok(String::from_utf8_lossy(scratch).into_owned())
}

/// A scanner error (offsets absolute in `content.xml`) as a crate error;
/// excessive nesting is a limit, the rest is malformed input.
pub(crate) fn xml_err(e: XmlError) -> Error {
    let mut err = if e.message.starts_with("XML nesting") {
        Error::limit(e.message)
    } else if e.truncated {
        Error::malformed(format!("{} (content.xml ends early)", e.message))
    } else {
        Error::malformed(e.message)
    };
    err = err.at_offset(e.offset as u64);
    err.truncated = e.truncated;
    err
}

/// The error of a part that ends at `offset`, inside `message`'s element
/// (marked truncated: a windowed reader reads more and retries).
pub(crate) fn truncated(offset: usize, message: &'static str) -> Error {
    xml_err(XmlError {
        offset,
        message,
        truncated: true,
    })
}

/// The tag at or after `pos`; running out of tags is [`truncated`] inside
/// `what`.
pub(crate) fn next<'a>(buf: &'a [u8], pos: usize, what: &'static str) -> Result<Tag<'a>, Error> {
    ream_xml::next_tag(buf, pos)
        .map_err(xml_err)?
        .ok_or_else(|| truncated(buf.len(), what))
}

/// Walks everything inside the element whose start tag ended at `from`,
/// handing each start or empty tag to `f`; returns the offset past the
/// element's end tag. `depth_left` bounds the nesting below the element;
/// running out of tags is [`truncated`] inside `what`.
pub(crate) fn each_descendant<'a>(
    buf: &'a [u8],
    from: usize,
    depth_left: u32,
    what: &'static str,
    mut f: impl FnMut(&Tag<'a>) -> Result<(), Error>,
) -> Result<usize, Error> {
    let mut pos = from;
    let mut depth: u32 = 1;
    loop {
        let tag = next(buf, pos, what)?;
        pos = tag.end;
        match tag.kind {
            TagKind::Start | TagKind::Empty => {
                f(&tag)?;
                if tag.kind == TagKind::Start {
                    depth += 1;
                    if depth > depth_left {
                        return Err(
                            Error::limit("XML nesting too deep").at_offset(tag.start as u64)
                        );
                    }
                }
            }
            TagKind::End => {
                depth -= 1;
                if depth == 0 {
                    return Ok(pos);
                }
            }
            _ => {}
        }
    }
}

/// An error for an attribute value decoded from `raw` at `offset`, with
/// the offending value quoted (shortened).
pub(crate) fn bad_value(what: &str, raw: &[u8], offset: usize) -> Error {
    let shown = String::from_utf8_lossy(raw.get(..raw.len().min(40)).unwrap_or_default());
    Error::malformed(format!("bad {what} '{shown}'")).at_offset(offset as u64)
}

/// Makes a relative scanner error absolute by adding `base`.
pub(crate) fn shift(mut e: XmlError, base: usize) -> XmlError {
    e.offset += base;
    e
}

/// True when `b`, the byte after an element name found by a byte search
/// (`<table:table`), ends that name, so `<table:table-row` is not taken for
/// `<table:table`.
pub(super) fn ends_name(b: Option<&u8>) -> bool {
    matches!(b, Some(b' ' | b'\t' | b'\r' | b'\n' | b'>' | b'/'))
}
