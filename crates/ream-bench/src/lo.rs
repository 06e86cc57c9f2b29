//! ODS files written by LibreOffice: `soffice --headless --convert-to ods`
//! of a generated XLSX, so ODS readers are measured on what a real office
//! suite writes (its styles, repeated cells, paragraphs and number
//! formats), not only on the generator's own cell shapes.

use anyhow::{Context, Result, bail};
use std::path::Path;
use std::process::Command;

/// Converts the workbook at `src` into an ODS file at `out` with
/// LibreOffice. Runs in a private temporary folder with its own user
/// profile, so concurrent runs and an open LibreOffice do not interfere;
/// a missing `soffice` is an error that says how to install it.
pub fn convert_to_ods(src: &Path, out: &Path) -> Result<()> {
    let work = std::env::temp_dir().join(format!("ream-bench-lo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;
    let result = convert_in(src, out, &work);
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn convert_in(src: &Path, out: &Path, work: &Path) -> Result<()> {
    let input = work.join("book.xlsx");
    std::fs::copy(src, &input).with_context(|| format!("copying {}", src.display()))?;
    let profile = format!(
        "-env:UserInstallation=file://{}",
        work.join("profile").display()
    );
    eprintln!(
        "converting {} with LibreOffice (minutes for a big file)",
        src.display()
    );
    let status = Command::new("soffice")
        .arg(profile)
        .args(["--headless", "--convert-to", "ods", "--outdir"])
        .arg(work)
        .arg(&input)
        .status();
    let status = match status {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "soffice not found: the LibreOffice-written datasets need LibreOffice \
             (Debian: apt-get install libreoffice-calc-nogui)"
        ),
        Err(e) => return Err(e).context("running soffice"),
    };
    let written = work.join("book.ods");
    if !status.success() || !written.exists() {
        bail!("soffice could not convert {} ({status})", src.display());
    }
    std::fs::copy(&written, out).with_context(|| format!("writing {}", out.display()))?;
    Ok(())
}
