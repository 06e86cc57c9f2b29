//! Opening inputs and outputs shared by the commands.

use crate::UsageError;
use anyhow::{Context, Result};
use ream::Format;
use ream::io::Bytes;
use ream::sheet::{Error as SheetError, ErrorKind, MapMode, OpenOptions, Sheet, Workbook};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// An input read for a command: its bytes (mapped, or standard input read
/// whole) and the name messages give it.
pub struct Input {
    /// The path as given, or `<stdin>` for `-`.
    pub name: String,
    /// The file's bytes (shared: cloning is cheap).
    pub bytes: Bytes,
}

/// Reads the input at `path` (`-` reads standard input to its end; a file
/// is mapped or read per `mode`). A directory or an unreadable file is an
/// error naming the path.
pub fn read_input(path: &Path, mode: MapMode) -> Result<Input> {
    if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut buf)
            .context("reading standard input")?;
        return Ok(Input {
            name: input_name(path),
            bytes: Bytes::from_vec(buf),
        });
    }
    let name = input_name(path);
    if path.is_dir() {
        let msg = format!(
            "{name}: is a directory, not a file (`ream batch {name}` reads every file under it)"
        );
        return Err(SheetError::new(ErrorKind::Io, msg).into());
    }
    let bytes = Bytes::open(path, mode)
        .map_err(|e| SheetError::new(ErrorKind::Io, format!("{name}: {e}")))?;
    Ok(Input { name, bytes })
}

/// The name messages give the input at `path`: the path as given, or
/// `<stdin>` for `-`.
pub fn input_name(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".into()
    } else {
        path.display().to_string()
    }
}

impl Input {
    /// Opens the input as a workbook and reports its warnings on stderr.
    ///
    /// On failure the error names the input and, when the bytes are a
    /// format the spreadsheet engine does not read (PDF), says
    /// which and what to use instead; for bytes of no known format it says
    /// so.
    pub fn open(&self, opts: &OpenOptions) -> Result<Workbook> {
        let wb = Workbook::from_source(self.bytes.clone(), opts)
            .map_err(|e| describe(e, &self.name, ream::sniff_bytes(&self.bytes)))?;
        report_warnings(&wb);
        Ok(wb)
    }
}

/// Opens the workbook at `path` (`-` reads standard input): [`read_input`]
/// then [`Input::open`].
pub fn open_workbook(path: &Path, opts: &OpenOptions) -> Result<Workbook> {
    read_input(path, opts.map_mode)?.open(opts)
}

/// Set once any opened workbook had warnings: the process then exits 3.
pub static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Prints a warning on stderr (`ream: warning: ...`) and remembers that
/// there was one.
pub fn warn(msg: &str) {
    eprintln!("ream: warning: {msg}");
    WARNED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Prints the workbook's warnings (broken small parts, skipped sheets,
/// cells left empty) on stderr and remembers that there were some.
pub fn report_warnings(wb: &Workbook) {
    for w in wb.warnings() {
        warn(&w.to_string());
    }
}

/// Wraps a library error with the input's name and, for a format the
/// spreadsheet engine does not read, replaces it with one message per
/// format (the same from every command).
fn describe(e: SheetError, name: &str, format: Format) -> anyhow::Error {
    if e.kind() == ErrorKind::Io {
        return anyhow::Error::new(e); // already names the file
    }
    let unsupported =
        |msg: String| anyhow::Error::new(SheetError::new(ErrorKind::Unsupported, msg));
    let what = match format {
        Format::Pdf => {
            let msg = format!(
                "this is a PDF document, not a spreadsheet: use `ream pdf` (e.g. `ream pdf info {name}`)"
            );
            return unsupported(msg).context(name.to_string());
        }
        Format::Unknown if e.kind() != ErrorKind::Encrypted => {
            format!("{name} (not a recognised spreadsheet format)")
        }
        _ => name.to_string(),
    };
    anyhow::Error::new(e).context(what)
}

/// Names the input `name` in an error the engine gave while reading the
/// rows of an open workbook, as [`Input::open`] does for errors at open;
/// other errors (writing the output) are returned as they are.
pub fn name_read_error(e: anyhow::Error, name: &str) -> anyhow::Error {
    let from_engine =
        e.downcast_ref::<SheetError>().is_some() || e.downcast_ref::<ream_arrow::Error>().is_some();
    if from_engine {
        e.context(name.to_string())
    } else {
        e
    }
}

/// A buffered writer on `out` (`None` or `-`: standard output). It is
/// `Send` (the Parquet writer needs that): standard output is locked per
/// flush of the 64 KiB buffer, not once.
pub fn open_output(out: Option<&PathBuf>) -> Result<Box<dyn Write + Send>> {
    match out {
        Some(p) if p != Path::new("-") => {
            let f =
                std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?;
            Ok(Box::new(BufWriter::with_capacity(1 << 16, f)))
        }
        _ => Ok(Box::new(BufWriter::with_capacity(
            1 << 16,
            std::io::stdout(),
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
