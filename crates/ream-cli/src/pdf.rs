//! `ream pdf ...`: page count, metadata, objects and revisions of PDFs;
//! incremental updates and full rewrites.
//!
//! Every subcommand takes `--source mmap|window|buffered|pread`,
//! `--window-mb N`, `--strict` and `--stats` (I/O counters on stderr).
//! Exit codes: 0 ok, 1 error, 3 finished with warnings (`check`, and any
//! command whose file needed repair), 4 encrypted.

mod report;
mod show;
mod write;

use anyhow::Result;
use ream_pdf::{ErrorKind, Pdf, PdfOptions, SourceKind};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `ream pdf`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

/// The `ream pdf` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Page count, version, Info, revisions, warnings.
    Info(InfoArgs),
    /// One line (or JSON object) per page: object, boxes, rotation.
    Pages(PagesArgs),
    /// Print one object; `--raw`/`--decoded` write a stream's data.
    Show(ShowArgs),
    /// The revisions (original and incremental updates).
    Revisions(Common),
    /// Read everything and report problems (exit 0 ok, 3 warnings, 1 errors).
    Check(Common),
    /// Set Info entries in an appended revision; the original bytes stay
    /// untouched (default: a copy renamed over FILE atomically).
    Update(UpdateArgs),
    /// Write a compact copy: live objects renumbered, large sequential writes.
    Rewrite(RewriteArgs),
    /// Summarize every object (object streams decoded in parallel):
    /// counts per /Type, streams, errors.
    Index(IndexArgs),
}

/// Options shared by every `ream pdf` subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct Common {
    /// The PDF file.
    pub file: PathBuf,
    /// Byte source: mmap (default), window, buffered, pread.
    #[arg(long, default_value = "mmap")]
    pub source: SourceKind,
    /// View size of the sliding window in MiB (with `--source window`).
    #[arg(long, default_value_t = 64)]
    pub window_mb: usize,
    /// Refuse to repair broken cross-reference data.
    #[arg(long)]
    pub strict: bool,
    /// Print I/O counters and timings on standard error.
    #[arg(long)]
    pub stats: bool,
}

/// Arguments of `ream pdf info`.
#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    #[command(flatten)]
    pub common: Common,
    /// Print one JSON document.
    #[arg(long)]
    pub json: bool,
    /// Count pages by walking the tree instead of trusting /Count.
    #[arg(long)]
    pub verify_pages: bool,
}

/// Arguments of `ream pdf pages`.
#[derive(Debug, clap::Args)]
pub struct PagesArgs {
    #[command(flatten)]
    pub common: Common,
    /// Print a JSON array.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ream pdf show`.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub common: Common,
    /// Object number, optionally with generation: `12` or `12.0`.
    pub object: String,
    /// Write the stream's data as stored.
    #[arg(long, conflicts_with = "decoded")]
    pub raw: bool,
    /// Write the stream's data decoded (image codecs stay encoded).
    #[arg(long)]
    pub decoded: bool,
}

/// Arguments of `ream pdf index`.
#[derive(Debug, clap::Args)]
pub struct IndexArgs {
    #[command(flatten)]
    pub common: Common,
    /// Worker threads (0 = available cores). Scales best with
    /// `--source mmap`; other sources lock per read.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Print one JSON document.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ream pdf update`.
#[derive(Debug, clap::Args)]
pub struct UpdateArgs {
    #[command(flatten)]
    pub common: Common,
    /// Info entry to set, `Key=Value` (repeatable); `Key=` removes it.
    #[arg(long = "set-info", value_name = "KEY=VALUE")]
    pub set_info: Vec<String>,
    /// Write the updated file here instead of replacing FILE (the
    /// original is copied, the revision appended, the copy fsynced and
    /// renamed into place).
    #[arg(short = 'o', long, value_name = "OUT", conflicts_with = "in_place")]
    pub output: Option<std::path::PathBuf>,
    /// Append to FILE itself under an exclusive lock; any failure
    /// truncates it back to its original length.
    #[arg(long)]
    pub in_place: bool,
    /// Print a JSON report.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ream pdf rewrite`.
#[derive(Debug, clap::Args)]
pub struct RewriteArgs {
    #[command(flatten)]
    pub common: Common,
    /// The output file (written to a temporary file, then renamed).
    pub output: PathBuf,
    /// Pack small objects into compressed object streams (xref stream).
    #[arg(long)]
    pub object_streams: bool,
    /// Objects per object stream.
    #[arg(long, default_value_t = 100)]
    pub objects_per_stream: usize,
    /// Write unbuffered (O_DIRECT); falls back with a warning where the
    /// filesystem refuses.
    #[arg(long)]
    pub direct_io: bool,
    /// Output buffer in MiB (one write per full buffer).
    #[arg(long, default_value_t = 4)]
    pub buffer_mb: usize,
    /// Print a JSON report.
    #[arg(long)]
    pub json: bool,
}

/// Runs `ream pdf`.
pub fn run(a: &Args) -> Result<()> {
    let common = match &a.command {
        Command::Info(x) => &x.common,
        Command::Pages(x) => &x.common,
        Command::Show(x) => &x.common,
        Command::Revisions(c) | Command::Check(c) => c,
        Command::Update(x) => &x.common,
        Command::Rewrite(x) => &x.common,
        Command::Index(x) => &x.common,
    };
    let t0 = Instant::now();
    let pdf = open(common)?;
    let mut out = std::io::stdout().lock();
    let result = match &a.command {
        Command::Info(x) => report::info(&pdf, &common.file, x.json, x.verify_pages, &mut out),
        Command::Pages(x) => report::pages(&pdf, x.json, &mut out),
        Command::Show(x) => show::run(&pdf, x, &mut out),
        Command::Revisions(_) => report::revisions(&pdf, &mut out),
        Command::Check(_) => report::check(&pdf, &mut out),
        Command::Update(x) => write::update(&pdf, x, &mut out),
        Command::Rewrite(x) => write::rewrite(&pdf, x, &mut out),
        Command::Index(x) => report::index(&pdf, x.threads, x.json, &mut out),
    };
    out.flush()?;
    if common.stats {
        print_stats(&pdf, t0);
    }
    result?;
    if !pdf.warnings().is_empty() {
        crate::input::WARNED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    if pdf.is_encrypted() {
        return Err(ream_pdf::Error::new(
            ErrorKind::Encrypted,
            "the document is encrypted (decryption is not supported yet)",
        )
        .into());
    }
    Ok(())
}

/// Opens the file with the options of `c` (encrypted files open for
/// their structure; commands report and exit 4).
fn open(c: &Common) -> Result<Pdf> {
    let opts = PdfOptions::new()
        .source(c.source)
        .window_size(c.window_mb.max(1) << 20)
        .strict(c.strict)
        .allow_encrypted(true);
    Ok(open_path(&c.file, &opts)?)
}

fn open_path(p: &Path, opts: &PdfOptions) -> ream_pdf::Result<Pdf> {
    Pdf::open(p, opts)
}

fn print_stats(pdf: &Pdf, t0: Instant) {
    let c = pdf.io_counters();
    let (hits, misses) = pdf.objstm_cache_stats();
    let mut e = std::io::stderr().lock();
    let _ = writeln!(
        e,
        "ream stats: source {} | {:.3} s | {} requests, {} syscalls ({} reads, {} maps, {} unmaps, {} remaps) | {} bytes copied, {} bytes mapped ({:.2} % of {}) | object stream cache {} hits, {} misses",
        pdf.source_kind(),
        t0.elapsed().as_secs_f64(),
        c.requests,
        c.syscalls,
        c.reads,
        c.maps,
        c.unmaps,
        c.remaps,
        c.bytes_copied,
        c.bytes_mapped,
        c.bytes_touched() as f64 * 100.0 / pdf.len().max(1) as f64,
        pdf.len(),
        hits,
        misses
    );
}
