//! A formula without a cached value (openpyxl writes `<f>A1*2</f><v></v>`)
//! is a cell: `Value::Empty` with its formula text, on every read path
//! (slice, mapped file, file read into memory, serial, parallel, chunked,
//! streamed rows) and for ODS. A cell with neither value nor formula is
//! not stored.

use crate::ods::{content, package as ods_package, table};
use crate::zipkit::{minimal, sheet};
use ream_sheet::{CellRange, MapMode, OpenOptions, Value, Workbook};
use std::path::{Path, PathBuf};

/// Every cell of every sheet as `sheet!row:col=value formula`, and each
/// sheet's bounds.
fn dump(wb: &Workbook) -> Vec<String> {
    let mut out = Vec::new();
    for s in wb.sheets() {
        out.push(format!("{} bounds {:?}", s.name(), s.bounds()));
        for c in s.cells() {
            out.push(format!(
                "{}!{}:{}={:?} {:?}",
                s.name(),
                c.row,
                c.col,
                c.value,
                c.formula
            ));
        }
    }
    out
}

/// The cells of every sheet streamed row by row (phase A only, first
/// block of `block` bytes), in the form of [`dump`] without the bounds.
fn streamed(bytes: &[u8], block: usize) -> Vec<String> {
    let opts = OpenOptions::new()
        .load_cells(false)
        .tune_stream_block(block);
    let wb = Workbook::from_bytes(bytes.to_vec(), &opts).unwrap();
    let mut out = Vec::new();
    for (i, s) in wb.sheets().iter().enumerate() {
        let mut rows = wb.rows(i).unwrap();
        while let Some(row) = rows.next_row().unwrap() {
            for c in row.cells() {
                out.push(format!(
                    "{}!{}:{}={:?} {:?}",
                    s.name(),
                    c.row,
                    c.col,
                    c.value,
                    c.formula
                ));
            }
        }
    }
    out
}

/// [`dump`] without the bounds lines (what a stream yields).
fn cells_only(dumped: &[String]) -> Vec<String> {
    dumped
        .iter()
        .filter(|l| !l.contains(" bounds "))
        .cloned()
        .collect()
}

/// Opens `bytes` (also written to `path`) every way and checks that each
/// gives the serial result, which is returned.
fn every_path(bytes: &[u8], path: &Path, chunk_bytes: usize) -> Vec<String> {
    std::fs::write(path, bytes).unwrap();
    let serial =
        dump(&Workbook::from_bytes(bytes.to_vec(), &OpenOptions::new().parallel(false)).unwrap());
    for parallel in [false, true] {
        for threads in [1, 4] {
            let opts = OpenOptions::new().parallel(parallel).threads(threads);
            let chunked = opts.clone().tune_chunk_bytes(chunk_bytes);
            for o in [opts, chunked] {
                let what = format!("{o:?}");
                let slice = Workbook::from_bytes(bytes.to_vec(), &o).unwrap();
                assert_eq!(dump(&slice), serial, "slice {what}");
                let mapped = Workbook::open(path, &o).unwrap();
                assert_eq!(dump(&mapped), serial, "mmap {what}");
                let read = o.map_mode(MapMode::Read);
                assert_eq!(
                    dump(&Workbook::open(path, &read).unwrap()),
                    serial,
                    "read {what}"
                );
            }
        }
    }
    for block in [1, 7, 100, 1 << 10, 64 << 10] {
        assert_eq!(
            streamed(bytes, block),
            cells_only(&serial),
            "stream block {block}"
        );
    }
    std::fs::remove_file(path).unwrap();
    serial
}

fn temp_file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ream-sheet-formula-cells-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn corpus_file(rel: &str) -> Option<PathBuf> {
    let corpus = std::env::var_os("REAM_CORPUS").map(PathBuf::from);
    let corpus = corpus
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    let path = corpus.join(rel);
    path.is_file().then_some(path)
}

#[test]
fn openpyxl_formulas_without_values_exist_on_every_path() {
    let Some(path) = corpus_file("written/openpyxl/openpyxl_mixed.xlsx") else {
        eprintln!("formula_cells: corpus not found (set REAM_CORPUS); skipped");
        return;
    };
    let bytes = std::fs::read(path).unwrap();
    let cells = every_path(&bytes, &temp_file("openpyxl_mixed.xlsx"), 1 << 10);
    let formulas: Vec<&String> = cells.iter().filter(|c| c.starts_with("Formulas")).collect();
    assert_eq!(formulas.len(), 1 + 40, "{formulas:?}");
    assert!(formulas[0].ends_with(&format!("{:?}", Some(CellRange::parse("A1:B20").unwrap()))));
    for r in 0..20 {
        let want = format!("Formulas!{r}:1=Empty Some(\"A{}*2\")", r + 1);
        assert!(formulas.contains(&&want), "{want}");
    }
    let wb = Workbook::from_bytes(bytes, &OpenOptions::new()).unwrap();
    let s = wb.sheets().iter().find(|s| s.name() == "Formulas").unwrap();
    let b1 = s.get(0, 1).unwrap();
    assert_eq!((b1.value, b1.formula), (Value::Empty, Some("A1*2")));
}

/// Every shape a formula without a value takes, in a sheet big enough to
/// be cut into chunks: openpyxl's `<v></v>`, no `<v>`, `<v/>`, an array
/// formula, shared-formula children without a value (their master in an
/// earlier chunk, expanded at the join), a child whose master never comes
/// (not stored), a `t="str"` formula with an empty result, and cells with
/// neither value nor formula (not stored).
#[test]
fn every_shape_on_every_path() {
    let mut rows = String::from(
        r#"<row r="1"><c r="A1"><v>1</v></c><c r="B1"><f t="shared" ref="B1:B400" si="0">A1*2</f></c><c r="C1" s="3"/><c r="D1"><v></v></c></row>"#,
    );
    for r in 2..=400 {
        let shape = match r % 6 {
            0 => format!(r#"<c r="C{r}"><f>A{r}+1</f><v></v></c>"#),
            1 => format!(r#"<c r="C{r}" s="2"><f>A{r}+1</f></c>"#),
            2 => format!(r#"<c r="C{r}"><f>A{r}+1</f><v/></c>"#),
            3 => format!(r#"<c r="C{r}"><f t="array" ref="C{r}">SUM(A1:A{r})</f></c>"#),
            4 => format!(r#"<c r="C{r}" t="str"><f>""&amp;A{r}</f><v></v></c>"#),
            _ => format!(r#"<c r="C{r}"><f t="shared" si="7"/></c><c r="D{r}" s="1"/>"#),
        };
        rows.push_str(&format!(
            r#"<row r="{r}"><c r="A{r}"><v>{r}</v></c><c r="B{r}"><f t="shared" si="0"/></c>{shape}</row>"#
        ));
    }
    let bytes = minimal(&sheet(&rows));
    let cells = every_path(&bytes, &temp_file("shapes.xlsx"), 1 << 10);
    let has = |c: &str| cells.iter().any(|l| l == &format!("Sheet1!{c}"));
    assert!(
        cells[0].contains("first_col: 0") && cells[0].contains("last_col: 2"),
        "{}",
        cells[0]
    );
    assert!(has("0:1=Empty Some(\"A1*2\")"));
    assert!(has("399:1=Empty Some(\"A400*2\")"));
    assert!(has("5:2=Empty Some(\"A6+1\")"));
    assert!(has("6:2=Empty Some(\"A7+1\")"));
    assert!(has("7:2=Empty Some(\"A8+1\")"));
    assert!(has("8:2=Empty Some(\"SUM(A1:A9)\")"));
    assert!(has("9:2=Empty Some(\"\\\"\\\"&A10\")"));
    // Neither value nor formula, or a shared child without its master.
    assert!(
        !cells
            .iter()
            .any(|l| l.contains("!0:2=") || l.contains(":3="))
    );
    assert!(!has("4:2=Empty None") && !cells.iter().any(|l| l.contains("!4:2=")));
    assert_eq!(cells.len(), 1 + 400 * 2 + 399 - 66);
    // The sheet is chunked (and joined without falling back).
    let opts = OpenOptions::new().threads(2).tune_chunk_bytes(1 << 10);
    let wb = Workbook::from_bytes(bytes, &opts).unwrap();
    let st = wb.stats();
    assert!(st.chunks > 1 && st.chunk_fallbacks == 0, "{st:?}");
}

/// A cell element with neither a value nor a formula stays absent,
/// whatever else it holds; with only an empty formula element too.
#[test]
fn no_value_and_no_formula_is_no_cell() {
    let rows = r#"<row r="1"><c r="A1" s="3"/><c r="B1"><v></v></c><c r="C1"><f></f></c><c r="D1"><f/><v/></c><c r="E1"><f t="shared" si="3"/></c><c r="F1" t="s"><v></v></c></row>"#;
    let wb = Workbook::from_bytes(minimal(&sheet(rows)), &OpenOptions::new()).unwrap();
    assert_eq!(wb.sheets()[0].cell_count(), 0);
    assert_eq!(wb.sheets()[0].bounds(), None);
}

/// ODS: a `table:formula` cell without an office value is the same empty
/// cell with its formula, loaded or streamed; without a formula it is not
/// stored.
#[test]
fn ods_formula_without_a_value() {
    let rows = r#"<table:table-row><table:table-cell office:value-type="float" office:value="2"><text:p>2</text:p></table:table-cell><table:table-cell table:formula="of:=[.A1]*2"/><table:table-cell table:formula="of:=[.A1]&amp;&quot;x&quot;" office:value-type="string"><text:p/></table:table-cell><table:table-cell table:formula="of:="/><table:table-cell/></table:table-row><table:table-row table:number-rows-repeated="2"><table:table-cell table:number-columns-repeated="2" table:formula="of:=1/0"/></table:table-row>"#;
    let bytes = ods_package(&content("", &table("S", rows)));
    let want = [
        "S bounds Some(CellRange { first_row: 0, first_col: 0, last_row: 2, last_col: 2 })",
        "S!0:0=Number(2.0) None",
        "S!0:1=Empty Some(\"[.A1]*2\")",
        "S!0:2=Empty Some(\"[.A1]&\\\"x\\\"\")",
        "S!1:0=Empty Some(\"1/0\")",
        "S!1:1=Empty Some(\"1/0\")",
        "S!2:0=Empty Some(\"1/0\")",
        "S!2:1=Empty Some(\"1/0\")",
    ];
    for threads in [1, 2, 4] {
        let opts = OpenOptions::new().threads(threads);
        let wb = Workbook::from_bytes(bytes.clone(), &opts).unwrap();
        assert_eq!(dump(&wb), want, "threads {threads}");
    }
    for block in [1, 50, 64 << 10] {
        assert_eq!(streamed(&bytes, block), cells_only(&want.map(String::from)));
    }
}
