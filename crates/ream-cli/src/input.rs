//! Opening inputs and outputs shared by the commands.

use crate::UsageError;
use anyhow::{Context, Result};
use ream::sheet::{OpenOptions, Sheet, Workbook};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Opens the workbook at `path` (`-` reads standard input).
///
/// On failure the error names the file and, when the bytes are not a
/// workbook ream reads, the format it looks like.
pub fn open_workbook(path: &Path, opts: &OpenOptions) -> Result<Workbook> {
    let wb = open_quiet(path, opts)?;
    report_warnings(&wb);
    Ok(wb)
}

/// Set once any opened workbook had warnings: the process then exits 3.
pub static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Prints the workbook's warnings (broken small parts, skipped sheets,
/// cells left empty) on stderr and remembers that there were some.
pub fn report_warnings(wb: &Workbook) {
    for w in wb.warnings() {
        eprintln!("ream: warning: {w}");
    }
    if !wb.warnings().is_empty() {
        WARNED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

fn open_quiet(path: &Path, opts: &OpenOptions) -> Result<Workbook> {
    if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut buf)
            .context("reading standard input")?;
        let format = ream::sniff(&buf);
        return Workbook::from_bytes(buf, opts).map_err(|e| describe(e, "<stdin>", format));
    }
    Workbook::open(path, opts).map_err(|e| {
        let format = ream::sniff_path(path).unwrap_or(ream::Format::Unknown);
        describe(e, &path.display().to_string(), format)
    })
}

/// Wraps a library error with the file name and the sniffed format.
fn describe(e: ream::sheet::Error, name: &str, format: ream::Format) -> anyhow::Error {
    use ream::Format;
    if e.kind() == ream::sheet::ErrorKind::Io {
        return anyhow::Error::new(e); // already names the file
    }
    let what = match format {
        Format::Xlsx | Format::Xlsm | Format::EncryptedOoxml => name.to_string(),
        Format::Unknown => format!("{name} (not a recognised spreadsheet format)"),
        other => format!("{name} (looks like {other}, which ream cannot read yet)"),
    };
    anyhow::Error::new(e).context(what)
}

/// A buffered writer on `out` (`None` or `-`: standard output).
pub fn open_output(out: Option<&PathBuf>) -> Result<Box<dyn Write>> {
    match out {
        Some(p) if p != Path::new("-") => {
            let f =
                std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?;
            Ok(Box::new(BufWriter::with_capacity(1 << 16, f)))
        }
        _ => Ok(Box::new(BufWriter::with_capacity(
            1 << 16,
            std::io::stdout().lock(),
        ))),
    }
}

/// Resolves a `--sheet` argument: `all`, an exact sheet name, a 0-based
/// index, or a case-insensitive name (in that order). `None` means the
/// first sheet.
pub fn select_sheets<'w>(wb: &'w Workbook, sel: Option<&str>) -> Result<Vec<&'w Sheet>> {
    let Some(sel) = sel else {
        return wb
            .sheet(0)
            .map(|s| vec![s])
            .ok_or_else(|| UsageError("the workbook has no sheets".into()).into());
    };
    if sel == "all" {
        return Ok(wb.sheets().iter().collect());
    }
    let exact = wb.sheets().iter().find(|s| s.name() == sel);
    let by_index = || sel.parse::<usize>().ok().and_then(|i| wb.sheet(i));
    if let Some(s) = exact.or_else(by_index).or_else(|| wb.sheet_by_name(sel)) {
        return Ok(vec![s]);
    }
    let names: Vec<String> = wb
        .sheets()
        .iter()
        .map(|s| format!("{}:{}", s.index(), s.name()))
        .collect();
    Err(UsageError(format!(
        "no sheet {sel:?} (sheets: {}; or `all`)",
        names.join(", ")
    ))
    .into())
}
