//! The small package parts: content types, relationships, the workbook
//! part and the styles.

use crate::escape::escape_into;
use crate::value::DateStyle;
use ream_sheet::Visibility;

/// The XML declaration every part starts with.
pub(crate) const XML_DECL: &[u8] =
    b"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n";

const MAIN_NS: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL_NS: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PKG_REL_NS: &str = "http://schemas.openxmlformats.org/package/2006/relationships";

/// `[Content_Types].xml` for `sheets` worksheets.
pub(crate) fn content_types(sheets: usize, sst: bool, theme: bool) -> Vec<u8> {
    let mut s = String::from(
        "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">\
         <Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>\
         <Default Extension=\"xml\" ContentType=\"application/xml\"/>\
         <Override PartName=\"/xl/workbook.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml\"/>\
         <Override PartName=\"/xl/styles.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml\"/>",
    );
    if sst {
        s.push_str(
            "<Override PartName=\"/xl/sharedStrings.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml\"/>",
        );
    }
    if theme {
        s.push_str(
            "<Override PartName=\"/xl/theme/theme1.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.theme+xml\"/>",
        );
    }
    for i in 1..=sheets {
        s.push_str(&format!(
            "<Override PartName=\"/xl/worksheets/sheet{i}.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml\"/>"
        ));
    }
    s.push_str("</Types>");
    with_decl(s)
}

/// `_rels/.rels`: the package points at the workbook.
pub(crate) fn root_rels() -> Vec<u8> {
    with_decl(format!(
        "<Relationships xmlns=\"{PKG_REL_NS}\"><Relationship Id=\"rId1\" \
         Type=\"{REL_NS}/officeDocument\" Target=\"xl/workbook.xml\"/></Relationships>"
    ))
}

/// `xl/_rels/workbook.xml.rels`: sheets `rId1..`, then styles and strings.
pub(crate) fn workbook_rels(sheets: usize, sst: bool, theme: bool) -> Vec<u8> {
    let mut s = format!("<Relationships xmlns=\"{PKG_REL_NS}\">");
    for i in 1..=sheets {
        s.push_str(&format!(
            "<Relationship Id=\"rId{i}\" Type=\"{REL_NS}/worksheet\" Target=\"worksheets/sheet{i}.xml\"/>"
        ));
    }
    s.push_str(&format!(
        "<Relationship Id=\"rId{}\" Type=\"{REL_NS}/styles\" Target=\"styles.xml\"/>",
        sheets + 1
    ));
    if sst {
        s.push_str(&format!(
            "<Relationship Id=\"rId{}\" Type=\"{REL_NS}/sharedStrings\" Target=\"sharedStrings.xml\"/>",
            sheets + 2
        ));
    }
    if theme {
        s.push_str(&format!(
            "<Relationship Id=\"rId{}\" Type=\"{REL_NS}/theme\" Target=\"theme/theme1.xml\"/>",
            sheets + 3
        ));
    }
    s.push_str("</Relationships>");
    with_decl(s)
}

/// One sheet entry of `xl/workbook.xml`.
pub(crate) struct SheetEntry<'a> {
    pub name: &'a str,
    pub visibility: Visibility,
}

/// One `<definedName>`.
pub(crate) struct NameEntry<'a> {
    pub name: &'a str,
    pub formula: &'a str,
    pub local_sheet: Option<usize>,
    pub hidden: bool,
}

/// `xl/workbook.xml`.
pub(crate) fn workbook(
    sheets: &[SheetEntry<'_>],
    names: &[NameEntry<'_>],
    date_1904: bool,
) -> Vec<u8> {
    let mut b = XML_DECL.to_vec();
    b.extend_from_slice(format!("<workbook xmlns=\"{MAIN_NS}\" xmlns:r=\"{REL_NS}\">").as_bytes());
    b.extend_from_slice(if date_1904 {
        b"<workbookPr date1904=\"1\"/>"
    } else {
        b"<workbookPr/>"
    });
    let active = sheets
        .iter()
        .position(|s| s.visibility == Visibility::Visible)
        .unwrap_or(0);
    b.extend_from_slice(
        format!("<bookViews><workbookView activeTab=\"{active}\"/></bookViews><sheets>").as_bytes(),
    );
    for (i, s) in sheets.iter().enumerate() {
        b.extend_from_slice(b"<sheet name=\"");
        escape_into(&mut b, s.name, true);
        b.extend_from_slice(format!("\" sheetId=\"{}\"", i + 1).as_bytes());
        match s.visibility {
            Visibility::Visible => {}
            Visibility::Hidden => b.extend_from_slice(b" state=\"hidden\""),
            Visibility::VeryHidden => b.extend_from_slice(b" state=\"veryHidden\""),
        }
        b.extend_from_slice(format!(" r:id=\"rId{}\"/>", i + 1).as_bytes());
    }
    b.extend_from_slice(b"</sheets>");
    if !names.is_empty() {
        b.extend_from_slice(b"<definedNames>");
        for n in names {
            b.extend_from_slice(b"<definedName name=\"");
            escape_into(&mut b, n.name, true);
            b.push(b'"');
            if let Some(l) = n.local_sheet {
                b.extend_from_slice(format!(" localSheetId=\"{l}\"").as_bytes());
            }
            if n.hidden {
                b.extend_from_slice(b" hidden=\"1\"");
            }
            b.push(b'>');
            escape_into(&mut b, n.formula, false);
            b.extend_from_slice(b"</definedName>");
        }
        b.extend_from_slice(b"</definedNames>");
    }
    b.extend_from_slice(b"<calcPr calcId=\"191029\"/></workbook>");
    b
}

/// `xl/styles.xml`: cell format 0 is General, 1.. are the [`DateStyle`]s
/// in their order, with custom number formats from 164 on.
pub(crate) fn styles() -> Vec<u8> {
    let mut s = format!(
        "<styleSheet xmlns=\"{MAIN_NS}\"><numFmts count=\"{}\">",
        DateStyle::ALL.len()
    );
    for (i, d) in DateStyle::ALL.iter().enumerate() {
        s.push_str(&format!(
            "<numFmt numFmtId=\"{}\" formatCode=\"{}\"/>",
            164 + i,
            d.format_code()
        ));
    }
    s.push_str(
        "</numFmts><fonts count=\"1\"><font><sz val=\"11\"/><name val=\"Calibri\"/><family val=\"2\"/></font></fonts>\
         <fills count=\"2\"><fill><patternFill patternType=\"none\"/></fill><fill><patternFill patternType=\"gray125\"/></fill></fills>\
         <borders count=\"1\"><border><left/><right/><top/><bottom/><diagonal/></border></borders>\
         <cellStyleXfs count=\"1\"><xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\"/></cellStyleXfs>",
    );
    s.push_str(&format!(
        "<cellXfs count=\"{}\"><xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\"/>",
        DateStyle::ALL.len() + 1
    ));
    for i in 0..DateStyle::ALL.len() {
        s.push_str(&format!(
            "<xf numFmtId=\"{}\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\"/>",
            164 + i
        ));
    }
    s.push_str(
        "</cellXfs><cellStyles count=\"1\"><cellStyle name=\"Normal\" xfId=\"0\" builtinId=\"0\"/></cellStyles>\
         <dxfs count=\"0\"/><tableStyles count=\"0\"/></styleSheet>",
    );
    with_decl(s)
}

/// The start of `xl/sharedStrings.xml` for `unique` texts used `count`
/// times.
pub(crate) fn sst_head(count: u64, unique: usize) -> Vec<u8> {
    let mut b = XML_DECL.to_vec();
    b.extend_from_slice(
        format!("<sst xmlns=\"{MAIN_NS}\" count=\"{count}\" uniqueCount=\"{unique}\">").as_bytes(),
    );
    b
}

/// Appends one `<si>` of the shared string table.
pub(crate) fn sst_item(b: &mut Vec<u8>, text: &str) {
    if crate::escape::needs_preserve(text) {
        b.extend_from_slice(b"<si><t xml:space=\"preserve\">");
    } else {
        b.extend_from_slice(b"<si><t>");
    }
    escape_into(b, text, false);
    b.extend_from_slice(b"</t></si>");
}

fn with_decl(s: String) -> Vec<u8> {
    let mut b = XML_DECL.to_vec();
    b.extend_from_slice(s.as_bytes());
    b
}
