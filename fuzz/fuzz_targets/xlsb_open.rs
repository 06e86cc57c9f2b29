//! Whole XLSB open from bytes (the ZIP package, then the BIFF12 parts):
//! every cell visited, the serial and multi-threaded opens compared.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(msg) = ream_fuzz::check_workbook(data) {
        panic!("{msg}");
    }
});
