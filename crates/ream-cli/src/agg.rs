//! `ream agg`: min/mean/max of a value per key over a delimited file (the
//! One Billion Row Challenge and its generalisation), through `ream-agg`.
//!
//! * `1brc`: `{key=min/mean/max, ...}` on one line, keys sorted by bytes,
//!   one decimal rounded half up (toward +infinity); `{}` when empty.
//! * `csv`: `key,count,min,mean,max` header and one row per key.
//! * `jsonl`: `{"key":..,"count":..,"min":..,"mean":..,"max":..}` per key.
//! * `arrow` / `parquet`: the same columns typed (key utf8, or binary for
//!   keys that are not UTF-8; count uint64; min, mean, max as 128-bit
//!   decimals holding the csv texts exactly), from `ream_arrow`.
//!
//! CSV and JSON Lines print exact decimals (see `ream agg --help`). A
//! regular file is memory-mapped; `-`, pipes and devices are read in
//! blocks. `--stats` prints rows, keys, skipped lines, wall time, rows/s
//! and threads on standard error. `--skip-bad-rows` prints the first
//! skipped rows on standard error and exits 3.

use crate::args::ranged;
use anyhow::{Context, Result};
use ream_agg::{AggOptions, Aggregate, ErrorKind, aggregate_path, aggregate_reader};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// Output formats of `ream agg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The 1BRC line: `{key=min/mean/max, ...}`, one decimal rounded half up.
    #[value(name = "1brc")]
    OneBrc,
    /// CSV with a `key,count,min,mean,max` header, exact decimals.
    Csv,
    /// One JSON object per key, exact decimals.
    Jsonl,
    /// Arrow IPC stream: key, count (uint64), min/mean/max as exact
    /// 128-bit decimals.
    Arrow,
    /// Parquet, the columns of `arrow`.
    Parquet,
}

/// Arguments of `ream agg`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = NUMBERS_HELP)]
pub struct Args {
    /// The input (`-` reads standard input).
    pub file: PathBuf,
    /// Worker threads (0 = one per core).
    #[arg(long, value_name = "N", default_value_t = 0, allow_hyphen_values = true,
          value_parser = ranged::<usize>(0..=ream_agg::MAX_THREADS as i64))]
    pub threads: usize,
    /// Bytes per work unit (chunks are cut at newlines).
    #[arg(long, value_name = "N", default_value_t = ream_agg::DEFAULT_CHUNK_BYTES,
          allow_hyphen_values = true, value_parser = ranged::<usize>(1..=i64::MAX))]
    pub chunk_bytes: usize,
    /// Field delimiter: one ASCII character, or `\t` / `tab`. With any
    /// delimiter but `;` fields follow RFC 4180 quoting (`"Rome, IT",12.5`).
    #[arg(short, long, value_name = "C", default_value = ";", value_parser = ream_agg::parse_delimiter)]
    pub delimiter: u8,
    /// 0-based field holding the key.
    #[arg(long, value_name = "N", default_value_t = 0, allow_hyphen_values = true,
          value_parser = ranged::<usize>(0..=u32::MAX as i64))]
    pub key_col: usize,
    /// 0-based field holding the value.
    #[arg(long, value_name = "M", default_value_t = 1, allow_hyphen_values = true,
          value_parser = ranged::<usize>(0..=u32::MAX as i64))]
    pub value_col: usize,
    /// Skip the first line as a header.
    #[arg(long)]
    pub header: bool,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::OneBrc)]
    pub format: Format,
    /// Longest accepted key, in bytes.
    #[arg(long, value_name = "N", default_value_t = ream_agg::DEFAULT_MAX_KEY_BYTES,
          allow_hyphen_values = true,
          value_parser = ranged::<usize>(1..=ream_agg::MAX_MAX_KEY_BYTES as i64))]
    pub max_key_bytes: usize,
    /// Key-table budget: each distinct key costs its bytes plus 192
    /// (a number of bytes, or with K, M, G: 512M, 2G).
    #[arg(long, value_name = "SIZE", default_value = "512M", allow_hyphen_values = true,
          value_parser = parse_size)]
    pub max_key_memory: usize,
    /// Accept keys that are not UTF-8 (as raw bytes).
    #[arg(long)]
    pub allow_invalid_utf8: bool,
    /// Accept only values of the strict 1BRC form `-?d?d.d`.
    #[arg(long)]
    pub strict_values: bool,
    /// Skip malformed rows (no delimiter or field, empty key, empty or
    /// non-numeric value), print the first 5 with line and byte offset on
    /// standard error, and exit 3.
    #[arg(long)]
    pub skip_bad_rows: bool,
    /// Print rows, keys, skipped lines, wall time, rows/s and threads on
    /// standard error.
    #[arg(long)]
    pub stats: bool,
}

/// The number rules, at the end of `ream agg --help`.
const NUMBERS_HELP: &str = "\
Numbers: every value is exact (no float arithmetic). A value is a decimal
number with optional sign, fraction and exponent (12, -0.25, 1.5e3), at most
18 significant digits and 18 decimals, below 10^18; anything else is an error
naming its line and byte offset. The 1brc format prints min/mean/max with one
decimal, rounded half up (toward +infinity) as the challenge does. csv and
jsonl print exact decimals with trailing zeros trimmed to one decimal at
least (12.0, 0.25); the mean is exact when it terminates within 6 decimals
past the key's scale (the most decimals its values need, at least 1), and
rounded half away from zero to that many decimals otherwise: 0.1 and 0.2 give
0.15, and 1, 2, 2 give 1.6666667. The same numbers give the same output
however they are written (0.1, 0.10, 1e-1).

Empty lines are skipped and counted (--stats). A file of only empty lines
gives an empty result: {} in 1brc, the header in csv, nothing in jsonl.";

/// Parses `--max-key-memory`: bytes, or a number with K, M or G (binary).
fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let (num, mult) = [("K", 1u64 << 10), ("M", 1 << 20), ("G", 1 << 30)]
        .into_iter()
        .find_map(|(u, m)| {
            t.strip_suffix(u)
                .or_else(|| t.strip_suffix(&u.to_lowercase()))
                .map(|n| (n, m))
        })
        .unwrap_or((t, 1));
    let range = format!(
        "{}..={} bytes (1K..=1024G)",
        ream_agg::MIN_MAX_KEY_MEMORY,
        ream_agg::MAX_MAX_KEY_MEMORY
    );
    let n: i128 = num
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a size (bytes, or a number with K, M, G)"))?;
    let bytes = n * i128::from(mult);
    let lo = ream_agg::MIN_MAX_KEY_MEMORY as i128;
    let hi = ream_agg::MAX_MAX_KEY_MEMORY as i128;
    if bytes < lo || bytes > hi {
        return Err(format!("{s} is not in {range}"));
    }
    usize::try_from(bytes).map_err(|_| format!("{s} is not in {range}"))
}

/// Runs `ream agg`.
pub fn run(a: &Args) -> Result<()> {
    let opts = AggOptions::default()
        .threads(a.threads)
        .tune_chunk_bytes(a.chunk_bytes)
        .delimiter(a.delimiter)
        .key_col(a.key_col)
        .value_col(a.value_col)
        .header(a.header)
        .max_key_bytes(a.max_key_bytes)
        .max_key_memory(a.max_key_memory)
        .allow_invalid_utf8(a.allow_invalid_utf8)
        .strict_values(a.strict_values)
        .skip_bad_rows(a.skip_bad_rows);
    let name = a.file.display().to_string();
    let t0 = Instant::now();
    let result = if name == "-" {
        aggregate_reader(std::io::stdin().lock(), &opts)
    } else {
        aggregate_path(&a.file, &opts)
    };
    let agg = match result {
        // Opening the file: the library message already names it.
        Err(e) if e.kind() == ErrorKind::Io && name != "-" => return Err(e.into()),
        r => r.with_context(|| name.clone())?,
    };
    let wall = t0.elapsed().as_secs_f64();
    write(&agg, a.format)?;
    report_bad_rows(&agg, &name);
    if a.stats {
        eprintln!(
            "ream agg: {} rows, {} keys, {} empty lines, {} bad rows skipped, {wall:.3} s wall, \
             {:.1} M rows/s, {} threads",
            agg.rows(),
            agg.keys(),
            agg.empty_lines(),
            agg.bad_rows(),
            agg.rows() as f64 / wall.max(1e-9) / 1e6,
            opts.effective_threads()
        );
    }
    Ok(())
}

/// Prints the first skipped bad rows and their count as warnings (the
/// process then exits 3).
fn report_bad_rows(agg: &Aggregate, name: &str) {
    if agg.bad_rows() == 0 {
        return;
    }
    for b in agg.first_bad_rows() {
        eprintln!("ream: warning: {name}: {b}");
    }
    let shown = agg.first_bad_rows().len() as u64;
    let more = if agg.bad_rows() > shown {
        format!(" (first {shown} shown)")
    } else {
        String::new()
    };
    eprintln!(
        "ream: warning: {name}: {} bad rows skipped{more}",
        agg.bad_rows()
    );
    crate::input::WARNED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Writes `agg` to standard output in `format`.
fn write(agg: &Aggregate, format: Format) -> Result<()> {
    let table = match format {
        Format::Arrow => Some(crate::typed::TableFormat::Arrow),
        Format::Parquet => Some(crate::typed::TableFormat::Parquet),
        _ => None,
    };
    if let Some(table) = table {
        let batch = ream_arrow::aggregate_batch(agg)?;
        crate::typed::write(None, table, batch.schema(), std::iter::once(Ok(batch)))?;
        return Ok(());
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match format {
        Format::OneBrc => agg.write_1brc(&mut out)?,
        Format::Csv => agg.write_csv(&mut out)?,
        Format::Jsonl => agg.write_jsonl(&mut out)?,
        Format::Arrow | Format::Parquet => {}
    }
    out.flush()?;
    Ok(())
}
