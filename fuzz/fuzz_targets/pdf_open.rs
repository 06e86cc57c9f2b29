//! Whole PDF open from bytes (lenient and strict), then the page walk, page
//! count, Info, XMP, every object and stream, and the object index.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ream_fuzz::visit_pdf(data);
});
