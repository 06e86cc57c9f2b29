//! ODS `content.xml` on raw bytes, wrapped into a minimal ODS package
//! (`mimetype` + `content.xml`), opened serially and on two threads, every
//! cell visited and every row streamed (in 61-byte first blocks); the
//! streamed read must succeed and list the same sheets wherever the loaded
//! read succeeds on well-formed XML.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let ods = ream_fuzz::ods_around_content(data);
    if let Err(msg) = ream_fuzz::check_workbook(&ods) {
        panic!("{msg}");
    }
    if let Err(msg) = ream_fuzz::check_ods_stream(&ods, data) {
        panic!("{msg}");
    }
});
