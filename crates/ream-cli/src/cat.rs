//! `ream cat`: print cells, streaming.
//!
//! Sheets are streamed row by row (`Workbook::rows_with`) from a workbook
//! opened without loading cells, so memory stays constant however big the
//! sheet; `--skip-rows`, `--n-rows` and `--header-row` stop the reading as
//! soon as the requested rows are out.
//!
//! Every row of a sheet has the same number of fields in `csv`, `tsv` and
//! `jsonl`: the sheet's width, from column A to the last column of the
//! sheet's declared dimension (the XLSX `<dimension>` element, read from
//! the head of the worksheet part), or, when the sheet declares none (ODS,
//! some writers), only `A1`, or a range to the last column (`XFD`: the
//! whole grid, not a used range), to the last column holding a cell
//! among the rows printed, found by a first streaming pass over the same
//! rows (constant memory, twice the reading). A row with cells beyond a
//! declared dimension is printed whole, wider than the others, and a
//! warning names the sheet and row (exit status 3). The layouts and the
//! value forms are in [`LONG_HELP`] (`ream cat --help`).
//!
//! With the default sheet (the first), or a sheet named exactly, an ODS
//! workbook is listed only up to that sheet's start
//! (`OpenOptions::sheets_needed`, `OpenOptions::sheet_needed_named`), so
//! `--n-rows` on a big `.ods` stops early too.

mod dense;
mod jsonl;

use crate::UsageError;
use crate::input::{Input, name_read_error, open_output, read_input, select_sheets, warn};
use crate::meter::{Meter, Report};
use crate::typed::TableFormat;
use anyhow::Result;
use ream::sheet::{CellRange, OpenOptions, RowOptions, RowReader, RowRef, Sheet, Workbook};
use std::path::PathBuf;

/// `ream cat --help`: the layouts of each format and how values are written.
pub const LONG_HELP: &str = "\
Print cells as CSV, TSV, JSON Lines rows or one JSON object per cell, streaming
in constant memory.

Layout:
  csv, tsv  One line per row from the first printed row to the last; an empty
            row prints as a line of empty fields. Every line of a sheet has the
            same number of fields: column A to the last column of the sheet's
            declared dimension, or, when it declares none (or only A1, or the
            whole grid to column XFD), of the widest printed row. A row wider
            than the declared dimension is printed whole and warned about (exit
            status 3). CSV quotes fields holding , \" CR or LF (RFC 4180); TSV
            escapes \\ tab CR LF as \\\\ \\t \\r \\n. With --header-row H, row H
            comes first.
  jsonl     One object per row that has cells:
            {\"sheet\":..,\"row\":N,\"values\":[..]} with one value per column (null
            for an empty cell). With --header-row H: one object per data row
            keyed by the header names, {\"a\":1,\"b\":\"x\"}, every key in every
            object; duplicate names become a, a_1, a_2; an empty header is
            __UNNAMED__{i} (i the 0-based column); no sheet or row keys.
  cells     One object per cell:
            {\"sheet\":..,\"row\":R,\"col\":C,\"type\":..,\"value\":..}, plus \"formula\"
            when the cell has one. Types: number, string, bool, error, date,
            time, duration, empty.
  arrow,     One sheet as typed columns (Arrow IPC stream; Parquet with Snappy),
  parquet   the columns the Python package gives: names from --header-row H
            (else column_0, column_1, ...), types inferred over every row by a
            first streaming pass: int64, float64, bool, string, date32,
            timestamp[ms], duration[ms] (durations and times of day), null. A
            column mixing types becomes string, every value as its csv text,
            with a warning (exit status 3); error cells are null, counted in a
            warning. Not with -s all.
  -s all    Every line or object starts with the sheet name: a first field
            (named `sheet` on a header line) in csv/tsv, a \"sheet\" key in jsonl
            (also with --header-row) and cells. Without `-s all` csv/tsv have
            no sheet field.
Rows and columns are 0-based (row 0 is the first row, cell A1).

Values:
  number    Shortest text that reads back to the same double: 7, 0.1, 1e+308,
            -1e-308 (integers below 2^53 without a fraction); JSON number.
  string    The text (quoted or escaped in csv/tsv); JSON string.
  bool      TRUE / FALSE in csv/tsv; true / false in JSON.
  error     #DIV/0! in csv/tsv; {\"error\":\"#DIV/0!\"} in JSON.
  date      ISO 8601 text: 2024-01-01 (midnight), 2024-01-01T10:10:10.5.
  time      10:10:10.123456.
            Fractions of a second keep the digits the value holds (a time of
            day to the microsecond, a date-time to about 10 microseconds) with
            the float noise below them dropped and trailing zeros trimmed.
  duration  [-]h:mm:ss[.ffffff], hours not wrapped at 24: 255:10:10; text in
            every format (JSON string).
  empty     A formula without a saved result: empty field in csv/tsv, null in
            jsonl, \"type\":\"empty\" with \"value\":null and its \"formula\" in cells.
A date, time or duration outside the calendar (year 0..9999, ±10^9 days) is
written as its serial number. Gaps (no cell) are empty fields / null.";

/// Output formats of `ream cat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Comma-separated values (RFC 4180 quoting).
    Csv,
    /// Tab-separated values (backslash escapes).
    Tsv,
    /// One JSON object per row (keyed by the header with --header-row).
    Jsonl,
    /// One JSON object per cell, with its type.
    Cells,
    /// Arrow IPC stream of one sheet, typed columns (see the help).
    Arrow,
    /// Parquet file of one sheet, typed columns (see the help).
    Parquet,
}

/// Arguments of `ream cat`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workbook (`-` reads standard input).
    pub file: PathBuf,
    /// Sheet name, 0-based index, or `all` [default: the first sheet].
    #[arg(short, long, value_name = "NAME|INDEX|all")]
    pub sheet: Option<String>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Csv)]
    pub format: Format,
    /// Write to this file instead of standard output (`-`: stdout).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Skip rows with an index below N (0-based row numbers, 0 to 2^32-1).
    #[arg(long, value_name = "N", default_value_t = 0,
          allow_negative_numbers = true, value_parser = crate::args::ranged::<u32>(0..=crate::args::MAX_ROW))]
    pub skip_rows: u32,
    /// Print at most N rows (data rows, after the header if any; 0 or more).
    #[arg(long, value_name = "N",
          allow_negative_numbers = true, value_parser = crate::args::ranged::<u64>(0..=i64::MAX))]
    pub n_rows: Option<u64>,
    /// Print row H first as the header; data rows start after it (0-based).
    #[arg(long, value_name = "H",
          allow_negative_numbers = true, value_parser = crate::args::ranged::<u32>(0..=crate::args::MAX_ROW))]
    pub header_row: Option<u32>,
    /// Measure the run and print statistics on standard error.
    #[arg(long)]
    pub stats: bool,
    /// Password of an encrypted XLS workbook, tried after Excel's default
    /// password "VelvetSweatshop" (default: none).
    #[arg(long, value_name = "PASSWORD")]
    pub password: Option<String>,
}

/// The readers of one sheet: the header row (when asked) and the data rows.
struct Readers<'w> {
    header: Option<RowReader<'w>>,
    data: RowReader<'w>,
    /// Index of the first data row.
    first: u32,
}

fn readers<'w>(wb: &'w Workbook, s: &Sheet, a: &Args) -> Result<Readers<'w>> {
    let mut first = a.skip_rows;
    let mut header = None;
    if let Some(h) = a.header_row {
        let one = RowOptions {
            skip_rows: h,
            n_rows: Some(1),
        };
        header = Some(wb.rows_with(s.index(), one)?);
        first = first.max(h.saturating_add(1));
    }
    let data = RowOptions {
        skip_rows: first,
        n_rows: a.n_rows,
    };
    Ok(Readers {
        header,
        data: wb.rows_with(s.index(), data)?,
        first,
    })
}

/// Number of fields a row needs: its last column + 1 (0 for no cells).
fn row_end(row: &RowRef<'_>) -> u32 {
    row.cells()
        .map(|c| c.col.saturating_add(1))
        .max()
        .unwrap_or(0)
}

/// The last column of a sheet (`XFD`, 0-based).
const LAST_COL: u32 = 16_383;

/// The width of one sheet's lines, and the dimension it comes from.
#[derive(Debug, Clone, Copy)]
struct Width {
    cols: u32,
    declared: Option<CellRange>,
}

/// Finds the sheet's width: its declared dimension, else a first pass over
/// the rows to print (see the module docs).
fn width(input: &Input, is_ods: bool, wb: &Workbook, s: &Sheet, a: &Args) -> Result<Width> {
    // `A1` is what writers declare when they do not know, a range to the
    // last column (`A1:XFD1048576`) one for the whole grid: neither is the
    // used range.
    let declared = (!is_ods)
        .then(|| ream::declared_dimension(&input.bytes, s.part()))
        .flatten()
        .filter(|d| (d.last_row, d.last_col) != (0, 0) && d.last_col < LAST_COL);
    if let Some(d) = declared {
        return Ok(Width {
            cols: d.last_col.saturating_add(1),
            declared,
        });
    }
    let mut r = readers(wb, s, a)?;
    let mut cols = 0;
    for reader in r.header.iter_mut().chain([&mut r.data]) {
        while let Some(row) = reader.next_row()? {
            cols = cols.max(row_end(&row));
        }
    }
    Ok(Width {
        cols,
        declared: None,
    })
}

/// Rows wider than the declared dimension, reported once per sheet.
#[derive(Debug, Default)]
struct WideRows {
    /// (row, fields) of the first such row.
    first: Option<(u32, u32)>,
    count: u64,
}

impl WideRows {
    /// Notes a row of `end` fields against the sheet's width.
    fn check(&mut self, w: &Width, row: u32, end: u32) {
        if w.declared.is_some() && end > w.cols {
            self.first.get_or_insert((row, end));
            self.count += 1;
        }
    }

    /// Warns on stderr (exit status 3) when a row was wider.
    fn report(&self, file: &str, sheet: &str, w: &Width) {
        let (Some((row, end)), Some(dim)) = (self.first, w.declared) else {
            return;
        };
        let more = match self.count {
            0 | 1 => String::new(),
            n => format!(" (and {} more rows)", n - 1),
        };
        let last = ream::sheet::cell_name(row, end.saturating_sub(1));
        warn(&format!(
            "{file}: sheet {sheet:?}: row {row}{more} has cells beyond the declared dimension \
             {dim} (up to {last}): printed with {end} fields instead of {}",
            w.cols
        ));
    }
}

impl Format {
    /// The typed table format, for `arrow` and `parquet`.
    fn table(self) -> Option<TableFormat> {
        match self {
            Format::Arrow => Some(TableFormat::Arrow),
            Format::Parquet => Some(TableFormat::Parquet),
            _ => None,
        }
    }
}

/// `--format arrow|parquet`: one sheet as typed columns through
/// `ream_arrow::iter_batches` (a first streaming pass infers the types,
/// then batches of 65,536 rows are written: constant memory). The rows
/// are those csv prints; with `--header-row H` the names come from row H,
/// else the columns are `column_0`, `column_1`, ...
fn write_typed(
    file: &str,
    wb: &Workbook,
    sheets: &[&Sheet],
    a: &Args,
    table: TableFormat,
    meter: Option<Meter>,
) -> Result<()> {
    let (false, [s]) = (a.sheet.as_deref() == Some("all"), sheets) else {
        return Err(UsageError(
            "--format arrow and parquet write one sheet: choose it with -s NAME|INDEX".into(),
        )
        .into());
    };
    let first = match a.header_row {
        Some(h) => a.skip_rows.max(h.saturating_add(1)) - h.saturating_add(1),
        None => a.skip_rows,
    };
    let opts = ream_arrow::ReadOptions {
        header_row: a.header_row,
        skip_rows: first,
        n_rows: a.n_rows,
        ..ream_arrow::ReadOptions::default()
    };
    let mut batches = ream_arrow::iter_batches(wb, s.index(), &opts, 1 << 16)?;
    let schema = batches.schema();
    let rows = crate::typed::write(
        a.output.as_ref(),
        table,
        schema,
        batches.by_ref().map(|b| b.map_err(anyhow::Error::from)),
    )?;
    for w in batches.warnings() {
        warn(&format!("{file}: {w}"));
    }
    if let Some(m) = meter {
        let m = m.stop();
        crate::stats::print_to_stderr(&Report::new(m, wb, vec![(s.name().to_string(), rows)]));
    }
    Ok(())
}

/// Runs `ream cat`.
pub fn run(a: &Args) -> Result<()> {
    let meter = a.stats.then(Meter::start);
    let mut opts = OpenOptions::new().load_cells(false);
    match a.sheet.as_deref() {
        // Only the first sheet is printed: an ODS listing can stop at its
        // start instead of inflating all of `content.xml`.
        None => opts = opts.sheets_needed(1),
        Some("all") => {}
        // An exact name wins over an index or a case-insensitive match
        // (`select_sheets`), so the listing may stop at the first sheet of
        // that name; without one it runs to the end and the others apply.
        Some(sel) => opts = opts.sheet_needed_named(sel),
    }
    if let Some(p) = &a.password {
        opts = opts.password(p.as_str());
    }
    let input = read_input(&a.file, opts.map_mode)?;
    let wb = input.open(&opts)?;
    let sheets = select_sheets(&wb, a.sheet.as_deref())?;
    write_sheets(&input, &wb, &sheets, a, meter).map_err(|e| name_read_error(e, &input.name))
}

/// Writes the selected sheets (the body of [`run`] once the workbook is
/// open).
fn write_sheets(
    input: &Input,
    wb: &Workbook,
    sheets: &[&Sheet],
    a: &Args,
    meter: Option<Meter>,
) -> Result<()> {
    if let Some(table) = a.format.table() {
        return write_typed(&input.name, wb, sheets, a, table, meter);
    }
    let mut out = open_output(a.output.as_ref())?;
    let tag = a.sheet.as_deref() == Some("all");
    let is_ods = a.format != Format::Cells && ream::sniff_bytes(&input.bytes) == ream::Format::Ods;
    let mut counts = Vec::new();
    for s in sheets {
        let n = if a.format == Format::Cells {
            let mut r = readers(wb, s, a)?;
            let mut n = 0;
            for reader in r.header.iter_mut().chain([&mut r.data]) {
                n += jsonl::write_cells(&mut out, s.name(), reader)?;
            }
            n
        } else {
            let width = width(input, is_ods, wb, s, a)?;
            let mut wide = WideRows::default();
            let r = readers(wb, s, a)?;
            let sheet = tag.then(|| s.name());
            let n = match a.format {
                Format::Csv => {
                    dense::write(&mut out, sheet, r, &width, dense::Sep::Comma, &mut wide)?
                }
                Format::Tsv => {
                    dense::write(&mut out, sheet, r, &width, dense::Sep::Tab, &mut wide)?
                }
                _ if a.header_row.is_some() => {
                    jsonl::write_objects(&mut out, sheet, r, &width, &mut wide)?
                }
                _ => jsonl::write_arrays(&mut out, s.name(), r, &width, &mut wide)?,
            };
            wide.report(&input.name, s.name(), &width);
            n
        };
        counts.push((s.name().to_string(), n));
    }
    out.flush()?;
    if let Some(m) = meter {
        let m = m.stop();
        crate::stats::print_to_stderr(&Report::new(m, wb, counts));
    }
    Ok(())
}
