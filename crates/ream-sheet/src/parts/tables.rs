//! Table parts (`xl/tables/tableN.xml`).

use super::{PartReader, decode_xhhhh, local};
use crate::error::Result;
use crate::model::{CellRange, Table};
use quick_xml::events::Event;

/// Parses a table part: `<table name displayName ref>` and its
/// `<tableColumn name>`s. A missing `<table>` or unparseable `ref` is an
/// error (the table has no range then).
pub(crate) fn parse_table(xml: &[u8], part: &str, max_depth: u32) -> Result<Table> {
    let mut r = PartReader::new(xml, part, max_depth);
    let mut table: Option<Table> = None;
    loop {
        let event = r.next()?;
        match &event {
            Event::Start(e) | Event::Empty(e) => match local(e) {
                "table" if table.is_none() => {
                    let Some(range) = r.attr(e, "ref")?.and_then(|v| CellRange::parse(v.trim()))
                    else {
                        return Err(r.error("table without a valid ref"));
                    };
                    let name = decode_xhhhh(&r.attr(e, "name")?.unwrap_or_default()).into_owned();
                    let display = r.attr(e, "displayName")?;
                    table = Some(Table {
                        display_name: display
                            .map_or_else(|| name.clone(), |d| decode_xhhhh(&d).into()),
                        name,
                        range,
                        columns: Vec::new(),
                    });
                }
                "tableColumn" => {
                    if let Some(t) = table.as_mut() {
                        let name = r.attr(e, "name")?.unwrap_or_default();
                        t.columns.push(decode_xhhhh(&name).into_owned());
                    }
                }
                _ => {}
            },
            Event::Eof => return table.ok_or_else(|| r.error("no <table> element")),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn parses_table() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<table xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" id="1" name="Table1" displayName="Sales" ref="B2:D10" totalsRowShown="0">
  <autoFilter ref="B2:D10"/>
  <tableColumns count="3">
    <tableColumn id="1" name="Region"/>
    <tableColumn id="2" name="Q1_x000a_Total"><calculatedColumnFormula>[@A]*2</calculatedColumnFormula></tableColumn>
    <tableColumn id="3" name="A &amp; B"/>
  </tableColumns>
  <tableStyleInfo name="TableStyleMedium2" showRowStripes="1"/>
</table>"#;
        let t = parse_table(xml.as_bytes(), "xl/tables/table1.xml", 256).unwrap();
        assert_eq!(t.name, "Table1");
        assert_eq!(t.display_name, "Sales");
        assert_eq!(t.range, CellRange::parse("B2:D10").unwrap());
        assert_eq!(t.columns, ["Region", "Q1\nTotal", "A & B"]);
    }

    #[test]
    fn prefixed_table() {
        let xml = r#"<x:table xmlns:x="u" name="T" ref="A1:A1"><x:tableColumns><x:tableColumn name="c"/></x:tableColumns></x:table>"#;
        let t = parse_table(xml.as_bytes(), "t", 8).unwrap();
        assert_eq!((t.display_name.as_str(), t.columns.len()), ("T", 1));
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse_table(b"", "t", 8).unwrap_err().kind(),
            ErrorKind::Malformed
        );
        assert!(parse_table(b"<table name='T' ref='nope'/>", "t", 8).is_err());
        assert!(parse_table(b"<table name='T' ref='A1:B2'><tableColumns>", "t", 8).is_err());
        let dtd = b"<!DOCTYPE t><table name='T' ref='A1'/>";
        assert_eq!(
            parse_table(dtd, "t", 8).unwrap_err().kind(),
            ErrorKind::Malformed
        );
        let deep = b"<table ref='A1'><a><b/></a></table>";
        assert_eq!(
            parse_table(deep, "t", 2).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
    }
}
