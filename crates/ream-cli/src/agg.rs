//! `ream agg`: min/mean/max of a value per key over a delimited file (the
//! One Billion Row Challenge and its generalisation), through `ream-agg`.
//!
//! * `1brc`: `{key=min/mean/max, ...}` on one line, keys sorted by bytes.
//! * `csv`: `key,count,min,mean,max` header and one row per key.
//! * `jsonl`: `{"key":..,"count":..,"min":..,"mean":..,"max":..}` per key.
//!
//! A regular file is memory-mapped; `-`, pipes and devices are read in
//! blocks. `--stats` prints rows, keys, wall time, rows/s and threads on
//! standard error.

use anyhow::{Context, Result};
use ream_agg::{AggOptions, Aggregate, aggregate_path, aggregate_reader};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// Output formats of `ream agg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The 1BRC line: `{key=min/mean/max, ...}`.
    #[value(name = "1brc")]
    OneBrc,
    /// CSV with a `key,count,min,mean,max` header.
    Csv,
    /// One JSON object per key.
    Jsonl,
}

/// Arguments of `ream agg`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The input (`-` reads standard input).
    pub file: PathBuf,
    /// Worker threads (0 = one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// Bytes per work unit (chunks are cut at newlines).
    #[arg(long, value_name = "N", default_value_t = ream_agg::DEFAULT_CHUNK_BYTES)]
    pub chunk_bytes: usize,
    /// Field delimiter: one ASCII character, or `\t` / `tab`.
    #[arg(short, long, value_name = "C", default_value = ";", value_parser = parse_delimiter)]
    pub delimiter: u8,
    /// 0-based field holding the key.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub key_col: usize,
    /// 0-based field holding the value.
    #[arg(long, value_name = "M", default_value_t = 1)]
    pub value_col: usize,
    /// Skip the first line as a header.
    #[arg(long)]
    pub header: bool,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::OneBrc)]
    pub format: Format,
    /// Longest accepted key, in bytes.
    #[arg(long, value_name = "N", default_value_t = ream_agg::DEFAULT_MAX_KEY_BYTES)]
    pub max_key_bytes: usize,
    /// Most distinct keys.
    #[arg(long, value_name = "N", default_value_t = ream_agg::DEFAULT_MAX_KEYS)]
    pub max_keys: usize,
    /// Accept keys that are not UTF-8 (as raw bytes).
    #[arg(long)]
    pub allow_invalid_utf8: bool,
    /// Accept only values of the strict 1BRC form `-?d?d.d`.
    #[arg(long)]
    pub strict_values: bool,
    /// Print rows, keys, wall time, rows/s and threads on standard error.
    #[arg(long)]
    pub stats: bool,
}

/// Parses `--delimiter`.
fn parse_delimiter(s: &str) -> Result<u8, String> {
    match s {
        "\\t" | "tab" => Ok(b'\t'),
        _ => match s.as_bytes() {
            [b] if b.is_ascii() && !matches!(b, b'\n' | b'\r') => Ok(*b),
            _ => Err(format!(
                "{s:?} is not one ASCII character (use \\t or tab for a tab)"
            )),
        },
    }
}

/// Runs `ream agg`.
pub fn run(a: &Args) -> Result<()> {
    let opts = AggOptions {
        threads: a.threads,
        chunk_bytes: a.chunk_bytes,
        delimiter: a.delimiter,
        key_col: a.key_col,
        value_col: a.value_col,
        header: a.header,
        max_key_bytes: a.max_key_bytes,
        max_keys: a.max_keys,
        allow_invalid_utf8: a.allow_invalid_utf8,
        strict_values: a.strict_values,
    };
    let name = a.file.display().to_string();
    let t0 = Instant::now();
    let agg = if name == "-" {
        aggregate_reader(std::io::stdin().lock(), &opts)
    } else {
        aggregate_path(&a.file, &opts)
    }
    .with_context(|| name.clone())?;
    let wall = t0.elapsed().as_secs_f64();
    write(&agg, a.format)?;
    if a.stats {
        eprintln!(
            "ream agg: {} rows, {} keys, {wall:.3} s wall, {:.1} M rows/s, {} threads",
            agg.rows(),
            agg.keys(),
            agg.rows() as f64 / wall.max(1e-9) / 1e6,
            opts.effective_threads()
        );
    }
    Ok(())
}

/// Writes `agg` to standard output in `format`.
fn write(agg: &Aggregate, format: Format) -> Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match format {
        Format::OneBrc => agg.write_1brc(&mut out)?,
        Format::Csv => agg.write_csv(&mut out)?,
        Format::Jsonl => agg.write_jsonl(&mut out)?,
    }
    out.flush()?;
    Ok(())
}
