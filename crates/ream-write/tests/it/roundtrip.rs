//! read(write(x)) == x for typed cells, with ream-sheet and calamine.

use crate::util::{Rows, general_template, open, write, write_with};
use calamine::{Data, Reader};
use proptest::prelude::*;
use ream_sheet::{CellError, DateKind, Value as RValue};
use ream_write::{
    Cell, DateStyle, Strings, Template, TemplateOptions, Value, WorkbookWriter, WriteOptions,
};

/// An owned value for generated cells.
#[derive(Debug, Clone, PartialEq)]
enum V {
    Num(f64),
    Text(String),
    Bool(bool),
    Err(CellError),
    Date(f64, DateStyle),
    /// A formula with a numeric result.
    Formula(String, f64),
    /// A formula with a text result.
    FormulaText(String, String),
}

impl V {
    fn value(&self) -> Value<'_> {
        match self {
            V::Num(x) | V::Formula(_, x) => Value::Number(*x),
            V::Text(s) | V::FormulaText(_, s) => Value::String(s),
            V::Bool(b) => Value::Bool(*b),
            V::Err(e) => Value::Error(*e),
            V::Date(x, s) => Value::DateTime(*x, *s),
        }
    }
    fn formula(&self) -> Option<&str> {
        match self {
            V::Formula(f, _) | V::FormulaText(f, _) => Some(f),
            _ => None,
        }
    }
}

const ERRORS: [CellError; 7] = [
    CellError::Null,
    CellError::Div0,
    CellError::Value,
    CellError::Ref,
    CellError::Name,
    CellError::Num,
    CellError::NA,
];

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 ]{0,12}",
        "\\PC{0,20}",
        any::<String>().prop_map(|s| s.chars().take(30).collect()),
        Just("_x000D_ and _x005F_".to_string()),
        Just(" lead\r\ntrail\t ".to_string()),
        Just("\u{1}\u{8}\u{b}\u{1f}\u{fffe}\u{ffff}<&>\"'".to_string()),
    ]
}

fn value() -> impl Strategy<Value = V> {
    prop_oneof![
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(V::Num),
        (-1e9f64..1e9).prop_map(V::Num),
        (-1_000_000i64..1_000_000).prop_map(|i| V::Num(i as f64)),
        text().prop_map(V::Text),
        any::<bool>().prop_map(V::Bool),
        (0..ERRORS.len()).prop_map(|i| V::Err(ERRORS[i])),
        (1u32..2_958_465).prop_map(|d| V::Date(f64::from(d), DateStyle::Date)),
        (1u32..2_958_465, 0u32..86_400).prop_map(|(d, s)| V::Date(
            f64::from(d) + f64::from(s) / 86_400.0,
            DateStyle::DateTime
        )),
        (1u32..86_400).prop_map(|s| V::Date(f64::from(s) / 86_400.0, DateStyle::Time)),
        (1u32..10_000_000).prop_map(|s| V::Date(f64::from(s) / 86_400.0, DateStyle::Duration)),
        (-1e6f64..1e6).prop_map(|x| V::Formula("A1*2+SUM(B1:B3)".into(), x)),
        text().prop_map(|s| V::FormulaText("UPPER(\"a<b\")&C1".into(), s)),
    ]
}

/// Sheets of rows: (row gap, cells as (column gap, value)).
fn sheets() -> impl Strategy<Value = Vec<Vec<(u32, Vec<(u32, V)>)>>> {
    let row = (0u32..3, prop::collection::vec((0u32..3, value()), 0..6));
    prop::collection::vec(prop::collection::vec(row, 0..12), 1..4)
}

/// Absolute (row, col, value) of generated sheets.
fn layout(generated: &[Vec<(u32, Vec<(u32, V)>)>]) -> Vec<Vec<(u32, Vec<(u32, V)>)>> {
    generated
        .iter()
        .map(|rows| {
            let mut r = 0u32;
            rows.iter()
                .map(|(rg, cells)| {
                    r += rg;
                    let row = r;
                    r += 1;
                    let mut c = 0u32;
                    let cells = cells
                        .iter()
                        .map(|(cg, v)| {
                            c += cg;
                            let col = c;
                            c += 1;
                            (col, v.clone())
                        })
                        .collect();
                    (row, cells)
                })
                .collect()
        })
        .collect()
}

fn to_rows(sheet: &[(u32, Vec<(u32, V)>)]) -> Rows<'_> {
    sheet
        .iter()
        .map(|(r, cells)| {
            let cells = cells
                .iter()
                .map(|(c, v)| Cell {
                    col: *c,
                    value: v.value(),
                    formula: v.formula(),
                    format: None,
                })
                .collect();
            (*r, cells)
        })
        .collect()
}

fn check_ream(sheets: &[Vec<(u32, Vec<(u32, V)>)>], bytes: Vec<u8>) {
    check_ream_from(sheets, bytes, 0);
}

/// Compares the cells from row `first` on.
fn check_ream_from(sheets: &[Vec<(u32, Vec<(u32, V)>)>], bytes: Vec<u8>, first: u32) {
    let wb = open(bytes);
    assert_eq!(wb.sheets().len(), sheets.len());
    for (i, want) in sheets.iter().enumerate() {
        let sheet = &wb.sheets()[i];
        let got: Vec<_> = sheet.cells().filter(|c| c.row >= first).collect();
        let flat: Vec<(u32, u32, &V)> = want
            .iter()
            .flat_map(|(r, cells)| cells.iter().map(move |(c, v)| (*r, *c, v)))
            .filter(|(_, _, v)| !matches!(v, V::Text(s) if s.is_empty()))
            .collect();
        assert_eq!(got.len(), flat.len(), "sheet {i}: {got:?}");
        for (g, (r, c, v)) in got.iter().zip(flat) {
            assert_eq!((g.row, g.col), (r, c));
            assert_eq!(g.formula, v.formula(), "formula at {r},{c}");
            match (v, g.value) {
                (V::Num(x) | V::Formula(_, x), RValue::Number(y)) => assert_eq!(*x, y),
                (V::Text(s) | V::FormulaText(_, s), RValue::String(t)) => assert_eq!(s, t),
                // `<v></v>` after a formula reads as "no saved result".
                (V::FormulaText(_, s), RValue::Empty) => assert!(s.is_empty()),
                (V::Bool(b), RValue::Bool(c)) => assert_eq!(*b, c),
                (V::Err(e), RValue::Error(f)) => assert_eq!(*e, f),
                (V::Date(x, style), RValue::DateTime(d)) => {
                    assert_eq!(*x, d.serial);
                    let kind = match style {
                        DateStyle::Date | DateStyle::DateTime => DateKind::DateTime,
                        DateStyle::Time => DateKind::Time,
                        DateStyle::Duration => DateKind::Duration,
                    };
                    assert_eq!(d.kind, kind, "{style:?}");
                }
                (v, g) => panic!("at {r},{c}: wrote {v:?}, read {g:?}"),
            }
        }
    }
}

fn check_calamine(sheets: &[Vec<(u32, Vec<(u32, V)>)>], bytes: Vec<u8>) {
    let mut cal = calamine::Xlsx::new(std::io::Cursor::new(bytes)).unwrap();
    let names = cal.sheet_names();
    assert_eq!(names.len(), sheets.len());
    for (name, want) in names.iter().zip(sheets) {
        let range = cal.worksheet_range(name).unwrap();
        for (r, cells) in want {
            for (c, v) in cells {
                let got = range.get_value((*r, *c)).unwrap_or(&Data::Empty);
                match (v, got) {
                    (V::Num(x) | V::Formula(_, x), Data::Float(y)) => assert_eq!(x, y),
                    (V::Num(x) | V::Formula(_, x), Data::Int(y)) => assert_eq!(*x, *y as f64),
                    (V::Text(s) | V::FormulaText(_, s), Data::String(t)) => {
                        // calamine leaves `_xHHHH_` escapes as written.
                        if !s.contains('_') && !s.chars().any(|c| c.is_control() || c >= '\u{fffe}')
                        {
                            assert_eq!(s, t)
                        }
                    }
                    (V::Text(s) | V::FormulaText(_, s), Data::Empty) => assert!(s.is_empty()),
                    (V::Bool(b), Data::Bool(c)) => assert_eq!(b, c),
                    (V::Err(_), Data::Error(_)) => {}
                    (V::Date(x, _), Data::DateTime(d)) => assert_eq!(*x, d.as_f64()),
                    (V::Date(x, _), Data::Float(y)) => assert_eq!(x, y),
                    (v, g) => panic!("at {r},{c}: wrote {v:?}, calamine read {g:?}"),
                }
            }
        }
    }
}

fn write_gen(generated: &[Vec<(u32, Vec<(u32, V)>)>], strings: Strings, threads: usize) -> Vec<u8> {
    write_gen_with(generated, strings, threads, None)
}

fn write_gen_with(
    generated: &[Vec<(u32, Vec<(u32, V)>)>],
    strings: Strings,
    threads: usize,
    template: Option<(&Template, &TemplateOptions)>,
) -> Vec<u8> {
    let names: Vec<String> = (0..generated.len()).map(|i| format!("S{i}")).collect();
    let sheets: Vec<(&str, Rows<'_>)> = names
        .iter()
        .zip(generated)
        .map(|(n, s)| (n.as_str(), to_rows(s)))
        .collect();
    let opts = WriteOptions {
        strings,
        spill_threshold: 256,
        ..WriteOptions::default()
    };
    match template {
        None => write(&sheets, opts, threads),
        Some((t, o)) => write_with(
            WorkbookWriter::with_template(opts, t, o).unwrap(),
            &sheets,
            threads,
        ),
    }
}

/// Moves generated rows down by `by`.
fn shift(sheets: &mut [Vec<(u32, Vec<(u32, V)>)>], by: u32) {
    for s in sheets {
        for (r, _) in s.iter_mut() {
            *r += by;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn read_of_write_is_identity(generated in sheets(), inline in any::<bool>(), threads in 1usize..4) {
        let sheets = layout(&generated);
        let strings = if inline { Strings::Inline } else { Strings::Shared };
        let bytes = write_gen(&sheets, strings, threads);
        check_calamine(&sheets, bytes.clone());
        check_ream(&sheets, bytes);
    }

    #[test]
    fn read_of_write_is_identity_with_a_template(generated in sheets(), inline in any::<bool>(), threads in 1usize..4) {
        let mut sheets = layout(&generated);
        shift(&mut sheets, 2);
        let strings = if inline { Strings::Inline } else { Strings::Shared };
        let t = Template::from_bytes(general_template()).unwrap();
        let bytes = write_gen_with(&sheets, strings, threads, Some((&t, &TemplateOptions::new())));
        check_calamine(&sheets, bytes.clone());
        check_ream_from(&sheets, bytes, 2);
    }
}

#[test]
fn many_rows_spill_to_a_temp_file_and_read_back() {
    let rows: Vec<(u32, Vec<(u32, V)>)> = (0..20_000u32)
        .map(|r| {
            (
                r,
                vec![
                    (0, V::Num(f64::from(r) * 0.5)),
                    (1, V::Text(format!("row {}", r % 97))),
                    (3, V::Date(45_000.0 + f64::from(r % 300), DateStyle::Date)),
                ],
            )
        })
        .collect();
    let sheets = vec![rows.clone(), rows];
    let bytes = write_gen(&sheets, Strings::Shared, 2);
    check_ream(&sheets, bytes);
}
