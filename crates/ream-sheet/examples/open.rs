//! Opens a workbook with 1 and N threads and prints timings:
//! `cargo run --release -p ream-sheet --example open -- FILE [RUNS]`.
//! `CHUNK=BYTES` in the environment sets `OpenOptions::tune_chunk_bytes`
//! (e.g. a large value reads an ODS `content.xml` whole, not windowed).

use ream_sheet::{OpenOptions, Workbook};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: open FILE [RUNS]")?;
    let runs: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    for threads in [1usize, 0] {
        let mut best = f64::MAX;
        let mut cells = 0;
        for _ in 0..runs {
            let t = Instant::now();
            let mut opts = OpenOptions::new().threads(threads);
            if let Some(n) = std::env::var("CHUNK").ok().and_then(|s| s.parse().ok()) {
                opts = opts.tune_chunk_bytes(n);
            }
            let wb = Workbook::open(&path, &opts)?;
            best = best.min(t.elapsed().as_secs_f64());
            cells = wb.stats().cells;
            let s = wb.stats();
            eprintln!(
                "threads={} A={:.4} B={:.4} C={:.4} inflate={:.4} parse={:.4}",
                s.threads, s.phase_a_s, s.phase_b_s, s.phase_c_s, s.inflate_s, s.parse_s
            );
        }
        println!(
            "threads={threads}: best {best:.4}s, {cells} cells, {:.1} M cells/s",
            cells as f64 / best / 1e6
        );
    }
    Ok(())
}
