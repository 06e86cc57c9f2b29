//! The commonest cells read in one pass, ahead of the general reader
//! (`cell.rs`): a `<table:table-cell` whose attributes, each after one
//! space, are only LibreOffice's spellings of a value (value type,
//! `office:value`, `-date-value`, `-boolean-value`, `-string-value`),
//! `table:formula`, the style and `calcext:value-type`, and that is empty
//! or holds one plain paragraph; or a run of empty cells.
//!
//! Anything else, and any value that would be reported as bad, is declined
//! before anything is stored and read by the general reader from its
//! start; a formula is stored by the general reader's own code. So results
//! and errors are the general reader's (the property test below compares
//! the two). It saves the general reader's attribute record and
//! child bookkeeping: seed.ods, one thread, 150 M instructions, not 190 M.

use super::cell::{
    CellAttrs, ValueType, find2, is_plain_short, plain_paragraph, quoted_value_type, scalar,
};
use super::table::{GRID_COLS, GRID_ROWS, TableParser};
use super::values::parse_count;
use crate::error::Result;

/// The cell start tag's name, with its `<`.
const CELL: &[u8] = b"<table:table-cell";

/// The value of the attribute whose `="` ends just before `from`: the
/// bytes up to the closing `"`, and the offset past it; `None` when a `<`
/// comes first or the part ends.
#[inline(always)]
fn quoted(buf: &[u8], from: usize) -> Option<(&[u8], usize)> {
    let close = from + find2(b'"', b'<', buf.get(from..)?)?;
    if buf.get(close) != Some(&b'"') {
        return None;
    }
    Some((buf.get(from..close)?, close + 1))
}

impl TableParser<'_> {
    /// Reads the cell at `pos` when it has the plain shape (module doc)
    /// and returns the offset past it; `Ok(None)` with nothing consumed or
    /// stored otherwise. Errors (cell budget, formula) are the general
    /// reader's for the cell.
    #[inline]
    pub(super) fn plain_cell(&mut self, pos: usize) -> Result<Option<usize>> {
        let buf = self.buf;
        if !buf.get(pos..).is_some_and(|b| b.starts_with(CELL)) {
            return Ok(None);
        }
        let mut i = pos + CELL.len();
        let mut a = CellAttrs::new();
        let mut repeat: Option<&[u8]> = None;
        let empty = loop {
            match buf.get(i) {
                Some(b' ') => i += 1,
                Some(b'>') => break false,
                Some(b'/') if buf.get(i + 1) == Some(&b'>') => break true,
                _ => return Ok(None),
            }
            let Some(rest) = buf.get(i..) else {
                return Ok(None);
            };
            if let Some(v) = rest.strip_prefix(b"office:value-type=\"".as_slice()) {
                let Some((t, len)) = quoted_value_type(v) else {
                    return Ok(None);
                };
                a.vt = t;
                i += 19 + len;
                continue;
            }
            let (name_len, slot) = if rest.starts_with(b"office:value=\"") {
                (14, Some(&mut a.value))
            } else if rest.starts_with(b"office:date-value=\"") {
                (19, Some(&mut a.date))
            } else if rest.starts_with(b"table:style-name=\"") {
                (18, None)
            } else if rest.starts_with(b"table:formula=\"") {
                (15, Some(&mut a.formula))
            } else if rest.starts_with(b"table:number-columns-repeated=\"") && repeat.is_none() {
                (31, Some(&mut repeat))
            } else if rest.starts_with(b"office:boolean-value=\"") {
                (22, Some(&mut a.boolean))
            } else if rest.starts_with(b"office:string-value=\"") {
                (21, Some(&mut a.string))
            } else if rest.starts_with(b"calcext:value-type=\"") {
                // An error cell takes its text: the general reader's.
                if rest.get(20..26) == Some(b"error\"".as_slice()) {
                    return Ok(None);
                }
                (20, None)
            } else {
                return Ok(None);
            };
            let Some((value, next)) = quoted(buf, i + name_len) else {
                return Ok(None);
            };
            if let Some(slot) = slot {
                *slot = Some(value);
            }
            i = next;
        };
        // The paragraph: `>` `<text:p>` text `</text:p>` and the end tag.
        let (text, end) = if empty {
            (&b""[..], i + 2)
        } else {
            match plain_paragraph(buf, i + 1) {
                Some((_, text, end)) => (text, end),
                None => return Ok(None),
            }
        };
        // A run of empty cells (LibreOffice writes one at most row ends)
        // only moves the column; a repeated value is the general reader's.
        if let Some(raw) = repeat {
            let n = match parse_count(raw) {
                Some(n) if a.vt == ValueType::None && a.formula.is_none() => n,
                _ => return Ok(None),
            };
            self.col = self.col.saturating_add(n.max(1));
            return Ok(Some(end));
        }
        let arena_start = self.out.store.arena.len();
        let value = match a.vt {
            ValueType::String => {
                // `office:string-value` wins over the paragraph.
                let text = a.string.unwrap_or(text);
                if !is_plain_short(text) {
                    return Ok(None);
                }
                self.out.store.arena.extend_from_slice(text);
                match self.finish_text(arena_start, pos) {
                    Ok(v) => v,
                    // Too long, not UTF-8: the general reader says so.
                    Err(_) => {
                        self.out.store.arena.truncate(arena_start);
                        return Ok(None);
                    }
                }
            }
            // A value that does not decode: the general reader's error.
            _ => match scalar(&a) {
                Ok(v) => v,
                Err(_) => return Ok(None),
            },
        };
        // What the general reader's tail does for one copy, no spans,
        // comment or link.
        let fit = self.w.row < GRID_ROWS && self.col < GRID_COLS;
        match (value, a.formula) {
            (Some(v), None) if fit => {
                if let Err(e) = self.store_one(v, pos) {
                    return self.locate(Err(e));
                }
            }
            (Some(v), Some(raw)) if fit => {
                if let Err(e) = self.store_with_formula(v, raw, pos) {
                    return self.locate(Err(e));
                }
            }
            (Some(_), _) => {
                self.w.clipped = true;
                self.out.store.arena.truncate(arena_start);
            }
            (None, None) => self.out.store.arena.truncate(arena_start),
            // A formula without a value: the general reader stores it.
            (None, Some(_)) => {
                self.out.store.arena.truncate(arena_start);
                return Ok(None);
            }
        }
        self.col = self.col.saturating_add(1);
        Ok(Some(end))
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::{GRID_COLS, GRID_ROWS, ParsedTable, TableCfg, TableParser};
    use crate::options::Limits;
    use proptest::prelude::*;
    use ream_xml::TagKind;

    /// What a parser holds after one cell, for comparing two of them.
    fn state(p: &TableParser<'_>) -> impl PartialEq + std::fmt::Debug + use<> {
        (
            p.out.store.cells.clone(),
            p.out.store.arena.clone(),
            p.col,
            p.w.clipped,
            p.w.used,
            p.out.store.formulas.clone(),
            p.w.formula_bytes,
        )
    }

    fn parser<'a>(buf: &'a [u8], limits: &'a Limits, at: (u64, u64)) -> TableParser<'a> {
        let repeats = Box::leak(Box::default());
        let cfg = TableCfg {
            limits,
            depth_left: 16,
            repeats,
        };
        let mut p = TableParser::new(buf, cfg, ParsedTable::default());
        (p.w.row, p.col) = at;
        p
    }

    /// The general reader on the cell at 0, as the row walker calls it.
    fn general(p: &mut TableParser<'_>) -> crate::error::Result<usize> {
        let t = p.next(0, "cell")?;
        match t.kind {
            TagKind::Start | TagKind::Empty => p.cell(&t, 1),
            _ => Ok(t.end),
        }
    }

    /// Attributes as `name="value"`, from each `name=values` line with
    /// its `|`-separated values, and a few odd shapes.
    fn attribute() -> impl Strategy<Value = String> {
        let mut all = vec![
            "office:value-type='float'".to_owned(),
            "office:value=\"1".to_owned(),
        ];
        for line in [
            "office:value-type=float|string|date|boolean|time|percentage|currency|floaty",
            "office:value=276455|-2.5e3| 7 |abc||1e999",
            "office:date-value=2016-09-15|2016-09-15T10:20:30|1899-12-30|yesterday",
            "office:boolean-value=true|FALSE|maybe",
            "office:time-value=PT1H",
            "office:string-value=s||a&amp;b|a&bogus;|INDIA",
            "table:style-name=ce1",
            "calcext:value-type=float|error",
            "table:number-columns-repeated=3|1|0|x|99999999999999999999",
            "table:number-columns-spanned=2",
            "table:formula=of:=1|of:=[.A3]+[.F3]|of:=UPPER([.C3])|=SUM(my_range)|of:=&quot;a&quot;|of:=&bogus;|of:=\u{e9}|of:=",
            "foo:value=9",
        ] {
            let (name, values) = line.split_once('=').unwrap();
            all.extend(values.split('|').map(|v| format!("{name}=\"{v}\"")));
            if name == "table:formula" {
                // With a value too, so that the formula is stored.
                let with_value =
                    |v| format!("office:value-type=\"float\" office:value=\"7\" {name}=\"{v}\"");
                all.extend(values.split('|').map(with_value));
            }
        }
        prop::sample::select(all)
    }

    fn body() -> impl Strategy<Value = String> {
        let texts = "golf||a&amp;b|a&bogus;b|x\r\ny|\u{fc}n\u{ef}|twenty characters!!|#VALUE!|seventeen chars!!";
        let text = prop::sample::select(texts.split('|').collect::<Vec<_>>());
        (0..6usize, text).prop_map(|(k, t)| match k {
            0 => "/>".to_owned(),
            1 | 2 => format!("><text:p>{t}</text:p></table:table-cell>"),
            3 => "></table:table-cell>".to_owned(),
            4 => format!("><text:p>{t}</text:p><text:p>b</text:p></table:table-cell>"),
            _ => format!("><text:p>{t}</text:p></table:covered-table-cell>"),
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20000))]
        /// The plain path either declines with nothing changed or gives
        /// exactly the general reader's cell, end and error.
        #[test]
        fn plain_cells_read_as_the_general_reader_reads_them(
            attrs in prop::collection::vec((attribute(), prop::sample::select(vec![" ", " ", "  ", "\n"])), 0..5),
            body in body(),
            row in prop::sample::select(vec![0, 7, GRID_ROWS - 1, GRID_ROWS]),
            col in prop::sample::select(vec![0, 3, GRID_COLS - 1, GRID_COLS]),
            max_cells in prop::sample::select(vec![0u64, 1, 1 << 20]),
            max_chars in prop::sample::select(vec![3usize, 1 << 20]),
            max_formula in prop::sample::select(vec![0u64, 8, 1 << 20]),
        ) {
            let mut xml = String::from("<table:table-cell");
            for (a, sep) in &attrs {
                xml.push_str(sep);
                xml.push_str(a);
            }
            xml.push_str(&body);
            xml.push_str("</table:table-row>");
            let buf = xml.as_bytes();
            let limits = Limits {
                max_cells_per_sheet: max_cells,
                max_string_chars: max_chars,
                max_formula_bytes: max_formula,
                ..Limits::default()
            };
            let mut fast = parser(buf, &limits, (row, col));
            let before = state(&fast);
            let mut slow = parser(buf, &limits, (row, col));
            let want = general(&mut slow);
            match fast.plain_cell(0) {
                Ok(None) => prop_assert_eq!(state(&fast), before),
                Ok(Some(end)) => {
                    prop_assert_eq!(Some(end), want.as_ref().ok().copied(), "{}", xml);
                    prop_assert_eq!(state(&fast), state(&slow), "{}", xml);
                }
                Err(e) => {
                    let w = want.err().map(|w| w.to_string());
                    prop_assert_eq!(Some(e.to_string()), w, "{}", xml);
                }
            }
        }
    }

    /// The shapes the plain path exists for are taken by it.
    #[test]
    fn the_usual_cells_take_the_plain_path() {
        let limits = Limits::default();
        for xml in [
            "<table:table-cell office:value-type=\"float\" office:value=\"2964.84\" calcext:value-type=\"float\"><text:p>2964.84</text:p></table:table-cell>",
            "<table:table-cell office:value-type=\"string\"><text:p>golf</text:p></table:table-cell>",
            "<table:table-cell table:style-name=\"ce1\" office:value-type=\"date\" office:date-value=\"2016-09-15\"><text:p>2016-09-15</text:p></table:table-cell>",
            "<table:table-cell/>",
            "<table:table-cell table:style-name=\"ce1\" table:number-columns-repeated=\"1020\"/>",
            "<table:table-cell office:value-type=\"boolean\" office:boolean-value=\"false\"><text:p>FALSE</text:p></table:table-cell>",
            "<table:table-cell table:formula=\"of:=[.A3]+[.F3]\" office:value-type=\"float\" office:value=\"229007\"><text:p>229007</text:p></table:table-cell>",
            "<table:table-cell table:formula=\"of:=UPPER([.C3])\" office:value-type=\"string\" office:string-value=\"INDIA\"><text:p>INDIA</text:p></table:table-cell>",
        ] {
            let mut p = parser(xml.as_bytes(), &limits, (0, 0));
            assert_eq!(p.plain_cell(0).unwrap(), Some(xml.len()), "{xml}");
            let mut slow = parser(xml.as_bytes(), &limits, (0, 0));
            assert_eq!(general(&mut slow).unwrap(), xml.len(), "{xml}");
            assert_eq!(state(&p), state(&slow), "{xml}");
        }
    }
}
