//! Every read path gives identical cells.

use crate::fixtures::typed_workbook;
use ream_sheet::{OpenOptions, Workbook};

fn dump(wb: &Workbook) -> Vec<String> {
    let mut out = Vec::new();
    for s in wb.sheets() {
        for c in s.cells() {
            out.push(format!(
                "{}!{}:{}={:?} f={:?}",
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

#[test]
fn parallel_serial_threads_file_and_bytes_agree() {
    let bytes = typed_workbook();
    let dir = std::env::temp_dir().join(format!("ream-sheet-paths-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("typed.xlsx");
    std::fs::write(&path, &bytes).unwrap();
    let reference =
        dump(&Workbook::from_bytes(bytes.clone(), &OpenOptions::new().parallel(false)).unwrap());
    assert!(!reference.is_empty());
    for parallel in [false, true] {
        for threads in 0..=8 {
            let opts = OpenOptions::new().parallel(parallel).threads(threads);
            assert_eq!(
                dump(&Workbook::from_bytes(bytes.clone(), &opts).unwrap()),
                reference
            );
            assert_eq!(dump(&Workbook::open(&path, &opts).unwrap()), reference);
            let read = opts.map_mode(ream_sheet::MapMode::Read);
            assert_eq!(dump(&Workbook::open(&path, &read).unwrap()), reference);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cells_split_concatenates_to_cells() {
    let wb = Workbook::from_bytes(typed_workbook(), &OpenOptions::new()).unwrap();
    for s in wb.sheets() {
        let all: Vec<_> = s.cells().collect();
        for parts in [0, 1, 2, 3, 7, 1000] {
            let joined: Vec<_> = s.cells_split(parts).into_iter().flatten().collect();
            assert_eq!(joined, all, "{} parts", parts);
            assert!(s.cells_split(parts).len() <= parts.max(1));
        }
    }
}

#[test]
fn cells_in_rows_are_whole_rows_of_the_window() {
    let wb = Workbook::from_bytes(typed_workbook(), &OpenOptions::new()).unwrap();
    for s in wb.sheets() {
        let all: Vec<_> = s.cells().collect();
        for (first, end) in [(0, u64::MAX), (1, 3), (2, 2), (0, 1), (5, u64::MAX)] {
            let want: Vec<_> = all
                .iter()
                .filter(|c| c.row >= first && u64::from(c.row) < end)
                .cloned()
                .collect();
            for parts in [0, 1, 2, 3, 1000] {
                let runs = s.cells_in_rows(first, end, parts);
                assert!(runs.len() <= parts.max(1));
                let rows: Vec<Vec<u32>> = runs
                    .iter()
                    .map(|r| r.clone().map(|c| c.row).collect())
                    .collect();
                for pair in rows.windows(2) {
                    assert!(pair[0].last() < pair[1].first(), "a row split across runs");
                }
                let joined: Vec<_> = runs.into_iter().flatten().collect();
                assert_eq!(joined, want, "rows {first}..{end}, {parts} parts");
            }
        }
    }
}

#[test]
fn cells_of_loads_one_sheet_and_streams_the_others() {
    use ream_sheet::SheetPick;
    let bytes = typed_workbook();
    let full = Workbook::from_bytes(bytes.clone(), &OpenOptions::new()).unwrap();
    assert!(full.sheets().len() >= 2, "the fixture needs two sheets");
    let second = full.sheets()[1].name().to_string();
    for pick in [SheetPick::Index(1), SheetPick::Name(second.to_uppercase())] {
        let wb = Workbook::from_bytes(bytes.clone(), &OpenOptions::new().cells_of(pick)).unwrap();
        let loaded: Vec<bool> = wb.sheets().iter().map(|s| s.is_loaded()).collect();
        assert!(loaded[1] && !loaded[0], "{loaded:?}");
        let want: Vec<_> = full.sheets()[1].cells().collect();
        assert_eq!(wb.sheets()[1].cells().collect::<Vec<_>>(), want);
        // The sheet not loaded still streams.
        let mut rows = wb.rows(0).unwrap();
        let mut n = 0;
        while let Some(r) = rows.next_row().unwrap() {
            n += r.cells().count();
        }
        assert_eq!(n, full.sheets()[0].cell_count());
    }
    let none =
        Workbook::from_bytes(bytes, &OpenOptions::new().cells_of(SheetPick::Index(99))).unwrap();
    assert!(none.sheets().iter().all(|s| !s.is_loaded()));
}
