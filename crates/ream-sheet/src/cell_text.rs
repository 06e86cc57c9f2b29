//! Text of worksheet cells and shared strings: rich-text runs collected
//! into an arena, UTF-8 and length checks, `_xHHHH_` decoding.

use crate::error::{Error, Result};
use ream_xml::{Tag, TagKind, XmlError, next_tag, skip_element};

/// Collects `<t>` text inside the element `end_name` (whose start tag ended at
/// `from`) into `out`, skipping `<rPh>` phonetic runs. Returns the offset past
/// the closing tag.
pub(crate) fn collect_runs(
    buf: &[u8],
    from: usize,
    end_name: &[u8],
    out: &mut Vec<u8>,
    max_depth: u32,
) -> std::result::Result<usize, XmlError> {
    let mut pos = from;
    let mut depth: u32 = 1;
    let mut in_t = false;
    let mut phonetic: u32 = 0;
    loop {
        let rest = buf.get(pos..).unwrap_or_default();
        let lt = memchr::memchr(b'<', rest).ok_or(XmlError {
            offset: buf.len(),
            message: "text run is not closed",
            truncated: true,
        })?;
        if in_t && phonetic == 0 {
            ream_xml::unescape_into(rest.get(..lt).unwrap_or_default(), out).map_err(|mut e| {
                e.offset += pos;
                e
            })?;
        }
        let tag = next_tag(buf, pos + lt)?.ok_or(XmlError {
            offset: buf.len(),
            message: "text run is not closed",
            truncated: true,
        })?;
        pos = tag.end;
        match tag.kind {
            TagKind::Start => {
                depth += 1;
                if depth > max_depth {
                    return Err(XmlError {
                        offset: tag.start,
                        message: "XML nesting too deep",
                        truncated: false,
                    });
                }
                match tag.name {
                    b"t" => in_t = true,
                    b"rPh" => phonetic += 1,
                    _ => {}
                }
            }
            TagKind::End => {
                depth -= 1;
                match tag.name {
                    b"t" => in_t = false,
                    b"rPh" => phonetic = phonetic.saturating_sub(1),
                    _ => {}
                }
                if depth == 0 {
                    if tag.name != end_name {
                        return Err(XmlError {
                            offset: tag.start,
                            message: "mismatched end tag",
                            truncated: false,
                        });
                    }
                    return Ok(pos);
                }
            }
            TagKind::CData if in_t && phonetic == 0 => out.extend_from_slice(tag.attrs),
            _ => {}
        }
    }
}

/// Validates text appended to `arena` since `off`: it must be UTF-8,
/// `_xHHHH_` escapes are decoded in place, and it must fit the length limit.
pub(crate) fn finish_text(arena: &mut Vec<u8>, off: usize, max_chars: usize) -> Result<()> {
    let piece = arena.get(off..).unwrap_or_default();
    if let Err(e) = std::str::from_utf8(piece) {
        return Err(Error::malformed(format!(
            "invalid UTF-8 in cell text at byte {} of the string",
            e.valid_up_to()
        )));
    }
    if memchr::memchr(b'_', piece).is_some() {
        crate::escapes::decode_xhhhh_in_place(arena, off);
    }
    let piece = arena.get(off..).unwrap_or_default();
    if piece.len() > max_chars {
        let chars = std::str::from_utf8(piece)
            .map(|s| s.chars().count())
            .unwrap_or(piece.len());
        if chars > max_chars {
            return Err(Error::limit(format!(
                "string of {chars} characters exceeds the limit of {max_chars}"
            )));
        }
    }
    Ok(())
}

/// The raw text of an element whose start tag ended at `from`: returns
/// (start, end, offset past the end tag). CDATA inside is not supported in
/// values (it is rare); such text ends at the first `<`.
pub(crate) fn text_span(
    buf: &[u8],
    from: usize,
) -> std::result::Result<(usize, usize, usize), XmlError> {
    let rest = buf.get(from..).unwrap_or_default();
    let lt = memchr::memchr(b'<', rest).ok_or(XmlError {
        offset: buf.len(),
        message: "element text is not closed",
        truncated: true,
    })?;
    let end = from + lt;
    let tag = next_tag(buf, end)?.ok_or(XmlError {
        offset: end,
        message: "element text is not closed",
        truncated: true,
    })?;
    if tag.kind != TagKind::End {
        // Nested markup in a value: skip to the matching end.
        let after = skip_element(buf, from, 8)?;
        return Ok((from, end, after));
    }
    Ok((from, end, tag.end))
}

#[inline]
pub(crate) fn span_bits(off: u32, len: u32) -> u64 {
    (u64::from(off) << 32) | u64::from(len)
}

/// The raw value of attribute `name` of `tag`.
pub(crate) fn attr<'t>(tag: &Tag<'t>, name: &[u8]) -> Option<&'t [u8]> {
    tag.attributes().find(|(n, _)| *n == name).map(|(_, v)| v)
}
