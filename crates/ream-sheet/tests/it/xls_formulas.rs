//! Formula text of hand-built BIFF8 workbooks: plain, shared and array
//! formulas, 3-D references through SUPBOOK/EXTERNSHEET, defined names
//! (NAME) listed with their definitions, and a bad token that keeps the
//! cached value with a warning.

use crate::xls::{book, cell, globals, open, rec};
use ream_sheet::Value;

/// A FORMULA record with a cached number and the tokens `rgce`.
fn formula(row: u16, col: u16, v: f64, rgce: &[u8]) -> Vec<u8> {
    let mut d = cell(row, col, 0);
    d.extend(v.to_le_bytes());
    d.extend([0, 0, 0, 0, 0, 0]);
    d.extend((rgce.len() as u16).to_le_bytes());
    d.extend(rgce);
    rec(0x0006, &d)
}

/// PtgRefV to (row, col), both relative.
fn reference(row: u16, col: u16) -> Vec<u8> {
    let mut v = vec![0x44];
    v.extend(row.to_le_bytes());
    v.extend((col | 0xC000).to_le_bytes());
    v
}

fn links() -> Vec<Vec<u8>> {
    let mut g = globals();
    // SUPBOOK: this workbook, 2 sheets; EXTERNSHEET: one XTI to sheet 1.
    g.push(rec(0x01AE, &[2, 0, 1, 4]));
    g.push(rec(0x0017, &[1, 0, 0, 0, 1, 0, 1, 0]));
    // NAME Print_Area (built-in 6) of sheet 1: Data!$A$1:$B$2.
    let rgce = [0x3B, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0];
    let mut d = vec![0x20, 0, 0, 1];
    d.extend((rgce.len() as u16).to_le_bytes());
    d.extend([0, 0, 1, 0, 0, 0, 0, 0, 0, 6]);
    d.extend(rgce);
    g.push(rec(0x0018, &d));
    // NAME Rate (hidden, workbook scope): 0.5
    let mut d = vec![1, 0, 0, 4, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    d.extend(b"Rate");
    d.push(0x1F);
    d.extend(0.5f64.to_le_bytes());
    g.push(rec(0x0018, &d));
    g
}

fn sheet() -> Vec<Vec<u8>> {
    let mut s = Vec::new();
    // A1 = 2; B1 = A1*Rate
    let mut num = cell(0, 0, 0);
    num.extend(2f64.to_le_bytes());
    s.push(rec(0x0203, &num));
    let mut t = reference(0, 0);
    t.extend([0x43, 2, 0, 0, 0, 0x05]);
    s.push(formula(0, 1, 1.0, &t));
    // C1 = SUM(Data!B1:B2) via tAttrSum
    let t = [0x3B, 0, 0, 0, 0, 1, 0, 1, 0xC0, 1, 0xC0, 0x19, 0x10, 0, 0];
    s.push(formula(0, 2, 9.0, &t));
    // Shared formula over A2:A4: =A1+1 from A2 (PtgRefN row -1).
    let exp = [0x01, 1, 0, 0, 0];
    s.push(formula(1, 0, 3.0, &exp));
    let mut d = vec![1, 0, 3, 0, 0, 0, 0, 3];
    let sh = [0x4C, 0xFF, 0xFF, 0x00, 0xC0, 0x1E, 1, 0, 0x03];
    d.extend((sh.len() as u16).to_le_bytes());
    d.extend(sh);
    s.push(rec(0x04BC, &d));
    s.push(formula(2, 0, 4.0, &exp));
    s.push(formula(3, 0, 5.0, &exp));
    // Array formula over B2:B3: {=A2:A3*2}; text on B2 only.
    let exp = [0x01, 1, 0, 1, 0];
    s.push(formula(1, 1, 6.0, &exp));
    let mut d = vec![1, 0, 2, 0, 1, 1, 0, 0, 0, 0, 0, 0];
    let ar = [0x65, 1, 0, 2, 0, 0, 0xC0, 0, 0xC0, 0x1E, 2, 0, 0x05];
    d.extend((ar.len() as u16).to_le_bytes());
    d.extend(ar);
    s.push(rec(0x0221, &d));
    s.push(formula(2, 1, 8.0, &exp));
    // D1: an unknown token; the cached 7 stays, with a warning.
    s.push(formula(0, 3, 7.0, &[0x1E, 1, 0, 0xEE]));
    s
}

#[test]
fn formula_text_of_every_kind() {
    let data = book(&links(), &[("Calc", sheet()), ("Data", Vec::new())]);
    for threads in [1, 4] {
        let wb = open(&data, threads).unwrap();
        let s = &wb.sheets()[0];
        let f = |row, col| {
            let c = s.cells().find(|c| (c.row, c.col) == (row, col)).unwrap();
            (c.formula.map(str::to_string), format!("{:?}", c.value))
        };
        assert_eq!(f(0, 1).0.as_deref(), Some("A1*Rate"));
        assert_eq!(f(0, 2).0.as_deref(), Some("SUM(Data!B1:B2)"));
        assert_eq!(f(1, 0).0.as_deref(), Some("A1+1"));
        assert_eq!(f(2, 0).0.as_deref(), Some("A2+1"));
        assert_eq!(f(3, 0).0.as_deref(), Some("A3+1"));
        assert_eq!(f(3, 0).1, format!("{:?}", Value::Number(5.0)));
        assert_eq!(f(1, 1).0.as_deref(), Some("A2:A3*2"));
        assert_eq!(f(2, 1).0, None);
        assert_eq!(f(0, 3), (None, format!("{:?}", Value::Number(7.0))));
        let w = wb.warnings();
        assert_eq!(w.len(), 1, "{w:?}");
        let msg = w[0].to_string();
        assert!(msg.contains("Calc") && msg.contains("D1"), "{msg}");
        assert!(msg.contains("0xEE") && msg.contains("byte 3"), "{msg}");

        let names = wb.defined_names();
        assert_eq!(names.len(), 2);
        assert_eq!(names[0].name, "_xlnm.Print_Area");
        assert_eq!(names[0].formula, "Data!$A$1:$B$2");
        assert_eq!(names[0].local_sheet, Some(0));
        assert!(!names[0].hidden);
        assert_eq!(names[1].name, "Rate");
        assert_eq!(names[1].formula, "0.5");
        assert_eq!((names[1].local_sheet, names[1].hidden), (None, true));
    }
}

/// HyperlinkString: character count with the NUL, UTF-16.
fn hstr(s: &str) -> Vec<u8> {
    let mut v = ((s.encode_utf16().count() + 1) as u32)
        .to_le_bytes()
        .to_vec();
    v.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
    v.extend([0, 0]);
    v
}

#[test]
fn comments_and_hyperlinks() {
    let mut s = Vec::new();
    // A comment on B3: OBJ (ftCmo, note, id 7), TXO with its text and runs.
    let mut obj = vec![0x15, 0, 0x12, 0, 0x19, 0, 7, 0];
    obj.extend([0u8; 14]);
    s.push(rec(0x005D, &obj));
    let mut txo = vec![0u8; 18];
    txo[10] = 10;
    s.push(rec(0x01B6, &txo));
    s.push(rec(0x003C, b"\0Check th"));
    s.push(rec(0x003C, &[0, b'i', b's']));
    s.push(rec(0x003C, &[0u8; 16]));
    let mut note = vec![2, 0, 1, 0, 0, 0, 7, 0];
    note.extend([3, 0, 0]);
    note.extend(b"Ann");
    note.push(0);
    s.push(rec(0x001C, &note));
    // A URL link over A1:A2 with display text; a location link on C1.
    let mut h = vec![0, 0, 1, 0, 0, 0, 0, 0];
    h.extend([0u8; 16]);
    h.extend(2u32.to_le_bytes());
    h.extend((0x01u32 | 0x02 | 0x10).to_le_bytes());
    h.extend(hstr("site"));
    h.extend([
        0xE0, 0xC9, 0xEA, 0x79, 0xF9, 0xBA, 0xCE, 0x11, 0x8C, 0x82, 0x00, 0xAA, 0x00, 0x4B, 0xA9,
        0x0B,
    ]);
    let url: Vec<u8> = "https://ream.test/\0"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    h.extend((url.len() as u32).to_le_bytes());
    h.extend(url);
    s.push(rec(0x01B8, &h));
    let mut h = vec![0, 0, 0, 0, 2, 0, 2, 0];
    h.extend([0u8; 16]);
    h.extend(2u32.to_le_bytes());
    h.extend(0x08u32.to_le_bytes());
    h.extend(hstr("Data!A1"));
    s.push(rec(0x01B8, &h));
    // A link record cut short: skipped.
    s.push(rec(0x01B8, &[0, 0, 0]));

    let data = book(&globals(), &[("Notes", s)]);
    let wb = open(&data, 1).unwrap();
    let sheet = &wb.sheets()[0];
    let c = sheet.comments();
    assert_eq!(c.len(), 1);
    assert_eq!((c[0].row, c[0].col), (2, 1));
    assert_eq!(
        (c[0].author.as_str(), c[0].text.as_str()),
        ("Ann", "Check this")
    );
    let l = sheet.hyperlinks();
    assert_eq!(l.len(), 2);
    assert_eq!(l[0].target.as_deref(), Some("https://ream.test/"));
    assert_eq!(l[0].display.as_deref(), Some("site"));
    assert_eq!((l[0].range.first_row, l[0].range.last_row), (0, 1));
    assert_eq!(l[1].location.as_deref(), Some("Data!A1"));
    assert_eq!((l[1].range.first_col, l[1].target.as_ref()), (2, None));
}
