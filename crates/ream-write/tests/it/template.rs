//! Templates: a sheet of an existing workbook copied, with its styles,
//! under every sheet written; custom number formats.

use crate::util::{general_template, open, part, parts_of, zip_of};
use calamine::{Data, Reader};
use ream_sheet::{CellRange, ErrorKind, Value as RValue};
use ream_write::{
    Cell, DateStyle, SheetWriter, Strings, Template, TemplateOptions, Value, WorkbookWriter,
    WriteOptions, write_parallel,
};
use rust_xlsxwriter::{Format, Workbook};

/// A report template: sheet "Cover" first, then "Report" with a merged
/// title (A1:C1), a bold header row, a prototype data row 3 (A date
/// `dd/mm/yyyy`, B `#,##0.00`, C text with a fill), widths of A and B, and
/// a conditional format.
fn report_template() -> Vec<u8> {
    let mut wb = Workbook::new();
    let cover = wb.add_worksheet();
    cover.set_name("Cover").unwrap();
    cover.write_string(0, 0, "cover page").unwrap();
    let bold = Format::new().set_bold();
    let date = Format::new().set_num_format("dd/mm/yyyy");
    let money = Format::new().set_num_format("#,##0.00");
    let fill = Format::new().set_background_color(rust_xlsxwriter::Color::Yellow);
    let ws = wb.add_worksheet();
    ws.set_name("Report").unwrap();
    ws.merge_range(0, 0, 0, 2, "Quarterly report", &bold)
        .unwrap();
    ws.write_string_with_format(1, 0, "Date", &bold).unwrap();
    ws.write_string_with_format(1, 1, "Amount", &bold).unwrap();
    ws.write_string_with_format(1, 2, "Note", &bold).unwrap();
    ws.write_number_with_format(2, 0, 45000.0, &date).unwrap();
    ws.write_number_with_format(2, 1, 1234.5, &money).unwrap();
    ws.write_string_with_format(2, 2, "sample", &fill).unwrap();
    ws.set_column_width(0, 14).unwrap();
    ws.set_column_width(1, 12).unwrap();
    ws.set_freeze_panes(2, 0).unwrap();
    let cf = rust_xlsxwriter::ConditionalFormatCell::new()
        .set_rule(rust_xlsxwriter::ConditionalFormatCellRule::GreaterThan(
            1000,
        ))
        .set_format(Format::new().set_bold());
    ws.add_conditional_format(2, 1, 100, 1, &cf).unwrap();
    wb.save_to_buffer().unwrap()
}

/// The number format code of cell `cell` of worksheet part `sheet`.
fn format_code(bytes: &[u8], sheet: &str, cell: &str) -> String {
    let ws = part(bytes, sheet);
    let at = ws
        .find(&format!("<c r=\"{cell}\""))
        .unwrap_or_else(|| panic!("no cell {cell}"));
    let tag = &ws[at..at + ws[at..].find('>').unwrap()];
    let s: usize = match tag.find(" s=\"") {
        Some(i) => tag[i + 4..].split('"').next().unwrap().parse().unwrap(),
        None => 0,
    };
    let styles = part(bytes, "xl/styles.xml");
    let xfs = &styles[styles.find("<cellXfs").unwrap()..];
    let xf = xfs.split("<xf ").nth(s + 1).unwrap();
    let id: u32 = xf
        .split("numFmtId=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    match id {
        0 => "General".into(),
        2 => "0.00".into(),
        4 => "#,##0.00".into(),
        14 => "mm-dd-yy".into(),
        _ => {
            let key = format!("numFmtId=\"{id}\" formatCode=\"");
            let i = styles
                .find(&key)
                .unwrap_or_else(|| panic!("no numFmt {id}"));
            styles[i + key.len()..]
                .split('"')
                .next()
                .unwrap()
                .replace("&quot;", "\"")
        }
    }
}

/// The text of element `name` (start tag to end tag) in `xml`.
fn element<'x>(xml: &'x str, name: &str) -> &'x str {
    let a = xml
        .find(&format!("<{name}"))
        .unwrap_or_else(|| panic!("no <{name}> in {xml}"));
    let close = format!("</{name}>");
    let b = xml[a..]
        .find(&close)
        .map_or_else(|| xml[a..].find("/>").unwrap() + 2, |i| i + close.len());
    &xml[a..a + b]
}

fn write_copies(template: &[u8], strings: Strings) -> Vec<u8> {
    let t = Template::from_bytes(template.to_vec()).unwrap();
    let opts = WriteOptions {
        strings,
        ..WriteOptions::default()
    };
    let mut wb = WorkbookWriter::with_template(
        opts,
        &t,
        &TemplateOptions::new().sheet_name("Report").start_row(2),
    )
    .unwrap();
    let pct = wb.number_format("0.000%").unwrap();
    let sheets: Vec<SheetWriter> = ["North", "South", "East"]
        .iter()
        .map(|n| wb.add_sheet(n).unwrap())
        .collect();
    write_parallel(sheets, 3, |s| {
        s.set_column_format(4, "mmm yyyy")?;
        let region = s.name().to_string();
        for i in 0..5u32 {
            let note = format!("{region} {i}");
            s.write_row(
                2 + i,
                &[
                    Cell::new(0, Value::DateTime(45_100.0 + f64::from(i), DateStyle::Date)),
                    Cell::new(1, Value::Number(f64::from(i) * 10.25)),
                    Cell::new(2, Value::String(&note)),
                    Cell::new(3, Value::Number(0.125)).with_format(pct),
                    Cell::new(4, Value::Number(45_200.0)),
                ],
            )?;
        }
        Ok(())
    })
    .unwrap();
    let mut out = Vec::new();
    wb.save(&mut out).unwrap();
    out
}

#[test]
fn a_template_sheet_is_copied_three_times_with_new_data() {
    let template = report_template();
    for strings in [Strings::Shared, Strings::Inline] {
        let out = write_copies(&template, strings);
        let tpl_sheet = part(&template, "xl/worksheets/sheet2.xml");
        for (i, sheet) in ["North", "South", "East"].iter().enumerate() {
            let p = format!("xl/worksheets/sheet{}.xml", i + 1);
            let ws = part(&out, &p);
            // Widths, merged cells, conditional format and frozen panes as
            // in the template.
            assert_eq!(element(&ws, "cols"), element(&tpl_sheet, "cols"));
            assert_eq!(
                element(&ws, "mergeCells"),
                element(&tpl_sheet, "mergeCells")
            );
            assert_eq!(
                element(&ws, "conditionalFormatting"),
                element(&tpl_sheet, "conditionalFormatting")
            );
            assert!(ws.contains("state=\"frozen\""), "{ws}");
            if i > 0 {
                assert!(!ws.contains("tabSelected=\"1\""), "{sheet}");
            }
            // Styles: the template's header and column formats.
            assert_eq!(format_code(&out, &p, "A3"), "dd/mm/yyyy");
            assert_eq!(format_code(&out, &p, "B4"), "#,##0.00");
            assert_eq!(format_code(&out, &p, "D3"), "0.000%");
            assert_eq!(format_code(&out, &p, "E7"), "mmm yyyy");
            assert_eq!(
                format_code(&out, &p, "A2"),
                format_code(&template, "xl/worksheets/sheet2.xml", "A2")
            );
        }
        // The template's cell formats keep their indexes.
        let tpl_styles = part(&template, "xl/styles.xml");
        let out_styles = part(&out, "xl/styles.xml");
        let tpl_xfs = element(&tpl_styles, "cellXfs");
        let inner = &tpl_xfs[tpl_xfs.find('>').unwrap() + 1..tpl_xfs.len() - "</cellXfs>".len()];
        assert!(out_styles.contains(inner));
        assert_eq!(element(&out_styles, "fonts"), element(&tpl_styles, "fonts"));
        assert_eq!(element(&out_styles, "fills"), element(&tpl_styles, "fills"));
        assert!(
            parts_of(&out)
                .iter()
                .any(|(n, _)| n == "xl/theme/theme1.xml")
        );

        let wb = open(out.clone());
        assert_eq!(wb.sheets().len(), 3);
        for s in wb.sheets() {
            assert_eq!(
                s.get(0, 0).unwrap().value,
                RValue::String("Quarterly report")
            );
            assert_eq!(s.get(1, 1).unwrap().value, RValue::String("Amount"));
            assert_eq!(s.merged(), &[CellRange::parse("A1:C1").unwrap()]);
            // The template's prototype row is replaced by the new data.
            match s.get(2, 0).unwrap().value {
                RValue::DateTime(d) => assert_eq!(d.serial, 45_100.0),
                v => panic!("{v:?}"),
            }
            assert_eq!(s.get(3, 1).unwrap().value, RValue::Number(10.25));
            let note = format!("{} 4", s.name());
            assert_eq!(s.get(6, 2).unwrap().value, RValue::String(&note));
            assert_eq!(s.get(6, 3).unwrap().value, RValue::Number(0.125));
            match s.get(6, 4).unwrap().value {
                RValue::DateTime(d) => assert_eq!(d.serial, 45_200.0),
                v => panic!("{v:?}"),
            }
            assert!(s.get(7, 0).is_none());
        }

        let mut cal = calamine::Xlsx::new(std::io::Cursor::new(out)).unwrap();
        assert_eq!(cal.sheet_names(), ["North", "South", "East"]);
        let range = cal.worksheet_range("South").unwrap();
        assert_eq!(
            range.get_value((0, 0)),
            Some(&Data::String("Quarterly report".into()))
        );
        assert!(
            matches!(range.get_value((2, 0)), Some(Data::DateTime(d)) if d.as_f64() == 45_100.0)
        );
        assert!(matches!(range.get_value((6, 4)), Some(Data::DateTime(_))));
        assert_eq!(range.get_value((4, 1)), Some(&Data::Float(20.5)));
        let merges = cal.merge_cells_by_sheet_name("East").unwrap();
        assert_eq!(merges.len(), 1);
    }
}

#[test]
fn default_options_copy_the_first_sheet_and_start_after_its_last_row() {
    let template = report_template();
    let t = Template::from_bytes(template).unwrap();
    let mut wb =
        WorkbookWriter::with_template(WriteOptions::default(), &t, &TemplateOptions::new())
            .unwrap();
    let mut s = wb.add_sheet("Out").unwrap();
    assert!(s.write_row(0, &[Cell::new(0, Value::Number(1.0))]).is_err());
    s.append_row(&[Value::String("after")]).unwrap();
    s.finish().unwrap();
    let mut out = Vec::new();
    wb.save(&mut out).unwrap();
    let wb = open(out);
    let s = &wb.sheets()[0];
    assert_eq!(s.get(0, 0).unwrap().value, RValue::String("cover page"));
    assert_eq!(s.get(1, 0).unwrap().value, RValue::String("after"));

    // By index, default start: the sample row stays, data goes below it.
    let t = Template::from_bytes(report_template()).unwrap();
    let mut wb = WorkbookWriter::with_template(
        WriteOptions::default(),
        &t,
        &TemplateOptions::new().sheet_index(1),
    )
    .unwrap();
    let mut s = wb.add_sheet("Out").unwrap();
    s.append_row(&[Value::Number(7.0)]).unwrap();
    s.finish().unwrap();
    let mut out = Vec::new();
    wb.save(&mut out).unwrap();
    let wb = open(out);
    let s = &wb.sheets()[0];
    assert_eq!(s.get(2, 2).unwrap().value, RValue::String("sample"));
    assert_eq!(s.get(3, 0).unwrap().value, RValue::Number(7.0));
}

#[test]
fn custom_formats_without_a_template() {
    let mut wb = WorkbookWriter::new(WriteOptions::default());
    let day = wb.number_format("dd.mm.yyyy").unwrap();
    let two = wb.number_format("0.00").unwrap();
    let mut s = wb.add_sheet("F").unwrap();
    s.write_row(
        0,
        &[
            Cell::new(0, Value::Number(45_000.0)).with_format(day),
            Cell::new(1, Value::Number(1.5)).with_format(two),
            Cell::new(2, Value::DateTime(45_000.5, DateStyle::DateTime)),
        ],
    )
    .unwrap();
    s.finish().unwrap();
    let mut out = Vec::new();
    wb.save(&mut out).unwrap();
    let p = "xl/worksheets/sheet1.xml";
    assert_eq!(format_code(&out, p, "A1"), "dd.mm.yyyy");
    assert_eq!(format_code(&out, p, "B1"), "0.00");
    assert_eq!(format_code(&out, p, "C1"), "yyyy-mm-dd hh:mm:ss");
    assert!(part(&out, "xl/styles.xml").contains("<xf numFmtId=\"2\" "));
    let wb = open(out);
    match wb.sheets()[0].get(0, 0).unwrap().value {
        RValue::DateTime(d) => assert_eq!(d.serial, 45_000.0),
        v => panic!("{v:?}"),
    }
    assert_eq!(wb.sheets()[0].get(0, 1).unwrap().value, RValue::Number(1.5));
}

#[test]
fn general_styled_columns_keep_dates() {
    let t = Template::from_bytes(general_template()).unwrap();
    let mut wb =
        WorkbookWriter::with_template(WriteOptions::default(), &t, &TemplateOptions::new())
            .unwrap();
    let mut s = wb.add_sheet("G").unwrap();
    s.append_row(&[
        Value::DateTime(45_000.0, DateStyle::Date),
        Value::Number(3.0),
    ])
    .unwrap();
    s.finish().unwrap();
    let mut out = Vec::new();
    wb.save(&mut out).unwrap();
    let p = "xl/worksheets/sheet1.xml";
    assert_eq!(format_code(&out, p, "A3"), "yyyy-mm-dd");
    // The number takes the column's bold General format.
    assert_ne!(part(&out, p).find("<c r=\"B3\" s=\""), None);
}

/// A minimal package around a worksheet part.
fn package_with_sheet(sheet: &str) -> Vec<u8> {
    let wb = "<workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" \
              xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\">\
              <sheets><sheet name=\"T\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>";
    let rels = "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">\
                <Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" Target=\"worksheets/sheet1.xml\"/>\
                </Relationships>";
    zip_of(&[
        ("xl/workbook.xml", wb.as_bytes()),
        ("xl/_rels/workbook.xml.rels", rels.as_bytes()),
        ("xl/worksheets/sheet1.xml", sheet.as_bytes()),
    ])
}

fn template_error(bytes: Vec<u8>, opts: TemplateOptions) -> ream_write::Error {
    match Template::from_bytes(bytes) {
        Err(e) => e,
        Ok(t) => match WorkbookWriter::with_template(WriteOptions::default(), &t, &opts) {
            Err(e) => e,
            Ok(_) => panic!("template accepted"),
        },
    }
}

#[test]
fn broken_templates_give_errors_naming_the_part() {
    let e = template_error(b"not a zip".to_vec(), TemplateOptions::new());
    assert!(e.to_string().contains("template (bytes)"), "{e}");

    let e = template_error(report_template(), TemplateOptions::new().sheet_name("Nope"));
    assert_eq!(e.kind(), ErrorKind::Usage);
    assert!(e.to_string().contains("\"Cover\", \"Report\""), "{e}");

    let ns = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
    let ok = format!(
        "<worksheet xmlns=\"{ns}\"><sheetData><row r=\"1\"><c r=\"A1\"><v>1</v></c></row></sheetData></worksheet>"
    );
    let t = Template::from_bytes(package_with_sheet(&ok)).unwrap();
    let mut wb =
        WorkbookWriter::with_template(WriteOptions::default(), &t, &TemplateOptions::new())
            .unwrap();
    wb.add_sheet("S").unwrap().finish().unwrap();
    let mut out = Vec::new();
    wb.save(&mut out).unwrap();
    assert_eq!(
        open(out).sheets()[0].get(0, 0).unwrap().value,
        RValue::Number(1.0)
    );

    for (xml, kind, says) in [
        (
            format!("<worksheet xmlns=\"{ns}\"><sheetData><row r=\"1\"><c r=\"A1\"><v>1</v></row></sheetData></worksheet>"),
            ErrorKind::Malformed,
            "XML",
        ),
        (
            format!("<x:worksheet xmlns:x=\"{ns}\"><x:sheetData/></x:worksheet>"),
            ErrorKind::Unsupported,
            "namespace prefix",
        ),
        (
            "<worksheet xmlns=\"http://purl.oclc.org/ooxml/spreadsheetml/main\"><sheetData/></worksheet>".to_string(),
            ErrorKind::Unsupported,
            "strict",
        ),
        (
            format!("<worksheet xmlns=\"{ns}\"><sheetData><row r=\"1\"><c r=\"A1\" t=\"s\"><v>3</v></c></row></sheetData></worksheet>"),
            ErrorKind::Malformed,
            "shared string",
        ),
        (
            format!("<worksheet xmlns=\"{ns}\"><sheetData><row r=\"0\"/></sheetData></worksheet>"),
            ErrorKind::Malformed,
            "bad row number",
        ),
        (
            format!("<worksheet xmlns=\"{ns}\"><sheetData>"),
            ErrorKind::Malformed,
            "",
        ),
    ] {
        let e = template_error(package_with_sheet(&xml), TemplateOptions::new());
        let msg = e.to_string();
        assert_eq!(e.kind(), kind, "{msg}");
        assert!(msg.contains("template (bytes), part xl/worksheets/sheet1.xml"), "{msg}");
        assert!(msg.contains(says), "{msg}");
    }

    // A missing part.
    let e = template_error(
        zip_of(&[("xl/workbook.xml", b"<workbook/>".as_slice())]),
        TemplateOptions::new(),
    );
    assert!(
        e.to_string()
            .contains("xl/_rels/workbook.xml.rels: missing"),
        "{e}"
    );

    // A template file that does not exist names the file.
    let e = match Template::open("/no/such/template.xlsx") {
        Err(e) => e,
        Ok(_) => panic!(),
    };
    assert!(e.to_string().contains("/no/such/template.xlsx"), "{e}");
}

#[test]
fn template_texts_rich_escaped_and_blank_cells_survive() {
    let ns = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
    let sst = format!(
        "<sst xmlns=\"{ns}\" count=\"2\" uniqueCount=\"2\">\
         <si><t>line_x000D_end &amp; more</t></si>\
         <si><r><rPr><b/></rPr><t>bold </t></r><r><t xml:space=\"preserve\">part</t></r>\
         <rPh sb=\"0\" eb=\"1\"><t>ignored</t></rPh></si></sst>"
    );
    let sheet = format!(
        "<worksheet xmlns=\"{ns}\" xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\">\
         <sheetData><row r=\"1\" spans=\"1:4\"><c r=\"A1\" t=\"s\"><v>0</v></c><c r=\"B1\" t=\"s\"><v>1</v></c>\
         <c r=\"C1\" t=\"s\"/><c r=\"D1\" t=\"inlineStr\"><is><t>in_x0009_line</t></is></c></row>\
         <row r=\"2\"><c r=\"A2\" t=\"b\"><v>1</v></c><c r=\"B2\"><f>1+1</f><v>2</v></c>\
         <c r=\"C2\" t=\"str\"><f>\"a\"&amp;\"b\"</f><v>ab</v></c></row></sheetData>\
         <pageMargins left=\"0.7\" right=\"0.7\" top=\"0.75\" bottom=\"0.75\" header=\"0.3\" footer=\"0.3\"/>\
         <pageSetup orientation=\"landscape\" r:id=\"rId1\"/><legacyDrawing r:id=\"rId2\"/></worksheet>"
    );
    let wb = "<workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" \
              xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\">\
              <sheets><sheet name=\"T\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>";
    let rels = "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">\
                <Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" Target=\"worksheets/sheet1.xml\"/>\
                <Relationship Id=\"rId2\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings\" Target=\"/xl/sharedStrings.xml\"/>\
                </Relationships>";
    let bytes = zip_of(&[
        ("xl/workbook.xml", wb.as_bytes()),
        ("xl/_rels/workbook.xml.rels", rels.as_bytes()),
        ("xl/worksheets/sheet1.xml", sheet.as_bytes()),
        ("xl/sharedStrings.xml", sst.as_bytes()),
    ]);
    let t = Template::from_bytes(bytes).unwrap();
    for strings in [Strings::Shared, Strings::Inline] {
        let opts = WriteOptions {
            strings,
            ..WriteOptions::default()
        };
        let mut w = WorkbookWriter::with_template(opts, &t, &TemplateOptions::new()).unwrap();
        let mut s = w.add_sheet("S").unwrap();
        s.append_row(&[Value::String("new")]).unwrap();
        s.finish().unwrap();
        let mut out = Vec::new();
        w.save(&mut out).unwrap();
        let ws = part(&out, "xl/worksheets/sheet1.xml");
        assert!(
            ws.contains("<pageSetup orientation=\"landscape\"/>"),
            "{ws}"
        );
        assert!(
            !ws.contains("legacyDrawing") && !ws.contains("spans"),
            "{ws}"
        );
        assert!(ws.contains("<pageMargins left=\"0.7\""));
        let book = open(out);
        let s = &book.sheets()[0];
        assert_eq!(
            s.get(0, 0).unwrap().value,
            RValue::String("line\rend & more")
        );
        assert_eq!(s.get(0, 1).unwrap().value, RValue::String("bold part"));
        assert_eq!(s.get(0, 3).unwrap().value, RValue::String("in\tline"));
        assert_eq!(s.get(1, 0).unwrap().value, RValue::Bool(true));
        assert_eq!(s.get(1, 1).unwrap().formula, Some("1+1"));
        assert_eq!(s.get(1, 2).unwrap().value, RValue::String("ab"));
        assert_eq!(s.get(2, 0).unwrap().value, RValue::String("new"));
    }
}
