//! Drawing parts (images and charts placed on a sheet) and chart titles.

use super::{PartReader, local};
use crate::error::Result;
use crate::model::DrawingKind;
use quick_xml::events::Event;

/// One picture or chart of a drawing part, before its relationship is
/// resolved to a part name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DrawingRef {
    /// Picture or chart.
    pub kind: DrawingKind,
    /// The anchor's `from` cell, 0-based (row, col); `None` for absolute
    /// anchors.
    pub anchor: Option<(u32, u32)>,
    /// Relationship id in the drawing's rels (`r:embed` of the blip, `r:id`
    /// of the chart).
    pub rid: String,
}

/// Parses a drawing part (`xl/drawings/drawingN.xml`). Pictures are
/// `pic//blip r:embed`, charts `graphicFrame//chart r:id` (including
/// `cx:chart`); an `mc:Fallback` is skipped when its `mc:Choice` gave
/// something.
pub(crate) fn parse_drawing(xml: &[u8], part: &str, max_depth: u32) -> Result<Vec<DrawingRef>> {
    let mut r = PartReader::new(xml, part, max_depth);
    let mut out = Vec::new();
    let (mut row, mut col) = (None::<u32>, None::<u32>);
    let mut in_from = false;
    let mut field: Option<(bool, String)> = None; // (is_row, text)
    let (mut in_pic, mut in_frame) = (0u32, 0u32);
    let mut alt_start = 0usize; // out.len() when the last AlternateContent began
    let mut skip_below: Option<u32> = None;
    loop {
        let event = r.next()?;
        if let Some(d) = skip_below {
            match event {
                Event::End(_) if r.depth() < d => skip_below = None,
                Event::Eof => return Ok(out),
                _ => {}
            }
            continue;
        }
        match &event {
            Event::Start(e) | Event::Empty(e) => {
                let start = matches!(event, Event::Start(_));
                match local(e) {
                    "twoCellAnchor" | "oneCellAnchor" | "absoluteAnchor" => {
                        (row, col) = (None, None)
                    }
                    "from" => in_from = start,
                    "row" | "col" if in_from && start => {
                        field = Some((local(e) == "row", String::new()));
                    }
                    "pic" if start => in_pic += 1,
                    "graphicFrame" if start => in_frame += 1,
                    "AlternateContent" => alt_start = out.len(),
                    "Fallback" if start && out.len() > alt_start => skip_below = Some(r.depth()),
                    "blip" if in_pic > 0 => {
                        if let Some(rid) = r.attr(e, "embed")? {
                            out.push(DrawingRef {
                                kind: DrawingKind::Image,
                                anchor: row.zip(col),
                                rid,
                            });
                        }
                    }
                    "chart" if in_frame > 0 => {
                        if let Some(rid) = r.rel_id(e)? {
                            out.push(DrawingRef {
                                kind: DrawingKind::Chart,
                                anchor: row.zip(col),
                                rid,
                            });
                        }
                    }
                    _ => {}
                }
            }
            Event::End(e) => match e.local_name().into_inner() {
                "from" => in_from = false,
                "row" | "col" => {
                    if let Some((is_row, text)) = field.take() {
                        let v = text.trim().parse().ok();
                        if is_row { row = v } else { col = v }
                    }
                }
                "pic" => in_pic = in_pic.saturating_sub(1),
                "graphicFrame" => in_frame = in_frame.saturating_sub(1),
                _ => {}
            },
            Event::Eof => return Ok(out),
            other => {
                if let Some((_, text)) = field.as_mut() {
                    r.push_text(other, text)?;
                }
            }
        }
    }
}

/// The chart's own title (`c:chart/c:title`, not axis titles): rich text
/// runs joined (paragraphs by `'\n'`), else the cached text of a title that
/// is a cell reference; `None` when there is no title text.
pub(crate) fn parse_chart_title(xml: &[u8], part: &str, max_depth: u32) -> Result<Option<String>> {
    let mut r = PartReader::new(xml, part, max_depth);
    let mut chart_depth: Option<u32> = None;
    let mut title_depth: Option<u32> = None;
    let mut in_tx = false;
    let (mut rich, mut cache) = (String::new(), String::new());
    let mut paragraphs = 0u32;
    let mut collect: Option<bool> = None; // Some(true): a:t, Some(false): c:v
    loop {
        let event = r.next()?;
        match &event {
            Event::Start(e) | Event::Empty(e) => {
                let start = matches!(event, Event::Start(_));
                let d = r.depth();
                match local(e) {
                    "chart" if start && chart_depth.is_none() => chart_depth = Some(d),
                    "title"
                        if start
                            && title_depth.is_none()
                            && chart_depth.map(|c| c + 1) == Some(d) =>
                    {
                        title_depth = Some(d);
                    }
                    "tx" if start && title_depth.is_some_and(|t| t + 1 == d) => in_tx = true,
                    "p" if in_tx && start => {
                        if paragraphs > 0 {
                            rich.push('\n');
                        }
                        paragraphs += 1;
                    }
                    "t" if in_tx && start => collect = Some(true),
                    "v" if in_tx && start => collect = Some(false),
                    _ => {}
                }
            }
            Event::End(e) => match e.local_name().into_inner() {
                "t" | "v" => collect = None,
                "tx" if title_depth.is_some_and(|t| t == r.depth()) => in_tx = false,
                "title" if title_depth.is_some_and(|t| t == r.depth() + 1) => break,
                "chart" if chart_depth.is_some_and(|c| c == r.depth() + 1) => break,
                _ => {}
            },
            Event::Eof => break,
            other => match collect {
                Some(true) => r.push_text(other, &mut rich)?,
                Some(false) => r.push_text(other, &mut cache)?,
                None => {}
            },
        }
    }
    let text = if rich.trim().is_empty() { cache } else { rich };
    Ok((!text.is_empty()).then_some(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    const DRAWING: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">
<xdr:twoCellAnchor editAs="oneCell">
  <xdr:from><xdr:col>2</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>4</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:from>
  <xdr:to><xdr:col>9</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>20</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:to>
  <xdr:pic><xdr:nvPicPr><xdr:cNvPr id="2" name="Picture 1"/><xdr:cNvPicPr/></xdr:nvPicPr>
    <xdr:blipFill><a:blip r:embed="rId1"/><a:stretch/></xdr:blipFill></xdr:pic>
  <xdr:clientData/>
</xdr:twoCellAnchor>
<xdr:oneCellAnchor>
  <xdr:from><xdr:col>0</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>30</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:from>
  <xdr:ext cx="1" cy="1"/>
  <xdr:graphicFrame macro=""><xdr:nvGraphicFramePr><xdr:cNvPr id="3" name="Chart 2"/><xdr:cNvGraphicFramePr/></xdr:nvGraphicFramePr>
    <a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart">
      <c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="rId2"/>
    </a:graphicData></a:graphic></xdr:graphicFrame>
  <xdr:clientData/>
</xdr:oneCellAnchor>
<xdr:absoluteAnchor><xdr:pos x="0" y="0"/><xdr:ext cx="1" cy="1"/>
  <mc:AlternateContent><mc:Choice Requires="cx1"><xdr:graphicFrame><a:graphic><a:graphicData>
    <cx:chart xmlns:cx="http://schemas.microsoft.com/office/drawing/2014/chartex" r:id="rId3"/>
  </a:graphicData></a:graphic></xdr:graphicFrame></mc:Choice>
  <mc:Fallback><xdr:pic><xdr:blipFill><a:blip r:embed="rId4"/></xdr:blipFill></xdr:pic></mc:Fallback></mc:AlternateContent>
  <xdr:clientData/>
</xdr:absoluteAnchor>
<xdr:twoCellAnchor><xdr:from><xdr:col>1</xdr:col><xdr:row>1</xdr:row></xdr:from>
  <xdr:sp><xdr:spPr><a:blipFill><a:blip r:embed="rId9"/></a:blipFill></xdr:spPr></xdr:sp><xdr:clientData/>
</xdr:twoCellAnchor>
</xdr:wsDr>"#;

    #[test]
    fn parses_pictures_and_charts() {
        let d = parse_drawing(DRAWING.as_bytes(), "xl/drawings/drawing1.xml", 256).unwrap();
        let want = [
            (DrawingKind::Image, Some((4, 2)), "rId1"),
            (DrawingKind::Chart, Some((30, 0)), "rId2"),
            (DrawingKind::Chart, None, "rId3"),
        ];
        assert_eq!(d.len(), want.len());
        for (got, (kind, anchor, rid)) in d.iter().zip(want) {
            assert_eq!(
                (got.kind, got.anchor, got.rid.as_str()),
                (kind, anchor, rid)
            );
        }
    }

    #[test]
    fn fallback_used_when_choice_is_empty() {
        let xml = r#"<wsDr><oneCellAnchor><from><col>3</col><row>x</row></from><AlternateContent>
<Choice Requires="a14"><sp/></Choice><Fallback><pic><blip embed="rId5"/></pic></Fallback>
</AlternateContent></oneCellAnchor></wsDr>"#;
        let d = parse_drawing(xml.as_bytes(), "d", 16).unwrap();
        assert_eq!(
            d,
            [DrawingRef {
                kind: DrawingKind::Image,
                anchor: None,
                rid: "rId5".into()
            }]
        );
    }

    const CHART: &str = r#"<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">
<c:chart><c:title><c:tx><c:rich><a:bodyPr/><a:p><a:r><a:t>Sales </a:t></a:r><a:r><a:t>&amp; Costs</a:t></a:r></a:p><a:p><a:r><a:t>2024</a:t></a:r></a:p></c:rich></c:tx>
<c:overlay val="0"/><c:txPr><a:p><a:endParaRPr/></a:p></c:txPr></c:title>
<c:plotArea><c:valAx><c:title><c:tx><c:rich><a:p><a:r><a:t>Axis</a:t></a:r></a:p></c:rich></c:tx></c:title></c:valAx></c:plotArea></c:chart></c:chartSpace>"#;

    #[test]
    fn chart_titles() {
        assert_eq!(
            parse_chart_title(CHART.as_bytes(), "c", 64)
                .unwrap()
                .as_deref(),
            Some("Sales & Costs\n2024")
        );
        let axis_only = r#"<chartSpace><chart><autoTitleDeleted val="0"/><plotArea><valAx><title><tx><rich><p><r><t>Axis</t></r></p></rich></tx></title></valAx></plotArea></chart></chartSpace>"#;
        assert_eq!(
            parse_chart_title(axis_only.as_bytes(), "c", 64).unwrap(),
            None
        );
        let cached = r#"<c:chartSpace xmlns:c="u"><c:chart><c:title><c:tx><c:strRef><c:f>Sheet1!$A$1</c:f><c:strCache><c:ptCount val="1"/><c:pt idx="0"><c:v>From cell</c:v></c:pt></c:strCache></c:strRef></c:tx></c:title></c:chart></c:chartSpace>"#;
        assert_eq!(
            parse_chart_title(cached.as_bytes(), "c", 64)
                .unwrap()
                .as_deref(),
            Some("From cell")
        );
        let ref_only = r#"<chartSpace><chart><title><tx><strRef><f>Sheet1!$A$1</f></strRef></tx></title></chart></chartSpace>"#;
        assert_eq!(
            parse_chart_title(ref_only.as_bytes(), "c", 64).unwrap(),
            None
        );
        assert_eq!(parse_chart_title(b"", "c", 64).unwrap(), None);
    }

    #[test]
    fn errors() {
        assert!(parse_drawing(b"", "d", 8).unwrap().is_empty());
        assert!(parse_drawing(b"<wsDr><pic><blip embed='rId1'></wsDr>", "d", 8).is_err());
        assert!(parse_chart_title(b"<chartSpace><chart><title><tx>&bogus;", "c", 8).is_err());
        let dtd = b"<!DOCTYPE x><wsDr/>";
        assert_eq!(
            parse_drawing(dtd, "d", 8).unwrap_err().kind(),
            ErrorKind::Malformed
        );
        assert_eq!(
            parse_chart_title(dtd, "c", 8).unwrap_err().kind(),
            ErrorKind::Malformed
        );
        assert_eq!(
            parse_drawing(DRAWING.as_bytes(), "d", 6)
                .unwrap_err()
                .kind(),
            ErrorKind::LimitExceeded
        );
        assert_eq!(
            parse_chart_title(CHART.as_bytes(), "c", 4)
                .unwrap_err()
                .kind(),
            ErrorKind::LimitExceeded
        );
    }
}
