//! Times one-shot (libdeflate) against streaming (zlib-rs) inflate of the
//! largest entry of a ZIP: `cargo run --release -p ream-zip --example
//! inflate_speed -- FILE.xlsx`.

use ream_zip::{Archive, Bytes, Limits, MapMode};
use std::io::Read;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: inflate_speed FILE")?;
    let archive = Archive::new(Bytes::open(&path, MapMode::Map)?, Limits::default())?;
    let entry = archive
        .entries()
        .iter()
        .max_by_key(|e| e.uncompressed_size)
        .ok_or("empty archive")?
        .clone();
    let mb = entry.uncompressed_size as f64 / 1e6;
    let t = Instant::now();
    let one = archive.read(&entry)?;
    let s1 = t.elapsed().as_secs_f64();
    drop(one);
    let t = Instant::now();
    let mut r = archive.stream(&entry)?;
    let mut buf = vec![0u8; 4 << 20];
    let mut n = 0usize;
    loop {
        let k = r.read(&mut buf)?;
        if k == 0 {
            break;
        }
        n += k;
    }
    let s2 = t.elapsed().as_secs_f64();
    println!(
        "{}: {mb:.0} MB; one-shot {s1:.3} s ({:.0} MB/s); streaming {s2:.3} s ({:.0} MB/s), {n} bytes",
        entry.name,
        mb / s1,
        mb / s2
    );
    Ok(())
}
