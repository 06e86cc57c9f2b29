//! The workbook: sheets handed out to writers, the shared parts, and the
//! assembly of the package.

use crate::deflate::{BodyDeflater, deflate_all};
use crate::error::{Error, Result};
use crate::limits::MAX_SHEET_NAME_CHARS;
use crate::options::{Strings, WriteOptions};
use crate::parts;
use crate::sheet::{FinishedSheet, SheetWriter};
use crate::spool::Spool;
use crate::sst::SharedStrings;
use crate::styles::{NumberFormat, StyleBook};
use crate::template::{ParsedSheet, RenderedRows, Template, TemplateOptions};
use crate::value::DateStyle;
use crate::zip::ZipWriter;
use ream_sheet::Visibility;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// State the workbook shares with its sheet writers.
pub(crate) struct Shared {
    pub opts: WriteOptions,
    pub sst: Option<SharedStrings>,
    /// The cell formats, with those registered while writing.
    pub styles: Mutex<StyleBook>,
    /// The cell format of each [`DateStyle`], in [`DateStyle::ALL`] order.
    pub date_xf: [u32; 4],
    /// The template sheet every sheet starts as.
    pub template: Option<TemplateCopy>,
    done: Mutex<Vec<Option<FinishedSheet>>>,
    /// Compressed bytes of finished sheets held in memory.
    held: AtomicUsize,
}

/// A template sheet as the sheet writers copy it.
pub(crate) struct TemplateCopy {
    pub sheet: ParsedSheet,
    pub rows: RenderedRows,
}

impl Shared {
    /// Registers number format `code` (see [`StyleBook::register`]).
    pub(crate) fn number_format(&self, code: &str) -> Result<NumberFormat> {
        self.styles
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .register(code)
    }

    /// True when cell format `xf` shows numbers as General.
    pub(crate) fn is_general(&self, xf: u32) -> bool {
        self.styles
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_general(xf)
    }

    /// Stores a finished sheet, moving its bytes to a temporary file when
    /// the finished sheets would hold more than the memory budget.
    pub(crate) fn finished(&self, index: usize, mut sheet: FinishedSheet) -> Result<()> {
        let mem = sheet.compressed.body.mem_len();
        let before = self.held.fetch_add(mem, Ordering::Relaxed);
        if before + mem > self.opts.memory_budget {
            self.held.fetch_sub(mem, Ordering::Relaxed);
            sheet
                .compressed
                .body
                .spill()
                .map_err(|e| Error::io("spilling a finished sheet to a temporary file", e))?;
        }
        let mut done = self.done.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(slot) = done.get_mut(index) {
            *slot = Some(sheet);
        }
        Ok(())
    }
}

/// A defined name as added by [`WorkbookWriter::define_name`].
#[derive(Debug, Clone)]
struct Name {
    name: String,
    formula: String,
    local_sheet: Option<usize>,
    hidden: bool,
}

/// Writes an XLSX workbook whose sheets are streamed row by row.
///
/// Add sheets with [`add_sheet`](WorkbookWriter::add_sheet), fill each
/// [`SheetWriter`] (on any thread, several at once; see
/// [`write_parallel`]), finish them, then [`save`](WorkbookWriter::save).
pub struct WorkbookWriter {
    shared: Arc<Shared>,
    names: Vec<String>,
    defined: Vec<Name>,
    theme: Option<Vec<u8>>,
}

impl WorkbookWriter {
    /// A workbook with no sheets yet.
    pub fn new(opts: WriteOptions) -> WorkbookWriter {
        let sst = (opts.strings == Strings::Shared).then(SharedStrings::new);
        let styles = StyleBook::own();
        WorkbookWriter {
            shared: Arc::new(Shared {
                opts,
                sst,
                styles: Mutex::new(styles),
                date_xf: [1, 2, 3, 4],
                template: None,
                done: Mutex::new(Vec::new()),
                held: AtomicUsize::new(0),
            }),
            names: Vec::new(),
            defined: Vec::new(),
            theme: None,
        }
    }

    /// A workbook whose every sheet starts as a copy of a template
    /// sheet, and which carries the template's styles and theme.
    ///
    /// Each sheet added gets the template sheet's views, default row
    /// format, column widths and its rows above
    /// [`TemplateOptions::start_row`] (cells keep their formats; texts go
    /// to this workbook's string table, or inline, rich text flattened to
    /// plain text), then the rows written from `start_row` on; merged
    /// cells, conditional formats, data validations, print options,
    /// margins and page setup after the sheet data are kept as written.
    /// What the sheet reaches through relationships (drawings, comments,
    /// tables, printer settings, external hyperlinks) and the template's
    /// other sheets and defined names are not copied. A new cell with no
    /// format of its own takes its column's: the format of the template's
    /// cell in that column on row `start_row`, or, without such a row, the
    /// column's own format (`<col style>`); a date in a column whose format
    /// shows numbers as General keeps its [`DateStyle`].
    /// [`SheetWriter::freeze_rows`] replaces the template's views, and
    /// explicit widths or autofit replace its column widths. The date
    /// system is the template's (`opts.date_1904` is overridden).
    /// Registered number formats are appended to the template's without
    /// changing its indexes.
    pub fn with_template(
        mut opts: WriteOptions,
        template: &Template,
        topts: &TemplateOptions,
    ) -> Result<WorkbookWriter> {
        let loaded = template.load(topts)?;
        opts.date_1904 = loaded.date_1904;
        let sst = (opts.strings == Strings::Shared).then(SharedStrings::new);
        let mut styles = match loaded.styles {
            Some((xml, what)) => StyleBook::parse(xml, &what)?,
            None => StyleBook::own(),
        };
        let mut date_xf = [0u32; 4];
        for (slot, d) in date_xf.iter_mut().zip(DateStyle::ALL) {
            *slot = styles.register(d.format_code())?.0;
        }
        let base = styles.base_count();
        let rows = loaded.sheet.render(sst.as_ref(), opts.strings)?;
        let mut sheet = loaded.sheet;
        for s in sheet.col_styles.iter_mut() {
            if s.is_some_and(|x| x as usize >= base) {
                *s = None;
            }
        }
        Ok(WorkbookWriter {
            shared: Arc::new(Shared {
                opts,
                sst,
                styles: Mutex::new(styles),
                date_xf,
                template: Some(TemplateCopy { sheet, rows }),
                done: Mutex::new(Vec::new()),
                held: AtomicUsize::new(0),
            }),
            names: Vec::new(),
            defined: Vec::new(),
            theme: loaded.theme,
        })
    }

    /// Registers number format `code` (e.g. `0.00%`, `dd/mm/yyyy`,
    /// `#,##0 "EUR"`; 1 to 255 characters) and returns the cell format
    /// that shows numbers with it, for [`Cell::with_format`](crate::Cell::with_format)
    /// and [`SheetWriter::set_column_format`]. Built-in codes (`0.00`,
    /// `0%`, `mm-dd-yy`, `@`, ...) keep their built-in ids; the same code
    /// twice gives the same format. Custom codes are written to
    /// `styles.xml` as they are: Excel checks them when it opens the file.
    pub fn number_format(&self, code: &str) -> Result<NumberFormat> {
        self.shared.number_format(code)
    }

    /// Adds a sheet named `name` at the end and returns its writer.
    /// Names are 1 to 31 characters without `[ ] : * ? / \`, not starting
    /// or ending with `'`, unique ignoring case.
    pub fn add_sheet(&mut self, name: &str) -> Result<SheetWriter> {
        check_sheet_name(name)?;
        let lower = name.to_lowercase();
        if self.names.iter().any(|n| n.to_lowercase() == lower) {
            return Err(Error::usage(format!(
                "a sheet named {name:?} already exists"
            )));
        }
        let index = self.names.len();
        self.names.push(name.to_string());
        self.shared
            .done
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(None);
        Ok(SheetWriter::new(
            Arc::clone(&self.shared),
            index,
            name.to_string(),
        ))
    }

    /// Adds a defined name standing for `formula` (without `=`, e.g.
    /// `Data!$A$1:$C$9`), workbook-wide or local to sheet `local_sheet`.
    pub fn define_name(
        &mut self,
        name: &str,
        formula: &str,
        local_sheet: Option<usize>,
        hidden: bool,
    ) -> Result<()> {
        check_defined_name(name)?;
        if let Some(s) = local_sheet
            && s >= self.names.len()
        {
            return Err(Error::usage(format!(
                "defined name {name:?}: no sheet {s} (the workbook has {})",
                self.names.len()
            )));
        }
        let lower = name.to_lowercase();
        if self
            .defined
            .iter()
            .any(|d| d.local_sheet == local_sheet && d.name.to_lowercase() == lower)
        {
            return Err(Error::usage(format!(
                "defined name {name:?} already exists"
            )));
        }
        self.defined.push(Name {
            name: name.to_string(),
            formula: formula.strip_prefix('=').unwrap_or(formula).to_string(),
            local_sheet,
            hidden,
        });
        Ok(())
    }

    /// True when date serials count from 1904 (the option, or with a
    /// template the template's date system).
    pub fn is_1904(&self) -> bool {
        self.shared.opts.date_1904
    }

    /// Writes the package to `path` (see [`save`](WorkbookWriter::save)).
    pub fn save_path(self, path: impl AsRef<Path>) -> Result<u64> {
        let p = path.as_ref();
        let f = std::fs::File::create(p)
            .map_err(|e| Error::io(&format!("creating {}", p.display()), e))?;
        let out = std::io::BufWriter::with_capacity(1 << 20, f);
        self.save(out)
    }

    /// Writes the package to `out` (sequentially: a pipe will do) once
    /// every sheet is finished; returns its size in bytes.
    pub fn save<W: Write>(self, out: W) -> Result<u64> {
        let WorkbookWriter {
            shared,
            names,
            defined,
            theme,
        } = self;
        if names.is_empty() {
            return Err(Error::usage("a workbook needs at least one sheet"));
        }
        let shared = Arc::try_unwrap(shared).map_err(|_| {
            Error::usage("a sheet writer is still alive: finish every sheet before saving")
        })?;
        let done = shared.done.into_inner().unwrap_or_else(|p| p.into_inner());
        let mut sheets = Vec::with_capacity(done.len());
        for (name, d) in names.iter().zip(done) {
            sheets.push(d.ok_or_else(|| {
                Error::usage("the sheet was not finished (call SheetWriter::finish)").in_sheet(name)
            })?);
        }
        if sheets.iter().all(|s| s.visibility != Visibility::Visible) {
            return Err(Error::usage("a workbook needs at least one visible sheet"));
        }
        let level = shared.opts.compression_level;
        let mut all_names: Vec<parts::NameEntry<'_>> = defined
            .iter()
            .map(|d| parts::NameEntry {
                name: &d.name,
                formula: &d.formula,
                local_sheet: d.local_sheet,
                hidden: d.hidden,
            })
            .collect();
        let filters: Vec<(usize, String)> = sheets
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.filter.map(|r| (i, filter_formula(names.get(i), r))))
            .collect();
        for (i, f) in &filters {
            all_names.push(parts::NameEntry {
                name: "_xlnm._FilterDatabase",
                formula: f,
                local_sheet: Some(*i),
                hidden: true,
            });
        }
        let entries: Vec<parts::SheetEntry<'_>> = names
            .iter()
            .zip(&sheets)
            .map(|(n, s)| parts::SheetEntry {
                name: n,
                visibility: s.visibility,
            })
            .collect();
        let has_sst = shared.sst.is_some();
        let small = |b: Vec<u8>| deflate_all(&b, level).map_err(|e| Error::io("compressing", e));
        let mut z = ZipWriter::new(out);
        z.add(
            "[Content_Types].xml",
            small(parts::content_types(sheets.len(), has_sst, theme.is_some()))?,
        )?;
        z.add("_rels/.rels", small(parts::root_rels())?)?;
        z.add(
            "xl/workbook.xml",
            small(parts::workbook(&entries, &all_names, shared.opts.date_1904))?,
        )?;
        z.add(
            "xl/_rels/workbook.xml.rels",
            small(parts::workbook_rels(sheets.len(), has_sst, theme.is_some()))?,
        )?;
        let styles = shared
            .styles
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
            .render();
        z.add("xl/styles.xml", small(styles)?)?;
        if let Some(t) = theme {
            z.add("xl/theme/theme1.xml", small(t)?)?;
        }
        if let Some(t) = shared.sst {
            let refs = t.refs();
            let texts = t.into_ordered();
            let spool = Spool::new(shared.opts.spill_threshold, shared.opts.temp_dir.clone());
            let mut d = BodyDeflater::new(level, spool);
            let io = |e| Error::io("compressing the shared strings", e);
            let mut buf = parts::sst_head(refs, texts.len());
            for s in &texts {
                parts::sst_item(&mut buf, s);
                if buf.len() >= 1 << 17 {
                    d.write(&buf).map_err(io)?;
                    buf.clear();
                }
            }
            buf.extend_from_slice(b"</sst>");
            d.write(&buf).map_err(io)?;
            drop(texts);
            z.add("xl/sharedStrings.xml", d.finish(&[], level).map_err(io)?)?;
        }
        for (i, s) in sheets.into_iter().enumerate() {
            z.add(&format!("xl/worksheets/sheet{}.xml", i + 1), s.compressed)?;
        }
        Ok(z.finish()?.1)
    }
}

/// `'Sheet name'!$A$1:$D$9` for an autofilter's defined name.
fn filter_formula(name: Option<&String>, r: ream_sheet::CellRange) -> String {
    let n = name.map_or("", |s| s.as_str()).replace('\'', "''");
    let abs = |row: u32, col: u32| format!("${}${}", ream_sheet::col_name(col), u64::from(row) + 1);
    format!(
        "'{n}'!{}:{}",
        abs(r.first_row, r.first_col),
        abs(r.last_row, r.last_col)
    )
}

fn check_sheet_name(name: &str) -> Result<()> {
    let bad = |why: &str| Err(Error::usage(format!("sheet name {name:?} {why}")));
    let n = name.chars().count();
    if n == 0 {
        return bad("is empty");
    }
    if n > MAX_SHEET_NAME_CHARS {
        return bad("is longer than 31 characters");
    }
    if let Some(c) = name
        .chars()
        .find(|c| "[]:*?/\\".contains(*c) || c.is_control())
    {
        return bad(&format!("holds {c:?}, which sheet names may not"));
    }
    if name.starts_with('\'') || name.ends_with('\'') {
        return bad("starts or ends with an apostrophe");
    }
    Ok(())
}

fn check_defined_name(name: &str) -> Result<()> {
    let bad = |why: &str| Err(Error::usage(format!("defined name {name:?} {why}")));
    let mut chars = name.chars();
    match chars.next() {
        None => return bad("is empty"),
        Some(c) if !(c.is_alphabetic() || c == '_' || c == '\\') => {
            return bad("must start with a letter, `_` or `\\`");
        }
        _ => {}
    }
    if name.chars().count() > 255 {
        return bad("is longer than 255 characters");
    }
    if let Some(c) = chars.find(|c| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '\\'))) {
        return bad(&format!("holds {c:?}"));
    }
    if ream_sheet::CellRange::parse(name).is_some() || is_r1c1(name) {
        return bad("looks like a cell reference");
    }
    Ok(())
}

/// True for R1C1-style references (`R`, `C`, `R1C1`, `r2c`).
fn is_r1c1(name: &str) -> bool {
    let u = name.to_ascii_uppercase();
    let rest = u.strip_prefix('R').map_or(u.as_str(), |r| r);
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.strip_prefix('C').map_or(rest, |r| r);
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    rest.is_empty()
}

/// Runs `fill` on every sheet, `threads` at a time (0: one per core,
/// never more than the sheets), then finishes each. Sheets are taken in
/// order from a shared queue; 0 or 1 thread runs them on the calling
/// thread. With more threads than sheets, each sheet is also deflated on
/// a helper thread ([`SheetWriter::deflate_on_helper_thread`]). The first
/// error stops the remaining sheets and is returned.
pub fn write_parallel<F>(sheets: Vec<SheetWriter>, threads: usize, fill: F) -> Result<()>
where
    F: Fn(&mut SheetWriter) -> Result<()> + Sync,
{
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let spare = threads > sheets.len();
    let threads = threads.min(sheets.len());
    let run = |mut s: SheetWriter| -> Result<()> {
        if spare {
            s.deflate_on_helper_thread();
        }
        fill(&mut s)?;
        s.finish()
    };
    if threads <= 1 {
        return sheets.into_iter().try_for_each(run);
    }
    let queue = Mutex::new(sheets.into_iter());
    let first_error: Mutex<Option<Error>> = Mutex::new(None);
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let next = queue.lock().unwrap_or_else(|p| p.into_inner()).next();
                    let Some(s) = next else { break };
                    if let Err(e) = run(s) {
                        stop.store(true, Ordering::Relaxed);
                        first_error
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .get_or_insert(e);
                    }
                }
            });
        }
    });
    match first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(check_sheet_name("Data 2024").is_ok());
        for bad in ["", "a/b", "x[1]", "'q", &"n".repeat(32)] {
            assert!(check_sheet_name(bad).is_err(), "{bad:?}");
        }
        assert!(check_defined_name("Totals").is_ok());
        assert!(check_defined_name("_xlnm.Print_Area").is_ok());
        for bad in ["", "1abc", "A1", "R1C1", "r", "has space"] {
            assert!(check_defined_name(bad).is_err(), "{bad:?}");
        }
    }
}
