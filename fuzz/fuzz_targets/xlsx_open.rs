//! Whole XLSX open from bytes, every cell visited, rows streamed. An input
//! that starts with `--part NAME` is first turned into a stored ZIP of
//! those parts (with correct CRCs), so the XML of every part is mutated,
//! not only the container; other inputs are opened as they are.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let result = match ream_fuzz::parts_to_zip(data) {
        Some(zip) => ream_fuzz::check_workbook(&zip),
        None => ream_fuzz::check_workbook(data),
    };
    if let Err(msg) = result {
        panic!("{msg}");
    }
});
