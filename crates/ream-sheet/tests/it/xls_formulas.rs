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
