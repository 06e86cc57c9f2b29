//! PDF cross-reference readers: `startxref`, classic tables, xref streams
//! (with their filters), the `/Prev` chain from `startxref` and from offset
//! 0, and the repair scan.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ream_pdf::fuzz_api::fuzz_xref(data);
});
