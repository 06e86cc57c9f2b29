//! The `<dimension>` a worksheet declares, read without parsing the sheet.
//!
//! A workbook opened without loading cells
//! ([`OpenOptions::load_cells(false)`](ream_sheet::OpenOptions::load_cells))
//! has not seen its sheets' heads; a streaming consumer that needs the
//! sheet's width before its first row (a CSV with a fixed number of fields)
//! reads it here: only the start of the worksheet part is inflated.

use ream_io::Bytes;
use ream_sheet::CellRange;
use ream_zip::Archive;
use std::io::Read;

/// At most this many bytes of a worksheet part are inflated to find its
/// `<dimension>` (it comes before `<sheetData>`, after the sheet
/// properties, views and column widths).
const HEAD_MAX: usize = 256 << 10;

/// The range declared by the `<dimension ref="...">` element of the
/// worksheet part `part` (e.g. `xl/worksheets/sheet1.xml`) of the XLSX/XLSM
/// package `package`, as written: not checked against the cells.
///
/// `None` when the package or part cannot be read, when the element is
/// absent from the first 256 KiB or comes after `<sheetData>`, or when its
/// reference does not parse (ODS packages have no such element).
pub fn declared_dimension(package: &Bytes, part: &str) -> Option<CellRange> {
    let archive = Archive::new(package.clone(), ream_zip::Limits::default()).ok()?;
    let entry = archive.find(part)?;
    let mut reader = archive.stream(entry).ok()?;
    let mut head = Vec::new();
    let mut block = [0u8; 16 << 10];
    while head.len() < HEAD_MAX {
        let n = reader.read(&mut block).ok()?;
        let Some(read) = block.get(..n).filter(|b| !b.is_empty()) else {
            break;
        };
        head.extend_from_slice(read);
        if let Some(found) = find_dimension(&head) {
            return found;
        }
    }
    find_dimension(&head).flatten()
}

/// Scans worksheet XML for the dimension: `Some(range)` when found (range
/// `None` if unparsable), `None` when more bytes are needed. Reaching
/// `sheetData` first settles it as absent.
fn find_dimension(xml: &[u8]) -> Option<Option<CellRange>> {
    let mut at = 0;
    while let Some(lt) = memchr::memchr(b'<', xml.get(at..)?) {
        let start = at + lt + 1;
        let tag_end = start + memchr::memchr(b'>', xml.get(start..)?)?;
        let tag = xml.get(start..tag_end)?;
        let name_len = tag
            .iter()
            .position(|b| b.is_ascii_whitespace() || *b == b'/')
            .unwrap_or(tag.len());
        let name = tag.get(..name_len)?;
        let local = name.rsplit(|b| *b == b':').next().unwrap_or(name);
        match local {
            b"sheetData" => return Some(None),
            b"dimension" => return Some(ref_attr(tag.get(name_len..)?)),
            _ => at = tag_end + 1,
        }
    }
    None
}

/// The `ref` attribute of a tag's attribute text, parsed as a range.
fn ref_attr(attrs: &[u8]) -> Option<CellRange> {
    let text = std::str::from_utf8(attrs).ok()?;
    let mut rest = text;
    while let Some(i) = rest.find("ref") {
        let before = rest.get(..i)?;
        let after = rest.get(i + 3..)?.trim_start();
        rest = rest.get(i + 3..)?;
        if !before.is_empty() && !before.ends_with(|c: char| c.is_ascii_whitespace()) {
            continue;
        }
        let Some(value) = after.strip_prefix('=') else {
            continue;
        };
        let value = value.trim_start();
        let quote = value.chars().next()?;
        let inner = value.get(1..)?;
        let end = inner.find(quote)?;
        return CellRange::parse(inner.get(..end)?);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dim(xml: &str) -> Option<Option<String>> {
        find_dimension(xml.as_bytes()).map(|r| r.map(|r| r.to_string()))
    }

    #[test]
    fn finds_the_element() {
        let head = r#"<?xml version="1.0"?><worksheet xmlns="x"><sheetPr/><dimension ref="A1:H30"/><sheetData>"#;
        assert_eq!(dim(head), Some(Some("A1:H30".into())));
        let prefixed = r#"<x:worksheet><x:dimension  ref = 'B2' /><x:sheetData/>"#;
        assert_eq!(dim(prefixed), Some(Some("B2".into())));
        assert_eq!(dim("<worksheet><sheetData><row>"), Some(None));
        assert_eq!(dim("<worksheet><sheetPr"), None, "needs more bytes");
        assert_eq!(dim(r#"<worksheet><dimension xref="A1"/>"#), Some(None));
    }

    #[test]
    fn reads_a_package() -> Result<(), rust_xlsxwriter::XlsxError> {
        let mut wb = rust_xlsxwriter::Workbook::new();
        let ws = wb.add_worksheet();
        ws.write_number(0, 0, 1.0)?;
        ws.write_number(4, 2, 1.0)?;
        let bytes = Bytes::from_vec(wb.save_to_buffer()?);
        let got = declared_dimension(&bytes, "xl/worksheets/sheet1.xml");
        assert_eq!(got.map(|r| r.to_string()), Some("A1:C5".into()));
        assert_eq!(declared_dimension(&bytes, "xl/nope.xml"), None);
        Ok(())
    }
}
