//! Formula text of a hand-built XLSB: plain, string, shared and array
//! formulas, a 3-D reference and a defined name (BrtName) through
//! BrtSupSelf/BrtExternSheet, and a bad token that keeps the cached value
//! with a warning.

use crate::xlsb::{cat, cell, open, package_zip_with, rec, row, ws};

/// A BIFF12 parsed formula: lengths and tokens, no trailing data unless given.
fn fml(rgce: &[u8], extra: &[u8]) -> Vec<u8> {
    cat(&[
        &(rgce.len() as u32).to_le_bytes(),
        rgce,
        &(extra.len() as u32).to_le_bytes(),
        extra,
    ])
}

/// PtgRefV (BIFF12) to (row, col), both relative.
fn reference(r: u32, c: u16) -> Vec<u8> {
    cat(&[&[0x44], &r.to_le_bytes(), &(c | 0xC000).to_le_bytes()])
}

fn num_formula(col: u32, v: f64, formula: &[u8]) -> Vec<u8> {
    cell(9, col, 0, &cat(&[&v.to_le_bytes(), &[0, 0], formula]))
}

fn sheet() -> Vec<u8> {
    let mut s = row(0, false);
    s.extend(cell(5, 0, 0, &2f64.to_le_bytes()));
    // B1 = A1*2
    let t = cat(&[&reference(0, 0), &[0x1E, 2, 0, 0x05]]);
    s.extend(num_formula(1, 4.0, &fml(&t, &[])));
    // C1 = "a"&"b" (BrtFmlaString, cached "ab")
    let t = [0x17, 1, 0, b'a', 0, 0x17, 1, 0, b'b', 0, 0x08];
    s.extend(cell(8, 2, 0, &cat(&[&ws("ab"), &[0, 0], &fml(&t, &[])])));
    // D1: a bad token; cached 7 kept.
    s.extend(num_formula(3, 7.0, &fml(&[0x1E, 1, 0, 0xEE], &[])));
    // E1 = SUM(Calc!A1:A2) through XTI 0.
    let area = cat(&[
        &[0x3B, 0, 0],
        &0u32.to_le_bytes(),
        &1u32.to_le_bytes(),
        &0xC000u16.to_le_bytes(),
        &0xC000u16.to_le_bytes(),
    ]);
    let t = cat(&[&area, &[0x19, 0x10, 0, 0]]);
    s.extend(num_formula(4, 3.0, &fml(&t, &[])));
    // A2:A3 share A1+1 (PtgRefN row -1); B2:B3 hold the array {=A2:A3*2}.
    let exp = |r: u32, c: u32| fml(&cat(&[&[0x01], &r.to_le_bytes()]), &c.to_le_bytes());
    s.extend(row(1, false));
    s.extend(num_formula(0, 3.0, &exp(1, 0)));
    let refn = cat(&[&[0x4C], &u32::MAX.to_le_bytes(), &0xC000u16.to_le_bytes()]);
    let shared = cat(&[&refn, &[0x1E, 1, 0, 0x03]]);
    let rfx = |r0: u32, r1: u32, c0: u32, c1: u32| {
        cat(&[
            &r0.to_le_bytes(),
            &r1.to_le_bytes(),
            &c0.to_le_bytes(),
            &c1.to_le_bytes(),
        ])
    };
    s.extend(rec(428, &cat(&[&rfx(1, 2, 0, 0), &fml(&shared, &[])])));
    s.extend(num_formula(1, 6.0, &exp(1, 1)));
    let a = cat(&[
        &[0x65],
        &1u32.to_le_bytes(),
        &2u32.to_le_bytes(),
        &0xC000u16.to_le_bytes(),
        &0xC000u16.to_le_bytes(),
        &[0x1E, 2, 0, 0x05],
    ]);
    s.extend(rec(426, &cat(&[&rfx(1, 2, 1, 1), &[0], &fml(&a, &[])])));
    s.extend(row(2, false));
    s.extend(num_formula(0, 4.0, &exp(1, 0)));
    s.extend(num_formula(1, 8.0, &exp(1, 1)));
    s
}

#[test]
fn formula_text_of_every_kind() {
    // BrtSupSelf, BrtExternSheet (one XTI: this book, sheet 0), and
    // BrtName "Total" (workbook scope) = Calc!$A$1.
    let mut wb = rec(357, &[]);
    wb.extend(rec(
        362,
        &cat(&[
            &1u32.to_le_bytes(),
            &0u32.to_le_bytes(),
            &0u32.to_le_bytes(),
            &0u32.to_le_bytes(),
        ]),
    ));
    let def = cat(&[&[0x3A, 0, 0], &0u32.to_le_bytes(), &0u16.to_le_bytes()]);
    wb.extend(rec(
        39,
        &cat(&[
            &0u32.to_le_bytes(),
            &[0],
            &u32::MAX.to_le_bytes(),
            &ws("Total"),
            &fml(&def, &[]),
        ]),
    ));
    let bytes = package_zip_with(&[("Calc", 0, "worksheet", sheet())], &[], false, &wb).build();
    for threads in [1, 3] {
        let book = open(bytes.clone(), threads).unwrap();
        let s = &book.sheets()[0];
        let f = |r, c| {
            s.cells()
                .find(|x| (x.row, x.col) == (r, c))
                .map(|x| (x.formula.map(str::to_string), format!("{:?}", x.value)))
                .unwrap()
        };
        assert_eq!(f(0, 1).0.as_deref(), Some("A1*2"));
        assert_eq!(f(0, 2).0.as_deref(), Some("\"a\"&\"b\""));
        assert!(f(0, 2).1.contains("ab"));
        assert_eq!(f(0, 3).0, None);
        assert!(f(0, 3).1.contains('7'));
        assert_eq!(f(0, 4).0.as_deref(), Some("SUM(Calc!A1:A2)"));
        assert_eq!(f(1, 0).0.as_deref(), Some("A1+1"));
        assert_eq!(f(2, 0).0.as_deref(), Some("A2+1"));
        assert_eq!(f(1, 1).0.as_deref(), Some("A2:A3*2"));
        assert_eq!(f(2, 1).0, None);
        let w = book.warnings();
        assert_eq!(w.len(), 1, "{w:?}");
        let msg = w[0].to_string();
        assert!(
            msg.contains("Calc") && msg.contains("D1") && msg.contains("0xEE"),
            "{msg}"
        );
        let n = book.defined_names();
        assert_eq!(n.len(), 1);
        assert_eq!(
            (n[0].name.as_str(), n[0].formula.as_str()),
            ("Total", "Calc!$A$1")
        );
        assert_eq!(n[0].local_sheet, None);
    }
}

#[test]
fn hyperlinks_resolve_through_the_sheet_relationships() {
    let link = |rfx: [u32; 4], rid: &str, loc: &str, disp: &str| {
        let mut d: Vec<u8> = rfx.iter().flat_map(|v| v.to_le_bytes()).collect();
        d.extend(ws(rid));
        d.extend(ws(loc));
        d.extend(ws(""));
        d.extend(ws(disp));
        rec(494, &d)
    };
    let mut s = row(0, false);
    s.extend(cell(5, 0, 0, &1f64.to_le_bytes()));
    s.extend(link([0, 1, 0, 0], "rId1", "", "home"));
    s.extend(link([2, 2, 1, 1], "", "Calc!A1", ""));
    s.extend(link([3, 3, 1, 1], "rId9", "", ""));
    // Cut short: skipped.
    s.extend(rec(494, &[0; 20]));
    let rels = r#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://ream.test/" TargetMode="External"/></Relationships>"#;
    let bytes = package_zip_with(&[("Calc", 0, "worksheet", s)], &[], false, &[])
        .push(crate::zipkit::Entry::new(
            "xl/worksheets/_rels/sheet1.bin.rels",
            rels.as_bytes().to_vec(),
        ))
        .build();
    let book = open(bytes, 1).unwrap();
    let l = book.sheets()[0].hyperlinks();
    assert_eq!(l.len(), 3);
    assert_eq!(l[0].target.as_deref(), Some("https://ream.test/"));
    assert_eq!(l[0].display.as_deref(), Some("home"));
    assert_eq!((l[0].range.first_row, l[0].range.last_row), (0, 1));
    assert_eq!(
        (l[1].target.as_deref(), l[1].location.as_deref()),
        (None, Some("Calc!A1"))
    );
    assert_eq!(l[2].target, None);
}
