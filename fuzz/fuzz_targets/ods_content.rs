//! ODS `content.xml` on raw bytes, wrapped into a minimal ODS package
//! (`mimetype` + `content.xml`), opened serially and on two threads, every
//! cell visited and every row streamed.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let ods = ream_fuzz::ods_around_content(data);
    if let Err(msg) = ream_fuzz::check_workbook(&ods) {
        panic!("{msg}");
    }
});
