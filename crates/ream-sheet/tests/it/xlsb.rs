//! XLSB packages built by hand (BIFF12 records in a ZIP): every value
//! record, dates through styles, shared strings, hidden rows and columns,
//! merged cells, thread counts, and hostile records.

use crate::zipkit::{Entry, Zip};
use ream_sheet::{CellError, ErrorKind, OpenOptions, SheetKind, Value, Visibility, Workbook};

const ROOT_RELS: &str = r#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.bin"/></Relationships>"#;
const R: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const SHEET: &str = "xl/worksheets/sheet1.bin";

/// One record: type and size varints, then the payload.
pub(crate) fn rec(typ: u16, data: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    if typ < 0x80 {
        v.push(typ as u8);
    } else {
        v.extend([(typ & 0x7F) as u8 | 0x80, (typ >> 7) as u8]);
    }
    let mut n = data.len();
    loop {
        let b = (n & 0x7F) as u8;
        n >>= 7;
        v.push(if n > 0 { b | 0x80 } else { b });
        if n == 0 {
            break;
        }
    }
    v.extend_from_slice(data);
    v
}

pub(crate) fn ws(s: &str) -> Vec<u8> {
    let u: Vec<u16> = s.encode_utf16().collect();
    let mut v = (u.len() as u32).to_le_bytes().to_vec();
    v.extend(u.iter().flat_map(|c| c.to_le_bytes()));
    v
}

pub(crate) fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

pub(crate) fn row(r: u32, hidden: bool) -> Vec<u8> {
    let mut d = cat(&[&r.to_le_bytes(), &0u32.to_le_bytes(), &300u16.to_le_bytes()]);
    d.extend([0, if hidden { 0x10 } else { 0 }]);
    rec(0, &d)
}

pub(crate) fn cell(typ: u16, col: u32, xf: u32, rest: &[u8]) -> Vec<u8> {
    rec(typ, &cat(&[&col.to_le_bytes(), &xf.to_le_bytes(), rest]))
}

/// A package: sheets as (name, hsState, kind, part bytes), shared strings, styles.
fn package(sheets: &[(&str, u32, &str, Vec<u8>)], sst: &[&str], date_xf: bool) -> Vec<u8> {
    package_zip(sheets, sst, date_xf).build()
}

fn package_zip(sheets: &[(&str, u32, &str, Vec<u8>)], sst: &[&str], date_xf: bool) -> Zip {
    package_zip_with(sheets, sst, date_xf, &[])
}

/// [`package_zip`] with more records at the end of `workbook.bin`.
pub(crate) fn package_zip_with(
    sheets: &[(&str, u32, &str, Vec<u8>)],
    sst: &[&str],
    date_xf: bool,
    wb_tail: &[u8],
) -> Zip {
    let mut wb = rec(153, &0u32.to_le_bytes());
    let mut rels = String::from(
        r#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#,
    );
    let mut zip = Zip::from_parts(&[("_rels/.rels", ROOT_RELS)]);
    for (i, (name, state, kind, data)) in sheets.iter().enumerate() {
        let rid = format!("rId{}", i + 1);
        wb.extend(rec(
            156,
            &cat(&[
                &state.to_le_bytes(),
                &(i as u32 + 1).to_le_bytes(),
                &ws(&rid),
                &ws(name),
            ]),
        ));
        let part = format!("worksheets/sheet{}.bin", i + 1);
        rels.push_str(&format!(
            r#"<Relationship Id="{rid}" Type="{R}/{kind}" Target="{part}"/>"#
        ));
        zip = zip.push(Entry::new(&format!("xl/{part}"), data.clone()));
    }
    rels.push_str(&format!(r#"<Relationship Id="rIdS" Type="{R}/sharedStrings" Target="sharedStrings.bin"/><Relationship Id="rIdT" Type="{R}/styles" Target="styles.bin"/></Relationships>"#));
    let mut s = rec(
        159,
        &cat(&[
            &(sst.len() as u32).to_le_bytes(),
            &(sst.len() as u32).to_le_bytes(),
        ]),
    );
    for t in sst {
        s.extend(rec(19, &cat(&[&[0u8], &ws(t)])));
    }
    // XF 0 general, XF 1 custom format 164 (a date when date_xf), XF 2 built-in 14.
    let code = if date_xf { "yyyy-mm-dd" } else { "0.00" };
    let mut st = rec(44, &cat(&[&164u16.to_le_bytes(), &ws(code)]));
    st.extend(rec(617, &3u32.to_le_bytes()));
    for f in [0u16, 164, 14] {
        st.extend(rec(
            47,
            &cat(&[&0u16.to_le_bytes(), &f.to_le_bytes(), &[0; 12]]),
        ));
    }
    st.extend(rec(618, &[]));
    wb.extend(wb_tail);
    zip.push(Entry::new("xl/workbook.bin", wb))
        .push(Entry::new("xl/_rels/workbook.bin.rels", rels.into_bytes()))
        .push(Entry::new("xl/sharedStrings.bin", s))
        .push(Entry::new("xl/styles.bin", st))
}

fn values_sheet() -> Vec<u8> {
    let mut d = rec(
        148,
        &cat(&[
            &0u32.to_le_bytes(),
            &3u32.to_le_bytes(),
            &0u32.to_le_bytes(),
            &5u32.to_le_bytes(),
        ]),
    );
    d.extend(row(0, false));
    d.extend(cell(1, 0, 0, &[])); // blank
    d.extend(cell(2, 1, 0, &((1234u32 << 2) | 3).to_le_bytes())); // RK 12.34
    d.extend(cell(3, 2, 0, &[0x07])); // #DIV/0!
    d.extend(cell(4, 3, 0, &[1]));
    d.extend(cell(5, 4, 0, &2.5f64.to_le_bytes()));
    d.extend(cell(6, 5, 0, &ws("inline é")));
    d.extend(row(1, true));
    d.extend(cell(7, 0, 0, &1u32.to_le_bytes()));
    d.extend(cell(8, 1, 0, &cat(&[&ws("fs"), &[0, 0]])));
    d.extend(cell(9, 2, 0, &cat(&[&7.0f64.to_le_bytes(), &[0, 0]])));
    d.extend(cell(10, 3, 0, &[0, 0, 0]));
    d.extend(cell(11, 4, 0, &[0x2A, 0, 0]));
    d.extend(row(2, false));
    d.extend(cell(5, 0, 1, &44197.0f64.to_le_bytes())); // custom date
    d.extend(cell(2, 1, 2, &((44198u32 << 2) | 2).to_le_bytes())); // built-in 14
    d.extend(rec(
        60,
        &cat(&[
            &3u32.to_le_bytes(),
            &4u32.to_le_bytes(),
            &0u32.to_le_bytes(),
            &0u32.to_le_bytes(),
            &1u16.to_le_bytes(),
        ]),
    ));
    d.extend(rec(
        176,
        &cat(&[
            &2u32.to_le_bytes(),
            &3u32.to_le_bytes(),
            &2u32.to_le_bytes(),
            &4u32.to_le_bytes(),
        ]),
    ));
    d
}

pub(crate) fn open(bytes: Vec<u8>, threads: usize) -> ream_sheet::Result<Workbook> {
    Workbook::from_bytes(bytes, &OpenOptions::new().threads(threads))
}

#[test]
fn every_value_record_dates_styles_and_layout() {
    let bytes = package(
        &[
            ("Data", 0, "worksheet", values_sheet()),
            ("Chart", 1, "chartsheet", Vec::new()),
        ],
        &["zero", "one"],
        true,
    );
    let wb = open(bytes, 1).unwrap();
    assert_eq!(wb.sheets().len(), 2);
    let c = &wb.sheets()[1];
    assert_eq!(
        (c.kind(), c.visibility(), c.cell_count()),
        (SheetKind::Chartsheet, Visibility::Hidden, 0)
    );
    let s = &wb.sheets()[0];
    assert_eq!(s.part(), SHEET);
    let v = |r, c| s.get(r, c).map(|x| x.value);
    assert_eq!(v(0, 0), None);
    assert_eq!(v(0, 1), Some(Value::Number(12.34)));
    assert_eq!(v(0, 2), Some(Value::Error(CellError::Div0)));
    assert_eq!(v(0, 3), Some(Value::Bool(true)));
    assert_eq!(v(0, 4), Some(Value::Number(2.5)));
    assert_eq!(v(0, 5), Some(Value::String("inline é")));
    assert_eq!(v(1, 0), Some(Value::String("one")));
    assert_eq!(v(1, 1), Some(Value::String("fs")));
    assert_eq!(v(1, 2), Some(Value::Number(7.0)));
    assert_eq!(v(1, 3), Some(Value::Bool(false)));
    assert_eq!(v(1, 4), Some(Value::Error(CellError::NA)));
    for col in [0, 1] {
        match v(2, col) {
            Some(Value::DateTime(d)) => assert_eq!(d.serial, 44197.0 + f64::from(col)),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(s.hidden_rows(), &[1]);
    assert_eq!(s.hidden_cols(), &[3, 4]);
    assert_eq!(s.merged().len(), 1);
    assert_eq!(s.declared_dimension().map(|d| d.last_col), Some(5));

    // Not a date format: XF 1 is a number.
    let wb = open(
        package(
            &[("Data", 0, "worksheet", values_sheet())],
            &["a", "b"],
            false,
        ),
        1,
    )
    .unwrap();
    assert!(matches!(
        wb.sheets()[0].get(2, 0).unwrap().value,
        Value::Number(_)
    ));
}

#[test]
fn one_to_eight_threads_give_the_same_cells() {
    let sheets: Vec<(String, Vec<u8>)> = (0..6)
        .map(|k| {
            let mut d = Vec::new();
            for r in 0..50u32 {
                d.extend(row(r, false));
                d.extend(cell(5, 0, 0, &f64::from(r * k).to_le_bytes()));
                d.extend(cell(7, 1, 0, &(r % 2).to_le_bytes()));
            }
            (format!("S{k}"), d)
        })
        .collect();
    let list: Vec<(&str, u32, &str, Vec<u8>)> = sheets
        .iter()
        .map(|(n, d)| (n.as_str(), 0, "worksheet", d.clone()))
        .collect();
    let bytes = package(&list, &["x", "y"], false);
    let dump = |t| {
        let wb = open(bytes.clone(), t).unwrap();
        wb.sheets()
            .iter()
            .map(|s| {
                s.cells()
                    .map(|c| format!("{} {} {:?}", c.row, c.col, c.value))
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    let one = dump(1);
    assert_eq!(one[5].len(), 100);
    for t in 2..=8 {
        assert_eq!(dump(t), one, "{t} threads");
    }
}

fn hostile(sheet: Vec<u8>) -> ream_sheet::Error {
    let t = std::time::Instant::now();
    let e = open(
        package(&[("Data", 0, "worksheet", sheet)], &["a"], false),
        2,
    )
    .unwrap_err();
    assert!(t.elapsed().as_secs() < 5);
    assert_eq!(e.part(), Some(SHEET), "{e}");
    assert!(e.offset().is_some(), "{e}");
    e
}

#[test]
fn hostile_records_give_clear_errors() {
    // A size varint past the end of the part.
    let mut d = row(0, false);
    d.extend([0x05, 0x80]);
    let e = hostile(d);
    assert!(e.to_string().contains("record size"), "{e}");
    // A record longer than the part.
    let mut d = row(0, false);
    d.extend([0x05, 0xFF, 0xFF, 0xFF, 0x7F, 1, 2]);
    let e = hostile(d);
    assert_eq!(e.kind(), ErrorKind::Malformed);
    assert!(e.to_string().contains("only 2 are left"), "{e}");
    // A shared-string index out of range.
    let mut d = row(3, false);
    d.extend(cell(7, 2, 0, &9u32.to_le_bytes()));
    let e = hostile(d);
    assert_eq!(e.cell(), Some((3, 2)), "{e}");
    assert!(e.to_string().contains("shared string 9"), "{e}");
    // A string declaring a huge count.
    let mut d = row(0, false);
    d.extend(cell(6, 0, 0, &u32::MAX.wrapping_sub(1).to_le_bytes()));
    let e = hostile(d);
    assert_eq!(e.cell(), Some((0, 0)), "{e}");
    // A column past the last.
    let mut d = row(0, false);
    d.extend(cell(5, 99_999, 0, &1.0f64.to_le_bytes()));
    hostile(d);
}

#[test]
fn a_huge_declared_shared_string_count_allocates_nothing() {
    let mut sst = rec(159, &[0xFF; 8]);
    sst.extend(rec(19, &cat(&[&[0u8], &ws("only")])));
    let mut d = row(0, false);
    d.extend(cell(7, 0, 0, &0u32.to_le_bytes()));
    let zip = package_zip(&[("Data", 0, "worksheet", d)], &[], false);
    let wb = open(zip.set("xl/sharedStrings.bin", sst).build(), 1).unwrap();
    assert_eq!(wb.shared_string_count(), 1);
    assert_eq!(
        wb.sheets()[0].get(0, 0).unwrap().value,
        Value::String("only")
    );
}
