//! The workbook's cell formats: a base `styles.xml` (the writer's own or a
//! template's) and the number formats registered while writing, appended
//! to its `numFmts` and `cellXfs` without moving what is there.

use crate::error::{Error, Result};
use crate::escape::escape_into;
use crate::xml::{self, Part};
use quick_xml::events::Event;

/// A registered number format: the index of a cell format (`s`
/// attribute) that shows numbers with it. Get one from
/// [`WorkbookWriter::number_format`](crate::WorkbookWriter::number_format)
/// or [`SheetWriter::number_format`](crate::SheetWriter::number_format);
/// it belongs to that workbook only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NumberFormat(pub(crate) u32);

impl NumberFormat {
    /// The cell format index (`s` attribute) this format writes.
    pub fn style_index(self) -> u32 {
        self.0
    }
}

/// The built-in number formats Excel knows by id (ECMA-376 18.8.30).
const BUILTIN: [(u32, &str); 28] = [
    (0, "General"),
    (1, "0"),
    (2, "0.00"),
    (3, "#,##0"),
    (4, "#,##0.00"),
    (9, "0%"),
    (10, "0.00%"),
    (11, "0.00E+00"),
    (12, "# ?/?"),
    (13, "# ??/??"),
    (14, "mm-dd-yy"),
    (15, "d-mmm-yy"),
    (16, "d-mmm"),
    (17, "mmm-yy"),
    (18, "h:mm AM/PM"),
    (19, "h:mm:ss AM/PM"),
    (20, "h:mm"),
    (21, "h:mm:ss"),
    (22, "m/d/yy h:mm"),
    (37, "#,##0 ;(#,##0)"),
    (38, "#,##0 ;[Red](#,##0)"),
    (39, "#,##0.00;(#,##0.00)"),
    (40, "#,##0.00;[Red](#,##0.00)"),
    (45, "mm:ss"),
    (46, "[h]:mm:ss"),
    (47, "mmss.0"),
    (48, "##0.0E+0"),
    (49, "@"),
];

/// The id of a built-in format code (`General` in any case).
fn builtin_id(code: &str) -> Option<u32> {
    if code.eq_ignore_ascii_case("general") {
        return Some(0);
    }
    BUILTIN.iter().find(|(_, c)| *c == code).map(|(i, _)| *i)
}

/// Byte ranges of one element of the base styles: where it starts, where
/// its children start and end, and where it ends.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    inner: (usize, usize),
    end: usize,
}

/// The base styles and what was added to them.
pub(crate) struct StyleBook {
    base: Vec<u8>,
    /// The `<styleSheet ...>` start tag's end (where a missing `numFmts`
    /// goes).
    root_end: usize,
    num_fmts: Option<Span>,
    cell_xfs: Span,
    /// Custom formats of the base: (id, code).
    base_fmts: Vec<(u32, String)>,
    /// The number format id of every base cell format.
    base_xfs: Vec<u32>,
    added_fmts: Vec<(u32, String)>,
    /// Number format ids of the added cell formats.
    added_xfs: Vec<u32>,
    next_id: u32,
}

impl StyleBook {
    /// The writer's own styles ([`crate::parts::styles`]): General, then
    /// the [`DateStyle`](crate::DateStyle)s.
    pub(crate) fn own() -> StyleBook {
        let base = crate::parts::styles();
        let find = |what: &[u8], from: usize| {
            base.get(from..)
                .and_then(|b| b.windows(what.len()).position(|w| w == what))
                .map_or(from, |i| i + from)
        };
        let span = |open: &[u8], close: &[u8]| {
            let start = find(open, 0);
            let inner = find(b">", start) + 1;
            let end_tag = find(close, inner);
            Span {
                start,
                inner: (inner, end_tag),
                end: end_tag + close.len(),
            }
        };
        let num_fmts = span(b"<numFmts", b"</numFmts>");
        let cell_xfs = span(b"<cellXfs", b"</cellXfs>");
        let base_fmts: Vec<(u32, String)> = (164..)
            .zip(crate::DateStyle::ALL)
            .map(|(i, d)| (i, d.format_code().to_string()))
            .collect();
        let mut base_xfs = vec![0];
        base_xfs.extend(base_fmts.iter().map(|(i, _)| *i));
        StyleBook {
            root_end: num_fmts.start,
            num_fmts: Some(num_fmts),
            cell_xfs,
            next_id: 164 + base_fmts.len() as u32,
            base_fmts,
            base_xfs,
            base,
            added_fmts: Vec::new(),
            added_xfs: Vec::new(),
        }
    }

    /// Parses `styles.xml` (`what` names it in errors).
    pub(crate) fn parse(base: Vec<u8>, what: &str) -> Result<StyleBook> {
        let (root_end, num_fmts, cell_xfs, base_fmts, base_xfs) = {
            let mut p = Part::new(&base, what);
            let mut root_end = None;
            let mut num_fmts = None;
            let mut cell_xfs = None;
            let mut base_fmts = Vec::new();
            let mut base_xfs = Vec::new();
            let mut depth = 0u32;
            // Which depth-1 element we are in and where it started.
            let mut open: Option<(String, usize, usize)> = None;
            loop {
                let (pos, ev) = p.next()?;
                let after = p.pos();
                match ev {
                    Event::Start(e) if depth == 0 => {
                        p.check_root(&e, "styleSheet")?;
                        root_end = Some(after);
                        depth = 1;
                    }
                    Event::Empty(e) if depth == 0 => {
                        p.check_root(&e, "styleSheet")?;
                        root_end = Some(after);
                        break;
                    }
                    Event::Start(e) => {
                        let name = xml::name(&e).to_string();
                        if depth == 1 {
                            open = Some((name.clone(), pos, after));
                        }
                        if depth == 2 {
                            collect(&p, &e, open.as_ref(), &mut base_fmts, &mut base_xfs)?;
                        }
                        depth += 1;
                    }
                    Event::Empty(e) => {
                        let name = xml::name(&e);
                        if depth == 1 {
                            let s = Span {
                                start: pos,
                                inner: (after, after),
                                end: after,
                            };
                            match name {
                                "numFmts" => num_fmts = Some(s),
                                "cellXfs" => cell_xfs = Some(s),
                                _ => {}
                            }
                        }
                        if depth == 2 {
                            collect(&p, &e, open.as_ref(), &mut base_fmts, &mut base_xfs)?;
                        }
                    }
                    Event::End(_) => {
                        depth = depth.saturating_sub(1);
                        if depth == 1
                            && let Some((name, start, inner)) = open.take()
                        {
                            let s = Span {
                                start,
                                inner: (inner, pos),
                                end: after,
                            };
                            match name.as_str() {
                                "numFmts" => num_fmts = Some(s),
                                "cellXfs" => cell_xfs = Some(s),
                                _ => {}
                            }
                        }
                        if depth == 0 {
                            break;
                        }
                    }
                    Event::Eof => return Err(p.error("the part ends inside <styleSheet>")),
                    _ => {}
                }
            }
            let root_end = root_end.ok_or_else(|| p.error("no <styleSheet> element"))?;
            let cell_xfs = cell_xfs.ok_or_else(|| p.error("no <cellXfs> (cell formats)"))?;
            (root_end, num_fmts, cell_xfs, base_fmts, base_xfs)
        };
        let next_id = base_fmts
            .iter()
            .map(|(i, _)| i + 1)
            .max()
            .unwrap_or(164)
            .max(164);
        Ok(StyleBook {
            base,
            root_end,
            num_fmts,
            cell_xfs,
            base_fmts,
            base_xfs,
            added_fmts: Vec::new(),
            added_xfs: Vec::new(),
            next_id,
        })
    }

    /// The cell format for number format `code`: built-in codes take
    /// their id, a code the base or an earlier call defined is reused,
    /// others get a new id from 164 (or past the base's highest) on.
    pub(crate) fn register(&mut self, code: &str) -> Result<NumberFormat> {
        if code.is_empty() || code.chars().count() > 255 {
            return Err(Error::usage(format!(
                "number format {code:?} must be 1 to 255 characters"
            )));
        }
        let id = match builtin_id(code) {
            Some(i) => i,
            None => match self
                .base_fmts
                .iter()
                .chain(&self.added_fmts)
                .find(|(_, c)| c == code)
            {
                Some((i, _)) => *i,
                None => {
                    let i = self.next_id;
                    self.next_id += 1;
                    self.added_fmts.push((i, code.to_string()));
                    i
                }
            },
        };
        let base = self.base_xfs.len();
        let k = match self.added_xfs.iter().position(|x| *x == id) {
            Some(k) => k,
            None => {
                self.added_xfs.push(id);
                self.added_xfs.len() - 1
            }
        };
        let xf = u32::try_from(base + k)
            .map_err(|_| Error::limit("more cell formats than a workbook holds"))?;
        Ok(NumberFormat(xf))
    }

    /// True when cell format `xf` shows numbers as General (or does not
    /// exist).
    pub(crate) fn is_general(&self, xf: u32) -> bool {
        let i = xf as usize;
        let id = match self.base_xfs.get(i) {
            Some(id) => Some(*id),
            None => self.added_xfs.get(i - self.base_xfs.len()).copied(),
        };
        id.is_none_or(|id| id == 0)
    }

    /// Cell formats of the base (valid `s` indexes are below it).
    pub(crate) fn base_count(&self) -> usize {
        self.base_xfs.len()
    }

    /// `styles.xml`: the base with the added formats spliced in.
    pub(crate) fn render(&self) -> Vec<u8> {
        if self.added_fmts.is_empty() && self.added_xfs.is_empty() {
            return self.base.clone();
        }
        let b = &self.base;
        let slice = |r: std::ops::Range<usize>| b.get(r).unwrap_or_default();
        let mut out = Vec::with_capacity(b.len() + 256 * self.added_xfs.len());
        let fmts = |out: &mut Vec<u8>, inner: &[u8]| {
            let n = self.base_fmts.len() + self.added_fmts.len();
            out.extend_from_slice(format!("<numFmts count=\"{n}\">").as_bytes());
            out.extend_from_slice(inner);
            for (id, code) in &self.added_fmts {
                out.extend_from_slice(
                    format!("<numFmt numFmtId=\"{id}\" formatCode=\"").as_bytes(),
                );
                escape_into(out, code, true);
                out.extend_from_slice(b"\"/>");
            }
            out.extend_from_slice(b"</numFmts>");
        };
        let mut at = match self.num_fmts {
            Some(s) if !self.added_fmts.is_empty() => {
                out.extend_from_slice(slice(0..s.start));
                fmts(&mut out, slice(s.inner.0..s.inner.1));
                s.end
            }
            None if !self.added_fmts.is_empty() => {
                out.extend_from_slice(slice(0..self.root_end));
                fmts(&mut out, &[]);
                self.root_end
            }
            _ => 0,
        };
        let x = self.cell_xfs;
        out.extend_from_slice(slice(at..x.start));
        let n = self.base_xfs.len() + self.added_xfs.len();
        out.extend_from_slice(format!("<cellXfs count=\"{n}\">").as_bytes());
        out.extend_from_slice(slice(x.inner.0..x.inner.1));
        for id in &self.added_xfs {
            out.extend_from_slice(
                format!(
                    "<xf numFmtId=\"{id}\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\"/>"
                )
                .as_bytes(),
            );
        }
        out.extend_from_slice(b"</cellXfs>");
        at = x.end;
        out.extend_from_slice(slice(at..b.len()));
        out
    }
}

/// Records a `numFmt` of `numFmts` or an `xf` of `cellXfs`.
fn collect(
    p: &Part<'_>,
    e: &quick_xml::events::BytesStart<'_>,
    open: Option<&(String, usize, usize)>,
    fmts: &mut Vec<(u32, String)>,
    xfs: &mut Vec<u32>,
) -> Result<()> {
    let Some((parent, _, _)) = open else {
        return Ok(());
    };
    match (parent.as_str(), xml::name(e)) {
        ("numFmts", "numFmt") => {
            let id = p.attr(e, "numFmtId")?.and_then(|v| v.trim().parse().ok());
            if let (Some(id), Some(code)) = (id, p.attr(e, "formatCode")?) {
                fmts.push((id, code));
            }
        }
        ("cellXfs", "xf") => {
            let id = p.attr(e, "numFmtId")?.and_then(|v| v.trim().parse().ok());
            xfs.push(id.unwrap_or(0));
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_appended() {
        let parsed = StyleBook::parse(crate::parts::styles(), "styles.xml").unwrap();
        let mut book = StyleBook::own();
        assert_eq!(
            (
                parsed.num_fmts.map(|s| (s.start, s.inner, s.end)),
                parsed.root_end
            ),
            (
                book.num_fmts.map(|s| (s.start, s.inner, s.end)),
                book.root_end
            )
        );
        assert_eq!(
            (
                parsed.cell_xfs.start,
                parsed.cell_xfs.inner,
                parsed.cell_xfs.end
            ),
            (book.cell_xfs.start, book.cell_xfs.inner, book.cell_xfs.end)
        );
        assert_eq!(
            (&parsed.base_fmts, &parsed.base_xfs),
            (&book.base_fmts, &book.base_xfs)
        );
        assert_eq!(book.base_count(), 5);
        assert_eq!(book.render(), crate::parts::styles());
        let pct = book.register("0.00%").unwrap();
        let eur = book.register("#,##0.00 \"€\"").unwrap();
        assert_eq!((pct.0, eur.0), (5, 6));
        assert_eq!(book.register("0.00%").unwrap(), pct);
        assert_eq!(book.register("yyyy-mm-dd").unwrap().0, 7);
        assert!(book.is_general(0) && !book.is_general(5));
        let s = String::from_utf8(book.render()).unwrap();
        assert!(s.contains("<numFmts count=\"5\">"), "{s}");
        assert!(s.contains("<numFmt numFmtId=\"168\" formatCode=\"#,##0.00 &quot;€&quot;\"/>"));
        assert!(s.contains("<cellXfs count=\"8\">"));
        assert!(s.contains("<xf numFmtId=\"10\" fontId"));
        assert!(s.contains("<xf numFmtId=\"164\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\"/></cellXfs>"));
        assert!(book.register("").is_err());
    }
}
