//! The cheap passes over `content.xml` that make parallel parsing possible:
//!
//! * [`read_prelude`] walks the document up to `<office:spreadsheet>`,
//!   collecting the automatic table styles that hide a sheet
//!   (`table:display="false"`); a DTD is refused here, before any work.
//! * [`outline_step`] is the one walk over the top level of the
//!   spreadsheet, shared by every read (loaded or listing): a
//!   table found there is a sheet, one inside another element (a nested
//!   table, a DDE link's cache) is skipped with it, named expressions are
//!   read, anything else is skipped.

use super::names::{RawName, read_named_expressions};
use super::xml::{attr, attr_string, each_descendant, next, shift, xml_err};
use crate::error::{Error, ErrorKind, Result};
use crate::pipeline::window::Window;
use ream_xml::{Tag, TagKind, next_tag, skip_element};

/// What the walk up to the spreadsheet element found.
#[derive(Debug)]
pub(crate) struct Prelude {
    /// Names of automatic styles with `table:display="false"`, sorted.
    pub hidden_styles: Vec<String>,
    /// Offset just past the `<office:spreadsheet>` start tag.
    pub body: usize,
    /// Nesting depth of the spreadsheet's children.
    pub depth: u32,
}

/// Walks `content.xml` up to `<office:spreadsheet>`.
pub(crate) fn read_prelude(buf: &[u8], max_depth: u32) -> Result<Prelude> {
    let mut pos = 0;
    let mut depth: u32 = 0;
    let mut hidden_styles = Vec::new();
    let mut scratch = Vec::new();
    loop {
        let Some(tag) = next_tag(buf, pos).map_err(xml_err)? else {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "content.xml holds no office:spreadsheet: not an ODS spreadsheet document",
            ));
        };
        pos = tag.end;
        match (tag.kind, tag.name) {
            (TagKind::Start, b"spreadsheet") => {
                hidden_styles.sort_unstable();
                return Ok(Prelude {
                    hidden_styles,
                    body: pos,
                    depth: depth + 1,
                });
            }
            (TagKind::Start, b"document-content" | b"body") => depth += 1,
            (TagKind::Start, b"automatic-styles") => {
                let left = max_depth.saturating_sub(depth + 1);
                pos = read_table_styles(buf, pos, left, &mut hidden_styles, &mut scratch)?;
            }
            (TagKind::Start, _) => {
                pos =
                    skip_element(buf, pos, max_depth.saturating_sub(depth + 1)).map_err(xml_err)?;
            }
            (TagKind::End, _) => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth >= max_depth {
            return Err(Error::limit("XML nesting too deep").at_offset(tag.start as u64));
        }
    }
}

/// Reads a window on until [`read_prelude`] succeeds on it (the window
/// starts before its first byte), giving up when it holds more than
/// `max_span` bytes.
pub(crate) fn window_prelude(w: &mut Window, max_depth: u32, max_span: usize) -> Result<Prelude> {
    w.advance(0)?;
    loop {
        match read_prelude(w.data(), max_depth) {
            Ok(p) => return Ok(p),
            Err(e)
                if !w.eof
                    && w.data().len() <= max_span
                    && (e.truncated || e.kind() == ErrorKind::Unsupported) =>
            {
                w.advance(0)?;
            }
            Err(e) => return Err(e),
        }
    }
}

/// One step of the outline walk (see [`outline_step`]).
pub(crate) enum Outline<'a> {
    /// A table's start tag, for the caller to parse or skip.
    Table(Tag<'a>),
    /// The walk goes on from this offset.
    At(usize),
    /// `</office:spreadsheet>` was read.
    End,
}

/// The unit of the outline at `pos` in `buf` (the top level of
/// `office:spreadsheet`): a table start tag is handed back, named
/// expressions are read into `names`, any other element is skipped whole
/// (`child_left`: the nesting allowed below the spreadsheet's children).
/// Running out of bytes is an error marked `truncated` (a windowed reader
/// reads more and retries; `names` is then as before).
pub(crate) fn outline_step<'a>(
    buf: &'a [u8],
    pos: usize,
    child_left: u32,
    names: &mut Vec<RawName>,
    scratch: &mut Vec<u8>,
) -> Result<Outline<'a>> {
    let tag = next(buf, pos, "content.xml ends before </office:spreadsheet>")?;
    Ok(match (tag.kind, tag.name) {
        (TagKind::Start | TagKind::Empty, b"table") => Outline::Table(tag),
        (TagKind::Start, b"named-expressions") => Outline::At(read_named_expressions(
            buf, tag.end, child_left, names, scratch,
        )?),
        (TagKind::Start, _) => {
            Outline::At(skip_element(buf, tag.end, child_left).map_err(xml_err)?)
        }
        (TagKind::End, _) => Outline::End,
        _ => Outline::At(tag.end),
    })
}

/// Reads `office:automatic-styles`: a `style:style` whose
/// `style:table-properties` say `table:display="false"` hides the tables
/// that use it. Returns the offset past the end tag.
fn read_table_styles(
    buf: &[u8],
    from: usize,
    depth_left: u32,
    hidden: &mut Vec<String>,
    scratch: &mut Vec<u8>,
) -> Result<usize> {
    let mut current: Option<&[u8]> = None;
    let what = "content.xml ends inside office:automatic-styles";
    each_descendant(buf, from, depth_left, what, |tag| {
        if tag.name == b"style" {
            current = attr(tag, b"name");
        } else if tag.name == b"table-properties"
            && attr(tag, b"display") == Some(b"false")
            && let Some(name) = current
        {
            hidden.push(attr_string(name, scratch).map_err(|e| xml_err(shift(e, tag.start)))?);
        }
        Ok(())
    })
}
