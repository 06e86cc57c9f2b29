//! Property tests of the worksheet scanner: the one-pass fast path and the
//! general path agree, and block-mode parsing gives the same cells however
//! the XML is split.

use crate::options::Limits;
use crate::parts::styles::Styles;
use crate::store::RawCell;
use crate::worksheet::{SheetCtx, SheetParser};
use proptest::prelude::*;

fn ctx<'a>(styles: &'a Styles, limits: &'a Limits) -> SheetCtx<'a> {
    SheetCtx {
        sst_len: 50,
        styles,
        limits,
        date_1904: false,
    }
}

/// Every cell as the public view shows it (value and formula), in order.
type Out = Vec<String>;

fn summary(p: crate::worksheet::ParsedSheet) -> Out {
    p.store
        .cells
        .iter()
        .map(|c: &RawCell| {
            let v = p.store.view(c);
            let sst = if c.tag == crate::store::T_SST {
                c.bits
            } else {
                0
            };
            format!(
                "{}:{} {:?} {:?} tag={} sst={sst}",
                v.row, v.col, v.value, v.formula, c.tag
            )
        })
        .collect()
}

fn parse_whole(xml: &[u8]) -> Result<Out, String> {
    let (styles, limits) = (Styles::default(), Limits::default());
    SheetParser::new(ctx(&styles, &limits))
        .parse_all(xml)
        .map(summary)
        .map_err(|e| e.to_string())
}

/// Parses `xml` fed in pieces cut at `cuts`, carrying unconsumed bytes.
fn parse_blocks(xml: &[u8], cuts: &[usize]) -> Result<Out, String> {
    let (styles, limits) = (Styles::default(), Limits::default());
    let mut p = SheetParser::new(ctx(&styles, &limits));
    let mut carry: Vec<u8> = Vec::new();
    let mut last = 0;
    let mut bounds: Vec<usize> = cuts.iter().copied().filter(|&c| c < xml.len()).collect();
    bounds.sort_unstable();
    bounds.push(xml.len());
    for &b in &bounds {
        carry.extend_from_slice(&xml[last..b]);
        last = b;
        let eof = b == xml.len();
        let used = p.feed(&carry, eof).map_err(|e| e.to_string())?;
        carry.drain(..used);
    }
    p.finish().map(summary).map_err(|e| e.to_string())
}

#[derive(Debug, Clone)]
enum V {
    Num(String),
    Sst(u32),
    /// A shared-string index written with leading zeros.
    SstText(String),
    Bool(bool),
    Str(String),
    Err,
}

fn value() -> impl Strategy<Value = V> {
    prop_oneof![
        (-1_000_000i64..1_000_000, 0u32..4).prop_map(|(m, k)| {
            let s = format!("{:.*}", k as usize, m as f64 / 10f64.powi(k as i32));
            V::Num(s)
        }),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| V::Num(format!("{f:e}"))),
        // Long digit runs (the eight-at-a-time digit reader, the 15- and
        // 16-digit limits of the fast number and the mantissa cap).
        "-?[0-9]{1,20}(\\.[0-9]{1,12})?".prop_map(V::Num),
        (0usize..19, 0u32..50)
            .prop_map(|(zeros, i)| V::SstText(format!("{}{i}", "0".repeat(zeros)))),
        (0u32..50).prop_map(V::Sst),
        any::<bool>().prop_map(V::Bool),
        "[a-z &<>\"]{0,12}".prop_map(V::Str),
        Just(V::Err),
    ]
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One cell in the canonical writer shape (fast path) or in a variant the
/// fast path refuses (single quotes, attribute order, prefix, spaces).
fn cell(r: &str, v: &V, formula: Option<&str>, variant: bool) -> String {
    let (t, text) = match v {
        V::Num(s) => ("", s.clone()),
        V::Sst(i) => (" t=\"s\"", i.to_string()),
        V::SstText(i) => (" t=\"s\"", i.clone()),
        V::Bool(b) => (" t=\"b\"", if *b { "1".into() } else { "0".into() }),
        V::Str(s) => (" t=\"str\"", esc(s)),
        V::Err => (" t=\"e\"", "#N/A".into()),
    };
    let f = formula
        .map(|f| format!("<f>{}</f>", esc(f)))
        .unwrap_or_default();
    if variant {
        let t = t.replace('"', "'");
        format!("<x:c{t} r='{r}' >{f}<x:v>{text}</x:v></x:c>")
    } else {
        format!("<c r=\"{r}\"{t}>{f}<v>{text}</v></c>")
    }
}

/// A sheet of three cells a row, the first row numbered `first_row`.
fn sheet(cells: &[(V, Option<String>)], variant: bool, first_row: usize) -> String {
    let mut x = String::from("<worksheet><sheetData>");
    for (i, (v, f)) in cells.iter().enumerate() {
        let row = i / 3 + first_row;
        let col = (b'A' + (i % 3) as u8) as char;
        if i % 3 == 0 {
            x.push_str(&format!("<row r=\"{row}\">"));
        }
        x.push_str(&cell(&format!("{col}{row}"), v, f.as_deref(), variant));
        if i % 3 == 2 || i + 1 == cells.len() {
            x.push_str("</row>");
        }
    }
    x.push_str("</sheetData></worksheet>");
    x
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn fast_and_general_paths_agree(
        cells in proptest::collection::vec((value(), proptest::option::of("[A-C][1-9]\\+[0-9]")), 1..30),
        // Row numbers of one to seven digits, up to the grid's edge.
        first_row in prop_oneof![Just(1usize), 1usize..1_048_567],
    ) {
        let fast = parse_whole(sheet(&cells, false, first_row).as_bytes());
        let slow = parse_whole(sheet(&cells, true, first_row).as_bytes());
        prop_assert_eq!(fast, slow);
    }

    #[test]
    fn any_split_gives_the_same_cells(
        cells in proptest::collection::vec((value(), proptest::option::of("[A-C][1-9]")), 1..30),
        cuts in proptest::collection::vec(0usize..2000, 0..8),
        variant: bool,
    ) {
        let xml = sheet(&cells, variant, 1);
        let whole = parse_whole(xml.as_bytes());
        prop_assert!(whole.is_ok(), "{:?}", whole);
        prop_assert_eq!(parse_blocks(xml.as_bytes(), &cuts), whole);
    }
}

#[test]
fn split_inside_a_comment_holding_row_end() {
    let xml = b"<worksheet><sheetData><row r=\"1\"><c r=\"A1\"><v>1</v></c></row><!-- </row> --><row r=\"2\"><c r=\"A2\"><v>2</v></c></row></sheetData></worksheet>";
    let whole = parse_whole(xml).unwrap();
    for cut in 1..xml.len() {
        assert_eq!(parse_blocks(xml, &[cut]).unwrap(), whole, "cut {cut}");
    }
}
