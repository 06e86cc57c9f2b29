//! Streaming rows agree with the whole-workbook path.

use crate::fixtures::typed_workbook;
use ream_sheet::{OpenOptions, OwnedCell, RowOptions, Workbook};
use rust_xlsxwriter::{Formula, Workbook as XWorkbook};

/// A sheet big enough to span many streaming blocks, with shared-string,
/// inline-formula and number cells.
fn big_workbook(rows: u32) -> Vec<u8> {
    let mut wb = XWorkbook::new();
    let ws = wb.add_worksheet();
    for r in 0..rows {
        ws.write_number(r, 0, f64::from(r) * 1.5).unwrap();
        ws.write_string(r, 1, format!("text {}", r % 97)).unwrap();
        if r % 7 != 0 {
            ws.write_formula(r, 2, Formula::new(format!("=A{}*2", r + 1)).set_result("1"))
                .unwrap();
        }
        if r % 11 == 0 {
            ws.write_boolean(r, 5, r % 2 == 0).unwrap();
        }
    }
    wb.add_worksheet().write_string(3, 3, "second").unwrap();
    wb.save_to_buffer().unwrap()
}

fn loaded_rows(wb: &Workbook, sheet: usize) -> Vec<(u32, Vec<OwnedCell>)> {
    let mut out: Vec<(u32, Vec<OwnedCell>)> = Vec::new();
    for c in wb.sheet(sheet).unwrap().cells() {
        match out.last_mut() {
            Some((r, cells)) if *r == c.row => cells.push(OwnedCell::from(&c)),
            _ => out.push((c.row, vec![OwnedCell::from(&c)])),
        }
    }
    out
}

fn streamed_rows(wb: &Workbook, sheet: usize, opts: RowOptions) -> Vec<(u32, Vec<OwnedCell>)> {
    wb.rows_with(sheet, opts)
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            (r.index, r.cells)
        })
        .collect()
}

#[test]
fn streaming_equals_loaded_cells() {
    for bytes in [typed_workbook(), big_workbook(20_000)] {
        let wb = Workbook::from_bytes(bytes.clone(), &OpenOptions::new()).unwrap();
        let lazy = Workbook::from_bytes(bytes, &OpenOptions::new().load_cells(false)).unwrap();
        for i in 0..wb.sheets().len() {
            let want = loaded_rows(&wb, i);
            assert!(!want.is_empty());
            assert_eq!(streamed_rows(&wb, i, RowOptions::default()), want);
            assert_eq!(streamed_rows(&lazy, i, RowOptions::default()), want);
            assert!(!lazy.sheet(i).unwrap().is_loaded());
            assert_eq!(lazy.sheet(i).unwrap().cell_count(), 0);
        }
    }
}

#[test]
fn lending_reader_reuses_buffers() {
    let wb =
        Workbook::from_bytes(big_workbook(5_000), &OpenOptions::new().load_cells(false)).unwrap();
    let mut rows = wb.rows(0).unwrap();
    let mut n = 0;
    let mut last = None;
    while let Some(row) = rows.next_row().unwrap() {
        assert!(last.is_none_or(|l| l < row.index()));
        last = Some(row.index());
        assert!(row.len() >= 2);
        n += 1;
    }
    assert_eq!(n, 5_000);
}

#[test]
fn row_window_stops_early() {
    let bytes = big_workbook(20_000);
    let wb = Workbook::from_bytes(bytes, &OpenOptions::new().load_cells(false)).unwrap();
    let all = streamed_rows(&wb, 0, RowOptions::default());
    let window = streamed_rows(
        &wb,
        0,
        RowOptions {
            skip_rows: 100,
            n_rows: Some(10),
        },
    );
    assert_eq!(window, all[100..110].to_vec());
    let head = streamed_rows(
        &wb,
        0,
        RowOptions {
            skip_rows: 0,
            n_rows: Some(3),
        },
    );
    assert_eq!(head, all[..3].to_vec());
    let past_end = streamed_rows(
        &wb,
        0,
        RowOptions {
            skip_rows: 50_000,
            n_rows: None,
        },
    );
    assert!(past_end.is_empty());
}

#[test]
fn streaming_reports_errors_with_the_sheet() {
    // A cell with a garbage number in the middle of a big sheet.
    let mut xml = String::from("<worksheet><sheetData>");
    for r in 1..=30_000 {
        xml.push_str(&format!(
            "<row r=\"{r}\"><c r=\"A{r}\"><v>{r}</v></c></row>"
        ));
    }
    xml.push_str("<row r=\"30001\"><c r=\"B30001\"><v>oops</v></c></row></sheetData></worksheet>");
    let bytes = crate::zipkit::minimal(&xml);
    let wb = Workbook::from_bytes(bytes, &OpenOptions::new().load_cells(false)).unwrap();
    let mut rows = wb.rows(0).unwrap();
    let mut seen = 0;
    let err = loop {
        match rows.next_row() {
            Ok(Some(_)) => seen += 1,
            Ok(None) => panic!("no error"),
            Err(e) => break e,
        }
    };
    assert!(seen <= 30_000);
    assert_eq!(err.cell(), Some((30_000, 1)), "{err}");
    assert_eq!(err.sheet(), Some("Sheet1"), "{err}");
}

/// Any first block size gives the same rows (`stream_block` only trades
/// early-stop cost against block overhead).
#[test]
fn streaming_equals_loaded_for_every_first_block() {
    let bytes = typed_workbook();
    let wb = Workbook::from_bytes(bytes.clone(), &OpenOptions::new()).unwrap();
    for block in (1..=200).chain([1000, 4096]) {
        let opts = OpenOptions::new()
            .load_cells(false)
            .tune_stream_block(block);
        let lazy = Workbook::from_bytes(bytes.clone(), &opts).unwrap();
        for i in 0..wb.sheets().len() {
            let want = loaded_rows(&wb, i);
            assert_eq!(
                streamed_rows(&lazy, i, RowOptions::default()),
                want,
                "sheet {i}, first block {block}"
            );
        }
    }
}

/// Rows of sheet 0 streamed from a lazy open with `threads` (2 allows the
/// helper-thread inflate for parts of 1 MiB and more) and first block
/// `block`, or the first error as "kind message sheet cell".
fn streamed_on(
    bytes: &[u8],
    threads: usize,
    block: usize,
) -> Result<Vec<(u32, Vec<OwnedCell>)>, String> {
    let opts = OpenOptions::new()
        .load_cells(false)
        .threads(threads)
        .tune_stream_block(block);
    let text = |e: ream_sheet::Error| {
        format!(
            "{:?} {} {:?} {:?}",
            e.kind(),
            e.message(),
            e.sheet(),
            e.cell()
        )
    };
    let wb = Workbook::from_bytes(bytes.to_vec(), &opts).map_err(text)?;
    let mut out = Vec::new();
    for r in wb.rows(0).map_err(text)? {
        let r = r.map_err(text)?;
        out.push((r.index, r.cells));
    }
    Ok(out)
}

/// A part over 1 MiB streams the same rows whether it is inflated on the
/// caller's thread or ahead on a helper thread, for small and large first
/// blocks, and the same rows as the loaded open on 1 to 8 threads (row
/// chunks of 64 KiB).
#[test]
fn helper_thread_inflate_gives_the_same_rows() {
    let bytes = big_workbook(30_000);
    let wb = Workbook::from_bytes(bytes.clone(), &OpenOptions::new().threads(1)).unwrap();
    let want = loaded_rows(&wb, 0);
    for threads in 2..=8 {
        let opts = OpenOptions::new()
            .threads(threads)
            .tune_chunk_bytes(64 << 10);
        let loaded = Workbook::from_bytes(bytes.clone(), &opts).unwrap();
        assert_eq!(loaded_rows(&loaded, 0), want, "loaded on {threads} threads");
    }
    for block in [1, 777, 64 << 10, 4 << 20] {
        for threads in [1, 2] {
            assert_eq!(
                streamed_on(&bytes, threads, block).unwrap(),
                want,
                "threads {threads}, block {block}"
            );
        }
    }
}

/// A bad cell, a damaged deflate stream, a wrong declared size or CRC:
/// the same error whether the part is inflated on the caller's thread or
/// on the helper thread, and the loaded open refuses the part too.
#[test]
fn helper_thread_inflate_gives_the_same_errors() {
    use crate::zipkit::{SHEET, Zip, deflate};
    let mut xml = String::from("<worksheet><sheetData>");
    for r in 1..=40_000 {
        xml.push_str(&format!(
            "<row r=\"{r}\"><c r=\"A{r}\"><v>{r}</v></c></row>"
        ));
    }
    let good_end = "</sheetData></worksheet>";
    let bad_cell = format!("{xml}<row r=\"40001\"><c r=\"B40001\"><v>oops</v></c></row>{good_end}");
    xml.push_str(good_end);
    assert!(xml.len() > 1 << 20);
    let len = xml.len() as u64;
    let mut broken_stream = deflate(xml.as_bytes());
    let mid = broken_stream.len() / 2;
    broken_stream.truncate(mid);
    type Edit = Box<dyn Fn(&mut crate::zipkit::Entry)>;
    let cases: Vec<(&str, String, Edit)> = vec![
        ("bad cell", bad_cell, Box::new(|_| {})),
        (
            "short",
            xml.clone(),
            Box::new(move |e| e.size = Some(len - 100)),
        ),
        (
            "long",
            xml.clone(),
            Box::new(move |e| e.size = Some(len + 100)),
        ),
        ("crc", xml.clone(), Box::new(|e| e.crc = Some(0x1234_5678))),
        (
            "truncated stream",
            xml.clone(),
            Box::new(move |e| e.raw = Some(broken_stream.clone())),
        ),
    ];
    for (what, sheet, edit) in cases {
        let bytes = Zip::minimal(&sheet, None).with(SHEET, |e| edit(e)).build();
        assert!(
            Workbook::from_bytes(bytes.clone(), &OpenOptions::new().threads(1)).is_err(),
            "{what}: the loaded open accepted it"
        );
        let serial = streamed_on(&bytes, 1, 4096).unwrap_err();
        let piped = streamed_on(&bytes, 2, 4096).unwrap_err();
        assert_eq!(piped, serial, "{what}");
        assert!(serial.contains("Sheet1"), "{what}: {serial}");
    }
}
