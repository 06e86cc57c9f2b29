//! PDF lexer and object parser on raw bytes: every token, a sequence of
//! direct objects, and one `N G obj ... endobj`, for the bytes taken as the
//! end of the file and as a prefix of more data.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(msg) = ream_pdf::fuzz_api::fuzz_lexer(data) {
        panic!("{msg}");
    }
});
