//! Workbooks written by LibreOffice: `soffice --headless --convert-to ods`
//! (or `xls`) of a generated XLSX, so readers are measured on what a real
//! office suite writes (its styles, repeated cells, paragraphs, number
//! formats and BIFF records), not only on the generator's own cell shapes.

use crate::datagen::FileKind;
use anyhow::{Context, Result, bail};
use std::path::Path;
use std::process::Command;

/// Converts the workbook at `src` into a file of `kind` (ODS, or XLS as
/// Excel 97-2003) at `out` with LibreOffice. Runs in a private temporary
/// folder with its own user profile, so concurrent runs and an open
/// LibreOffice do not interfere; a missing `soffice` is an error that says
/// how to install it.
pub fn convert(src: &Path, out: &Path, kind: FileKind) -> Result<()> {
    let work = std::env::temp_dir().join(format!("ream-bench-lo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;
    let result = convert_in(src, out, &work, kind);
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn convert_in(src: &Path, out: &Path, work: &Path, kind: FileKind) -> Result<()> {
    let (filter, ext) = match kind {
        FileKind::Ods => ("ods", "ods"),
        FileKind::Xls => ("xls:MS Excel 97", "xls"),
        FileKind::Xlsx => bail!("XLSX datasets are written by the generator"),
    };
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
        .args(["--headless", "--convert-to", filter, "--outdir"])
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
    let written = work.join(format!("book.{ext}"));
    if !status.success() || !written.exists() {
        bail!("soffice could not convert {} ({status})", src.display());
    }
    std::fs::copy(&written, out).with_context(|| format!("writing {}", out.display()))?;
    Ok(())
}
