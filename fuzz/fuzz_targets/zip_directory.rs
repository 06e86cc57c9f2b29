//! ZIP container: the end-of-central-directory search (Zip64 included),
//! the central directory and local headers, name lookup, and reading every
//! entry both in one shot and streamed, under the default limits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ream_zip::{Archive, Bytes, Limits};
use std::io::Read;

fuzz_target!(|data: &[u8]| {
    let _ = ream_zip::sniff(data);
    let Ok(archive) = Archive::new(Bytes::from_vec(data.to_vec()), Limits::default()) else {
        return;
    };
    let _ = archive.duplicate_names().len();
    for e in archive.entries().iter().take(ream_fuzz::VISIT_CAP) {
        let _ = (e.is_dir(), archive.find(&e.name));
        let _ = archive.raw_data(e);
        let one_shot = archive.read(e);
        if let Ok(mut r) = archive.stream(e) {
            let mut streamed = Vec::new();
            let whole = r.read_to_end(&mut streamed);
            // Both paths check size and CRC: when both succeed they agree.
            if let (Ok(a), Ok(_)) = (&one_shot, whole) {
                assert!(
                    *a == streamed,
                    "one-shot and streamed reads of {:?} differ",
                    e.name
                );
            }
        }
    }
});
