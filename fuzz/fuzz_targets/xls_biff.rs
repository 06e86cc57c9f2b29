//! A bare BIFF workbook stream (no CFB container), so mutations reach the
//! records (globals, shared strings with CONTINUE, BOUNDSHEET offsets,
//! cell records) instead of the container. An input that does not start
//! with a BIFF8 BOF gets one in front.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// A BIFF8 workbook-globals BOF record.
const BOF: &[u8] = b"\x09\x08\x10\x00\x00\x06\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00";

fuzz_target!(|data: &[u8]| {
    let input = if data.starts_with(b"\x09\x08") {
        data.to_vec()
    } else {
        [BOF, data].concat()
    };
    if let Err(msg) = ream_fuzz::check_workbook(&input) {
        panic!("{msg}");
    }
});
