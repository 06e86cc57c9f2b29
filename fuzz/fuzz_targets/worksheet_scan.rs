//! The worksheet scanner on raw bytes: the input is one worksheet XML part,
//! wrapped into a valid XLSX (shared strings and date styles included), and
//! opened whole, in 1 KiB chunks on two threads, and streamed row by row.
//! The three must read the same cells whenever they succeed.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let xlsx = ream_fuzz::xlsx_around_sheet(data);
    if let Err(msg) = ream_fuzz::check_workbook(&xlsx) {
        panic!("{msg}");
    }
});
