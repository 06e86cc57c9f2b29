//! One worksheet written row by row: cells become XML in a small buffer
//! that is deflated as it fills, so memory stays constant however many
//! rows come.

use crate::deflate::{BodyDeflater, Compressed};
use crate::error::{Error, Result};
use crate::escape::{escape_into, excel_len, needs_preserve, too_long};
use crate::limits::{MAX_COLS, MAX_FORMULA_CHARS, MAX_ROWS};
use crate::options::Strings;
use crate::pipe::Body;
use crate::spool::Spool;
use crate::sst::LocalCache;
use crate::styles::NumberFormat;
use crate::value::{Cell, Value};
use crate::workbook::Shared;
use ream_sheet::{CellRange, Visibility};
use std::sync::Arc;

/// XML buffered before it is handed to the deflater.
const BUF_FLUSH: usize = 128 << 10;

/// A sheet as the workbook assembles it.
pub(crate) struct FinishedSheet {
    pub compressed: Compressed,
    pub visibility: Visibility,
    pub filter: Option<CellRange>,
}

/// Where the autofilter goes.
#[derive(Debug, Clone, Copy)]
enum Filter {
    Range(CellRange),
    UsedRange,
}

/// Writes one worksheet, row by row, in constant memory (see the crate
/// docs). Rows must come in increasing order and the cells of a row in
/// increasing columns. `Send`: sheets of one workbook may be written on
/// different threads at once. Call [`finish`](SheetWriter::finish) when
/// done; a sheet dropped unfinished makes `WorkbookWriter::save` fail.
pub struct SheetWriter {
    shared: Arc<Shared>,
    index: usize,
    name: String,
    body: Body,
    buf: Vec<u8>,
    /// The lowest row index the next row may have.
    next_row: u32,
    used: Option<CellRange>,
    widths: Vec<(u32, u32, f64)>,
    freeze_rows: u32,
    filter: Option<Filter>,
    visibility: Visibility,
    autofit: Option<Vec<usize>>,
    cache: LocalCache,
    string_refs: u64,
    /// Each column's cell format for cells without their own, and whether
    /// it shows numbers as General (dates then keep their style).
    col_xf: Vec<Option<(u32, bool)>>,
}

impl SheetWriter {
    pub(crate) fn new(shared: Arc<Shared>, index: usize, name: String) -> SheetWriter {
        let o = &shared.opts;
        let spool = Spool::new(o.spill_threshold, o.temp_dir.clone());
        let body = Body::Inline(Box::new(BodyDeflater::new(o.compression_level, spool)));
        let mut buf = Vec::with_capacity(BUF_FLUSH + 4096);
        let (mut next_row, mut used, mut string_refs, mut col_xf) = (0, None, 0, Vec::new());
        if let Some(t) = &shared.template {
            buf.extend_from_slice(&t.rows.xml);
            next_row = t.sheet.start_row;
            used = t.rows.used;
            string_refs = t.rows.string_refs;
            col_xf = t
                .sheet
                .col_styles
                .iter()
                .map(|s| s.map(|x| (x, shared.is_general(x))))
                .collect();
        }
        SheetWriter {
            shared,
            index,
            name,
            body,
            buf,
            next_row,
            used,
            widths: Vec::new(),
            freeze_rows: 0,
            filter: None,
            visibility: Visibility::Visible,
            autofit: None,
            cache: LocalCache::new(),
            string_refs,
            col_xf,
        }
    }

    /// The sheet's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The sheet's 0-based position in the workbook.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The first row new data may go to: 0, or with a template its start
    /// row ([`TemplateOptions::start_row`](crate::TemplateOptions::start_row)).
    pub fn start_row(&self) -> u32 {
        self.shared
            .template
            .as_ref()
            .map_or(0, |t| t.sheet.start_row)
    }

    /// The used range so far (`None` before the first cell).
    pub fn used_range(&self) -> Option<CellRange> {
        self.used
    }

    /// Sets the width (in characters of the default font, 0-255) of
    /// columns `first..=last` (0-based). May be called any time before
    /// [`finish`](SheetWriter::finish); overrides autofit for those columns.
    pub fn set_column_width(&mut self, first: u32, last: u32, width: f64) -> Result<()> {
        if first > last || last >= MAX_COLS {
            return Err(Error::limit(format!(
                "column range {first}..={last} is outside 0..=16383"
            ))
            .in_sheet(&self.name));
        }
        if !(0.0..=255.0).contains(&width) {
            return Err(
                Error::usage(format!("column width {width} is outside 0..=255"))
                    .in_sheet(&self.name),
            );
        }
        self.widths.push((first, last, width));
        Ok(())
    }

    /// Registers number format `code` with the workbook (see
    /// [`WorkbookWriter::number_format`](crate::WorkbookWriter::number_format)).
    pub fn number_format(&self, code: &str) -> Result<NumberFormat> {
        self.shared
            .number_format(code)
            .map_err(|e| e.in_sheet(&self.name))
    }

    /// Shows the cells of 0-based column `col` written from now on with
    /// number format `code` (registered as by
    /// [`number_format`](SheetWriter::number_format)), unless a cell has its
    /// own format. Replaces the column's template format; default: none.
    pub fn set_column_format(&mut self, col: u32, code: &str) -> Result<NumberFormat> {
        if col >= MAX_COLS {
            return Err(
                Error::limit(format!("column {col} is outside 0..=16383")).in_sheet(&self.name)
            );
        }
        let f = self.number_format(code)?;
        let i = col as usize;
        if self.col_xf.len() <= i {
            self.col_xf.resize(i + 1, None);
        }
        if let Some(slot) = self.col_xf.get_mut(i) {
            *slot = Some((f.0, self.shared.is_general(f.0)));
        }
        Ok(f)
    }

    /// Freezes the top `rows` rows (1 for a header row; 0, the default,
    /// freezes nothing).
    pub fn freeze_rows(&mut self, rows: u32) -> Result<()> {
        if rows >= MAX_ROWS {
            return Err(Error::limit(format!("cannot freeze {rows} rows")).in_sheet(&self.name));
        }
        self.freeze_rows = rows;
        Ok(())
    }

    /// Puts an autofilter on `range` (its first row holds the headers).
    pub fn set_autofilter(&mut self, range: CellRange) {
        self.filter = Some(Filter::Range(range));
    }

    /// Puts an autofilter on the used range as it is when the sheet is
    /// finished (nothing when the sheet has no cells).
    pub fn autofilter_used_range(&mut self) {
        self.filter = Some(Filter::UsedRange);
    }

    /// Hides the sheet tab (default [`Visibility::Visible`]). A workbook
    /// needs at least one visible sheet.
    pub fn set_visibility(&mut self, v: Visibility) {
        self.visibility = v;
    }

    /// Sets column widths from the longest value written in each column
    /// (text length in characters, numbers as written, dates as their
    /// format), between 8.43 and 100 (default off). Only rows written
    /// after the call count.
    pub fn set_autofit(&mut self, on: bool) {
        self.autofit = on.then(Vec::new);
    }

    /// Writes the cells of row `row` (0-based). Rows must increase from
    /// call to call, and columns within a row. A row is checked whole
    /// before any of it is written: on an error nothing of it is kept and
    /// the sheet can go on.
    pub fn write_row(&mut self, row: u32, cells: &[Cell<'_>]) -> Result<()> {
        self.check_row(row, cells)
            .map_err(|e| e.in_sheet(&self.name))?;
        self.next_row = row + 1;
        let mut any = false;
        for c in cells {
            if is_blank(c) {
                continue;
            }
            if !any {
                any = true;
                self.buf.extend_from_slice(b"<row r=\"");
                push_u64(&mut self.buf, u64::from(row) + 1);
                self.buf.extend_from_slice(b"\">");
            }
            self.write_cell(row, c)
                .map_err(|e| e.in_sheet(&self.name).at_cell(row, c.col))?;
        }
        if any {
            self.buf.extend_from_slice(b"</row>");
            let last = cells.iter().rev().find(|c| !is_blank(c));
            let first = cells.iter().find(|c| !is_blank(c));
            if let (Some(f), Some(l)) = (first, last) {
                self.grow_used(row, f.col, l.col);
            }
            if self.buf.len() >= BUF_FLUSH {
                self.flush_buf()?;
            }
        }
        Ok(())
    }

    /// Writes `values` as the next row (after the last one written, or row
    /// 0), from column A; `Value::Empty` leaves a gap.
    pub fn append_row(&mut self, values: &[Value<'_>]) -> Result<()> {
        let row = self.next_row;
        let mut cells = Vec::with_capacity(values.len());
        for (col, v) in (0u32..).zip(values) {
            cells.push(Cell::new(col, *v));
        }
        self.write_row(row, &cells)
    }

    /// Checks a row's index, columns, numbers and text lengths.
    fn check_row(&self, row: u32, cells: &[Cell<'_>]) -> Result<()> {
        if row >= MAX_ROWS {
            return Err(Error::limit(format!(
                "row {} is past the last row of a worksheet (1,048,576)",
                u64::from(row) + 1
            ))
            .at_cell(row, cells.first().map_or(0, |c| c.col)));
        }
        if row < self.next_row {
            return Err(Error::usage(format!(
                "row {} written after row {}: rows must increase",
                u64::from(row) + 1,
                self.next_row
            )));
        }
        let mut next_col = 0u32;
        for c in cells {
            let at = |e: Error| e.at_cell(row, c.col);
            if c.col >= MAX_COLS {
                return Err(Error::limit(format!(
                    "column {} is past the last column of a worksheet (XFD, 16,384)",
                    u64::from(c.col) + 1
                ))
                .at_cell(row, c.col));
            }
            if c.col < next_col {
                return Err(at(Error::usage(
                    "cells of a row must come in increasing columns",
                )));
            }
            next_col = c.col + 1;
            match c.value {
                Value::Number(x) | Value::DateTime(x, _) if !x.is_finite() => {
                    return Err(at(Error::usage(format!(
                        "{x} cannot be stored: XLSX numbers are finite"
                    ))));
                }
                Value::String(s) if too_long(s) => {
                    return Err(at(Error::limit(format!(
                        "text of {} characters is longer than a cell holds (32,767)",
                        excel_len(s)
                    ))));
                }
                _ => {}
            }
            if let Some(f) = c.formula
                && excel_len(f) > MAX_FORMULA_CHARS
            {
                return Err(at(Error::limit(format!(
                    "formula of {} characters is longer than Excel allows (8,192)",
                    excel_len(f)
                ))));
            }
        }
        Ok(())
    }

    fn grow_used(&mut self, row: u32, first: u32, last: u32) {
        let u = self.used.get_or_insert(CellRange {
            first_row: row,
            first_col: first,
            last_row: row,
            last_col: last,
        });
        u.first_col = u.first_col.min(first);
        u.last_col = u.last_col.max(last);
        u.last_row = row;
    }

    fn fit(&mut self, col: u32, len: usize) {
        if let Some(w) = &mut self.autofit {
            let i = col as usize;
            if w.len() <= i {
                w.resize(i + 1, 0);
            }
            if let Some(m) = w.get_mut(i) {
                *m = (*m).max(len);
            }
        }
    }

    /// The cell format of `c` (`None`: the default, 0).
    fn style_of(&self, c: &Cell<'_>) -> Option<u32> {
        if let Some(f) = c.format {
            return Some(f.0);
        }
        let date = match c.value {
            Value::DateTime(_, st) => self.shared.date_xf.get(st.index()).copied(),
            _ => None,
        };
        match self.col_xf.get(c.col as usize) {
            Some(Some((_, true))) if date.is_some() => date,
            Some(Some((x, _))) => Some(*x),
            _ => date,
        }
    }

    fn write_cell(&mut self, row: u32, c: &Cell<'_>) -> Result<()> {
        let style = self.style_of(c);
        let b = &mut self.buf;
        b.extend_from_slice(b"<c r=\"");
        push_col(b, c.col);
        push_u64(b, u64::from(row) + 1);
        b.push(b'"');
        if let Some(s) = style {
            b.extend_from_slice(b" s=\"");
            push_u64(b, u64::from(s));
            b.push(b'"');
        }
        let formula = c.formula.is_some();
        let mut fit = 0;
        match c.value {
            Value::Number(x) => {
                b.extend_from_slice(b">");
                self.formula_part(c.formula);
                let b = &mut self.buf;
                b.extend_from_slice(b"<v>");
                let start = b.len();
                push_f64(b, x);
                fit = b.len() - start;
                b.extend_from_slice(b"</v>");
            }
            Value::DateTime(x, style) => {
                b.extend_from_slice(b">");
                self.formula_part(c.formula);
                let b = &mut self.buf;
                b.extend_from_slice(b"<v>");
                push_f64(b, x);
                b.extend_from_slice(b"</v>");
                fit = style.display_len();
            }
            Value::Bool(v) => {
                b.extend_from_slice(b" t=\"b\">");
                self.formula_part(c.formula);
                self.buf
                    .extend_from_slice(if v { b"<v>1</v>" } else { b"<v>0</v>" });
                fit = 5;
            }
            Value::Error(e) => {
                b.extend_from_slice(b" t=\"e\">");
                self.formula_part(c.formula);
                let b = &mut self.buf;
                b.extend_from_slice(b"<v>");
                b.extend_from_slice(e.as_str().as_bytes());
                b.extend_from_slice(b"</v>");
                fit = e.as_str().len();
            }
            Value::String(s) if formula => {
                b.extend_from_slice(b" t=\"str\">");
                self.formula_part(c.formula);
                let b = &mut self.buf;
                b.extend_from_slice(b"<v>");
                escape_into(b, s, false);
                b.extend_from_slice(b"</v>");
            }
            Value::String(s) => match (&self.shared.sst, self.shared.opts.strings) {
                (Some(table), Strings::Shared) => {
                    let i = self.cache.index(table, s)?;
                    self.string_refs += 1;
                    let b = &mut self.buf;
                    b.extend_from_slice(b" t=\"s\"><v>");
                    push_u64(b, u64::from(i));
                    b.extend_from_slice(b"</v>");
                }
                _ => {
                    b.extend_from_slice(b" t=\"inlineStr\"><is><t");
                    if needs_preserve(s) {
                        b.extend_from_slice(b" xml:space=\"preserve\"");
                    }
                    b.push(b'>');
                    escape_into(b, s, false);
                    b.extend_from_slice(b"</t></is>");
                }
            },
            Value::Empty => {
                b.push(b'>');
                self.formula_part(c.formula);
            }
        }
        if let Value::String(s) = c.value
            && self.autofit.is_some()
        {
            fit = s.chars().count();
        }
        self.buf.extend_from_slice(b"</c>");
        self.fit(c.col, fit);
        Ok(())
    }

    fn formula_part(&mut self, f: Option<&str>) {
        if let Some(f) = f {
            let f = f.strip_prefix('=').unwrap_or(f);
            self.buf.extend_from_slice(b"<f>");
            escape_into(&mut self.buf, f, false);
            self.buf.extend_from_slice(b"</f>");
        }
    }

    fn flush_buf(&mut self) -> Result<()> {
        self.body
            .write(&mut self.buf)
            .map_err(|e| Error::io("compressing the sheet", e).in_sheet(&self.name))
    }

    /// Deflates this sheet on a helper thread while the caller formats
    /// the next rows (default off; [`write_parallel`](crate::write_parallel)
    /// turns it on when it has more threads than sheets). May be called at
    /// any time.
    pub fn deflate_on_helper_thread(&mut self) {
        self.body.pipe();
    }

    /// Ends the sheet and hands it to its workbook.
    pub fn finish(mut self) -> Result<()> {
        let filter = match self.filter {
            Some(Filter::Range(r)) => Some(r),
            Some(Filter::UsedRange) => self.used,
            None => None,
        };
        self.buf.extend_from_slice(b"</sheetData>");
        let tail = self.tail(filter);
        self.buf.extend_from_slice(&tail);
        self.buf.extend_from_slice(b"</worksheet>");
        self.flush_buf()?;
        let head = self.head();
        let level = self.shared.opts.compression_level;
        let SheetWriter {
            shared,
            index,
            name,
            body,
            visibility,
            string_refs,
            ..
        } = self;
        let compressed = body
            .finish(&head, level)
            .map_err(|e| Error::io("compressing the sheet", e).in_sheet(&name))?;
        if let Some(t) = &shared.sst {
            t.add_refs(string_refs);
        }
        shared.finished(
            index,
            FinishedSheet {
                compressed,
                visibility,
                filter,
            },
        )
    }

    /// The worksheet's start: everything before `<sheetData>`'s rows.
    fn head(&self) -> Vec<u8> {
        let t = self.shared.template.as_ref().map(|t| &t.sheet);
        let from_t = |name: &str| {
            t.and_then(|t| t.head.iter().find(|(n, _)| n == name))
                .map(|(_, raw)| raw.as_slice())
        };
        let mut h = Vec::with_capacity(1024);
        h.extend_from_slice(crate::parts::XML_DECL);
        match t {
            Some(t) => h.extend_from_slice(&t.root),
            None => h.extend_from_slice(
                b"<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" \
                  xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\">",
            ),
        }
        if let Some(pr) = from_t("sheetPr") {
            h.extend_from_slice(pr);
        }
        h.extend_from_slice(b"<dimension ref=\"");
        let dim = self
            .used
            .map_or_else(|| "A1".to_string(), |u| u.to_string());
        h.extend_from_slice(dim.as_bytes());
        h.extend_from_slice(b"\"/>");
        match from_t("sheetViews") {
            Some(v) if self.freeze_rows == 0 => {
                // Only the first sheet is selected, or Excel opens the
                // copies grouped.
                if self.index == 0 {
                    h.extend_from_slice(v);
                } else {
                    let v = String::from_utf8_lossy(v)
                        .replace(" tabSelected=\"1\"", "")
                        .replace(" tabSelected=\"true\"", "");
                    h.extend_from_slice(v.as_bytes());
                }
            }
            _ => self.own_views(&mut h),
        }
        match from_t("sheetFormatPr") {
            Some(f) => h.extend_from_slice(f),
            None => h.extend_from_slice(b"<sheetFormatPr defaultRowHeight=\"15\"/>"),
        }
        let cols = self.column_widths();
        match from_t("cols") {
            Some(c) if cols.is_empty() => h.extend_from_slice(c),
            _ if !cols.is_empty() => {
                h.extend_from_slice(b"<cols>");
                for (first, last, w) in cols {
                    h.extend_from_slice(
                        format!(
                            "<col min=\"{}\" max=\"{}\" width=\"{w}\" customWidth=\"1\"/>",
                            first + 1,
                            last + 1
                        )
                        .as_bytes(),
                    );
                }
                h.extend_from_slice(b"</cols>");
            }
            _ => {}
        }
        h.extend_from_slice(b"<sheetData>");
        h
    }

    /// The writer's `<sheetViews>`: a frozen header when asked for.
    fn own_views(&self, h: &mut Vec<u8>) {
        h.extend_from_slice(b"<sheetViews><sheetView workbookViewId=\"0\"");
        if self.freeze_rows > 0 {
            let top = ream_sheet::cell_name(self.freeze_rows, 0);
            h.extend_from_slice(
                format!(
                    "><pane ySplit=\"{}\" topLeftCell=\"{top}\" activePane=\"bottomLeft\" \
                     state=\"frozen\"/><selection pane=\"bottomLeft\" activeCell=\"{top}\" \
                     sqref=\"{top}\"/></sheetView>",
                    self.freeze_rows
                )
                .as_bytes(),
            );
        } else {
            h.extend_from_slice(b"/>");
        }
        h.extend_from_slice(b"</sheetViews>");
    }

    /// What follows `</sheetData>`: the template's elements after the
    /// sheet data with the autofilter (when set) in its schema place.
    fn tail(&self, filter: Option<CellRange>) -> Vec<u8> {
        let mut b = Vec::new();
        let own = filter.map(|f| format!("<autoFilter ref=\"{f}\"/>"));
        let Some(t) = self.shared.template.as_ref() else {
            if let Some(f) = own {
                b.extend_from_slice(f.as_bytes());
            }
            return b;
        };
        let mut pending = own;
        for (name, raw) in &t.sheet.tail {
            if pending.is_some() && name == "autoFilter" {
                continue;
            }
            if tail_rank(name) > tail_rank("autoFilter")
                && let Some(f) = pending.take()
            {
                b.extend_from_slice(f.as_bytes());
            }
            b.extend_from_slice(raw);
        }
        if let Some(f) = pending {
            b.extend_from_slice(f.as_bytes());
        }
        b
    }

    /// Column widths as sorted, disjoint `(first, last, width)` ranges:
    /// autofit widths, then explicit ones over them (a later call wins).
    fn column_widths(&self) -> Vec<(u32, u32, f64)> {
        let mut per: std::collections::BTreeMap<u32, f64> = Default::default();
        if let Some(fit) = &self.autofit {
            for (col, len) in (0u32..).zip(fit) {
                if *len > 0 {
                    let w = (*len as f64 * 1.1 + 2.0).clamp(8.43, 100.0);
                    per.insert(col, (w * 100.0).round() / 100.0);
                }
            }
        }
        for (first, last, w) in &self.widths {
            for c in *first..=*last {
                per.insert(c, *w);
            }
        }
        let mut out: Vec<(u32, u32, f64)> = Vec::new();
        for (c, w) in per {
            match out.last_mut() {
                Some(prev) if prev.1 + 1 == c && prev.2 == w => prev.1 = c,
                _ => out.push((c, c, w)),
            }
        }
        out
    }
}

/// The place of a worksheet element after `sheetData` in the schema's
/// order (unknown names: 0, left where they are).
fn tail_rank(name: &str) -> usize {
    const ORDER: [&str; 33] = [
        "sheetCalcPr",
        "sheetProtection",
        "protectedRanges",
        "scenarios",
        "autoFilter",
        "sortState",
        "dataConsolidate",
        "customSheetViews",
        "mergeCells",
        "phoneticPr",
        "conditionalFormatting",
        "dataValidations",
        "hyperlinks",
        "printOptions",
        "pageMargins",
        "pageSetup",
        "headerFooter",
        "rowBreaks",
        "colBreaks",
        "customProperties",
        "cellWatches",
        "ignoredErrors",
        "smartTags",
        "drawing",
        "legacyDrawing",
        "legacyDrawingHF",
        "drawingHF",
        "picture",
        "oleObjects",
        "controls",
        "webPublishItems",
        "tableParts",
        "extLst",
    ];
    ORDER.iter().position(|n| *n == name).map_or(0, |i| i + 1)
}

/// True for a cell written as no cell: no formula and no value or empty
/// text (what readers, Excel included, see as an empty cell).
fn is_blank(c: &Cell<'_>) -> bool {
    c.formula.is_none() && matches!(c.value, Value::Empty | Value::String(""))
}

/// Appends the decimal digits of `v`.
pub(crate) fn push_u64(b: &mut Vec<u8>, mut v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        if let Some(d) = tmp.get_mut(i) {
            *d = b'0' + (v % 10) as u8;
        }
        v /= 10;
        if v == 0 || i == 0 {
            break;
        }
    }
    b.extend_from_slice(tmp.get(i..).unwrap_or_default());
}

/// Appends a 0-based column's letters (`0` -> `A`, `16383` -> `XFD`).
pub(crate) fn push_col(b: &mut Vec<u8>, col: u32) {
    let n = col + 1;
    if n <= 26 {
        b.push(b'A' + (n - 1) as u8);
    } else if n <= 702 {
        let n = n - 27;
        b.push(b'A' + (n / 26) as u8);
        b.push(b'A' + (n % 26) as u8);
    } else {
        let n = n - 703;
        b.push(b'A' + (n / 676) as u8);
        b.push(b'A' + (n / 26 % 26) as u8);
        b.push(b'A' + (n % 26) as u8);
    }
}

/// Appends the shortest text that reads back to the same double: integers
/// below 10^15 without a fraction, else `ryu`'s form (`0.1`, `1e20`).
pub(crate) fn push_f64(b: &mut Vec<u8>, x: f64) {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        let i = x as i64;
        if i < 0 {
            b.push(b'-');
        }
        push_u64(b, i.unsigned_abs());
        return;
    }
    let mut r = ryu::Buffer::new();
    b.extend_from_slice(r.format_finite(x).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_and_numbers() {
        for (c, want) in [
            (0, "A"),
            (25, "Z"),
            (26, "AA"),
            (701, "ZZ"),
            (702, "AAA"),
            (16383, "XFD"),
        ] {
            let mut b = Vec::new();
            push_col(&mut b, c);
            assert_eq!(String::from_utf8(b).unwrap(), want);
            assert_eq!(ream_sheet::col_name(c), want);
        }
        for (x, want) in [
            (0.0, "0"),
            (-7.0, "-7"),
            (0.1, "0.1"),
            (1e20, "1e20"),
            (-2.5e-7, "-2.5e-7"),
        ] {
            let mut b = Vec::new();
            push_f64(&mut b, x);
            assert_eq!(String::from_utf8(b).unwrap(), want);
        }
    }
}
