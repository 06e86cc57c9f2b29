//! Times one aggregation: `agg FILE [THREADS] [CHUNK_BYTES]`; the 1BRC
//! output goes to stdout, the time to stderr.

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: agg FILE [THREADS] [CHUNK_BYTES]")?;
    let mut opts = ream_agg::AggOptions::default();
    if let Some(t) = args.next() {
        opts.threads = t.parse()?;
    }
    if let Some(c) = args.next() {
        opts = opts.tune_chunk_bytes(c.parse()?);
    }
    let t0 = Instant::now();
    let agg = ream_agg::aggregate_path(path.as_ref(), &opts)?;
    let wall = t0.elapsed();
    agg.write_1brc(&mut std::io::stdout().lock())?;
    eprintln!(
        "{} rows, {} keys, {:.3} s, {:.1} M rows/s",
        agg.rows(),
        agg.keys(),
        wall.as_secs_f64(),
        agg.rows() as f64 / wall.as_secs_f64() / 1e6
    );
    Ok(())
}
