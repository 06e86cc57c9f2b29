//! Named ranges and expressions (`table:named-expressions`), workbook-wide
//! (a child of `office:spreadsheet`) or local to one table.

use super::values::{range_address_to_a1, strip_formula_prefix};
use super::xml::{attr, attr_string, next, shift, xml_err};
use crate::error::{Error, Result};
use ream_xml::{TagKind, skip_element};

/// A name as read: (name, formula). Ranges are converted to Excel's
/// notation (`Sheet1!$A$1:$B$2`); expressions lose their `of:=` prefix.
pub(crate) type RawName = (String, String);

/// Reads the children of a `table:named-expressions` whose start tag ended
/// at `from` into `out`; returns the offset past its end tag. On an error
/// (a truncated one included) `out` is left as it was, so a windowed
/// reader can retry with more bytes.
pub(crate) fn read_named_expressions(
    buf: &[u8],
    from: usize,
    depth_left: u32,
    out: &mut Vec<RawName>,
    scratch: &mut Vec<u8>,
) -> Result<usize> {
    let before = out.len();
    let mut read = || -> Result<usize> {
        let mut pos = from;
        loop {
            let tag = next(buf, pos, "named expressions not closed")?;
            pos = tag.end;
            match tag.kind {
                TagKind::Start | TagKind::Empty => {
                    let (is_range, value) = match tag.name {
                        b"named-range" => (true, attr(&tag, b"cell-range-address")),
                        b"named-expression" => (false, attr(&tag, b"expression")),
                        _ => (false, None),
                    };
                    if let (Some(name), Some(value)) = (attr(&tag, b"name"), value) {
                        let at = |e| xml_err(shift(e, tag.start));
                        let name = attr_string(name, scratch).map_err(at)?;
                        let formula = if is_range {
                            range_address_to_a1(&attr_string(value, scratch).map_err(at)?)
                        } else {
                            attr_string(strip_formula_prefix(value), scratch).map_err(at)?
                        };
                        out.push((name, formula));
                    }
                    if tag.kind == TagKind::Start {
                        let left = depth_left.saturating_sub(1);
                        pos = skip_element(buf, pos, left).map_err(xml_err)?;
                    }
                }
                TagKind::End => return Ok(pos),
                _ => {}
            }
            if out.len() > 1_000_000 {
                let e = Error::limit("more than 1,000,000 named expressions");
                return Err(e.at_offset(pos as u64));
            }
        }
    };
    let res = read();
    if res.is_err() {
        out.truncate(before);
    }
    res
}
