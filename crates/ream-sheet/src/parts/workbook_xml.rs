//! `xl/workbook.xml`: sheet list, defined names, date system.

use super::{PartReader, decode_xhhhh, local, xml_bool};
use crate::error::Result;
use crate::model::{DefinedName, Visibility};
use quick_xml::events::Event;

/// One `<sheet>` entry, in workbook order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SheetEntry {
    /// Tab name.
    pub name: String,
    /// `sheetId` (0 when missing or garbled).
    pub sheet_id: u32,
    /// Relationship id to the sheet part (empty when missing).
    pub rid: String,
    /// `state`: visible, hidden or veryHidden.
    pub visibility: Visibility,
}

/// What the workbook part says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct WorkbookInfo {
    /// Sheets in tab order (the index `localSheetId` refers to).
    pub sheets: Vec<SheetEntry>,
    /// Defined names in document order.
    pub defined_names: Vec<DefinedName>,
    /// True for the 1904 date system.
    pub date_1904: bool,
}

/// Parses the workbook part. Every `<sheet>` is kept (even without a name
/// or `r:id`) so that `localSheetId` indices stay aligned.
pub(crate) fn parse_workbook(xml: &[u8], part: &str, max_depth: u32) -> Result<WorkbookInfo> {
    let mut r = PartReader::new(xml, part, max_depth);
    let mut info = WorkbookInfo::default();
    let mut in_sheets = false;
    let mut name: Option<(DefinedName, String)> = None;
    loop {
        let event = r.next()?;
        match &event {
            Event::Start(e) | Event::Empty(e) => {
                let empty = matches!(event, Event::Empty(_));
                match local(e) {
                    "sheets" => in_sheets = !empty,
                    "sheet" if in_sheets => info.sheets.push(SheetEntry {
                        name: decode_xhhhh(&r.attr(e, "name")?.unwrap_or_default()).into_owned(),
                        sheet_id: r
                            .attr(e, "sheetId")?
                            .and_then(|v| v.trim().parse().ok())
                            .unwrap_or(0),
                        rid: r.rel_id(e)?.unwrap_or_default(),
                        visibility: match r.attr(e, "state")?.as_deref() {
                            Some("hidden") => Visibility::Hidden,
                            Some("veryHidden") => Visibility::VeryHidden,
                            _ => Visibility::Visible,
                        },
                    }),
                    "workbookPr" => info.date_1904 = xml_bool(r.attr(e, "date1904")?.as_deref()),
                    "definedName" => {
                        let dn = DefinedName {
                            name: decode_xhhhh(&r.attr(e, "name")?.unwrap_or_default())
                                .into_owned(),
                            formula: String::new(),
                            local_sheet: r
                                .attr(e, "localSheetId")?
                                .and_then(|v| v.trim().parse().ok()),
                            hidden: xml_bool(r.attr(e, "hidden")?.as_deref()),
                        };
                        if empty {
                            info.defined_names.push(dn);
                        } else {
                            name = Some((dn, String::new()));
                        }
                    }
                    _ => {}
                }
            }
            Event::End(e) => match e.local_name().into_inner() {
                "sheets" => in_sheets = false,
                "definedName" => {
                    if let Some((mut dn, text)) = name.take() {
                        dn.formula = decode_xhhhh(&text).into_owned();
                        info.defined_names.push(dn);
                    }
                }
                _ => {}
            },
            Event::Eof => return Ok(info),
            other => {
                if let Some((_, text)) = name.as_mut() {
                    r.push_text(other, text)?;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    const WB: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<x:workbook xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
  <x:workbookPr date1904="true" defaultThemeVersion="124226"/>
  <x:sheets>
    <x:sheet name="Data &amp; More" sheetId="1" r:id="rId1"/>
    <x:sheet name="Secret" sheetId="7" state="hidden" r:id="rId2"/>
    <x:sheet name="Code" sheetId="x" state="veryHidden" r:id="rId3"></x:sheet>
  </x:sheets>
  <x:definedNames>
    <x:definedName name="_xlnm.Print_Area" localSheetId="0">'Data &amp; More'!$A$1:$B$2</x:definedName>
    <x:definedName name="Totals" hidden="1">Secret!$C$1</x:definedName>
    <x:definedName name="Empty"/>
  </x:definedNames>
</x:workbook>"#;

    #[test]
    fn parses_prefixed_workbook() {
        let wb = parse_workbook(WB.as_bytes(), "xl/workbook.xml", 256).unwrap();
        assert!(wb.date_1904);
        let names: Vec<_> = wb.sheets.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["Data & More", "Secret", "Code"]);
        assert_eq!(wb.sheets[1].sheet_id, 7);
        assert_eq!(wb.sheets[1].rid, "rId2");
        assert_eq!(wb.sheets[1].visibility, Visibility::Hidden);
        assert_eq!(wb.sheets[2].sheet_id, 0);
        assert_eq!(wb.sheets[2].visibility, Visibility::VeryHidden);
        assert_eq!(wb.defined_names.len(), 3);
        let pa = &wb.defined_names[0];
        assert_eq!(pa.formula, "'Data & More'!$A$1:$B$2");
        assert_eq!(pa.local_sheet, Some(0));
        assert!(!pa.hidden);
        assert!(wb.defined_names[1].hidden);
        assert_eq!(wb.defined_names[1].local_sheet, None);
        assert_eq!(wb.defined_names[2].formula, "");
    }

    #[test]
    fn default_date_system_and_empty() {
        let wb = parse_workbook(b"<workbook><workbookPr date1904=\"0\"/></workbook>", "w", 8);
        assert!(!wb.unwrap().date_1904);
        assert_eq!(
            parse_workbook(b"", "w", 8).unwrap(),
            WorkbookInfo::default()
        );
    }

    #[test]
    fn errors() {
        assert!(parse_workbook(b"<workbook><sheets><sheet name='a'", "w", 8).is_err());
        let dtd = b"<!DOCTYPE w><workbook/>";
        assert_eq!(
            parse_workbook(dtd, "w", 8).unwrap_err().kind(),
            ErrorKind::Malformed
        );
        let deep = b"<workbook><a><b><c/></b></a></workbook>";
        assert_eq!(
            parse_workbook(deep, "w", 3).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
    }
}
