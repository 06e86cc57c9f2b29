//! One `table:table-cell` (or `table:covered-table-cell`): attributes to a
//! typed value, paragraphs to text, annotation to a comment, spans to a
//! merged range, repeats to stored copies. Allocation-free for ordinary
//! cells: attributes are matched as bytes and text goes straight into the
//! sheet's arena.

use super::table::{GRID_COLS, GRID_ROWS, TableParser};
use super::text::{ParaCtx, collect_paragraph, read_annotation, read_frame};
use super::values::{
    duration_kind, parse_bool, parse_count, parse_date, parse_duration, strip_formula_prefix,
};
use super::xml::{attr_string, bad_value, shift, xml_err};
use crate::cell_text::span_bits;
use crate::error::{Error, Result};
use crate::model::{CellError, CellRange, Comment, Hyperlink};
use crate::store::{
    AUX_FORMULA, FormulaRec, RawCell, T_BOOL, T_DATE, T_EMPTY, T_ERROR, T_INLINE, T_NUMBER,
    date_kind_code,
};
use ream_xml::{Tag, TagKind, local_name};

/// `office:value-type`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ValueType {
    None,
    Number,
    Date,
    Time,
    Bool,
    String,
}

/// The attributes of a cell start tag that matter (raw, still escaped).
pub(super) struct CellAttrs<'a> {
    pub(super) vt: ValueType,
    calc_error: bool,
    pub(super) value: Option<&'a [u8]>,
    pub(super) date: Option<&'a [u8]>,
    time: Option<&'a [u8]>,
    pub(super) boolean: Option<&'a [u8]>,
    pub(super) string: Option<&'a [u8]>,
    pub(super) formula: Option<&'a [u8]>,
    repeat: u64,
    cols_spanned: u64,
    rows_spanned: u64,
}

impl CellAttrs<'_> {
    pub(super) fn new() -> Self {
        CellAttrs {
            vt: ValueType::None,
            calc_error: false,
            value: None,
            date: None,
            time: None,
            boolean: None,
            string: None,
            formula: None,
            repeat: 1,
            cols_spanned: 1,
            rows_spanned: 1,
        }
    }
}

/// `Some((k, len))` when `rest` starts with the constant `text` (`len` its
/// length): one constant compare, where a compare of variable length
/// becomes a `memcmp` call.
macro_rules! spelled {
    ($rest:expr, $k:expr, $text:literal) => {
        $rest.starts_with($text).then_some(($k, $text.len()))
    };
}

/// The usual `office:value-type` values with their closing quote at the
/// start of `rest`, and the bytes they take; `None` for anything else
/// (then read the general way, with the same result).
#[inline(always)]
pub(super) fn quoted_value_type(rest: &[u8]) -> Option<(ValueType, usize)> {
    match rest.first()? {
        b'f' => spelled!(rest, ValueType::Number, b"float\""),
        b's' => spelled!(rest, ValueType::String, b"string\""),
        b'd' => spelled!(rest, ValueType::Date, b"date\""),
        b'b' => spelled!(rest, ValueType::Bool, b"boolean\""),
        b't' => spelled!(rest, ValueType::Time, b"time\""),
        b'p' => spelled!(rest, ValueType::Number, b"percentage\""),
        b'c' => spelled!(rest, ValueType::Number, b"currency\""),
        _ => None,
    }
}

/// `office:value-type`'s value.
#[inline]
fn value_type(v: &[u8]) -> ValueType {
    match v {
        b"float" | b"percentage" | b"currency" => ValueType::Number,
        b"date" => ValueType::Date,
        b"time" => ValueType::Time,
        b"boolean" => ValueType::Bool,
        b"string" => ValueType::String,
        _ => ValueType::None,
    }
}

fn read_attrs<'a>(tag: &Tag<'a>) -> Result<CellAttrs<'a>> {
    let mut a = CellAttrs::new();
    for (qname, v) in tag.qualified_attributes() {
        let count = |what: &str| {
            parse_count(v)
                .map(|n| n.max(1))
                .ok_or_else(|| bad_value(what, v, tag.start))
        };
        match local_name(qname) {
            b"value-type" if qname.starts_with(b"calcext:") => a.calc_error = v == b"error",
            b"value-type" => a.vt = value_type(v),
            b"value" => a.value = Some(v),
            b"date-value" => a.date = Some(v),
            b"time-value" => a.time = Some(v),
            b"boolean-value" => a.boolean = Some(v),
            b"string-value" => a.string = Some(v),
            b"formula" => a.formula = Some(v),
            b"number-columns-repeated" => a.repeat = count("column repeat count")?,
            b"number-columns-spanned" => a.cols_spanned = count("column span")?,
            b"number-rows-spanned" => a.rows_spanned = count("row span")?,
            _ => {}
        }
    }
    Ok(a)
}

/// The first `a` or `b` in `hay`: eight bytes at a time in a `u64` (the
/// zero-byte test of Hacker's Delight; the lowest flagged byte is always a
/// true match), `memchr2` from 32 bytes on. Cell attribute values are
/// mostly under 24 bytes, where `memchr2`'s setup or a byte loop took a
/// quarter of the tag scan (seed.ods).
#[inline(always)]
pub(super) fn find2(a: u8, b: u8, hay: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    const SHORT: usize = 32;
    let (wa, wb) = (LO * u64::from(a), LO * u64::from(b));
    let mut i = 0;
    while i < SHORT {
        let Some(word) = hay.get(i..i + 8) else {
            let tail = hay.get(i..).unwrap_or_default();
            return tail.iter().position(|&c| c == a || c == b).map(|k| i + k);
        };
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let w = u64::from_le_bytes(w);
        let (xa, xb) = (w ^ wa, w ^ wb);
        let hit = (xa.wrapping_sub(LO) & !xa | xb.wrapping_sub(LO) & !xb) & HI;
        if hit != 0 {
            return Some(i + (hit.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    let rest = hay.get(SHORT..)?;
    memchr::memchr2(a, b, rest).map(|k| k + SHORT)
}

/// Short text (16 bytes at most) without `&` or CR, which is its own
/// decoded form: most cell strings, copied as they are without the call
/// into the general unescape.
#[inline]
pub(super) fn is_plain_short(text: &[u8]) -> bool {
    text.len() <= 16 && !text.iter().any(|&c| c == b'&' || c == b'\r')
}

/// The usual cell content `<text:p>plain</text:p>` and the cell's end tag
/// from `from` (just past the cell's start tag): where the text starts,
/// the text, and the offset past the cell; `None` for any other shape.
#[inline(always)]
pub(super) fn plain_paragraph(buf: &[u8], from: usize) -> Option<(usize, &[u8], usize)> {
    const OPEN: &[u8] = b"<text:p>";
    let text_at = from + OPEN.len();
    if !buf.get(from..)?.starts_with(OPEN) {
        return None;
    }
    let close_at = text_at + find2(b'<', b'<', buf.get(text_at..)?)?;
    let after_p = buf.get(close_at..)?.strip_prefix(b"</text:p>".as_slice())?;
    let end_len = if after_p.starts_with(b"</table:table-cell>") {
        19
    } else if after_p.starts_with(b"</table:covered-table-cell>") {
        27
    } else {
        return None;
    };
    Some((text_at, buf.get(text_at..close_at)?, close_at + 9 + end_len))
}

/// The number, boolean, date or time of `a` as (tag, aux, bits): `None`
/// without its value attribute (or for other types), `Err` with the raw
/// value (trimmed for a number) when it does not decode.
#[inline(always)]
pub(super) fn scalar<'a>(
    a: &CellAttrs<'a>,
) -> std::result::Result<Option<(u8, u8, u64)>, &'a [u8]> {
    let date = |serial: f64, kind| Ok(Some((T_DATE, date_kind_code(kind), serial.to_bits())));
    match (a.vt, a.value, a.boolean, a.date, a.time) {
        (ValueType::Number, Some(raw), ..) => {
            let raw = ream_xml::trim_xml_ws(raw);
            match crate::cell_scan::parse_number(raw) {
                Some(n) => Ok(Some((T_NUMBER, 0, n.to_bits()))),
                None => Err(raw),
            }
        }
        (ValueType::Bool, _, Some(raw), ..) => match parse_bool(raw) {
            Some(b) => Ok(Some((T_BOOL, 0, u64::from(b)))),
            None => Err(raw),
        },
        (ValueType::Date, .., Some(raw), _) => match parse_date(raw) {
            Some((serial, kind)) => date(serial, kind),
            None => Err(raw),
        },
        (ValueType::Time, .., Some(raw)) => match parse_duration(raw) {
            Some(secs) => date(secs / 86_400.0, duration_kind(secs / 86_400.0)),
            None => Err(raw),
        },
        _ => Ok(None),
    }
}

/// [`scalar`] again with the failed value's character and entity
/// references resolved (`office:value="&#49;2"` is legal XML for 12);
/// `None` when it has none or still does not decode.
#[cold]
fn scalar_resolved(a: &CellAttrs<'_>, raw: &[u8]) -> Option<Option<(u8, u8, u64)>> {
    let v = crate::escapes::resolved(raw)?;
    let mut b = CellAttrs { ..*a };
    let slot = match a.vt {
        ValueType::Number => &mut b.value,
        ValueType::Bool => &mut b.boolean,
        ValueType::Date => &mut b.date,
        ValueType::Time => &mut b.time,
        _ => return None,
    };
    *slot = Some(&v);
    scalar(&b).ok()
}

/// Where a cell's paragraphs go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
    Skip,
    Arena,
    Scratch,
}

/// What the children of a cell gave.
struct Children<'a> {
    end: usize,
    comment: Option<(String, String)>,
    link: Option<&'a [u8]>,
    drawing: Option<crate::model::Drawing>,
}

impl Children<'_> {
    /// No children worth keeping; the cell ends at `end`.
    #[inline(always)]
    fn at(end: usize) -> Self {
        Children {
            end,
            comment: None,
            link: None,
            drawing: None,
        }
    }
}

impl<'a> TableParser<'a> {
    /// Parses the cell whose start tag is `tag` at nesting `depth` (of the
    /// cell element); returns the offset past it.
    pub(super) fn cell(&mut self, tag: &Tag<'a>, depth: u32) -> Result<usize> {
        let res = read_attrs(tag).and_then(|a| self.cell_inner(tag, &a, depth));
        self.locate(res)
    }

    /// Adds the current cell to an error.
    pub(super) fn locate<T>(&self, res: Result<T>) -> Result<T> {
        res.map_err(
            |e| match (u32::try_from(self.w.row), u32::try_from(self.col)) {
                (Ok(r), Ok(c)) if self.w.row < GRID_ROWS && self.col < GRID_COLS => e.at_cell(r, c),
                _ => e,
            },
        )
    }

    fn cell_inner(&mut self, tag: &Tag<'a>, a: &CellAttrs<'a>, depth: u32) -> Result<usize> {
        let sink = if a.calc_error && a.string.is_none_or(<[u8]>::is_empty) {
            Sink::Scratch
        } else if a.vt == ValueType::String && a.string.is_none() {
            Sink::Arena
        } else {
            Sink::Skip
        };
        let arena_start = self.out.store.arena.len();
        self.scratch.clear();
        // A cell without children, or with one plain paragraph (nearly
        // every cell), settles without the annotation, link and frame
        // slots of the general tail: 10-15 instructions a cell fewer.
        if tag.kind != TagKind::Start {
            return self.settle(a, sink, arena_start, tag.start, Children::at(tag.end));
        }
        if let Some(end) = self.one_paragraph(tag, sink)? {
            return self.settle(a, sink, arena_start, tag.start, Children::at(end));
        }
        let kids = self.children(tag.end, depth, sink, arena_start)?;
        self.settle(a, sink, arena_start, tag.start, kids)
    }

    /// Stores the value, annotation, link and frame of a cell; returns
    /// `kids.end`, the offset past it.
    #[inline(always)]
    fn settle(
        &mut self,
        a: &CellAttrs<'a>,
        sink: Sink,
        arena_start: usize,
        at: usize,
        kids: Children<'a>,
    ) -> Result<usize> {
        let value = self.value(a, sink, arena_start, at)?;
        let fit = if self.w.row < GRID_ROWS {
            GRID_COLS.saturating_sub(self.col).min(a.repeat)
        } else {
            0
        };
        let spans = a.cols_spanned > 1 || a.rows_spanned > 1;
        let extras = kids.comment.is_some() || kids.link.is_some();
        let has_content = value.is_some() || spans || extras;
        if has_content && fit < a.repeat {
            self.w.clipped = true;
        }
        if let Some(d) = kids.drawing
            && fit > 0
        {
            self.out.drawings.push(d);
        }
        if value.is_none() || fit == 0 {
            self.out.store.arena.truncate(arena_start);
        }
        match value {
            // The usual cell, one copy of a value (with a formula),
            // straight to the store: what `store_copies` does for it.
            Some(v) if fit == 1 && !spans && !extras => match a.formula {
                None => self.store_one(v, at)?,
                Some(f) => self.store_with_formula(v, f, at)?,
            },
            _ if has_content && fit > 0 => {
                self.store_copies(a, value, kids.comment, kids.link, fit, at)?;
            }
            _ => {}
        }
        self.col = self.col.saturating_add(a.repeat);
        Ok(kids.end)
    }

    /// The fast path for the usual shape `<text:p>plain</text:p></table:table-cell>`:
    /// the text goes to `sink` and the offset past the cell is returned;
    /// `None` (nothing consumed) for any other shape.
    fn one_paragraph(&mut self, tag: &Tag<'a>, sink: Sink) -> Result<Option<usize>> {
        let Some((text_at, text, end)) = plain_paragraph(self.buf, tag.end) else {
            return Ok(None);
        };
        let out = match sink {
            Sink::Skip => None,
            Sink::Arena => Some(&mut self.out.store.arena),
            Sink::Scratch => Some(&mut self.scratch),
        };
        if let Some(out) = out {
            if is_plain_short(text) {
                out.extend_from_slice(text);
            } else {
                ream_xml::unescape_into(text, out).map_err(|e| xml_err(shift(e, text_at)))?;
            }
        }
        Ok(Some(end))
    }

    /// Walks the cell's children: paragraphs into `sink`, the annotation,
    /// a frame.
    fn children(
        &mut self,
        from: usize,
        depth: u32,
        sink: Sink,
        arena_start: usize,
    ) -> Result<Children<'a>> {
        let mut pos = from;
        let mut kids = Children::at(from);
        let mut paragraphs = 0usize;
        let ctx = ParaCtx {
            depth_left: self.depth_left.saturating_sub(depth + 1),
            text_start: if sink == Sink::Arena { arena_start } else { 0 },
            max_bytes: self.limits.max_string_chars.saturating_mul(4),
            spaces: std::cell::Cell::new(0),
        };
        loop {
            let tag = self.next(pos, "content.xml ends inside a cell")?;
            pos = tag.end;
            match (tag.kind, tag.name) {
                (TagKind::Start | TagKind::Empty, b"p" | b"h") if sink != Sink::Skip => {
                    let out = match sink {
                        Sink::Arena => &mut self.out.store.arena,
                        _ => &mut self.scratch,
                    };
                    if paragraphs > 0 {
                        out.push(b'\n');
                    }
                    paragraphs += 1;
                    if tag.kind == TagKind::Start {
                        pos = collect_paragraph(self.buf, pos, out, &ctx, &mut kids.link)?;
                    }
                }
                (TagKind::Start, b"annotation") => {
                    let left = self.depth_left.saturating_sub(depth + 1);
                    let max = self.limits.max_string_chars;
                    let mut tmp = Vec::new();
                    let (author, text, end, spaces) =
                        read_annotation(self.buf, pos, left, max, &mut tmp)?;
                    ctx.spaces.set(ctx.spaces.get().saturating_add(spaces));
                    kids.comment = Some((author, text));
                    pos = end;
                }
                (TagKind::Start | TagKind::Empty, b"frame") => {
                    let left = self.depth_left.saturating_sub(depth + 1);
                    let anchor = u32::try_from(self.w.row)
                        .ok()
                        .zip(u32::try_from(self.col).ok());
                    let empty = tag.kind == TagKind::Empty;
                    let (d, end) =
                        read_frame(self.buf, pos, empty, left, anchor, &mut self.scratch)?;
                    if kids.drawing.is_none() {
                        kids.drawing = d;
                    }
                    pos = end;
                }
                (TagKind::Start, _) => pos = self.skip(pos, depth + 1)?,
                (TagKind::End, _) => break,
                _ => {}
            }
        }
        kids.end = pos;
        // Text that `text:s` spaces made large counts like repeats: one
        // item per 64 bytes, small runs free.
        self.expand(ctx.spaces.get() / 64, from)?;
        Ok(kids)
    }

    /// The typed value as (tag, aux, bits), `None` for an empty cell.
    #[inline(always)]
    fn value(
        &mut self,
        a: &CellAttrs<'_>,
        sink: Sink,
        arena_start: usize,
        at: usize,
    ) -> Result<Option<(u8, u8, u64)>> {
        if a.calc_error {
            let raw = a.string.filter(|s| !s.is_empty()).unwrap_or(&self.scratch);
            let code = CellError::from_bytes(ream_xml::trim_xml_ws(raw))
                .unwrap_or(CellError::Value)
                .code();
            return Ok(Some((T_ERROR, code, 0)));
        }
        let value = match a.vt {
            ValueType::String => match (a.string, sink) {
                (Some(raw), _) => self.raw_string(raw, arena_start, at)?,
                (None, Sink::Arena) => self.finish_text(arena_start, at)?,
                _ => None,
            },
            vt => match scalar(a).or_else(|raw| scalar_resolved(a, raw).ok_or(raw)) {
                Ok(v) => v,
                Err(raw) if vt == ValueType::Number => return Err(bad_value("number", raw, at)),
                Err(raw) if vt == ValueType::Bool => return Err(bad_value("boolean", raw, at)),
                // A date or time that does not parse is kept as text.
                Err(raw) => self.raw_string(raw, arena_start, at)?,
            },
        };
        match (value, a.formula) {
            // A formula without a value (no cached result): the cell
            // exists, empty.
            (None, Some(f)) if !strip_formula_prefix(f).is_empty() => {
                self.out.store.arena.truncate(arena_start);
                Ok(Some((T_EMPTY, 0, 0)))
            }
            _ => Ok(value),
        }
    }

    /// Stores an attribute value as the cell's text.
    fn raw_string(
        &mut self,
        raw: &[u8],
        arena_start: usize,
        at: usize,
    ) -> Result<Option<(u8, u8, u64)>> {
        self.out.store.arena.truncate(arena_start);
        ream_xml::unescape_into(raw, &mut self.out.store.arena)
            .map_err(|e| xml_err(shift(e, at)))?;
        self.finish_text(arena_start, at)
    }

    /// Checks the text appended since `start` (UTF-8, length, arena size)
    /// and returns it as an inline string; `None` when empty. The usual
    /// case (short ASCII, arena under 4 GiB) is decided inline; out of
    /// line this cost about 79 instructions a string on seed.ods.
    #[inline(always)]
    pub(super) fn finish_text(&mut self, start: usize, at: usize) -> Result<Option<(u8, u8, u64)>> {
        let arena = &self.out.store.arena;
        if let (Some(piece), Ok(off), Ok(_)) = (
            arena.get(start..),
            u32::try_from(start),
            u32::try_from(arena.len()),
        ) && !piece.is_empty()
            && piece.len() <= self.limits.max_string_chars
            && piece.is_ascii()
        {
            return Ok(Some((T_INLINE, 0, span_bits(off, piece.len() as u32))));
        }
        self.finish_text_checked(start, at)
    }

    /// [`finish_text`](Self::finish_text) for any text: UTF-8 checked,
    /// characters counted against the limit, offsets checked.
    #[inline(never)]
    fn finish_text_checked(&mut self, start: usize, at: usize) -> Result<Option<(u8, u8, u64)>> {
        let arena = &self.out.store.arena;
        let piece = arena.get(start..).unwrap_or_default();
        if piece.is_empty() {
            return Ok(None);
        }
        // ASCII (most cell text) is UTF-8 without the validator's setup.
        let text = if piece.is_ascii() {
            None
        } else {
            Some(std::str::from_utf8(piece).map_err(|e| {
                Error::malformed(format!(
                    "invalid UTF-8 in cell text at byte {} of the string",
                    e.valid_up_to()
                ))
                .at_offset(at as u64)
            })?)
        };
        let max = self.limits.max_string_chars;
        if piece.len() > max {
            let chars = text.map_or(piece.len(), |t| t.chars().count());
            if chars > max {
                return Err(Error::limit(format!(
                    "string of {chars} characters exceeds the limit of {max}"
                ))
                .at_offset(at as u64));
            }
        }
        match (u32::try_from(start), u32::try_from(piece.len())) {
            (Ok(o), Ok(l)) if arena.len() <= u32::MAX as usize => {
                Ok(Some((T_INLINE, 0, span_bits(o, l))))
            }
            _ => {
                Err(Error::limit("more than 4 GiB of cell text in one sheet").at_offset(at as u64))
            }
        }
    }

    /// Stores the value (tag, aux, bits) as the one cell at the current
    /// row and column, inside the grid, against the cell budget.
    #[inline(always)]
    pub(super) fn store_one(&mut self, v: (u8, u8, u64), at: usize) -> Result<()> {
        self.reserve_budget(1, at)?;
        self.push_cell(self.w.row as u32, self.col as u32, v, None);
        Ok(())
    }

    /// Pushes the value at (row, col) with, when given, the arena span of
    /// its formula (flagged on the cell, recorded in the formula table).
    /// No budget check: the caller reserved it.
    #[inline(always)]
    fn push_cell(&mut self, row: u32, col: u32, v: (u8, u8, u64), formula: Option<(u32, u32)>) {
        let (tag, aux, bits) = v;
        let aux = aux | if formula.is_some() { AUX_FORMULA } else { 0 };
        let col16 = col as u16;
        self.out.store.cells.push(RawCell {
            row,
            col: col16,
            tag,
            aux,
            bits,
        });
        if let Some((off, len)) = formula {
            let f = FormulaRec { row, col, off, len };
            self.out.store.formulas.push(f);
        }
    }

    /// Stores `fit` copies of the cell (repeats within the grid) with its
    /// formula, merged range, comment and link.
    fn store_copies(
        &mut self,
        a: &CellAttrs<'_>,
        value: Option<(u8, u8, u64)>,
        comment: Option<(String, String)>,
        link: Option<&[u8]>,
        fit: u64,
        at: usize,
    ) -> Result<()> {
        let row = self.w.row as u32;
        let first = self.col as u32;
        let span = a.cols_spanned > 1 || a.rows_spanned > 1;
        let per = u64::from(value.is_some())
            + u64::from(span)
            + u64::from(comment.is_some())
            + u64::from(link.is_some());
        self.reserve_budget(per.saturating_mul(fit), at)?;
        self.expand(per.saturating_mul(fit - 1), at)?;
        let formula = match (value, a.formula) {
            (Some(_), Some(raw)) => Some(self.store_formula(raw, at)?),
            _ => None,
        };
        let link = link
            .map(|raw| attr_string(raw, &mut Vec::new()).map_err(|e| xml_err(shift(e, at))))
            .transpose()?;
        for k in 0..fit as u32 {
            let col = first + k;
            if let Some(v) = value {
                self.push_cell(row, col, v, formula);
            }
            if span {
                // Saturating: a span near u64::MAX must not wrap (test
                // `ods::huge_spans_are_clipped_to_the_grid`).
                let last_row = u64::from(row)
                    .saturating_add(a.rows_spanned - 1)
                    .min(GRID_ROWS - 1);
                let last_col = u64::from(col)
                    .saturating_add(a.cols_spanned - 1)
                    .min(GRID_COLS - 1);
                self.out.merged.push(CellRange {
                    first_row: row,
                    first_col: col,
                    last_row: last_row as u32,
                    last_col: last_col as u32,
                });
            }
            if let Some((author, text)) = &comment {
                self.out.comments.push(Comment {
                    row,
                    col,
                    author: author.clone(),
                    text: text.clone(),
                });
            }
            if let Some(target) = &link {
                let (target, location) = match target.strip_prefix('#') {
                    Some(loc) => (None, Some(loc.to_string())),
                    None => (Some(target.clone()), None),
                };
                self.out.hyperlinks.push(Hyperlink {
                    range: CellRange {
                        first_row: row,
                        first_col: col,
                        last_row: row,
                        last_col: col,
                    },
                    target,
                    location,
                    display: None,
                });
            }
        }
        Ok(())
    }

    /// Stores the value `v` with the formula of attribute value `raw` at
    /// the current cell: [`store_copies`](Self::store_copies) for one copy.
    /// Out of line: inlined, it cost the cells without a formula some 20
    /// instructions each (seed.ods).
    #[inline(never)]
    pub(super) fn store_with_formula(
        &mut self,
        v: (u8, u8, u64),
        raw: &[u8],
        at: usize,
    ) -> Result<()> {
        self.reserve_budget(1, at)?;
        let formula = self.store_formula(raw, at)?;
        self.push_cell(self.w.row as u32, self.col as u32, v, Some(formula));
        Ok(())
    }

    /// Appends formula text (prefix stripped, decoded) to the arena once;
    /// repeated cells share it. Printable ASCII without `&` (most formulas)
    /// is its own decoded form, and UTF-8.
    fn store_formula(&mut self, raw: &[u8], at: usize) -> Result<(u32, u32)> {
        let text = strip_formula_prefix(raw);
        let plain = crate::cell_scan::is_plain_ascii(text);
        let arena = &mut self.out.store.arena;
        let off = arena.len();
        if plain {
            arena.extend_from_slice(text);
        } else {
            ream_xml::unescape_into(text, arena).map_err(|e| xml_err(shift(e, at)))?;
        }
        let len = arena.len() - off;
        self.w.formula_bytes = self.w.formula_bytes.saturating_add(len as u64);
        if self.w.formula_bytes > self.limits.max_formula_bytes {
            return Err(Error::limit(format!(
                "more than {} bytes of formula text in one sheet",
                self.limits.max_formula_bytes
            ))
            .at_offset(at as u64));
        }
        if !plain && std::str::from_utf8(arena.get(off..).unwrap_or_default()).is_err() {
            return Err(Error::malformed("invalid UTF-8 in a formula").at_offset(at as u64));
        }
        match (u32::try_from(off), u32::try_from(len)) {
            (Ok(o), Ok(l)) if arena.len() <= u32::MAX as usize => Ok((o, l)),
            _ => {
                Err(Error::limit("more than 4 GiB of cell text in one sheet").at_offset(at as u64))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::find2;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn find2_finds_the_first_of_two_bytes(
            hay in proptest::collection::vec(prop_oneof![Just(b'"'), Just(b'<'), Just(0u8), Just(0x80u8), Just(0xffu8), any::<u8>()], 0..80),
            a in prop_oneof![Just(b'"'), Just(b'='), any::<u8>()],
            b in prop_oneof![Just(b'<'), Just(b'>'), any::<u8>()],
        ) {
            let want = hay.iter().position(|&c| c == a || c == b);
            prop_assert_eq!(find2(a, b, &hay), want);
        }
    }
}
