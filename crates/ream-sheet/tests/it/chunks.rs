//! A big sheet cut into chunks and parsed on several threads gives exactly
//! the cells of the serial parse, for every chunk size.

use crate::zipkit::minimal;
use proptest::prelude::*;
use ream_sheet::{OpenOptions, Workbook};

fn dump(wb: &Workbook) -> Vec<String> {
    let mut out = Vec::new();
    for s in wb.sheets() {
        out.push(format!(
            "sheet {} hidden rows {:?}",
            s.name(),
            s.hidden_rows()
        ));
        for c in s.cells() {
            out.push(format!("{}:{} {:?} {:?}", c.row, c.col, c.value, c.formula));
        }
    }
    out
}

/// A sheet of `rows` rows mixing every shape the chunker must handle:
/// rows with and without `r`, cells with and without `r`, a shared formula
/// whose children run through many chunks (some without a cached value),
/// formulas without a value (openpyxl's `<v></v>`, no `<v>`, `<v/>`, an
/// array formula; stored as `Value::Empty`), a shared child whose master
/// never comes (not stored), inline strings, hidden rows, and (with
/// `comments`) comments holding `</row>` between rows.
fn sheet_xml(rows: u32, no_r_every: u32, comments: bool) -> String {
    sheet_xml_with(rows, no_r_every, comments, true)
}

/// [`sheet_xml`], with plain formulas instead of the shared one when
/// `shared` is false: then no master is ever joined, and every chunk that
/// comes next in order may be parsed straight onto the joined rows.
fn sheet_xml_with(rows: u32, no_r_every: u32, comments: bool, shared: bool) -> String {
    let mut x = String::from("<worksheet><sheetData>");
    for r in 1..=rows {
        let explicit = no_r_every == 0 || r % no_r_every != 0;
        let hidden = if r % 13 == 0 { " hidden=\"1\"" } else { "" };
        if explicit {
            x.push_str(&format!("<row r=\"{r}\"{hidden}>"));
            x.push_str(&format!("<c r=\"A{r}\"><v>{r}</v></c>"));
        } else {
            x.push_str(&format!("<row{hidden}><c><v>{r}</v></c>"));
        }
        if !shared {
            x.push_str(&format!("<c><f>A{r}*2</f><v>{}</v></c>", r * 2));
        } else if r == 1 {
            x.push_str(&format!(
                "<c r=\"B1\"><f t=\"shared\" ref=\"B1:B{rows}\" si=\"0\">A1*2</f><v>2</v></c>"
            ));
        } else {
            let at = if explicit {
                format!(" r=\"B{r}\"")
            } else {
                String::new()
            };
            let value = if r % 5 == 0 {
                String::new()
            } else {
                format!("<v>{}</v>", r * 2)
            };
            x.push_str(&format!("<c{at}><f t=\"shared\" si=\"0\"/>{value}</c>"));
        }
        x.push_str(&format!(
            "<c t=\"inlineStr\"><is><t>row {r} &amp; more</t></is></c>"
        ));
        match r % 4 {
            0 => x.push_str(&format!("<c><f>A{r}+1</f><v></v></c>")),
            1 => x.push_str(&format!("<c s=\"3\"><f>A{r}+1</f></c>")),
            2 => x.push_str(&format!("<c><f>A{r}+1</f><v/></c>")),
            _ => x.push_str(&format!("<c><f t=\"array\" ref=\"D{r}\">A{r}+1</f></c>")),
        }
        if r % 7 == 0 {
            x.push_str("<c><f t=\"shared\" si=\"9\"/></c>");
        }
        x.push_str("</row>");
        if comments && r % 17 == 0 {
            x.push_str("<!-- a comment with </row> inside -->");
        }
    }
    x.push_str(
        "</sheetData><mergeCells count=\"1\"><mergeCell ref=\"A1:B1\"/></mergeCells></worksheet>",
    );
    x
}

/// The cells, or the error's kind, message, cell and offset.
fn read_limited(bytes: &[u8], opts: OpenOptions) -> Result<Vec<String>, String> {
    match Workbook::from_bytes(bytes.to_vec(), &opts) {
        Ok(wb) => Ok(dump(&wb)),
        Err(e) => Err(format!(
            "{:?} {} {:?} {:?}",
            e.kind(),
            e.message(),
            e.cell(),
            e.offset()
        )),
    }
}

fn open(bytes: &[u8], opts: OpenOptions) -> Vec<String> {
    dump(&Workbook::from_bytes(bytes.to_vec(), &opts).unwrap())
}

/// Opens with chunking and checks that chunks were really used (and, when
/// no comment can fool the cutter, that no sequential fallback happened).
fn open_chunked(bytes: &[u8], opts: OpenOptions, comments: bool) -> Vec<String> {
    let wb = Workbook::from_bytes(bytes.to_vec(), &opts).unwrap();
    let st = wb.stats();
    assert!(st.chunks > 1 || st.chunk_fallbacks > 0, "{st:?}");
    if !comments {
        assert_eq!(st.chunk_fallbacks, 0, "{st:?}");
    }
    dump(&wb)
}

#[test]
fn chunked_equals_serial_on_a_big_sheet() {
    for shared in [true, false] {
        let bytes = minimal(&sheet_xml_with(3_000, 5, false, shared));
        let serial = open(&bytes, OpenOptions::new().parallel(false));
        assert!(serial.len() > 9_000);
        // Formulas without a value exist, with their text; a shared child
        // without a master or a value does not (column E).
        assert!(serial.contains(&"0:3 Empty Some(\"A1+1\")".to_string()));
        if shared {
            assert!(serial.contains(&"4:1 Empty Some(\"A5*2\")".to_string()));
        }
        assert!(
            !serial
                .iter()
                .any(|c| c.split(' ').next().unwrap().ends_with(":4"))
        );
        let one = OpenOptions::new().threads(1).tune_chunk_bytes(1 << 10);
        assert_eq!(open(&bytes, one), serial, "threads 1 shared {shared}");
        for threads in 2..=8 {
            for chunk in [1 << 10, 3000, 1 << 14] {
                let opts = OpenOptions::new().threads(threads).tune_chunk_bytes(chunk);
                assert_eq!(
                    open_chunked(&bytes, opts, false),
                    serial,
                    "threads {threads} chunk {chunk} shared {shared}"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn any_chunk_size_gives_the_serial_cells(
        rows in 100u32..600,
        no_r_every in prop_oneof![Just(0u32), 2u32..9],
        comments: bool,
        shared: bool,
        pieces in 4usize..40,
        threads in 1usize..=8,
    ) {
        let xml = sheet_xml_with(rows, no_r_every, comments, shared);
        let chunk = (xml.len() / pieces).max(1024);
        prop_assume!(xml.len() >= 4 * chunk);
        let bytes = minimal(&xml);
        let serial = open(&bytes, OpenOptions::new().parallel(false));
        let opts = OpenOptions::new().threads(threads).tune_chunk_bytes(chunk);
        if threads == 1 {
            // One parser: no chunks, the same cells.
            prop_assert_eq!(open(&bytes, opts), serial);
        } else {
            prop_assert_eq!(open_chunked(&bytes, opts, comments), serial);
        }
    }
}

/// A workbook of `sheets` (worksheet XML each), named `S1`, `S2`, ...
fn workbook(sheets: &[String]) -> Vec<u8> {
    let ns = r#"xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships""#;
    let rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet";
    let mut list = String::new();
    let mut rels = String::new();
    for i in 1..=sheets.len() {
        list.push_str(&format!(
            r#"<sheet name="S{i}" sheetId="{i}" r:id="rId{i}"/>"#
        ));
        rels.push_str(&format!(
            r#"<Relationship Id="rId{i}" Type="{rel}" Target="worksheets/sheet{i}.xml"/>"#
        ));
    }
    let wb = format!("<workbook {ns}><sheets>{list}</sheets></workbook>");
    let rels = format!(
        r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{rels}</Relationships>"#
    );
    let names: Vec<String> = (1..=sheets.len())
        .map(|i| format!("xl/worksheets/sheet{i}.xml"))
        .collect();
    let mut parts: Vec<(&str, &str)> = vec![
        ("[Content_Types].xml", crate::zipkit::CONTENT_TYPES),
        ("_rels/.rels", crate::zipkit::ROOT_RELS),
        (crate::zipkit::WORKBOOK, &wb),
        ("xl/_rels/workbook.xml.rels", &rels),
    ];
    for (name, xml) in names.iter().zip(sheets) {
        parts.push((name, xml));
    }
    crate::zipkit::xlsx(&parts)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Several sheets of any sizes, some cut into chunks, one perhaps
    /// broken: every thread count gives the serial cells, or the serial
    /// error (the first broken sheet by order).
    #[test]
    fn sheets_and_chunks_on_one_pool_give_the_serial_result(
        sizes in proptest::collection::vec(5u32..400, 1..7),
        broken in proptest::option::of(0usize..7),
        shared: bool,
        chunk in 1024usize..6000,
    ) {
        let sheets: Vec<String> = sizes
            .iter()
            .enumerate()
            .map(|(i, &rows)| {
                let xml = sheet_xml_with(rows, 3, false, shared);
                match broken {
                    Some(b) if b == i => xml.replace("</sheetData>", "<row><c r=x"),
                    _ => xml,
                }
            })
            .collect();
        let bytes = workbook(&sheets);
        let serial = read_limited(&bytes, OpenOptions::new().parallel(false));
        for threads in 1..=8 {
            let opts = OpenOptions::new().threads(threads).tune_chunk_bytes(chunk);
            prop_assert_eq!(&read_limited(&bytes, opts), &serial, "threads {}", threads);
        }
    }
}

/// Shared formulas expanded at the join count against `max_formula_bytes`
/// for the whole sheet (each chunk's parser only sees its own): a master
/// in the first chunk and children in later ones give the serial parse's
/// error, at the same cell and offset, and under the limit the same cells.
#[test]
fn formula_bytes_expanded_at_the_join_are_limited() {
    let master = format!("{}A1", "1+".repeat(400));
    let mut rows = format!(
        r#"<row r="1"><c r="B1"><f t="shared" si="0" ref="B1:B3000">{master}</f><v>1</v></c></row>"#
    );
    for r in 2..=3000 {
        rows.push_str(&format!(
            r#"<row r="{r}"><c r="B{r}"><f t="shared" si="0"/><v>1</v></c></row>"#
        ));
    }
    let bytes = minimal(&format!(
        "<worksheet><sheetData>{rows}</sheetData></worksheet>"
    ));
    for max in [100_000u64, 1 << 20, 1 << 30] {
        let limits = ream_sheet::Limits::default().max_formula_bytes(max);
        let read = |opts: OpenOptions| read_limited(&bytes, opts.limits(limits));
        let serial = read(OpenOptions::new().parallel(false));
        assert_eq!(serial.is_ok(), max > 1 << 20, "max {max}: {serial:?}");
        let chunked = OpenOptions::new().threads(2).tune_chunk_bytes(1 << 10);
        assert_eq!(read(chunked), serial, "max {max}");
    }
}

/// Chunks whose rows are numbered and in order inside, but not across
/// the seams (a later chunk goes back to earlier rows, or repeats a
/// cell), are joined by one copy each; the result must still be the
/// serial parse's: sorted, the later duplicate kept.
#[test]
fn ordered_chunks_out_of_order_across_seams_give_the_serial_cells() {
    let mut order: Vec<u32> = (1..=2_000).collect();
    // Blocks of 250 rows in the order 5, 1, 8, 2, 7, 3, 6, 4.
    let blocks: Vec<&[u32]> = order.chunks(250).collect();
    let mut shuffled = Vec::new();
    for b in [4usize, 0, 7, 1, 6, 2, 5, 3] {
        shuffled.extend_from_slice(blocks[b]);
    }
    // Row 10 once more at the end, with another value.
    shuffled.push(10);
    order = shuffled;
    let mut x = String::from("<worksheet><sheetData>");
    for (i, r) in order.iter().enumerate() {
        x.push_str(&format!(
            "<row r=\"{r}\"><c r=\"A{r}\"><v>{i}</v></c><c r=\"B{r}\" t=\"inlineStr\"><is><t>t{i}</t></is></c></row>"
        ));
    }
    x.push_str("</sheetData></worksheet>");
    let bytes = minimal(&x);
    let serial = open(&bytes, OpenOptions::new().parallel(false));
    assert_eq!(serial.len(), 1 + 2 * 2_000);
    for chunk in [1 << 10, 5000, 1 << 14] {
        let opts = OpenOptions::new().threads(2).tune_chunk_bytes(chunk);
        assert_eq!(open_chunked(&bytes, opts, false), serial, "chunk {chunk}");
    }
}

/// `max_cells_per_sheet` counts the whole sheet, not each chunk: a sheet
/// over the limit whose chunks each stay under it gives the serial parse's
/// error (kind, message and cell), and at the limit the same cells.
#[test]
fn cell_limit_counts_the_whole_chunked_sheet() {
    let bytes = minimal(&sheet_xml(3_000, 0, false));
    let cells = open(&bytes, OpenOptions::new().parallel(false)).len() - 1;
    for max in [2_000u64, cells as u64 - 1, cells as u64] {
        let limits = ream_sheet::Limits::default().max_cells_per_sheet(max);
        let read = |opts: OpenOptions| read_limited(&bytes, opts.limits(limits));
        let serial = read(OpenOptions::new().parallel(false));
        assert_eq!(serial.is_ok(), max == cells as u64, "max {max}: {serial:?}");
        if let Err(e) = &serial {
            assert!(e.contains(&format!("more than {max} cells")), "{e}");
        }
        for chunk in [1 << 10, 1 << 14] {
            let chunked = read(OpenOptions::new().threads(2).tune_chunk_bytes(chunk));
            assert!(
                chunked == serial,
                "max {max} chunk {chunk}: {:?}",
                chunked.as_ref().map(|cells| cells.len())
            );
        }
    }
}
