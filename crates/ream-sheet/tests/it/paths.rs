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
        for threads in [0, 1, 2, 4] {
            let opts = OpenOptions::new().parallel(parallel).threads(threads);
            assert_eq!(
                dump(&Workbook::from_bytes(bytes.clone(), &opts).unwrap()),
                reference
            );
            assert_eq!(dump(&Workbook::open(&path, &opts).unwrap()), reference);
            let read = OpenOptions {
                map_mode: ream_sheet::MapMode::Read,
                ..opts
            };
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
