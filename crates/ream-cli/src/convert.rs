//! `ream convert IN OUT`: any workbook ream reads to XLSX (every selected
//! sheet a sheet of the output, written in parallel) or to the formats of
//! `ream cat` (chosen by OUT's extension).

use crate::UsageError;
use crate::cat::{self, Format};
use crate::input::{name_read_error, read_input, select_sheets};
use anyhow::{Context, Result};
use ream::sheet::{DateKind, OpenOptions, RowOptions, Sheet, Value as RValue, Workbook};
use ream::write::{self as w, DateStyle, SheetWriter, Strings, WorkbookWriter, WriteOptions};
use std::path::{Path, PathBuf};

/// `ream convert --help`.
pub const LONG_HELP: &str = "\
Convert a workbook (XLSX, XLSM, XLSB, XLS, ODS) to another format, chosen by
the output's extension:

  .xlsx     Every selected sheet (default: all) becomes a sheet of the same
            name, written in parallel in bounded memory. Types survive:
            numbers, text, booleans, errors, dates/times/durations (with a
            date format), formulas with their cached values; hidden sheets
            stay hidden; the date system (1900/1904) is kept.
  .csv .tsv .jsonl .parquet .arrow
            As `ream cat --format ...` writes them (one sheet for parquet
            and arrow; default: the first sheet).

--skip-rows, --n-rows and --header-row select rows as in `ream cat`; in
.xlsx output the header row (if any) comes first, frozen, and the data rows
follow it, keeping their gaps.

OUT `-` writes to standard output; name the format with --to (there is no
extension to go by): `ream convert in.xls - --to xlsx > out.xlsx`.

--template T.xlsx (.xlsx output only): every output sheet starts as a copy
of one sheet of T (--template-sheet, default its first): its rows above
--start-row, column widths, views, merged cells, conditional formats, data
validations and page setup; the workbook takes T's styles and theme. The
converted rows go from --start-row on (default: the row after the template
sheet's last row with a cell), each new cell in the format of the
template's cell in its column on that row (or the column's format). The
date system is T's; dates are moved to it.";

/// Arguments of `ream convert`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The input workbook (`-` reads standard input).
    pub input: PathBuf,
    /// The output file; its extension picks the format (`.xlsx`, `.csv`,
    /// `.tsv`, `.jsonl`, `.parquet`, `.arrow`) unless --to names it; `-`
    /// writes to standard output (needs --to).
    pub output: PathBuf,
    /// The output format, whatever OUT's extension [default: from OUT's
    /// extension].
    #[arg(long, value_name = "FORMAT", value_parser = ["xlsx", "csv", "tsv", "jsonl", "parquet", "arrow"])]
    pub to: Option<String>,
    /// Copy a sheet of this .xlsx workbook, with its styles, under every
    /// output sheet (see below) [default: none].
    #[arg(long, value_name = "T.xlsx")]
    pub template: Option<PathBuf>,
    /// The template's sheet: name or 0-based index [default: 0, the first].
    #[arg(long, value_name = "NAME|INDEX", requires = "template")]
    pub template_sheet: Option<String>,
    /// 0-based row of the output sheets where the converted rows start
    /// [default: the row after the template sheet's last row with a cell].
    #[arg(long, value_name = "N", requires = "template",
          allow_negative_numbers = true, value_parser = crate::args::ranged::<u32>(0..=crate::args::MAX_ROW))]
    pub start_row: Option<u32>,
    /// Sheet name, 0-based index, or `all` [default: all for .xlsx, the
    /// first sheet otherwise].
    #[arg(short, long, value_name = "NAME|INDEX|all")]
    pub sheet: Option<String>,
    /// Skip rows with an index below N (0-based).
    #[arg(long, value_name = "N", default_value_t = 0,
          allow_negative_numbers = true, value_parser = crate::args::ranged::<u32>(0..=crate::args::MAX_ROW))]
    pub skip_rows: u32,
    /// Keep at most N data rows per sheet.
    #[arg(long, value_name = "N",
          allow_negative_numbers = true, value_parser = crate::args::ranged::<u64>(0..=i64::MAX))]
    pub n_rows: Option<u64>,
    /// Row H is the header: written first; data rows start after it.
    #[arg(long, value_name = "H",
          allow_negative_numbers = true, value_parser = crate::args::ranged::<u32>(0..=crate::args::MAX_ROW))]
    pub header_row: Option<u32>,
    /// Threads writing .xlsx sheets (0: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// Store .xlsx text inline in cells instead of a shared string table
    /// (constant memory whatever the number of distinct texts).
    #[arg(long)]
    pub inline_strings: bool,
    /// Password of an encrypted XLS workbook (see `ream cat --password`).
    #[arg(long, value_name = "PASSWORD")]
    pub password: Option<String>,
}

/// The output format from the extension.
enum Target {
    Xlsx,
    Cat(Format),
}

fn target(out: &Path, to: Option<&str>) -> Result<Target> {
    if to.is_none() && out == Path::new("-") {
        return Err(UsageError(
            "writing to standard output (`-`) needs the format: add --to xlsx (or csv, tsv, jsonl, parquet, arrow)"
                .to_string(),
        )
        .into());
    }
    let ext = match to {
        Some(t) => Some(t.to_ascii_lowercase()),
        None => out
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase),
    };
    Ok(match ext.as_deref() {
        Some("xlsx") => Target::Xlsx,
        Some("csv") => Target::Cat(Format::Csv),
        Some("tsv") => Target::Cat(Format::Tsv),
        Some("jsonl") => Target::Cat(Format::Jsonl),
        Some("parquet") => Target::Cat(Format::Parquet),
        Some("arrow") => Target::Cat(Format::Arrow),
        _ => {
            return Err(UsageError(format!(
                "{}: unknown output extension (use .xlsx, .csv, .tsv, .jsonl, .parquet or .arrow)",
                out.display()
            ))
            .into());
        }
    })
}

/// Runs `ream convert`.
pub fn run(a: &Args) -> Result<()> {
    let fmt = target(&a.output, a.to.as_deref())?;
    if a.template.is_some() && !matches!(fmt, Target::Xlsx) {
        return Err(UsageError("--template needs .xlsx output".to_string()).into());
    }
    if a.input != Path::new("-") && a.output != Path::new("-") && same_file(&a.input, &a.output) {
        return Err(UsageError(format!(
            "{}: the output is the input; write to another file",
            a.output.display()
        ))
        .into());
    }
    match fmt {
        Target::Cat(format) => cat::run(&cat::Args {
            file: a.input.clone(),
            sheet: a.sheet.clone(),
            format,
            output: Some(a.output.clone()),
            skip_rows: a.skip_rows,
            n_rows: a.n_rows,
            header_row: a.header_row,
            stats: false,
            password: a.password.clone(),
        }),
        Target::Xlsx => to_xlsx(a),
    }
}

/// True when both paths name one existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

fn to_xlsx(a: &Args) -> Result<()> {
    let mut opts = OpenOptions::new().load_cells(false);
    if let Some(p) = &a.password {
        opts = opts.password(p.as_str());
    }
    let input = read_input(&a.input, opts.map_mode)?;
    let wb = input.open(&opts)?;
    let sel = a.sheet.as_deref().unwrap_or("all");
    let sheets = select_sheets(&wb, Some(sel))?;
    let wopts = WriteOptions {
        strings: if a.inline_strings {
            Strings::Inline
        } else {
            Strings::Shared
        },
        date_1904: wb.is_1904(),
        ..WriteOptions::default()
    };
    let mut out = match &a.template {
        None => WorkbookWriter::new(wopts),
        Some(t) => {
            let template = w::Template::open(t)?;
            let mut topts = w::TemplateOptions::new();
            if let Some(s) = &a.template_sheet {
                topts = match s.parse::<usize>() {
                    Ok(i) => topts.sheet_index(i),
                    Err(_) => topts.sheet_name(s.as_str()),
                };
            }
            if let Some(r) = a.start_row {
                topts = topts.start_row(r);
            }
            WorkbookWriter::with_template(wopts, &template, &topts)?
        }
    };
    // Days to add to a date serial read so that it shows the same date in
    // the output's date system (a template's may differ from the input's).
    let days = match (wb.is_1904(), out.is_1904()) {
        (true, false) => 1462.0,
        (false, true) => -1462.0,
        _ => 0.0,
    };
    let mut writers = Vec::with_capacity(sheets.len());
    for s in &sheets {
        let mut sw = out
            .add_sheet(s.name())
            .with_context(|| format!("{}: sheet {:?}", input.name, s.name()))?;
        sw.set_visibility(s.visibility());
        if a.header_row.is_some() && a.template.is_none() {
            sw.freeze_rows(1)?;
        }
        writers.push(sw);
    }
    if sheets
        .iter()
        .all(|s| s.visibility() != ream::sheet::Visibility::Visible)
        && let Some(first) = writers.first_mut()
    {
        first.set_visibility(ream::sheet::Visibility::Visible);
    }
    let result = w::write_parallel(writers, a.threads, |sw| {
        let s = sheets
            .get(sw.index())
            .ok_or_else(|| w::Error::usage("sheet index out of range"))?;
        copy_sheet(&wb, s, sw, a, days)
    });
    result.map_err(|e| name_read_error(e.into(), &input.name))?;
    if a.output == Path::new("-") {
        let stdout = std::io::stdout().lock();
        out.save(std::io::BufWriter::with_capacity(1 << 20, stdout))
            .context("writing to standard output")?;
        return Ok(());
    }
    let file = std::fs::File::create(&a.output)
        .with_context(|| format!("creating {}", a.output.display()))?;
    out.save(std::io::BufWriter::with_capacity(1 << 20, file))
        .with_context(|| format!("writing {}", a.output.display()))?;
    Ok(())
}

/// Streams the rows of input sheet `s` into `sw`.
fn copy_sheet(
    wb: &Workbook,
    s: &Sheet,
    sw: &mut SheetWriter,
    a: &Args,
    days: f64,
) -> w::Result<()> {
    let read_err = |e: ream::sheet::Error| {
        w::Error::new(e.kind(), format!("reading sheet {:?}: {e}", s.name()))
    };
    let mut first = a.skip_rows;
    let base = sw.start_row();
    let mut shift = base;
    if let Some(h) = a.header_row {
        let one = RowOptions {
            skip_rows: h,
            n_rows: Some(1),
        };
        let mut r = wb.rows_with(s.index(), one).map_err(read_err)?;
        if let Some(row) = r.next_row().map_err(read_err)?
            && row.index() == h
        {
            write_row(sw, base, &row, days)?;
        }
        first = first.max(h.saturating_add(1));
        shift = base.saturating_add(1);
    }
    let opts = RowOptions {
        skip_rows: first,
        n_rows: a.n_rows,
    };
    let mut rows = wb.rows_with(s.index(), opts).map_err(read_err)?;
    while let Some(row) = rows.next_row().map_err(read_err)? {
        let at = (row.index() - first.min(row.index())).saturating_add(shift);
        write_row(sw, at, &row, days)?;
    }
    Ok(())
}

/// Writes one input row at output row `at`.
fn write_row(
    sw: &mut SheetWriter,
    at: u32,
    row: &ream::sheet::RowRef<'_>,
    days: f64,
) -> w::Result<()> {
    let cells: Vec<w::Cell<'_>> = row
        .cells()
        .map(|c| w::Cell {
            col: c.col,
            value: value(&c.value, days),
            formula: c.formula,
            format: None,
        })
        .collect();
    sw.write_row(at, &cells)
}

/// The writer's value for a value read, dates moved by `days` (to the
/// output's date system).
fn value<'a>(v: &RValue<'a>, days: f64) -> w::Value<'a> {
    match *v {
        RValue::Number(x) => w::Value::Number(x),
        RValue::String(s) => w::Value::String(s),
        RValue::Bool(b) => w::Value::Bool(b),
        RValue::Error(e) => w::Value::Error(e),
        RValue::Empty => w::Value::Empty,
        RValue::DateTime(d) => {
            let style = match d.kind {
                DateKind::DateTime if d.serial.fract() == 0.0 => DateStyle::Date,
                DateKind::DateTime => DateStyle::DateTime,
                DateKind::Time => DateStyle::Time,
                DateKind::Duration => DateStyle::Duration,
            };
            let moved = if d.kind == DateKind::DateTime {
                d.serial + days
            } else {
                d.serial
            };
            w::Value::DateTime(moved, style)
        }
    }
}
