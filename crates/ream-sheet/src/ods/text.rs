//! Text inside cells: paragraphs (`text:p`, `text:h`) flattened into one
//! string, annotations (comments) and drawing frames.
//!
//! Text is kept as written, as LibreOffice Calc itself imports it (its
//! cell paragraph context appends characters verbatim; ODF's white-space
//! collapsing is not applied, and calamine and PhpSpreadsheet agree);
//! `text:s` (with `text:c`), `text:tab` and `text:line-break` give spaces,
//! tabs and line breaks. Spans, links and fields are flattened; notes,
//! ruby text and nested annotations are left out.

use super::xml::{attr, attr_string, each_descendant, next, shift, truncated, xml_err};
use crate::error::{Error, Result};
use crate::model::{Drawing, DrawingKind};
use memchr::memchr;
use ream_xml::{TagKind, skip_element};

/// What a paragraph walk needs besides the buffer.
pub(crate) struct ParaCtx {
    /// Nesting still allowed below the paragraph element.
    pub depth_left: u32,
    /// Where the cell's text starts in the output (for the length check).
    pub text_start: usize,
    /// Most bytes the cell's text may take (4 x the character limit: a
    /// cheap running bound; characters are counted exactly at the end).
    pub max_bytes: usize,
    /// Spaces, tabs and breaks written for `text:s` & co. (they can make a
    /// small file's text large, so the caller counts them as repeats).
    pub spaces: std::cell::Cell<u64>,
}

/// Collects the text of the paragraph whose start tag ended at `from` into
/// `out`; returns the offset past its end tag. The first `text:a` link
/// target seen is stored in `link`.
pub(crate) fn collect_paragraph<'a>(
    buf: &'a [u8],
    from: usize,
    out: &mut Vec<u8>,
    ctx: &ParaCtx,
    link: &mut Option<&'a [u8]>,
) -> Result<usize> {
    let mut pos = from;
    let mut depth: u32 = 1;
    loop {
        let rest = buf.get(pos..).unwrap_or_default();
        let lt = memchr(b'<', rest).ok_or_else(|| truncated(buf.len(), "paragraph not closed"))?;
        if lt > 0 {
            ream_xml::unescape_into(rest.get(..lt).unwrap_or_default(), out)
                .map_err(|e| xml_err(shift(e, pos)))?;
        }
        let tag = next(buf, pos + lt, "paragraph not closed")?;
        pos = tag.end;
        let exact = |out: &mut Vec<u8>, b: u8, n: u64| -> Result<()> {
            let used = out.len().saturating_sub(ctx.text_start) as u64;
            if used.saturating_add(n) > ctx.max_bytes as u64 {
                return Err(
                    Error::limit(format!("cell text longer than {} bytes", ctx.max_bytes))
                        .at_offset(tag.start as u64),
                );
            }
            out.resize(out.len() + n as usize, b);
            ctx.spaces.set(ctx.spaces.get().saturating_add(n));
            Ok(())
        };
        match tag.kind {
            TagKind::Start | TagKind::Empty => {
                match tag.name {
                    b"s" => {
                        let n = attr(&tag, b"c").and_then(super::values::parse_count);
                        exact(out, b' ', n.unwrap_or(1))?;
                    }
                    b"tab" => exact(out, b'\t', 1)?,
                    b"line-break" => exact(out, b'\n', 1)?,
                    b"a" if link.is_none() => *link = attr(&tag, b"href"),
                    _ => {}
                }
                if tag.kind == TagKind::Start {
                    match tag.name {
                        b"s" | b"tab" | b"line-break" | b"note" | b"annotation" | b"ruby-text" => {
                            let left = ctx.depth_left.saturating_sub(depth);
                            pos = skip_element(buf, pos, left).map_err(xml_err)?;
                        }
                        _ => {
                            depth += 1;
                            if depth > ctx.depth_left {
                                return Err(Error::limit("XML nesting too deep")
                                    .at_offset(tag.start as u64));
                            }
                        }
                    }
                }
            }
            TagKind::End => {
                depth -= 1;
                if depth == 0 {
                    return Ok(pos);
                }
            }
            TagKind::CData => out.extend_from_slice(tag.attrs),
            TagKind::Other => {}
        }
    }
}

/// What [`read_annotation`] returns: author, text, the offset past the
/// end tag and the spaces written for `text:s` elements.
pub(crate) type Annotation = (String, String, usize, u64);

/// Reads an `office:annotation` whose start tag ended at `from`.
/// Paragraphs are joined with line feeds.
pub(crate) fn read_annotation(
    buf: &[u8],
    from: usize,
    depth_left: u32,
    max_chars: usize,
    scratch: &mut Vec<u8>,
) -> Result<Annotation> {
    let mut pos = from;
    let mut author = String::new();
    scratch.clear();
    let mut paragraphs = 0usize;
    let ctx = ParaCtx {
        depth_left: depth_left.saturating_sub(1),
        text_start: 0,
        max_bytes: max_chars.saturating_mul(4),
        spaces: std::cell::Cell::new(0),
    };
    loop {
        let tag = next(buf, pos, "annotation not closed")?;
        pos = tag.end;
        match (tag.kind, tag.name) {
            (TagKind::Start, b"creator") => {
                let mut text = Vec::new();
                pos = collect_paragraph(buf, pos, &mut text, &ctx, &mut None)?;
                author = String::from_utf8_lossy(&text).into_owned();
            }
            (TagKind::Start | TagKind::Empty, b"p" | b"h") => {
                if paragraphs > 0 {
                    scratch.push(b'\n');
                }
                paragraphs += 1;
                if tag.kind == TagKind::Start {
                    pos = collect_paragraph(buf, pos, scratch, &ctx, &mut None)?;
                }
            }
            (TagKind::Start, _) => {
                pos = skip_element(buf, pos, depth_left.saturating_sub(1)).map_err(xml_err)?;
            }
            (TagKind::End, _) => break,
            _ => {}
        }
    }
    let text = String::from_utf8_lossy(scratch).into_owned();
    Ok((author, text, pos, ctx.spaces.get()))
}

/// Reads a `draw:frame` whose start tag ended at `from` (`None` when
/// `empty`): the first image or embedded object inside becomes a drawing.
/// Returns the drawing and the offset past the frame.
pub(crate) fn read_frame(
    buf: &[u8],
    from: usize,
    empty: bool,
    depth_left: u32,
    anchor: Option<(u32, u32)>,
    scratch: &mut Vec<u8>,
) -> Result<(Option<Drawing>, usize)> {
    if empty {
        return Ok((None, from));
    }
    let mut found: Option<Drawing> = None;
    let end = each_descendant(buf, from, depth_left, "drawing frame not closed", |tag| {
        let kind = match tag.name {
            b"image" => DrawingKind::Image,
            b"object" | b"object-ole" => DrawingKind::Chart,
            _ => return Ok(()),
        };
        if let (None, Some(href)) = (&found, attr(tag, b"href")) {
            let href = attr_string(href, scratch).map_err(|e| xml_err(shift(e, tag.start)))?;
            let href = href.trim_start_matches("./").to_string();
            let part = match kind {
                DrawingKind::Chart => format!("{}/content.xml", href.trim_end_matches('/')),
                DrawingKind::Image => href,
            };
            found = Some(Drawing {
                kind,
                anchor,
                part,
                title: None,
            });
        }
        Ok(())
    })?;
    Ok((found, end))
}
