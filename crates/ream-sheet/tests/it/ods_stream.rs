//! Streaming ODS: a workbook opened with `load_cells(false)` lists its
//! sheets in one constant-memory pass and `rows` streams each sheet; both
//! must agree with the loaded read for every block size, on the corpus,
//! and on bad input (same error kind, message, sheet, cell and offset).

use crate::ods::{content, float, package, string, table};
use ream_sheet::{ErrorKind, OpenOptions, OwnedCell, RowOptions, Workbook};

type Rows = Vec<(u32, Vec<OwnedCell>)>;

fn loaded_rows(wb: &Workbook, sheet: usize) -> Rows {
    let mut out: Rows = Vec::new();
    for c in wb.sheet(sheet).unwrap().cells() {
        match out.last_mut() {
            Some((r, cells)) if *r == c.row => cells.push(OwnedCell::from(&c)),
            _ => out.push((c.row, vec![OwnedCell::from(&c)])),
        }
    }
    out
}

fn streamed_rows(wb: &Workbook, sheet: usize, opts: RowOptions) -> ream_sheet::Result<Rows> {
    let mut out = Vec::new();
    for row in wb.rows_with(sheet, opts)? {
        let row = row?;
        out.push((row.index, row.cells));
    }
    Ok(out)
}

/// What a reader saw: sheets (name, visibility), names, and per sheet its
/// rows or the error reading them.
type Seen = (Vec<String>, Vec<String>, Vec<Result<Rows, String>>);

fn error_text(e: &ream_sheet::Error) -> String {
    format!(
        "{:?} {} sheet={:?} cell={:?} offset={:?}",
        e.kind(),
        e.message(),
        e.sheet(),
        e.cell(),
        e.offset()
    )
}

fn listing(wb: &Workbook) -> (Vec<String>, Vec<String>) {
    let sheets = wb
        .sheets()
        .iter()
        .map(|s| format!("{} {:?}", s.name(), s.visibility()))
        .collect();
    let names = wb
        .defined_names()
        .iter()
        .map(|n| format!("{n:?}"))
        .collect();
    (sheets, names)
}

fn loaded(bytes: &[u8]) -> Result<Seen, String> {
    let wb = Workbook::from_bytes(bytes.to_vec(), &OpenOptions::new().parallel(false))
        .map_err(|e| error_text(&e))?;
    let (sheets, names) = listing(&wb);
    let rows = (0..wb.sheets().len())
        .map(|i| Ok(loaded_rows(&wb, i)))
        .collect();
    Ok((sheets, names, rows))
}

/// The lazy open and streamed rows; `piped`: inflated on a helper thread
/// (two threads allowed), else on the caller's.
fn streamed_with(bytes: &[u8], block: usize, piped: bool) -> Result<Seen, String> {
    let threads = if piped { 2 } else { 1 };
    let opts = OpenOptions::new()
        .load_cells(false)
        .tune_stream_block(block)
        .threads(threads);
    let wb = Workbook::from_bytes(bytes.to_vec(), &opts).map_err(|e| error_text(&e))?;
    assert!(
        wb.sheets()
            .iter()
            .all(|s| !s.is_loaded() && s.cell_count() == 0)
    );
    let (sheets, names) = listing(&wb);
    let rows = (0..wb.sheets().len())
        .map(|i| streamed_rows(&wb, i, RowOptions::default()).map_err(|e| error_text(&e)))
        .collect();
    Ok((sheets, names, rows))
}

fn streamed(bytes: &[u8], block: usize) -> Result<Seen, String> {
    streamed_with(bytes, block, true)
}

/// The loaded read with tiny row chunks on `threads` threads, seen as
/// [`loaded`] sees it.
fn loaded_on(bytes: &[u8], threads: usize) -> Result<Seen, String> {
    let opts = OpenOptions::new().threads(threads).tune_chunk_bytes(256);
    let wb = Workbook::from_bytes(bytes.to_vec(), &opts).map_err(|e| error_text(&e))?;
    let (sheets, names) = listing(&wb);
    let rows = (0..wb.sheets().len())
        .map(|i| Ok(loaded_rows(&wb, i)))
        .collect();
    Ok((sheets, names, rows))
}

/// Streaming = loaded = serial on the fixture, on 1 to 8 threads.
#[test]
fn streamed_and_loaded_agree_on_every_thread_count() {
    let bytes = package(&fixture());
    let want = loaded(&bytes);
    assert!(want.is_ok());
    for threads in 1..=8 {
        assert_eq!(
            loaded_on(&bytes, threads),
            want,
            "loaded, threads {threads}"
        );
        for block in [100, 4096] {
            let piped = threads > 1;
            assert_eq!(
                streamed_with(&bytes, block, piped),
                want,
                "streamed, threads {threads}, block {block}"
            );
        }
    }
}

const HIDDEN_STYLE: &str = r#"<style:style style:name="ta2" style:family="table"><style:table-properties table:display="false"/></style:style>"#;

fn typed_row(i: usize) -> String {
    format!(
        r#"<table:table-row>{}{}<table:table-cell table:formula="of:=[.A{}]*2" office:value-type="float" office:value="{}"><text:p>{}</text:p></table:table-cell><table:table-cell office:value-type="boolean" office:boolean-value="true"><text:p>TRUE</text:p></table:table-cell><table:table-cell office:value-type="date" office:date-value="2024-01-{:02}"/><table:table-cell office:value-type="time" office:time-value="PT12H30M00S"/><table:table-cell office:value-type="percentage" office:value="0.5"/><table:table-cell office:value-type="currency" office:currency="EUR" office:value="3.5"/><table:table-cell table:formula="of:=[.A{}]+1"/></table:table-row>"#,
        float(&i.to_string()),
        string(&format!("s{i} &amp; &lt;x&gt;")),
        i + 1,
        i * 2,
        i * 2,
        i % 28 + 1,
        i + 1
    )
}

/// A workbook exercising what a block cut can fall into: header rows,
/// row groups, repeats, spans and covered cells, annotations, a table
/// nested in a cell, a comment holding a row tag, hidden rows, local and
/// global names, a hidden sheet, an empty sheet and a trailer of a
/// million empty rows.
fn fixture() -> String {
    let mut a = String::from(r#"<table:table-column table:number-columns-repeated="3"/>"#);
    a += &format!(
        "<table:table-header-rows><table:table-row>{}{}</table:table-row></table:table-header-rows>",
        string("h1"),
        string("h2 &amp; more")
    );
    for i in 0..12 {
        a += &typed_row(i);
    }
    a += "<!-- a comment <table:table-row> </table:table-row> -->";
    a += "<table:table-row-group>";
    for i in 12..20 {
        a += &typed_row(i);
    }
    a += "</table:table-row-group>";
    a += &format!(
        r#"<table:table-row table:number-rows-repeated="3">{}<table:table-cell table:number-columns-repeated="4" office:value-type="float" office:value="7"/></table:table-row>"#,
        float("5")
    );
    a += &format!(
        r#"<table:table-row><table:table-cell table:number-columns-spanned="2" table:number-rows-spanned="2" office:value-type="string"><text:p>span</text:p></table:table-cell><table:covered-table-cell/>{}</table:table-row>"#,
        float("8")
    );
    a += r#"<table:table-row><table:table-cell office:value-type="string"><office:annotation><dc:creator>me</dc:creator><text:p>note</text:p></office:annotation><text:p>with note</text:p><text:p>second paragraph</text:p></table:table-cell></table:table-row>"#;
    a += &format!(
        r#"<table:table-row><table:table-cell><table:table table:name="Inner"><table:table-row>{}</table:table-row><table:table-row>{}</table:table-row></table:table></table:table-cell>{}</table:table-row>"#,
        float("91"),
        float("92"),
        float("9")
    );
    a += &format!(
        r#"<table:table-row table:visibility="collapse">{}</table:table-row>"#,
        string("hidden row")
    );
    for i in 20..30 {
        a += &typed_row(i);
    }
    a += r#"<table:named-expressions><table:named-range table:name="Local" table:base-cell-address="$A.$A$1" table:cell-range-address="$A.$A$1:.$B$2"/></table:named-expressions>"#;
    a += r#"<table:table-row table:number-rows-repeated="1048000"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>"#;
    let mut d = String::new();
    for i in 0..60 {
        d += &format!(
            "<table:table-row>{}</table:table-row>",
            float(&i.to_string())
        );
    }
    let body = format!(
        r#"{}<table:table table:name="B" table:style-name="ta2"><table:table-row>{}</table:table-row></table:table><table:table table:name="C"/>{}<table:named-expressions><table:named-range table:name="Top" table:base-cell-address="$A.$A$1" table:cell-range-address="$A.$A$1:.$B$2"/></table:named-expressions>"#,
        table("A", &a),
        string("in hidden sheet"),
        table("D", &d)
    );
    content(HIDDEN_STYLE, &body)
}

#[test]
fn streamed_equals_loaded_for_every_first_block() {
    let bytes = package(&fixture());
    let want = loaded(&bytes);
    let (sheets, _, rows) = want.as_ref().unwrap();
    assert_eq!(sheets.len(), 4, "{sheets:?}");
    assert!(rows.iter().all(|r| r.is_ok()));
    for block in (1..=300).chain([512, 1000, 4096, 65536]) {
        for piped in [false, true] {
            let got = streamed_with(&bytes, block, piped);
            assert_eq!(got, want, "first block {block}, piped {piped}");
        }
    }
}

#[test]
fn streamed_rows_honour_skip_and_n_rows() {
    let bytes = package(&fixture());
    let full = loaded(&bytes).unwrap().2.remove(0).unwrap();
    let opts = OpenOptions::new().load_cells(false).tune_stream_block(64);
    let wb = Workbook::from_bytes(bytes, &opts).unwrap();
    for (skip, n) in [(0, Some(1)), (3, Some(5)), (10, None), (25, Some(1000))] {
        let got = streamed_rows(
            &wb,
            0,
            RowOptions {
                skip_rows: skip,
                n_rows: n,
            },
        )
        .unwrap();
        let end = n.map_or(u64::MAX, |n| u64::from(skip) + n);
        let want: Rows = full
            .iter()
            .filter(|(r, _)| *r >= skip && u64::from(*r) < end)
            .cloned()
            .collect();
        assert_eq!(got, want, "skip {skip} n {n:?}");
    }
}

/// Bad input: the lazy open lists what it can, and reading the sheet gives
/// the loaded read's error (kind, message, sheet, cell, offset).
#[test]
fn streamed_errors_are_the_loaded_errors() {
    let rows = |extra: &str| {
        let mut r = String::new();
        for i in 0..40 {
            r += &format!(
                "<table:table-row>{}</table:table-row>",
                float(&i.to_string())
            );
        }
        r + extra
    };
    let cases = [
        // A bad number deep in the second sheet.
        format!(
            "{}{}",
            table("A", &rows("")),
            table(
                "B",
                &rows(
                    r#"<table:table-row><table:table-cell office:value-type="float" office:value="x1"/></table:table-row>"#
                )
            )
        ),
        // A repeat bomb.
        table(
            "A",
            &rows(&format!(
                r#"<table:table-row table:number-rows-repeated="1000000"><table:table-cell table:number-columns-repeated="16384" office:value-type="float" office:value="{}"/></table:table-row>"#,
                "1"
            )),
        ),
        // A bad boolean after a row group.
        table(
            "A",
            &format!(
                "<table:table-row-group>{}</table:table-row-group>{}",
                rows(""),
                r#"<table:table-row><table:table-cell office:value-type="boolean" office:boolean-value="maybe"/></table:table-row>"#
            ),
        ),
    ];
    for body in &cases {
        let bytes = package(&content("", body));
        let want = loaded(&bytes).unwrap_err();
        for block in [1, 7, 100, 65536] {
            let opts = OpenOptions::new()
                .load_cells(false)
                .tune_stream_block(block);
            let wb = Workbook::from_bytes(bytes.clone(), &opts).unwrap();
            let errs: Vec<String> = (0..wb.sheets().len())
                .filter_map(|i| streamed_rows(&wb, i, RowOptions::default()).err())
                .map(|e| error_text(&e))
                .collect();
            assert_eq!(errs, vec![want.clone()], "block {block}");
        }
    }
    // Truncated content.xml: the listing pass itself fails, naming the part.
    let text = content("", &table("A", &rows("")));
    let cut = text.len() - 200;
    let e = Workbook::from_bytes(package(&text[..cut]), &OpenOptions::new().load_cells(false))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Malformed, "{e}");
    assert_eq!(e.part(), Some("content.xml"));
    // No content.xml at all.
    let e = Workbook::from_bytes(
        crate::zipkit::Zip { entries: vec![] }
            .push(crate::zipkit::Entry::new(
                "mimetype",
                "application/vnd.oasis.opendocument.spreadsheet",
            ))
            .build(),
        &OpenOptions::new().load_cells(false),
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Malformed, "{e}");
}

/// Every corpus ODS file: the lazy listing and streamed rows equal the
/// loaded read (or both fail).
#[test]
fn ods_corpus_streamed_equals_loaded() {
    let Some((_, paths)) = crate::ods::corpus_ods_files() else {
        return;
    };
    let mut files = 0;
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        match loaded(&bytes) {
            Ok(want) => {
                for block in [61, 65536] {
                    assert_eq!(
                        streamed(&bytes, block).as_ref(),
                        Ok(&want),
                        "{}",
                        path.display()
                    );
                }
            }
            Err(_) => {
                let got = streamed(&bytes, 65536);
                assert!(
                    got.is_err() || got.as_ref().is_ok_and(|s| s.2.iter().any(|r| r.is_err())),
                    "{}: loaded fails, streamed does not",
                    path.display()
                );
            }
        }
        files += 1;
    }
    println!("{files} corpus files streamed");
}

/// `content.xml` with `n` tables of 50 rows each.
fn many_tables(n: usize) -> String {
    let mut body = String::new();
    for t in 0..n {
        let mut rows = String::new();
        for r in 0..50 {
            rows += &format!(
                "<table:table-row>{}{}</table:table-row>",
                float(&(t * 1000 + r).to_string()),
                string(&format!("t{t} r{r}"))
            );
        }
        body += &table(&format!("T{t}"), &rows);
    }
    content("", &body)
}

/// Sheets streamed in order share one pass over `content.xml`: a reader
/// leaves its window for the next sheet. The inflated-bytes budget shows
/// it: the listing pass plus one streaming pass fit, a second pass does not.
#[test]
fn sheets_streamed_in_order_inflate_once() {
    let text = many_tables(12);
    let bytes = package(&text);
    let want = loaded(&bytes).unwrap();
    let limits = ream_sheet::Limits::default().max_inflated_bytes(2 * text.len() as u64 + 4096);
    let opts = OpenOptions::new().load_cells(false).limits(limits);
    let wb = Workbook::from_bytes(bytes, &opts).unwrap();
    for i in 0..12 {
        let rows = streamed_rows(&wb, i, RowOptions::default()).unwrap();
        assert_eq!(Ok(&rows), want.2[i].as_ref(), "sheet {i}");
    }
    let again = streamed_rows(&wb, 0, RowOptions::default()).unwrap_err();
    assert_eq!(again.kind(), ErrorKind::LimitExceeded, "{again}");
}

/// Any order of sheets, whole or cut short, reads what the loaded open has.
#[test]
fn sheets_streamed_in_any_order_agree() {
    let bytes = package(&many_tables(5));
    let want = loaded(&bytes).unwrap();
    let opts = OpenOptions::new().load_cells(false).tune_stream_block(200);
    let wb = Workbook::from_bytes(bytes, &opts).unwrap();
    for (sheet, n) in [
        (3, None),
        (0, Some(2)),
        (2, None),
        (1, Some(1)),
        (1, None),
        (4, Some(7)),
    ] {
        let got = streamed_rows(
            &wb,
            sheet,
            RowOptions {
                skip_rows: 0,
                n_rows: n,
            },
        )
        .unwrap();
        let all = want.2[sheet].as_ref().unwrap();
        let expect: Rows = all
            .iter()
            .filter(|(r, _)| n.is_none_or(|n| u64::from(*r) < n))
            .cloned()
            .collect();
        assert_eq!(got, expect, "sheet {sheet}, n_rows {n:?}");
    }
}

/// A damaged `content.xml` (declared size too short or too long, bad CRC)
/// fails the lazy open with the loaded open's error, inflated on the
/// caller's thread or on the helper thread.
#[test]
fn damaged_part_fails_the_lazy_open_like_the_loaded_one() {
    use crate::zipkit::{Entry, Zip};
    let xml = many_tables(30);
    let len = xml.len() as u64;
    let damaged = |edit: &dyn Fn(&mut Entry)| {
        let mut mime = Entry::new("mimetype", "application/vnd.oasis.opendocument.spreadsheet");
        mime.stored = true;
        let mut content = Entry::new("content.xml", xml.as_str());
        edit(&mut content);
        Zip { entries: vec![] }.push(mime).push(content).build()
    };
    type Edit<'a> = &'a dyn Fn(&mut Entry);
    let cases: [(&str, Edit<'_>); 3] = [
        ("short", &|e| e.size = Some(len - 100)),
        ("long", &|e| e.size = Some(len + 100)),
        ("crc", &|e| e.crc = Some(0x1234_5678)),
    ];
    for (what, edit) in cases {
        let bytes = damaged(edit);
        let serial =
            Workbook::from_bytes(bytes.clone(), &OpenOptions::new().parallel(false)).unwrap_err();
        for piped in [false, true] {
            let e = streamed_with(&bytes, 4096, piped).unwrap_err();
            assert_eq!(e, error_text(&serial), "{what}, piped {piped}");
        }
    }
}

/// `sheets_needed(n)`: the listing stops at the start of table `n - 1`,
/// so the first rows of the first sheet cost a few blocks of inflating;
/// the listed sheets stream what the loaded open has, on one thread and
/// on two; a hint past the last table lists everything.
#[test]
fn sheets_needed_stops_the_listing_early() {
    let text = many_tables(200);
    let bytes = package(&text);
    let want = loaded(&bytes).unwrap();
    for threads in [1, 2] {
        for n in [1, 3] {
            let opts = OpenOptions::new()
                .load_cells(false)
                .threads(threads)
                .tune_stream_block(4096)
                .sheets_needed(n);
            let wb = Workbook::from_bytes(bytes.clone(), &opts).unwrap();
            assert_eq!(wb.sheets().len(), n, "threads {threads}");
            assert!(
                wb.stats().inflated_bytes < text.len() as u64 / 4,
                "threads {threads}, n {n}: inflated {} of {}",
                wb.stats().inflated_bytes,
                text.len()
            );
            for i in 0..n {
                let s = &wb.sheets()[i];
                assert_eq!(format!("{} {:?}", s.name(), s.visibility()), want.0[i]);
                let head = streamed_rows(
                    &wb,
                    i,
                    RowOptions {
                        skip_rows: 0,
                        n_rows: Some(10),
                    },
                )
                .unwrap();
                let all = want.2[i].as_ref().unwrap();
                assert_eq!(head, all[..10].to_vec(), "threads {threads}, sheet {i}");
                let rows = streamed_rows(&wb, i, RowOptions::default()).unwrap();
                assert_eq!(&rows, all, "threads {threads}, sheet {i}");
            }
        }
    }
    let opts = OpenOptions::new().load_cells(false).sheets_needed(500);
    let wb = Workbook::from_bytes(bytes, &opts).unwrap();
    assert_eq!(wb.sheets().len(), 200);
}

/// A sheet wanted by name stops the listing at its start (the first of
/// that exact name, or the `sheets_needed` count if that comes first);
/// its rows stream alike, and an unknown or differently cased name lists
/// every sheet.
#[test]
fn sheet_needed_named_stops_the_listing_at_that_sheet() {
    let text = many_tables(200);
    let bytes = package(&text);
    let want = loaded(&bytes).unwrap();
    for threads in [1, 2] {
        for (name, count, listed) in [
            ("T0", None, 1),
            ("T7", None, 8),
            ("T7", Some(3), 3),
            ("T7", Some(20), 8),
            ("t7", None, 200),
            ("nope", None, 200),
        ] {
            let mut opts = OpenOptions::new()
                .load_cells(false)
                .threads(threads)
                .tune_stream_block(4096)
                .sheet_needed_named(name);
            if let Some(n) = count {
                opts = opts.sheets_needed(n);
            }
            let ctx = format!("threads {threads}, {name} {count:?}");
            let wb = Workbook::from_bytes(bytes.clone(), &opts).unwrap();
            assert_eq!(wb.sheets().len(), listed, "{ctx}");
            if listed < 200 {
                assert!(wb.stats().inflated_bytes < text.len() as u64 / 4, "{ctx}");
            }
            let last = listed - 1;
            let s = &wb.sheets()[last];
            assert_eq!(format!("{} {:?}", s.name(), s.visibility()), want.0[last]);
            let rows = streamed_rows(&wb, last, RowOptions::default()).unwrap();
            assert_eq!(&rows, want.2[last].as_ref().unwrap(), "{ctx}");
        }
    }
}

/// A `<` inside an attribute value is not XML, and the two reads may see
/// it differently (fuzz finding 17): the loaded walk reads the value
/// leniently, the listing pass skips the row to the `</table:table-row>`
/// inside the value and meets the cell's end tag at table level. Neither
/// may fail badly: the loaded open succeeds, the lazy open (listing) or
/// its stream reports a malformed end tag with its byte offset.
#[test]
fn a_lt_inside_an_attribute_value_fails_the_listing_cleanly() {
    let rows = format!(
        r#"<table:table-row>{}</table:table-row><table:table-row><table:table-cell office:value-type="float</table:table-row>"><text:p>-1</text:p></table:table-cell></table:table-row>"#,
        float("1")
    );
    let bytes = package(&content("", &table("A", &rows)));
    let whole = loaded(&bytes).expect("the loaded open reads the value leniently");
    assert_eq!(whole.0, vec!["A Visible".to_string()]);
    for piped in [false, true] {
        let got = streamed_with(&bytes, 61, piped);
        let message = match got {
            Err(e) => e,
            Ok((_, _, rows)) => rows
                .into_iter()
                .find_map(Result::err)
                .expect("the listing or the stream reports the stray end tag"),
        };
        assert!(
            message.starts_with("Malformed mismatched end tag") && message.contains("offset=Some("),
            "{message}"
        );
    }
}
