//! The two ways a chunk reaches the joined rows — parsed alone and copied
//! in by `Joiner::add`, or parsed straight onto them by
//! `Joiner::parse_next` — give the sequential parse's cells, whatever mix
//! of the two a run happens to take.

use super::*;
use crate::options::Limits;
use crate::parts::styles::Styles;
use crate::store::T_INLINE;
use crate::worksheet::last_row_end;

/// Rows of every shape the join must handle: with and without `r`,
/// cells without `r`, inline strings, plain formulas, hidden rows, a row
/// written twice out of order, and (from row 300) a shared formula whose
/// children run on through later chunks.
fn rows_xml() -> Vec<u8> {
    let mut x = String::new();
    for r in 1..=600u32 {
        let hidden = if r % 7 == 0 { " hidden=\"1\"" } else { "" };
        if r % 4 == 0 {
            x.push_str(&format!("<row{hidden}><c><v>{r}</v></c>"));
        } else {
            x.push_str(&format!(
                "<row r=\"{r}\"{hidden}><c r=\"A{r}\"><v>{r}</v></c>"
            ));
        }
        x.push_str(&format!(
            "<c t=\"inlineStr\"><is><t>s{r} &amp; t</t></is></c><c><f>A{r}+1</f><v>{}</v></c>",
            r + 1
        ));
        match r {
            300 => {
                x.push_str("<c><f t=\"shared\" si=\"0\" ref=\"D300:D600\">A300*2</f><v>1</v></c>")
            }
            301.. => x.push_str("<c><f t=\"shared\" si=\"0\"/><v>1</v></c>"),
            _ => {}
        }
        x.push_str("</row>");
        if r == 150 {
            x.push_str("<row r=\"5\"><c r=\"B5\"><v>55</v></c></row>");
        }
    }
    x.into_bytes()
}

/// Cuts `xml` after the last `</row>` within every `size` bytes.
fn cut(xml: &[u8], size: usize) -> Vec<&[u8]> {
    let finder = memchr::memmem::FinderRev::new(b"row>");
    let mut out = Vec::new();
    let mut rest = xml;
    while rest.len() > size {
        let at = last_row_end(&finder, &rest[..size]).unwrap_or(size);
        out.push(&rest[..at]);
        rest = &rest[at..];
    }
    out.push(rest);
    out
}

fn dump(store: &CellStore, hidden: &[u32]) -> Vec<String> {
    let bytes = if store.arena.is_empty() {
        store.text.as_bytes()
    } else {
        &store.arena[..]
    };
    let text = |off: u64, len: u64| {
        String::from_utf8_lossy(&bytes[off as usize..(off + len) as usize]).into_owned()
    };
    let mut out: Vec<String> = store
        .cells
        .iter()
        .map(|c| {
            let value = if c.tag == T_INLINE {
                text(c.bits >> 32, c.bits & 0xffff_ffff)
            } else {
                c.bits.to_string()
            };
            format!("{}:{} {} {:x} {value}", c.row, c.col, c.tag, c.aux)
        })
        .collect();
    out.extend(
        store
            .formulas
            .iter()
            .map(|f| format!("f {}:{} {}", f.row, f.col, text(f.off.into(), f.len.into()))),
    );
    out.push(format!("hidden {hidden:?}"));
    out
}

/// Joins `chunks` in order; chunk `i` goes in place when `in_place(i)`
/// and the board would allow it (no master joined yet).
fn join(ctx: SheetCtx<'_>, chunks: &[&[u8]], in_place: impl Fn(usize) -> bool) -> Vec<String> {
    let mut j = Joiner {
        max_formula_bytes: u64::MAX,
        max_cells: u64::MAX,
        ..Joiner::default()
    };
    let mut offset = 0u64;
    for (i, xml) in chunks.iter().enumerate() {
        let last = i + 1 == chunks.len();
        if in_place(i) && j.masters.is_empty() {
            j.parse_next(ctx, offset, xml, last).unwrap();
        } else {
            let mut p = SheetParser::for_chunk(ctx).starting_at(offset);
            p.feed(xml, true).unwrap();
            j.add(p.finish_chunk(last).unwrap()).unwrap();
        }
        offset += xml.len() as u64;
    }
    j.store.normalize(!j.unsorted);
    j.hidden_rows.sort_unstable();
    j.hidden_rows.dedup();
    dump(&j.store, &j.hidden_rows)
}

#[test]
fn in_place_and_copied_chunks_join_to_the_sequential_cells() {
    let (styles, limits) = (Styles::default(), Limits::default());
    let ctx = SheetCtx {
        sst_len: 0,
        styles: &styles,
        limits: &limits,
        date_1904: false,
    };
    let rows = rows_xml();
    let whole = [
        &b"<worksheet><sheetData>"[..],
        &rows,
        b"</sheetData></worksheet>",
    ]
    .concat();
    let serial = SheetParser::new(ctx).parse_all(&whole).unwrap();
    let expected = dump(&serial.store, &serial.hidden_rows);
    assert!(expected.len() > 2_000);
    let data = [&rows[..], b"</sheetData></worksheet>"].concat();
    for size in [300, 1_000, 5_000] {
        let chunks = cut(&data, size);
        assert!(chunks.len() > 4, "size {size}");
        let policies: [(&str, &dyn Fn(usize) -> bool); 4] = [
            ("copied", &|_| false),
            ("in place", &|_| true),
            ("alternating", &|i| i % 2 == 0),
            ("after the first", &|i| i > 0),
        ];
        for (name, policy) in policies {
            assert!(
                join(ctx, &chunks, policy) == expected,
                "size {size}, {name}: differs from the sequential parse"
            );
        }
    }
}

/// A chunk parsed in place counts the cells joined before it against
/// `max_cells_per_sheet`, as the sequential parse does.
#[test]
fn a_chunk_parsed_in_place_counts_the_cells_joined_before_it() {
    let styles = Styles::default();
    let limits = Limits {
        max_cells_per_sheet: 3,
        ..Limits::default()
    };
    let ctx = SheetCtx {
        sst_len: 0,
        styles: &styles,
        limits: &limits,
        date_1904: false,
    };
    let mut j = Joiner {
        max_formula_bytes: u64::MAX,
        max_cells: 3,
        ..Joiner::default()
    };
    let two = b"<row><c><v>1</v></c><c><v>2</v></c></row>";
    j.parse_next(ctx, 0, two, false).unwrap();
    let e = j.parse_next(ctx, two.len() as u64, two, false).unwrap_err();
    assert_eq!(e.kind(), crate::error::ErrorKind::LimitExceeded);
    assert!(e.message().contains("more than 3 cells"), "{e}");
}
