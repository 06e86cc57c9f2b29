//! `ream pdf ...`: page count, metadata, objects and revisions of PDFs;
//! incremental updates and full rewrites.
//!
//! Every subcommand takes FILE (`-` reads standard input into memory),
//! `--source auto|mmap|window|buffered|pread`, `--window-mb N`, `--strict`,
//! `--password PW` (encrypted files) and `--stats` (I/O counters on
//! stderr). Errors name the file (and the object
//! and byte offset where known). Exit codes: 0 ok, 1 error, 2 usage,
//! 3 finished with warnings (each printed on stderr as `ream: warning: ...`),
//! 4 encrypted.

mod report;
mod show;
mod write;

use crate::args::ranged;
use anyhow::{Context, Result};
use ream_pdf::{ErrorKind, Pdf, PdfOptions, SourceKind};
use std::fmt::Display;
use std::io::{Read, Write};
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
    /// Print one object, or a stream's data (`--raw`/`--decoded`).
    ///
    /// The object is given as `12`, `12 0` or `12 0 R` (one argument or
    /// several; the generation defaults to 0). An object the file does not
    /// have is an error (exit 1).
    Show(ShowArgs),
    /// The revisions: the original and each incremental update.
    Revisions(Common),
    /// Read everything and report problems (0 ok, 3 warnings, 1 errors, 4 encrypted).
    ///
    /// Reads every object, decodes every stream, walks the page tree and
    /// reads Info and XMP (an encrypted file decrypted first). An
    /// encrypted file that cannot be decrypted (wrong password) gets its
    /// structure checked (cross-reference data, object syntax, page tree)
    /// and exits 4.
    Check(Common),
    /// Set Info entries in an appended revision (original bytes untouched).
    ///
    /// By default a copy with the revision is renamed over FILE atomically;
    /// `-o OUT` writes the copy elsewhere, `--in-place` appends to FILE.
    Update(UpdateArgs),
    /// Write a compact copy: live objects renumbered, sequential writes.
    Rewrite(RewriteArgs),
    /// Count objects per /Type, in parallel; unreadable objects listed.
    ///
    /// Object streams are decoded on worker threads; objects that cannot
    /// be read are listed as errors (exit 3), not fatal.
    Index(IndexArgs),
}

/// Options shared by every `ream pdf` subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct Common {
    /// The PDF file; `-` reads standard input into memory (`--source`
    /// then does not apply).
    pub file: PathBuf,
    /// Byte source: auto (default: window from 256 MiB up, else mmap),
    /// mmap, window, buffered, pread.
    #[arg(long, default_value = "auto")]
    pub source: SourceKind,
    /// View size of the sliding window in MiB, 1 to 65536 (with
    /// `--source window`).
    #[arg(long, default_value_t = 64, allow_negative_numbers = true,
          value_parser = ranged::<usize>(1..=65536))]
    pub window_mb: usize,
    /// Refuse to repair broken cross-reference data.
    #[arg(long)]
    pub strict: bool,
    /// Password of an encrypted file, tried as user and as owner password
    /// before the empty user password (a wrong password on a file the
    /// empty one opens is a warning): SASLprep'd UTF-8 (then plain UTF-8)
    /// for AES-256 files, PDFDocEncoding (then UTF-8) for older ones; at
    /// most 127 bytes are used.
    #[arg(long)]
    pub password: Option<String>,
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
    /// The object: `12`, `12 0` or `12 0 R` (number 1 to 4294967295,
    /// generation 0 to 65535, default 0).
    #[arg(required = true, num_args = 1..=3, allow_negative_numbers = true)]
    pub object: Vec<String>,
    /// Write the stream's data as stored (decrypted in an encrypted file).
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
    /// Worker threads, 0 to 1024 (0 = available cores). Scales best with
    /// `--source mmap`; other sources lock per read.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true,
          value_parser = ranged::<usize>(0..=1024))]
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
    /// Objects per object stream, 1 to 100000.
    #[arg(long, default_value_t = 100, allow_negative_numbers = true,
          value_parser = ranged::<usize>(1..=100_000))]
    pub objects_per_stream: usize,
    /// Write an encrypted file in the clear (default: the copy keeps the
    /// encryption and the passwords).
    #[arg(long)]
    pub decrypt: bool,
    /// Write unbuffered (O_DIRECT); falls back with a warning where the
    /// filesystem refuses.
    #[arg(long)]
    pub direct_io: bool,
    /// Output buffer in MiB, 1 to 1024 (one write per full buffer).
    #[arg(long, default_value_t = 4, allow_negative_numbers = true,
          value_parser = ranged::<usize>(1..=1024))]
    pub buffer_mb: usize,
    /// Print a JSON report.
    #[arg(long)]
    pub json: bool,
}

/// Runs `ream pdf`: usage checks, then the subcommand on the opened
/// file. Every error after parsing names the file (`<stdin>` for `-`).
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
    // Usage errors come before the file is opened.
    match &a.command {
        Command::Show(x) => show::parse_ref(&x.object).map(|_| ())?,
        Command::Update(x) => write::check_update_args(x)?,
        _ => {}
    }
    run_on(a, common).with_context(|| file_name(&common.file))
}

/// The file as errors name it.
fn file_name(file: &Path) -> String {
    if is_stdin(file) {
        "<stdin>".to_string()
    } else {
        file.display().to_string()
    }
}

/// True for the `-` that stands for standard input.
fn is_stdin(file: &Path) -> bool {
    file == Path::new("-")
}

fn run_on(a: &Args, common: &Common) -> Result<()> {
    let t0 = Instant::now();
    let pdf = open(common)?;
    let mut out = std::io::stdout().lock();
    let result = match &a.command {
        Command::Info(x) => {
            let name = file_name(&common.file);
            report::info(&pdf, Path::new(&name), x.json, x.verify_pages, &mut out)
        }
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
    report_warnings(&pdf.warnings());
    result?;
    if pdf.is_locked() {
        let why = pdf
            .encryption()
            .and_then(|e| e.error.clone())
            .unwrap_or_default();
        return Err(ream_pdf::Error::new(
            ErrorKind::Encrypted,
            format!("the document is encrypted and cannot be decrypted: {why}"),
        )
        .into());
    }
    Ok(())
}

/// Prints each warning on stderr as `ream: warning: ...`; any warning
/// makes the process exit 3 (see `input::WARNED`).
pub(crate) fn report_warnings<W: Display>(warnings: &[W]) {
    for w in warnings {
        eprintln!("ream: warning: {w}");
    }
    if !warnings.is_empty() {
        crate::input::WARNED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Opens the file with the options of `c` (encrypted files are decrypted
/// with the empty or the given password; those that cannot be open for
/// their structure, and commands report and exit 4). `-` reads standard
/// input into memory.
fn open(c: &Common) -> Result<Pdf> {
    let opts = PdfOptions::new()
        .source(c.source)
        .window_size(c.window_mb << 20)
        .strict(c.strict)
        .allow_encrypted(true);
    let opts = match &c.password {
        Some(p) => opts.password(p),
        None => opts,
    };
    if is_stdin(&c.file) {
        let mut buf = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut buf)
            .context("reading standard input")?;
        return Ok(Pdf::from_bytes(buf, &opts)?);
    }
    Ok(Pdf::open(&c.file, &opts)?)
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
