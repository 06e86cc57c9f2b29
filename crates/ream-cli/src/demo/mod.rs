//! `ream demo`: generate small sample files deterministically and run every
//! ream engine on them, printing what each found and how fast.
//!
//! Each engine is one function `fn(&Path) -> Result<DemoResult>` listed in
//! [`ENGINES`] (XLSX, PDF, aggregation); add the batch demo there.

mod agg;
mod batch;
mod pdf;
mod xlsx;

use anyhow::{Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `ream demo`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Folder for the generated files (created if missing).
    #[arg(long, default_value = "demo-data")]
    pub dir: PathBuf,
}

/// What one engine's demo produced.
#[derive(Debug, Default)]
pub struct DemoResult {
    /// Engine name shown in the heading.
    pub engine: &'static str,
    /// The sample file it generated and read.
    pub file: PathBuf,
    /// (label, text) lines of findings and timings.
    pub lines: Vec<(&'static str, String)>,
    /// Commands worth trying next on the sample file.
    pub hints: Vec<String>,
    /// Values that did not read back as written.
    pub warnings: Vec<String>,
}

/// A demo engine: generates its samples under the folder and reads them.
type Engine = fn(&Path) -> Result<DemoResult>;

/// Every engine ream has, in the order they are shown.
const ENGINES: &[Engine] = &[
    xlsx::demo_xlsx,
    pdf::demo_pdf,
    agg::demo_agg,
    batch::demo_batch,
];

/// Runs `ream demo`.
pub fn run(a: &Args) -> Result<()> {
    std::fs::create_dir_all(&a.dir).with_context(|| format!("creating {}", a.dir.display()))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "ream demo: sample files in {}", a.dir.display())?;
    if cfg!(debug_assertions) {
        writeln!(
            out,
            "(debug build: timings are much slower than a release build)"
        )?;
    }
    for engine in ENGINES {
        let r = engine(&a.dir)?;
        print(&mut out, &r)?;
    }
    out.flush()?;
    Ok(())
}

fn print(w: &mut dyn Write, r: &DemoResult) -> std::io::Result<()> {
    writeln!(w)?;
    writeln!(w, "== {}: {} ==", r.engine, r.file.display())?;
    for (label, text) in &r.lines {
        writeln!(w, "  {label:<12} {text}")?;
    }
    for warn in &r.warnings {
        writeln!(w, "  WARNING      {warn}")?;
    }
    if !r.hints.is_empty() {
        writeln!(w, "  try:")?;
        for h in &r.hints {
            writeln!(w, "    {h}")?;
        }
    }
    Ok(())
}

/// `n` with thousands separators.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1000), "1,000");
        assert_eq!(super::thousands(1234567), "1,234,567");
    }
}
