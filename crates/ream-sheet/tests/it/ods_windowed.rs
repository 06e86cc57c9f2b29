//! The loaded ODS open over a sliding window of `content.xml`
//! (`ods/load.rs`) gives the one-block read's workbook or error, for every
//! first block size and 1 to 8 threads, on fixtures, hostile inputs and
//! the corpus.

use crate::ods::{
    content, corpus_ods_files, dump, float, overlapped_fixture, package, string, table,
    utf16_package,
};
use crate::zipkit::{Entry, Zip};
use ream_sheet::{Limits, OpenOptions, Workbook};

const MIME: &str = "application/vnd.oasis.opendocument.spreadsheet";

/// The reference: one parser and one block holding the fixture whole.
fn whole(bytes: &[u8], limits: Limits) -> Result<Vec<String>, String> {
    let opts = crate::ods::serial_opts().limits(limits);
    let wb = Workbook::from_bytes(bytes.to_vec(), &opts).map_err(|e| e.to_string())?;
    Ok(dump(&wb))
}

/// The windowed read with tiny row chunks and first block `block`, on 1
/// to 8 threads, which must agree. Also says whether the window was used
/// (it gives up on errors and odd input).
fn windowed(bytes: &[u8], limits: Limits, block: usize) -> (Result<Vec<String>, String>, bool) {
    let read = |threads: usize| {
        let opts = OpenOptions::new()
            .threads(threads)
            .tune_cores(8)
            .tune_chunk_bytes(64)
            .tune_stream_block(block)
            .limits(limits);
        match Workbook::from_bytes(bytes.to_vec(), &opts) {
            Ok(wb) => (Ok(dump(&wb)), wb.stats().windowed),
            Err(e) => (Err(e.to_string()), false),
        }
    };
    let one = read(1);
    for threads in 2..=8 {
        let more = read(threads);
        same(&more.0, &one.0, &format!("{threads} threads against one"));
        assert_eq!(more.1, one.1, "window used on one thread and on {threads}");
    }
    one
}

/// A short account of an outcome for assertion messages (dumps can be
/// megabytes).
fn brief(r: &Result<Vec<String>, String>) -> String {
    match r {
        Ok(lines) => format!("Ok({} lines, first {:?})", lines.len(), lines.first()),
        Err(e) => format!("Err({e})"),
    }
}

/// Asserts two outcomes are equal, describing them briefly when not.
fn same(got: &Result<Vec<String>, String>, want: &Result<Vec<String>, String>, what: &str) {
    if got != want {
        let diff = match (got, want) {
            (Ok(a), Ok(b)) => a
                .iter()
                .zip(b)
                .find(|(x, y)| x != y)
                .map(|(x, y)| format!("first difference: {x} / {y}"))
                .unwrap_or_default(),
            _ => String::new(),
        };
        panic!("{what}: got {} want {} {diff}", brief(got), brief(want));
    }
}

fn small_limit(cells: u64) -> Limits {
    Limits::default().max_cells_per_sheet(cells)
}

/// Tables, hidden rows and columns, spans, annotations, nested tables,
/// names between tables, a DDE cache, an empty table: identical for first
/// blocks from 1 byte to the whole part, and really read over the window.
#[test]
fn windowed_read_equals_the_whole_read_for_every_first_block() {
    let mut docs = vec![overlapped_fixture()];
    let cols = format!(
        r#"<table:table-column table:visibility="collapse" table:number-columns-repeated="3"/><table:table-column/><table:table-row>{}{}{}{}</table:table-row><table:table-row table:visibility="collapse">{}</table:table-row>{}"#,
        float("1"),
        float("2"),
        string("c"),
        float("4"),
        float("5"),
        format!("<table:table-row>{}</table:table-row>", float("6")).repeat(50)
    );
    docs.push(content("", &table("Cols", &cols)));
    for xml in docs {
        let bytes = package(&xml);
        let want = whole(&bytes, Limits::default()).unwrap();
        for block in [1, 2, 7, 64, 100, 333, 1000, 4096, 20_000, xml.len()] {
            let (got, used) = windowed(&bytes, Limits::default(), block);
            same(&got, &Ok(want.clone()), &format!("first block {block}"));
            assert!(used, "first block {block}: the window was not used");
        }
    }
}

/// Every error case gives the whole read's error: bad values, truncation
/// in a table and in the prelude, repeat bombs under a small limit, a
/// repeat budget that only the final table count makes too small, hidden
/// rows and `text:s` spaces over the budget, too many tables, a damaged
/// part; and an inflate budget that fits the part once still fits it when
/// the window gives up and the part is read again.
#[test]
fn windowed_read_gives_the_whole_read_errors() {
    let xml = overlapped_fixture();
    let at = xml.rfind("office:value=\"399.5\"").unwrap();
    let bad = format!("{}office:value=\"x\"{}", &xml[..at], &xml[at + 20..]);
    let cut = xml[..xml.len() - 5000].to_string();
    let prelude_cut = xml[..xml.find("<office:body>").unwrap() + 3].to_string();
    let bomb = xml.replacen(
        "<table:table-row table:number-rows-repeated=\"3\"",
        "<table:table-row table:number-rows-repeated=\"5000\"",
        1,
    );
    let tables = |n: usize, repeat: u32| {
        let row = format!(
            r#"<table:table-row table:number-rows-repeated="{repeat}">{}</table:table-row>"#,
            float("1")
        );
        let body: String = (0..n).map(|i| table(&format!("T{i}"), &row)).collect();
        content("", &body)
    };
    let hidden = format!(
        r#"<table:table-row table:visibility="collapse" table:number-rows-repeated="5000"/><table:table-row>{}</table:table-row>"#,
        float("1")
    );
    let spaces = string(r#"<text:s text:c="30000"/>x"#);
    let spaced = format!("<table:table-row>{spaces}{spaces}{spaces}</table:table-row>");
    let cases: Vec<(&str, Vec<u8>, Limits)> = vec![
        ("bad value", package(&bad), Limits::default()),
        ("cut in a table", package(&cut), Limits::default()),
        (
            "cut in the prelude",
            package(&prelude_cut),
            Limits::default(),
        ),
        ("bomb", package(&bomb), small_limit(4000)),
        ("budget fits", package(&tables(4, 251)), small_limit(1000)),
        (
            "budget of 4 tables",
            package(&tables(4, 252)),
            small_limit(1000),
        ),
        (
            "hidden rows",
            package(&content("", &table("H", &hidden))),
            small_limit(1000),
        ),
        (
            "spaces",
            package(&content("", &table("S", &spaced))),
            small_limit(1000),
        ),
        (
            "too many tables",
            package(&content("", &"<table:table/>".repeat(65_537))),
            Limits::default(),
        ),
        (
            "bomb, inflate budget of one read",
            package(&bomb),
            small_limit(4000).max_inflated_bytes(bomb.len() as u64 + 4096),
        ),
    ];
    for (what, bytes, limits) in cases {
        let want = whole(&bytes, limits);
        for block in [1, 100, 4096, 1 << 20] {
            let (got, _) = windowed(&bytes, limits, block);
            same(&got, &want, &format!("{what}, first block {block}"));
        }
    }
    let len = xml.len() as u64;
    type Edit<'a> = &'a dyn Fn(&mut Entry);
    let damages: [(&str, Edit<'_>); 3] = [
        ("short", &|e| e.size = Some(len - 100)),
        ("long", &|e| e.size = Some(len + 100)),
        ("crc", &|e| e.crc = Some(0x1234_5678)),
    ];
    for (what, edit) in damages {
        let mut mime = Entry::new("mimetype", MIME);
        mime.stored = true;
        let mut part = Entry::new("content.xml", xml.as_str());
        edit(&mut part);
        let bytes = Zip { entries: vec![] }.push(mime).push(part).build();
        let want = whole(&bytes, Limits::default());
        assert!(want.is_err(), "{what}");
        same(&windowed(&bytes, Limits::default(), 4096).0, &want, what);
    }
}

/// A UTF-16 `content.xml` is read whole and transcoded, as the whole read
/// does.
#[test]
fn windowed_read_of_utf16_equals_the_whole_read() {
    let xml = overlapped_fixture();
    let bytes = utf16_package(&xml);
    let want = whole(&package(&xml), Limits::default());
    same(
        &windowed(&bytes, Limits::default(), 4096).0,
        &want,
        "utf-16",
    );
}

/// Every corpus ODS file: the windowed read with small blocks gives the
/// whole read's workbook or error.
#[test]
fn ods_corpus_windowed_equals_whole() {
    let Some((_, paths)) = corpus_ods_files() else {
        return;
    };
    let (mut files, mut used) = (0, 0);
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        let want = whole(&bytes, Limits::default());
        let (got, window) = windowed(&bytes, Limits::default(), 4096);
        same(&got, &want, &path.display().to_string());
        used += usize::from(window);
        files += 1;
    }
    println!("{files} files, {used} read over the window");
    assert!(files == 0 || used * 2 >= files, "{used} of {files}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]
    /// Any edit of the fixture (bytes replaced anywhere: inside tags,
    /// text, repeat counts, nested tables), read over the window with any
    /// first block, gives the whole read's workbook or error.
    #[test]
    fn edited_content_reads_the_same_windowed(
        at in 0usize..200_000,
        len in 0usize..40,
        junk in proptest::collection::vec(proptest::sample::select(b"<>/=\"' a1-:table-row".to_vec()), 0..12),
        block in 1usize..5000,
    ) {
        let mut xml = overlapped_fixture().into_bytes();
        let at = at % xml.len();
        let end = (at + len).min(xml.len());
        xml.splice(at..end, junk);
        let text = String::from_utf8_lossy(&xml).into_owned();
        let bytes = package(&text);
        let want = whole(&bytes, small_limit(50_000));
        let (got, _) = windowed(&bytes, small_limit(50_000), block);
        same(&got, &want, &format!("edit at {at}, first block {block}"));
    }
}

/// Every row holds a nested table, so most block cuts land inside one and
/// the block is parsed again with more bytes: still the whole read's
/// workbook, for small and large first blocks.
#[test]
fn nested_tables_in_every_row_read_the_same_windowed() {
    let row = |r: usize| {
        format!(
            r#"<table:table-row>{}<table:table-cell><table:table table:name="In{r}"><table:table-row>{}</table:table-row></table:table></table:table-cell>{}</table:table-row>"#,
            float(&r.to_string()),
            float("9"),
            string("after")
        )
    };
    let rows: String = (0..2000).map(row).collect();
    let xml = content(
        "",
        &format!("{}{}", table("Outer", &rows), table("Next", &row(0))),
    );
    let bytes = package(&xml);
    let want = whole(&bytes, Limits::default());
    assert!(want.is_ok());
    for block in [1, 50, 999, 4096, 1 << 16] {
        let (got, used) = windowed(&bytes, Limits::default(), block);
        same(&got, &want, &format!("first block {block}"));
        assert!(used, "first block {block}");
    }
}

/// On three threads (an inflater, this thread and one more parser) the
/// window's tables are cut into row chunks that the other parser takes: used on plain big tables (header rows, spans, covered
/// cells, annotations, formulas, repeats), for every chunk size and first
/// block, with the whole read's workbook. Where rows are grouped or tables
/// nested a cut can land inside them; the read then runs again on the
/// window, still with the whole read's workbook.
#[test]
fn three_threads_parse_row_chunks_with_the_whole_read_result() {
    let plain = content(
        "",
        &format!(
            "{}{}{}",
            table(
                "Small",
                &format!("<table:table-row>{}</table:table-row>", float("3"))
            ),
            table("Plain", &plain_rows(8000)),
            table(
                "Tail",
                &format!("<table:table-row>{}</table:table-row>", string("t"))
            ),
        ),
    );
    let odd = content("", &table("Odd", &crate::ods::overlapped_rows(true)));
    // Tables of about 100 KB, sent whole; names between two of them make
    // that read start again on the window (same result).
    let mids: Vec<String> = (0..6)
        .map(|i| table(&format!("M{i}"), &plain_rows(400)))
        .collect();
    let names = r#"<table:named-expressions><table:named-range table:name="N" table:cell-range-address="$M0.$A$1"/></table:named-expressions>"#;
    let mid = content("", &mids.concat());
    let mid_names = content(
        "",
        &format!("{}{names}{}", mids[..3].concat(), mids[3..].concat()),
    );
    for (xml, chunked) in [(plain, true), (odd, false), (mid, true), (mid_names, false)] {
        let bytes = package(&xml);
        let want = whole(&bytes, Limits::default()).unwrap();
        for chunk in [1 << 10, 3000, 1 << 14] {
            for block in [1, 777, 4096, 1 << 16] {
                let opts = OpenOptions::new()
                    .threads(3)
                    .tune_cores(3)
                    .tune_chunk_bytes(chunk)
                    .tune_stream_block(block);
                let wb = Workbook::from_bytes(bytes.clone(), &opts).unwrap();
                let ctx = format!("chunked {chunked}, chunk {chunk}, first block {block}");
                assert!(wb.stats().windowed, "{ctx}");
                if chunked {
                    assert!(wb.stats().chunks > 1, "{ctx}: {:?}", wb.stats());
                }
                same(&Ok(dump(&wb)), &Ok(want.clone()), &ctx);
            }
        }
    }
}

/// Rows of a plain big table (about 250 bytes each): header rows, spans
/// with covered cells, annotations, formulas (some without a value),
/// repeated and hidden rows.
fn plain_rows(n: u32) -> String {
    let mut x = String::from(
        "<table:table-column table:number-columns-repeated=\"3\"/><table:table-header-rows>",
    );
    x.push_str(&format!(
        "<table:table-row>{}</table:table-row></table:table-header-rows>",
        string("head")
    ));
    for r in 0..n {
        let attrs = match r % 13 {
            0 => r#" table:visibility="collapse""#,
            7 => r#" table:number-rows-repeated="3""#,
            _ => "",
        };
        x.push_str(&format!("<table:table-row{attrs}>"));
        x.push_str(&float(&format!("{r}.5")));
        x.push_str(&string(&format!("row {r} &amp; text")));
        if r % 50 == 0 {
            x.push_str(r#"<table:table-cell table:number-columns-spanned="2" table:formula="of:=[.A1]" office:value-type="float" office:value="1"><office:annotation><text:p>note</text:p></office:annotation></table:table-cell><table:covered-table-cell/>"#);
        }
        if r % 7 == 3 {
            x.push_str(&format!(
                r#"<table:table-cell table:formula="of:=[.A{r}]*2"/>"#
            ));
        }
        x.push_str("</table:table-row>");
    }
    x
}
