//! `xl/styles.xml`: which cell formats are dates.

use super::{PartReader, local};
use crate::dates::{builtin_date_kind, format_date_kind};
use crate::error::Result;
use crate::model::DateKind;
use quick_xml::events::Event;
use std::collections::HashMap;

/// Date classification of every cell format (`cellXfs`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Styles {
    /// Indexed by the `<xf>` position in `cellXfs` (a cell's `s`).
    pub xf_date_kind: Vec<Option<DateKind>>,
}

/// Parses the styles part. Custom `<numFmts>` override built-in ids; a
/// missing or garbled `numFmtId` counts as 0 (General). `cellStyleXfs` and
/// `dxfs` are ignored.
pub(crate) fn parse_styles(xml: &[u8], part: &str, max_depth: u32) -> Result<Styles> {
    let mut r = PartReader::new(xml, part, max_depth);
    let mut custom: HashMap<u32, Option<DateKind>> = HashMap::new();
    let mut xf_ids: Vec<u32> = Vec::new();
    let mut in_num_fmts = false;
    let mut in_cell_xfs = false;
    loop {
        let event = r.next()?;
        match &event {
            Event::Start(e) | Event::Empty(e) => {
                let empty = matches!(event, Event::Empty(_));
                match local(e) {
                    "numFmts" => in_num_fmts = !empty,
                    "cellXfs" => in_cell_xfs = !empty,
                    "numFmt" if in_num_fmts => {
                        let id = r.attr(e, "numFmtId")?.and_then(|v| v.trim().parse().ok());
                        if let Some(id) = id {
                            let code = r.attr(e, "formatCode")?.unwrap_or_default();
                            custom.insert(id, format_date_kind(&code));
                        }
                    }
                    "xf" if in_cell_xfs => {
                        let id = r.attr(e, "numFmtId")?.and_then(|v| v.trim().parse().ok());
                        xf_ids.push(id.unwrap_or(0));
                    }
                    _ => {}
                }
            }
            Event::End(e) => match e.local_name().into_inner() {
                "numFmts" => in_num_fmts = false,
                "cellXfs" => in_cell_xfs = false,
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    let xf_date_kind = xf_ids
        .into_iter()
        .map(|id| match custom.get(&id) {
            Some(kind) => *kind,
            None => builtin_date_kind(id),
        })
        .collect();
    Ok(Styles { xf_date_kind })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::styles_view::StyleView;

    #[test]
    fn classifies_cell_formats() {
        let xml = r#"<?xml version="1.0"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
  <numFmts count="3">
    <numFmt numFmtId="164" formatCode="yyyy\-mm\-dd"/>
    <numFmt numFmtId="165" formatCode="&quot;h&quot;0.00"/>
    <numFmt numFmtId="14" formatCode="0.00"/>
  </numFmts>
  <cellStyleXfs count="1"><xf numFmtId="22"/></cellStyleXfs>
  <cellXfs count="7">
    <xf numFmtId="0" fontId="0"/>
    <xf numFmtId="164" applyNumberFormat="1"><alignment wrapText="1"/></xf>
    <xf numFmtId="165"/>
    <xf numFmtId="14"/>
    <xf numFmtId="46"/>
    <xf numFmtId="junk"/>
    <xf numFmtId="21"/>
  </cellXfs>
  <dxfs count="1"><dxf><numFmt numFmtId="0" formatCode="yyyy"/></dxf></dxfs>
</styleSheet>"#;
        let s = parse_styles(xml.as_bytes(), "xl/styles.xml", 256).unwrap();
        assert_eq!(s.xf_date_kind.len(), 7);
        assert_eq!(s.date_kind(0), None);
        assert_eq!(s.date_kind(1), Some(DateKind::DateTime));
        assert_eq!(s.date_kind(2), None);
        assert_eq!(s.date_kind(3), None, "custom code overrides built-in 14");
        assert_eq!(s.date_kind(4), Some(DateKind::Duration));
        assert_eq!(s.date_kind(5), None);
        assert_eq!(s.date_kind(6), Some(DateKind::Time));
        assert_eq!(s.date_kind(99), None);
    }

    #[test]
    fn prefixed_and_empty() {
        let xml = r#"<s:styleSheet xmlns:s="u"><s:cellXfs><s:xf numFmtId="14"/></s:cellXfs></s:styleSheet>"#;
        let s = parse_styles(xml.as_bytes(), "st", 8).unwrap();
        assert_eq!(s.date_kind(0), Some(DateKind::DateTime));
        assert_eq!(parse_styles(b"", "st", 8).unwrap(), Styles::default());
    }

    #[test]
    fn errors() {
        assert!(parse_styles(b"<styleSheet><cellXfs></styleSheet>", "st", 8).is_err());
        let dtd = b"<!DOCTYPE s [<!ENTITY e 'x'>]><styleSheet/>";
        assert_eq!(
            parse_styles(dtd, "st", 8).unwrap_err().kind(),
            ErrorKind::Malformed
        );
        let deep = b"<a><b><c/></b></a>";
        assert_eq!(
            parse_styles(deep, "st", 2).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
    }
}
