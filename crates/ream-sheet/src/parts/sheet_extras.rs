//! The parts of a worksheet outside `<sheetData>`: hidden columns, merged
//! ranges, hyperlinks and the ids of its drawing, comments and tables.

use super::{PartReader, decode_xhhhh, local, xml_bool};
use crate::error::Result;
use crate::model::CellRange;
use crate::refs::MAX_COL;
use quick_xml::events::Event;

/// A `<hyperlink>` before its `r:id` is resolved through the sheet's rels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawHyperlink {
    /// Cells covered.
    pub range: CellRange,
    /// Relationship id of an external target.
    pub rid: Option<String>,
    /// In-workbook location (`Sheet2!A1`).
    pub location: Option<String>,
    /// Display text.
    pub display: Option<String>,
}

/// What the worksheet says outside its cell data.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SheetExtras {
    /// `<mergeCell ref>` ranges.
    pub merged: Vec<CellRange>,
    /// `<hyperlink>`s.
    pub hyperlinks: Vec<RawHyperlink>,
    /// Hidden 0-based columns, sorted, unique, at most 16,384.
    pub hidden_cols: Vec<u32>,
    /// `<drawing r:id>`.
    pub drawing_rid: Option<String>,
    /// `<legacyDrawing r:id>` (VML, carries the comment shapes).
    pub legacy_drawing_rid: Option<String>,
    /// `<tablePart r:id>`s.
    pub table_rids: Vec<String>,
}

/// Columns in Excel's grid, the cap on `hidden_cols`.
const GRID_COLS: u32 = MAX_COL + 1;

/// Parses the worksheet XML before `<sheetData` (`head`) and after
/// `</sheetData>` (`tail`). Both are fragments: unbalanced tags are fine.
/// Unparseable references are skipped.
pub(crate) fn parse_sheet_extras(
    head: &[u8],
    tail: &[u8],
    part: &str,
    max_depth: u32,
) -> Result<SheetExtras> {
    let mut x = SheetExtras::default();
    let mut hidden: Vec<(u32, u32)> = Vec::new();
    for fragment in [head, tail] {
        let mut r = PartReader::fragment(fragment, part, max_depth);
        loop {
            match r.next()? {
                Event::Start(e) | Event::Empty(e) => match local(&e) {
                    "col" if xml_bool(r.attr(&e, "hidden")?.as_deref()) => {
                        let min = num(r.attr(&e, "min")?);
                        let max = num(r.attr(&e, "max")?).or(min);
                        hide_cols(&mut hidden, min, max);
                    }
                    "mergeCell" => {
                        if let Some(range) = range_attr(&r, &e)? {
                            x.merged.push(range);
                        }
                    }
                    "hyperlink" => {
                        if let Some(range) = range_attr(&r, &e)? {
                            let display = r.attr(&e, "display")?;
                            let location = r.attr(&e, "location")?;
                            x.hyperlinks.push(RawHyperlink {
                                range,
                                rid: r.rel_id(&e)?,
                                location: location.map(|s| decode_xhhhh(&s).into_owned()),
                                display: display.map(|s| decode_xhhhh(&s).into_owned()),
                            });
                        }
                    }
                    "drawing" => x.drawing_rid = r.rel_id(&e)?.or(x.drawing_rid.take()),
                    "legacyDrawing" => {
                        x.legacy_drawing_rid = r.rel_id(&e)?.or(x.legacy_drawing_rid.take());
                    }
                    "tablePart" => x.table_rids.extend(r.rel_id(&e)?),
                    _ => {}
                },
                Event::Eof => break,
                _ => {}
            }
        }
    }
    x.hidden_cols = expand_cols(hidden);
    Ok(x)
}

fn num(v: Option<String>) -> Option<u32> {
    v.and_then(|s| s.trim().parse().ok())
}

fn range_attr(
    r: &PartReader<'_>,
    e: &quick_xml::events::BytesStart<'_>,
) -> Result<Option<CellRange>> {
    Ok(r.attr(e, "ref")?.and_then(|v| CellRange::parse(v.trim())))
}

/// Records the 0-based columns of a 1-based inclusive `min..=max`, clipped
/// to the grid; empty or reversed ranges are dropped.
fn hide_cols(ranges: &mut Vec<(u32, u32)>, min: Option<u32>, max: Option<u32>) {
    let (Some(min), Some(max)) = (min, max) else {
        return;
    };
    let (min, max) = (min.max(1), max.min(GRID_COLS));
    if min <= max {
        ranges.push((min - 1, max - 1));
    }
}

/// Merges the ranges and lists their columns: sorted, unique, so never more
/// than [`GRID_COLS`] entries however many `<col>`s overlap.
fn expand_cols(mut ranges: Vec<(u32, u32)>) -> Vec<u32> {
    ranges.sort_unstable();
    let mut out: Vec<u32> = Vec::new();
    for (a, b) in ranges {
        let from = out.last().map_or(a, |&l| a.max(l.saturating_add(1)));
        if from <= b {
            out.extend(from..=b);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    const HEAD: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<x:dimension ref="A1:D9"/><x:sheetViews><x:sheetView workbookViewId="0"/></x:sheetViews>
<x:cols><x:col min="2" max="3" width="0" hidden="1"/><x:col min="5" max="5" hidden="true"/><x:col min="6" max="7" width="9"/></x:cols>
"#;
    const TAIL: &str = r#"<x:mergeCells count="3"><x:mergeCell ref="A1:B2"/><x:mergeCell ref="junk"/><x:mergeCell ref="$C$3:$D$4"/></x:mergeCells>
<x:hyperlinks><x:hyperlink ref="A5" r:id="rId1" display="Example_x000D_"/><x:hyperlink ref="B5:B6" location="'Other'!A1" display="go"/><x:hyperlink ref="ZZZZ1" r:id="rId9"/></x:hyperlinks>
<x:pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>
<x:drawing r:id="rId2"/><x:legacyDrawing r:id="rId3"/>
<x:tableParts count="2"><x:tablePart r:id="rId4"/><x:tablePart r:id="rId5"/></x:tableParts>
</x:worksheet>"#;

    #[test]
    fn parses_head_and_tail() {
        let x = parse_sheet_extras(
            HEAD.as_bytes(),
            TAIL.as_bytes(),
            "xl/worksheets/sheet1.xml",
            256,
        )
        .unwrap();
        assert_eq!(x.hidden_cols, [1, 2, 4]);
        assert_eq!(
            x.merged,
            [
                CellRange::parse("A1:B2").unwrap(),
                CellRange::parse("C3:D4").unwrap()
            ]
        );
        assert_eq!(x.hyperlinks.len(), 2);
        assert_eq!(x.hyperlinks[0].rid.as_deref(), Some("rId1"));
        assert_eq!(x.hyperlinks[0].display.as_deref(), Some("Example\r"));
        assert_eq!(x.hyperlinks[1].location.as_deref(), Some("'Other'!A1"));
        assert_eq!(x.hyperlinks[1].range, CellRange::parse("B5:B6").unwrap());
        assert_eq!(x.drawing_rid.as_deref(), Some("rId2"));
        assert_eq!(x.legacy_drawing_rid.as_deref(), Some("rId3"));
        assert_eq!(x.table_rids, ["rId4", "rId5"]);
    }

    #[test]
    fn hidden_column_expansion_is_capped() {
        let head = r#"<worksheet><cols><col min="1" max="16384" hidden="1"/><col min="1" max="4294967295" hidden="1"/><col min="0" max="2" hidden="1"/></cols>"#;
        let x = parse_sheet_extras(head.as_bytes(), b"", "s", 16).unwrap();
        assert_eq!(x.hidden_cols.len(), 16_384);
        assert_eq!(x.hidden_cols.last(), Some(&16_383));
        let many = r#"<col min="20000" max="30000" hidden="1"/><col min="9" max="3" hidden="1"/>"#
            .repeat(100);
        assert!(
            parse_sheet_extras(many.as_bytes(), b"", "s", 16)
                .unwrap()
                .hidden_cols
                .is_empty()
        );
    }

    #[test]
    fn empty_garbage_dtd_depth() {
        assert_eq!(
            parse_sheet_extras(b"", b"", "s", 8).unwrap(),
            SheetExtras::default()
        );
        assert_eq!(
            parse_sheet_extras(b"plain text", b"</a></b>", "s", 8).unwrap(),
            SheetExtras::default()
        );
        assert!(parse_sheet_extras(b"<worksheet><cols><col min=\"1", b"", "s", 8).is_err());
        assert!(parse_sheet_extras(b"", b"<mergeCell ref=A1/>", "s", 8).is_err());
        let dtd = b"<!DOCTYPE w [<!ENTITY e 'x'>]><worksheet>";
        assert_eq!(
            parse_sheet_extras(dtd, b"", "s", 8).unwrap_err().kind(),
            ErrorKind::Malformed
        );
        let deep = "<a>".repeat(9);
        let e = parse_sheet_extras(b"", deep.as_bytes(), "s", 8).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    }
}
