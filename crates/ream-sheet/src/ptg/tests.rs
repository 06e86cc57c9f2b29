use super::*;

fn book() -> FormulaBook {
    FormulaBook {
        sheets: vec!["Sheet1".into(), "My Data".into(), "S3".into()],
        names: vec!["Totals".into()],
        xti: vec![
            Xti {
                supbook: 0,
                first: 1,
                last: 1,
            },
            Xti {
                supbook: 0,
                first: 0,
                last: 2,
            },
            Xti {
                supbook: 1,
                first: -2,
                last: -2,
            },
        ],
        supbooks: vec![
            SupBook::default(),
            SupBook {
                kind: SupKind::AddIn,
                sheets: Vec::new(),
                names: vec!["_xlfn.IFERROR".into(), "MYADDIN".into()],
            },
        ],
        encoding: None,
    }
}

fn b8(rgce: &[u8]) -> Result<String, PtgError> {
    let mut s = String::new();
    decompile(Dialect::Biff8, rgce, &[], &book(), (0, 0), &mut s).map(|()| s)
}

/// ptgRef (BIFF8) with both parts relative.
fn r8(row: u16, col: u16) -> Vec<u8> {
    let mut v = vec![0x24];
    v.extend_from_slice(&row.to_le_bytes());
    v.extend_from_slice(&(col | 0xC000).to_le_bytes());
    v
}

#[test]
fn operators_and_functions() {
    // A1+B2*2
    let mut t = r8(0, 0);
    t.extend(r8(1, 1));
    t.extend([0x1E, 2, 0, 0x05, 0x03]);
    assert_eq!(b8(&t).unwrap(), "A1+B2*2");
    // SUM(A1:B2) via tAttrSum, then -(...)%
    let mut t = vec![0x25, 0, 0, 1, 0, 0, 0xC0, 1, 0xC0, 0x19, 0x10, 0, 0];
    t.extend([0x15, 0x13, 0x14]);
    assert_eq!(b8(&t).unwrap(), "-(SUM(A1:B2))%");
    // IF(A1>1,"x""y",TRUE) with tAttrIf/Goto and a space before the 1
    let mut t = r8(0, 0);
    t.extend([0x19, 0x40, 0, 1, 0x1E, 1, 0, 0x0D, 0x19, 0x02, 5, 0]);
    t.extend([0x17, 3, 0, b'x', b'"', b'y', 0x19, 0x08, 3, 0]);
    t.extend([0x1D, 1, 0x19, 0x08, 3, 0, 0x42, 3, 1, 0]);
    assert_eq!(b8(&t).unwrap(), "IF(A1> 1,\"x\"\"y\",TRUE)");
    // ROUND(1.5,0): fixed-count PtgFunc; PI()
    let mut t = vec![0x1F];
    t.extend(1.5f64.to_le_bytes());
    t.extend([0x1E, 0, 0, 0x41, 27, 0]);
    assert_eq!(b8(&t).unwrap(), "ROUND(1.5,0)");
    assert_eq!(b8(&[0x21, 19, 0]).unwrap(), "PI()");
    // Unknown function number: a placeholder name.
    assert_eq!(b8(&[0x16, 0x42, 1, 0x39, 0x05]).unwrap(), "_xlfn_IDX1337()");
    // Missing argument and error constant
    assert_eq!(
        b8(&[0x1C, 0x07, 0x16, 0x42, 2, 100, 0]).unwrap(),
        "CHOOSE(#DIV/0!,)"
    );
}

#[test]
fn references_names_and_sheets() {
    // $A$1, absolute; whole column B:B; whole row 3:3
    assert_eq!(b8(&[0x24, 0, 0, 0, 0]).unwrap(), "$A$1");
    assert_eq!(
        b8(&[0x25, 0, 0, 0xFF, 0xFF, 1, 0xC0, 1, 0xC0]).unwrap(),
        "B:B"
    );
    assert_eq!(b8(&[0x25, 2, 0, 2, 0, 0, 0xC0, 0xFF, 0xC0]).unwrap(), "3:3");
    // 'My Data'!C4 and Sheet1:S3!A1:A2
    assert_eq!(b8(&[0x3A, 0, 0, 3, 0, 2, 0xC0]).unwrap(), "'My Data'!C4");
    assert_eq!(
        b8(&[0x3B, 1, 0, 0, 0, 1, 0, 0, 0xC0, 0, 0xC0]).unwrap(),
        "Sheet1:S3!A1:A2"
    );
    // Defined name; add-in function with the _xlfn. prefix dropped.
    assert_eq!(b8(&[0x23, 1, 0, 0, 0]).unwrap(), "Totals");
    let t = [
        0x39, 2, 0, 1, 0, 0, 0, 0x1E, 5, 0, 0x1E, 0, 0, 0x42, 3, 255, 0,
    ];
    assert_eq!(b8(&t).unwrap(), "IFERROR(5,0)");
    let t = [0x39, 2, 0, 2, 0, 0, 0, 0x42, 1, 255, 0];
    assert_eq!(b8(&t).unwrap(), "MYADDIN()");
    // #REF! forms
    assert_eq!(b8(&[0x2A, 0, 0, 0, 0]).unwrap(), "#REF!");
    assert_eq!(b8(&[0x3C, 0, 0, 0, 0, 0, 0]).unwrap(), "'My Data'!#REF!");
}

#[test]
fn relative_tokens_move_to_the_cell() {
    // PtgRefN: row offset -1, col offset +1 (both relative), at C5 -> D4.
    let t = [0x2C, 0xFF, 0xFF, 0x01, 0xC0];
    let mut s = String::new();
    decompile(Dialect::Biff8, &t, &[], &book(), (4, 2), &mut s).unwrap();
    assert_eq!(s, "D4");
    // Column offset -1 written as 14 bits: still one to the left.
    let t = [0x2C, 0, 0, 0xFF, 0xFF];
    decompile(Dialect::Biff8, &t, &[], &book(), (4, 2), &mut s).unwrap();
    assert_eq!(s, "B5");
    // BIFF12 PtgAreaN: rows 0..1 relative, column $A absolute.
    let mut t = vec![0x2D];
    t.extend(0u32.to_le_bytes());
    t.extend(1u32.to_le_bytes());
    t.extend(0x8000u16.to_le_bytes());
    t.extend(0x8000u16.to_le_bytes());
    decompile(Dialect::Biff12, &t, &[], &book(), (9, 5), &mut s).unwrap();
    assert_eq!(s, "$A10:$A11");
}

#[test]
fn array_constants() {
    // BIFF8 {1,"a";TRUE,#N/A}
    let t = [0x60, 0, 0, 0, 0, 0, 0, 0];
    let mut extra = vec![1, 1, 0];
    extra.push(1);
    extra.extend(1f64.to_le_bytes());
    extra.extend([2, 1, 0, 0, b'a']);
    extra.extend([4, 1, 0, 0, 0, 0, 0, 0, 0]);
    extra.extend([0x10, 0x2A, 0, 0, 0, 0, 0, 0, 0]);
    let mut s = String::new();
    decompile(Dialect::Biff8, &t, &extra, &book(), (0, 0), &mut s).unwrap();
    assert_eq!(s, "{1,\"a\";TRUE,#N/A}");
    // A header claiming more values than bytes is refused.
    let e = decompile(
        Dialect::Biff8,
        &t,
        &[255, 255, 255],
        &book(),
        (0, 0),
        &mut s,
    )
    .unwrap_err();
    assert!(e.message.contains("array constant"), "{e}");
}

#[test]
fn bad_tokens_are_errors_with_offsets() {
    let e = b8(&[0x1E, 1, 0, 0x03]).unwrap_err();
    assert_eq!(e.offset, 3);
    let e = b8(&[0x1E, 1]).unwrap_err();
    assert!(e.message.contains("PtgInt"), "{e}");
    let e = b8(&[0x1E, 1, 0, 0x1E, 2, 0]).unwrap_err();
    assert!(e.message.contains("2 values"), "{e}");
    let e = b8(&[0xFF]).unwrap_err();
    assert!(e.message.contains("0xFF"), "{e}");
    let e = b8(&[0x23, 9, 0, 0, 0]).unwrap_err();
    assert!(e.message.contains("name 9"), "{e}");
    let e = b8(&[0x3A, 7, 0, 0, 0, 0, 0]).unwrap_err();
    assert!(e.message.contains("EXTERNSHEET"), "{e}");
    let e = b8(&[0x02, 0, 0, 0, 0]).unwrap_err();
    assert!(e.message.contains("data table"), "{e}");
    assert!(b8(&[]).is_err());
    // Huge nested concatenations stop at the text limit.
    let mut t = vec![0x17, 255, 0];
    t.extend([b'x'; 255]);
    for _ in 0..200 {
        t.extend([0x17, 255, 0]);
        t.extend([b'x'; 255]);
        t.push(0x08);
    }
    let e = b8(&t).unwrap_err();
    assert!(e.message.contains("longer than"), "{e}");
}

#[test]
fn sheet_names_are_quoted_when_needed() {
    let mut s = String::new();
    for (name, want) in [
        ("Sheet1", "Sheet1"),
        ("A1", "'A1'"),
        ("R1C1", "'R1C1'"),
        ("2019", "'2019'"),
        ("it's", "'it''s'"),
        ("Données", "Données"),
    ] {
        s.clear();
        push_sheet_name(&mut s, name);
        assert_eq!(s, want);
    }
    assert_eq!(
        exp_target(Dialect::Biff8, &[1, 3, 0, 4, 0], &[]),
        Some((3, 4))
    );
    assert_eq!(exp_target(Dialect::Biff8, &[0x1E, 3, 0], &[]), None);
    assert_eq!(
        exp_target(Dialect::Biff12, &[1, 3, 0, 0, 0], &[4, 0, 0, 0]),
        Some((3, 4))
    );
}
