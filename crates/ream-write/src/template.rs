//! Templates: an existing workbook whose styles the output takes and one
//! of whose sheets is copied under every sheet written.

use crate::error::{Error, ErrorKind, Result};
use crate::escape::{escape_into, needs_preserve};
use crate::limits::{MAX_COLS, MAX_ROWS};
use crate::options::Strings;
use crate::sheet::{push_col, push_u64};
use crate::sst::SharedStrings;
use crate::xml::{self, Part};
use quick_xml::events::{BytesStart, Event};
use ream_sheet::CellRange;
use std::path::Path;

/// An existing `.xlsx` workbook used as a template (see
/// [`WorkbookWriter::with_template`](crate::WorkbookWriter::with_template)).
///
/// Opening reads the whole file into memory and checks that it is a ZIP
/// package; its parts are parsed when the writer is made. Templates
/// whose parts use a namespace prefix on SpreadsheetML elements
/// (`<x:worksheet>`) or strict OOXML are refused as unsupported; errors
/// name the template and the part.
pub struct Template {
    label: String,
    archive: ream_zip::Archive,
}

/// Which sheet of the template is copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateSheet {
    /// By 0-based position among the workbook's sheets.
    Index(usize),
    /// By name (exact, then ignoring ASCII case).
    Name(String),
}

/// How a template is used. Defaults: the first sheet, new rows right
/// after its last row holding a cell.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TemplateOptions {
    /// The sheet copied (default `TemplateSheet::Index(0)`).
    pub sheet: TemplateSheet,
    /// The 0-based row new data starts at (default `None`: the row after
    /// the template sheet's last row with a cell). Template rows from
    /// here on are not copied; the template's row at `start_row`, when it
    /// has cells, gives each column's cell format for new cells.
    pub start_row: Option<u32>,
}

impl Default for TemplateOptions {
    fn default() -> TemplateOptions {
        TemplateOptions {
            sheet: TemplateSheet::Index(0),
            start_row: None,
        }
    }
}

impl TemplateOptions {
    /// The defaults (first sheet, data after the last used row).
    pub fn new() -> TemplateOptions {
        TemplateOptions::default()
    }
    /// Copies the sheet named `name`.
    pub fn sheet_name(mut self, name: impl Into<String>) -> TemplateOptions {
        self.sheet = TemplateSheet::Name(name.into());
        self
    }
    /// Copies the sheet at 0-based position `index`.
    pub fn sheet_index(mut self, index: usize) -> TemplateOptions {
        self.sheet = TemplateSheet::Index(index);
        self
    }
    /// New data starts at 0-based row `row`.
    pub fn start_row(mut self, row: u32) -> TemplateOptions {
        self.start_row = Some(row);
        self
    }
}

impl Template {
    /// Reads the template at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Template> {
        let p = path.as_ref();
        let bytes = std::fs::read(p)
            .map_err(|e| Error::io(&format!("reading template {}", p.display()), e))?;
        Template::with_label(bytes, p.display().to_string())
    }

    /// A template from the bytes of an `.xlsx` file.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Template> {
        Template::with_label(bytes, "(bytes)".to_string())
    }

    fn with_label(bytes: Vec<u8>, label: String) -> Result<Template> {
        let archive = ream_zip::Archive::new(
            ream_zip::Bytes::from_vec(bytes),
            ream_zip::Limits::default(),
        )
        .map_err(|e| {
            Error::new(
                ErrorKind::Malformed,
                format!("template {label}: not a readable .xlsx (ZIP) package: {e}"),
            )
        })?;
        let t = Template { label, archive };
        t.sheets()?;
        Ok(t)
    }

    /// `template NAME, part PART` for messages.
    fn what(&self, part: &str) -> String {
        format!("template {}, part {part}", self.label)
    }

    /// A part's bytes, `None` when the package has no such part.
    fn part(&self, name: &str) -> Result<Option<Vec<u8>>> {
        let Some(e) = self.archive.find(name) else {
            return Ok(None);
        };
        self.archive.read(e).map(Some).map_err(|err| {
            Error::new(
                ErrorKind::Malformed,
                format!("{}: cannot be read: {err}", self.what(name)),
            )
        })
    }

    fn need(&self, name: &str) -> Result<Vec<u8>> {
        self.part(name)?.ok_or_else(|| {
            Error::new(
                ErrorKind::Malformed,
                format!("{}: missing from the package", self.what(name)),
            )
        })
    }

    /// The workbook's sheets in order, as (name, part), and whether it
    /// uses the 1904 date system.
    fn sheets(&self) -> Result<(Vec<(String, String)>, bool)> {
        let rels = self.rels()?;
        let part = "xl/workbook.xml";
        let xml = self.need(part)?;
        let what = self.what(part);
        let mut p = Part::new(&xml, &what);
        let mut out = Vec::new();
        let mut date_1904 = false;
        let mut root = true;
        loop {
            match p.next()? {
                (_, Event::Start(e) | Event::Empty(e)) => {
                    if root {
                        p.check_root(&e, "workbook")?;
                        root = false;
                        continue;
                    }
                    match xml::name(&e) {
                        "workbookPr" => {
                            date_1904 =
                                matches!(p.attr(&e, "date1904")?.as_deref(), Some("1" | "true"));
                        }
                        "sheet" => {
                            let name = p.attr(&e, "name")?.unwrap_or_default();
                            let id = rel_id(&p, &e)?.unwrap_or_default();
                            let target = rels
                                .iter()
                                .find(|(i, _, _)| *i == id)
                                .map(|(_, _, t)| t.clone())
                                .unwrap_or_default();
                            out.push((name, target));
                        }
                        _ => {}
                    }
                }
                (_, Event::Eof) => break,
                _ => {}
            }
        }
        if out.is_empty() {
            return Err(p.error("the workbook lists no sheets"));
        }
        Ok((out, date_1904))
    }

    /// The workbook's relationships: (id, type, part).
    fn rels(&self) -> Result<Vec<(String, String, String)>> {
        let part = "xl/_rels/workbook.xml.rels";
        let xml = self.need(part)?;
        let what = self.what(part);
        let mut p = Part::new(&xml, &what);
        let mut out = Vec::new();
        loop {
            match p.next()? {
                (_, Event::Start(e) | Event::Empty(e)) if xml::name(&e) == "Relationship" => {
                    let (Some(id), Some(target)) = (p.attr(&e, "Id")?, p.attr(&e, "Target")?)
                    else {
                        continue;
                    };
                    let ty = p.attr(&e, "Type")?.unwrap_or_default();
                    let target = match target.strip_prefix('/') {
                        Some(abs) => abs.to_string(),
                        None => format!("xl/{}", target.trim_start_matches("./")),
                    };
                    out.push((id, ty, target));
                }
                (_, Event::Eof) => return Ok(out),
                _ => {}
            }
        }
    }

    /// Parses what the writer takes from the template.
    pub(crate) fn load(&self, opts: &TemplateOptions) -> Result<Loaded> {
        if let Some(r) = opts.start_row
            && r >= MAX_ROWS
        {
            return Err(Error::limit(format!(
                "template start row {r} is past the last row of a worksheet (1,048,575, 0-based)"
            )));
        }
        let (sheets, date_1904) = self.sheets()?;
        let found = match &opts.sheet {
            TemplateSheet::Index(i) => sheets.get(*i),
            TemplateSheet::Name(n) => sheets
                .iter()
                .find(|(s, _)| s == n)
                .or_else(|| sheets.iter().find(|(s, _)| s.eq_ignore_ascii_case(n))),
        };
        let Some((_, part)) = found else {
            let names: Vec<&str> = sheets.iter().map(|(n, _)| n.as_str()).collect();
            return Err(Error::usage(format!(
                "template {}: no sheet {} (it has {names:?})",
                self.label,
                match &opts.sheet {
                    TemplateSheet::Index(i) => format!("at index {i}"),
                    TemplateSheet::Name(n) => format!("named {n:?}"),
                }
            )));
        };
        let rels = self.rels()?;
        let find = |suffix: &str| {
            rels.iter()
                .find(|(_, t, _)| t.ends_with(suffix))
                .map(|(_, _, p)| p.clone())
        };
        let sst = match find("/sharedStrings") {
            Some(p) => match self.part(&p)? {
                Some(x) => read_sst(&x, &self.what(&p))?,
                None => Vec::new(),
            },
            None => Vec::new(),
        };
        let styles = match find("/styles") {
            Some(p) => Some((self.need(&p)?, self.what(&p))),
            None => None,
        };
        let theme = match find("/theme") {
            Some(p) => self.part(&p)?,
            None => None,
        };
        let xml = self.need(part)?;
        let sheet = parse_sheet(&xml, &self.what(part), opts.start_row, &sst)?;
        Ok(Loaded {
            styles,
            theme,
            date_1904,
            sheet,
        })
    }
}

/// What [`Template::load`] found.
pub(crate) struct Loaded {
    /// `styles.xml` and its name for messages.
    pub styles: Option<(Vec<u8>, String)>,
    pub theme: Option<Vec<u8>>,
    pub date_1904: bool,
    pub sheet: ParsedSheet,
}

/// The relationship id attribute (`r:id` or any prefix).
fn rel_id(p: &Part<'_>, e: &BytesStart<'_>) -> Result<Option<String>> {
    for a in e.attributes() {
        let a = a.map_err(|err| p.error(format!("XML attribute: {err}")))?;
        let k = a.key.0;
        if !k.starts_with("xmlns") && k.ends_with(":id") {
            let key = k.to_string();
            return p.attr(e, &key);
        }
    }
    Ok(None)
}

/// The texts of a shared string table (rich text flattened; phonetic
/// runs left out).
fn read_sst(xml: &[u8], what: &str) -> Result<Vec<String>> {
    let mut p = Part::new(xml, what);
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    let mut in_t = false;
    let mut in_ph = 0u32;
    loop {
        let (_, ev) = p.next()?;
        match &ev {
            Event::Start(e) => match xml::name(e) {
                "si" => cur = Some(String::new()),
                "t" if in_ph == 0 => in_t = true,
                "rPh" => in_ph += 1,
                _ => {}
            },
            Event::Empty(e) if xml::name(e) == "si" => out.push(String::new()),
            Event::End(e) => match e.local_name().into_inner() {
                "si" => out.push(decode_xhhhh(&cur.take().unwrap_or_default())),
                "t" => in_t = false,
                "rPh" => in_ph = in_ph.saturating_sub(1),
                _ => {}
            },
            Event::Eof => return Ok(out),
            _ if in_t => {
                if let Some(s) = &mut cur {
                    p.text(&ev, s)?;
                }
            }
            _ => {}
        }
    }
}

/// A cell of a template row.
#[derive(Debug)]
struct TCell {
    col: u32,
    style: Option<u32>,
    /// The `t` attribute (`None`: a number).
    kind: Option<String>,
    /// The text of `<v>`, or the string of a shared or inline string.
    value: Option<String>,
    /// The `<f>` element as written.
    formula: Option<Vec<u8>>,
}

/// A template row: its index, its start tag's attributes other than `r`
/// and `spans` as written, and its cells.
#[derive(Debug)]
struct TRow {
    row: u32,
    attrs: Vec<u8>,
    cells: Vec<TCell>,
}

/// A worksheet's parts as the copies use them.
pub(crate) struct ParsedSheet {
    /// The `<worksheet ...>` start tag as written (namespaces kept).
    pub root: Vec<u8>,
    /// Elements before `<sheetData>` other than `dimension`, by name.
    pub head: Vec<(String, Vec<u8>)>,
    /// Elements after `</sheetData>`, by name (those pointing at other
    /// parts through relationships left out).
    pub tail: Vec<(String, Vec<u8>)>,
    rows: Vec<TRow>,
    /// The row new data starts at.
    pub start_row: u32,
    /// Each column's cell format for new cells (`None`: none).
    pub col_styles: Vec<Option<u32>>,
}

/// The template rows as XML, ready to go in every copy.
pub(crate) struct RenderedRows {
    pub xml: Vec<u8>,
    pub string_refs: u64,
    pub used: Option<CellRange>,
}

impl ParsedSheet {
    /// The rows above `start_row` as XML, texts interned in `sst` (or
    /// inline when there is none).
    pub(crate) fn render(
        &self,
        sst: Option<&SharedStrings>,
        strings: Strings,
    ) -> Result<RenderedRows> {
        let mut b = Vec::new();
        let mut refs = 0u64;
        let mut used: Option<CellRange> = None;
        for r in &self.rows {
            b.extend_from_slice(b"<row r=\"");
            push_u64(&mut b, u64::from(r.row) + 1);
            b.push(b'"');
            b.extend_from_slice(&r.attrs);
            if r.cells.is_empty() {
                b.extend_from_slice(b"/>");
                continue;
            }
            b.push(b'>');
            for c in &r.cells {
                let u = used.get_or_insert(CellRange {
                    first_row: r.row,
                    first_col: c.col,
                    last_row: r.row,
                    last_col: c.col,
                });
                u.first_col = u.first_col.min(c.col);
                u.last_col = u.last_col.max(c.col);
                u.last_row = r.row;
                b.extend_from_slice(b"<c r=\"");
                push_col(&mut b, c.col);
                push_u64(&mut b, u64::from(r.row) + 1);
                b.push(b'"');
                if let Some(s) = c.style {
                    b.extend_from_slice(b" s=\"");
                    push_u64(&mut b, u64::from(s));
                    b.push(b'"');
                }
                let f = c.formula.as_deref().unwrap_or_default();
                let v = c.value.as_deref();
                match c.kind.as_deref() {
                    Some("s" | "inlineStr") => {
                        let text = v.unwrap_or_default();
                        match (sst, strings, c.formula.is_some()) {
                            (Some(t), Strings::Shared, false) => {
                                let i = t.intern(text)?;
                                refs += 1;
                                b.extend_from_slice(b" t=\"s\"><v>");
                                push_u64(&mut b, u64::from(i));
                                b.extend_from_slice(b"</v>");
                            }
                            (_, _, true) => {
                                b.extend_from_slice(b" t=\"str\">");
                                b.extend_from_slice(f);
                                b.extend_from_slice(b"<v>");
                                escape_into(&mut b, text, false);
                                b.extend_from_slice(b"</v>");
                            }
                            _ => {
                                b.extend_from_slice(b" t=\"inlineStr\"><is><t");
                                if needs_preserve(text) {
                                    b.extend_from_slice(b" xml:space=\"preserve\"");
                                }
                                b.push(b'>');
                                escape_into(&mut b, text, false);
                                b.extend_from_slice(b"</t></is>");
                            }
                        }
                    }
                    kind => {
                        if let Some(k) = kind.filter(|k| *k != "n") {
                            b.extend_from_slice(b" t=\"");
                            escape_into(&mut b, k, true);
                            b.push(b'"');
                        }
                        b.push(b'>');
                        b.extend_from_slice(f);
                        if let Some(v) = v {
                            b.extend_from_slice(b"<v>");
                            escape_into(&mut b, v, false);
                            b.extend_from_slice(b"</v>");
                        }
                    }
                }
                b.extend_from_slice(b"</c>");
            }
            b.extend_from_slice(b"</row>");
        }
        Ok(RenderedRows {
            xml: b,
            string_refs: refs,
            used,
        })
    }
}

/// Tail elements that point at other parts of the template through
/// relationships; they are left out of the copies.
fn links_elsewhere(raw: &[u8]) -> bool {
    raw.windows(5).any(|w| w == b"r:id=")
}

/// Removes the `r:id` attribute (printer settings) from a `pageSetup`.
fn strip_rel_attr(raw: &[u8]) -> Vec<u8> {
    let s = String::from_utf8_lossy(raw);
    let Some(at) = s.find(" r:id=") else {
        return raw.to_vec();
    };
    let rest = s.get(at + 6..).unwrap_or("");
    let q = rest.chars().next().unwrap_or('"');
    let end = rest
        .get(1..)
        .and_then(|r| r.find(q))
        .map_or(rest.len(), |e| e + 2);
    let mut out = s.get(..at).unwrap_or("").to_string();
    out.push_str(rest.get(end..).unwrap_or(""));
    out.into_bytes()
}

/// Parses a template worksheet.
fn parse_sheet(xml: &[u8], what: &str, start: Option<u32>, sst: &[String]) -> Result<ParsedSheet> {
    let mut p = Part::new(xml, what);
    let slice = |a: usize, b: usize| xml.get(a..b).unwrap_or_default().to_vec();
    let mut root: Option<Vec<u8>> = None;
    let mut head = Vec::new();
    let mut tail = Vec::new();
    let mut rows: Vec<TRow> = Vec::new();
    let mut col_defs: Vec<(u32, u32, u32)> = Vec::new();
    let mut seen_data = false;
    loop {
        let (pos, ev) = p.next()?;
        match ev {
            Event::Start(e) if root.is_none() => {
                p.check_root(&e, "worksheet")?;
                root = Some(slice(pos, p.pos()));
            }
            Event::Empty(e) if root.is_none() => {
                p.check_root(&e, "worksheet")?;
                return Err(p.error("the worksheet is empty"));
            }
            Event::Start(e) => {
                let name = xml::name(&e).to_string();
                if name == "sheetData" {
                    seen_data = true;
                    rows = parse_rows(&mut p, sst)?;
                    continue;
                }
                if name == "cols" {
                    let end = parse_cols(&mut p, &mut col_defs)?;
                    head.push((name, slice(pos, end)));
                    continue;
                }
                let end = p.skip(&e)?;
                keep(&mut head, &mut tail, seen_data, name, slice(pos, end));
            }
            Event::Empty(e) => {
                let name = xml::name(&e).to_string();
                if name == "sheetData" {
                    seen_data = true;
                    continue;
                }
                keep(&mut head, &mut tail, seen_data, name, slice(pos, p.pos()));
            }
            Event::End(_) => break,
            Event::Eof => return Err(p.error("the part ends inside <worksheet>")),
            _ => {}
        }
    }
    let root = root.ok_or_else(|| p.error("no <worksheet> element"))?;
    if !seen_data {
        return Err(p.error("no <sheetData>"));
    }
    let start_row = match start {
        Some(s) => s,
        None => rows
            .iter()
            .rev()
            .find(|r| !r.cells.is_empty())
            .map_or(0, |r| r.row + 1),
    };
    let mut col_styles: Vec<Option<u32>> = Vec::new();
    let mut set = |col: u32, s: u32| {
        let i = col as usize;
        if col_styles.len() <= i {
            col_styles.resize(i + 1, None);
        }
        if let Some(x) = col_styles.get_mut(i) {
            *x = Some(s);
        }
    };
    match rows
        .iter()
        .find(|r| r.row == start_row && !r.cells.is_empty())
    {
        Some(proto) => {
            for c in &proto.cells {
                if let Some(s) = c.style {
                    set(c.col, s);
                }
            }
        }
        None => {
            for (min, max, s) in &col_defs {
                for c in *min..=(*max).min(MAX_COLS - 1) {
                    set(c, *s);
                }
            }
        }
    }
    rows.retain(|r| r.row < start_row);
    Ok(ParsedSheet {
        root,
        head,
        tail,
        rows,
        start_row,
        col_styles,
    })
}

/// Files a top-level element before or after the sheet data.
fn keep(
    head: &mut Vec<(String, Vec<u8>)>,
    tail: &mut Vec<(String, Vec<u8>)>,
    after_data: bool,
    name: String,
    raw: Vec<u8>,
) {
    if !after_data {
        if name != "dimension" {
            head.push((name, raw));
        }
        return;
    }
    if links_elsewhere(&raw) {
        if name == "pageSetup" {
            tail.push((name, strip_rel_attr(&raw)));
        }
        return;
    }
    tail.push((name, raw));
}

/// Reads the `<col>`s of `<cols>` (1-based min/max, style); returns the
/// offset after `</cols>`.
fn parse_cols(p: &mut Part<'_>, out: &mut Vec<(u32, u32, u32)>) -> Result<usize> {
    loop {
        let (_, ev) = p.next()?;
        let started = matches!(ev, Event::Start(_));
        match ev {
            Event::Start(e) | Event::Empty(e) if xml::name(&e) == "col" => {
                let num = |v: Option<String>| v.and_then(|s| s.trim().parse::<u32>().ok());
                let (min, max) = (num(p.attr(&e, "min")?), num(p.attr(&e, "max")?));
                if let (Some(min), Some(max), Some(s)) = (min, max, num(p.attr(&e, "style")?))
                    && min >= 1
                    && max >= min
                {
                    out.push((min - 1, max - 1, s));
                }
                if started {
                    p.skip(&e)?;
                }
            }
            Event::End(_) => return Ok(p.pos()),
            Event::Eof => return Err(p.error("the part ends inside <cols>")),
            _ => {}
        }
    }
}

/// Reads the rows of `<sheetData>` up to its end tag.
fn parse_rows(p: &mut Part<'_>, sst: &[String]) -> Result<Vec<TRow>> {
    let mut rows: Vec<TRow> = Vec::new();
    loop {
        let (_, ev) = p.next()?;
        let started = matches!(ev, Event::Start(_));
        match ev {
            Event::Start(e) | Event::Empty(e) if xml::name(&e) == "row" => {
                let next = rows.last().map_or(0, |r| r.row + 1);
                let row = match p.attr(&e, "r")? {
                    Some(v) => v
                        .trim()
                        .parse::<u32>()
                        .ok()
                        .filter(|r| (1..=MAX_ROWS).contains(r))
                        .map(|r| r - 1)
                        .ok_or_else(|| p.error(format!("bad row number {v:?}")))?,
                    None => next,
                };
                if row < next {
                    return Err(p.error(format!("row {} comes after row {next}", row + 1)));
                }
                let mut attrs = Vec::new();
                for a in e.attributes() {
                    let a = a.map_err(|err| p.error(format!("XML attribute: {err}")))?;
                    if matches!(a.key.0, "r" | "spans") {
                        continue;
                    }
                    let q = if a.value.contains('"') { b'\'' } else { b'"' };
                    attrs.push(b' ');
                    attrs.extend_from_slice(a.key.0.as_bytes());
                    attrs.push(b'=');
                    attrs.push(q);
                    attrs.extend_from_slice(a.value.as_bytes());
                    attrs.push(q);
                }
                let cells = if started {
                    parse_cells(p, row, sst)?
                } else {
                    Vec::new()
                };
                rows.push(TRow { row, attrs, cells });
            }
            Event::Start(e) => {
                p.skip(&e)?;
            }
            Event::End(_) => return Ok(rows),
            Event::Eof => return Err(p.error("the part ends inside <sheetData>")),
            _ => {}
        }
    }
}

/// Reads the cells of one row up to its end tag.
fn parse_cells(p: &mut Part<'_>, row: u32, sst: &[String]) -> Result<Vec<TCell>> {
    let mut cells: Vec<TCell> = Vec::new();
    loop {
        let (_, ev) = p.next()?;
        let started = matches!(ev, Event::Start(_));
        match ev {
            Event::Start(e) | Event::Empty(e) if xml::name(&e) == "c" => {
                let next = cells.last().map_or(0, |c| c.col + 1);
                let col = match p.attr(&e, "r")? {
                    Some(v) => {
                        let r = CellRange::parse(&v)
                            .filter(|r| r.first_row == row && r.first_col < MAX_COLS)
                            .ok_or_else(|| {
                                p.error(format!("bad cell reference {v:?} in row {}", row + 1))
                            })?;
                        r.first_col
                    }
                    None => next,
                };
                if col < next {
                    return Err(p.error(format!("cells out of order in row {}", row + 1)));
                }
                let style = p.attr(&e, "s")?.and_then(|s| s.trim().parse().ok());
                let kind = p.attr(&e, "t")?;
                let mut cell = TCell {
                    col,
                    style,
                    kind,
                    value: None,
                    formula: None,
                };
                if started {
                    read_cell(p, &mut cell)?;
                }
                if cell.kind.as_deref() == Some("s") && cell.value.is_none() {
                    // A styled blank cell marked as text.
                    cell.kind = None;
                }
                if cell.kind.as_deref() == Some("s") {
                    let i: Option<usize> =
                        cell.value.as_deref().and_then(|v| v.trim().parse().ok());
                    let text = i.and_then(|i| sst.get(i)).ok_or_else(|| {
                        p.error(format!(
                            "cell {}: shared string {:?} is not in the table",
                            ream_sheet::cell_name(row, col),
                            cell.value.as_deref().unwrap_or("")
                        ))
                    })?;
                    cell.value = Some(text.clone());
                } else if matches!(cell.kind.as_deref(), Some("inlineStr" | "str")) {
                    cell.value = cell.value.as_deref().map(decode_xhhhh);
                }
                cells.push(cell);
            }
            Event::Start(e) => {
                p.skip(&e)?;
            }
            Event::End(_) => return Ok(cells),
            Event::Eof => return Err(p.error("the part ends inside <row>")),
            _ => {}
        }
    }
}

/// Reads a cell's `<f>`, `<v>` and `<is>` up to its end tag.
fn read_cell(p: &mut Part<'_>, cell: &mut TCell) -> Result<()> {
    loop {
        let (pos, ev) = p.next()?;
        match ev {
            Event::Start(e) if xml::name(&e) == "f" => {
                let end = p.skip(&e)?;
                cell.formula = Some(p_slice(p, pos, end));
            }
            Event::Empty(e) if xml::name(&e) == "f" => {
                cell.formula = Some(p_slice(p, pos, p.pos()));
            }
            Event::Start(e) if xml::name(&e) == "v" => {
                cell.value = Some(read_text(p, false)?);
            }
            Event::Start(e) if xml::name(&e) == "is" => {
                cell.value = Some(read_text(p, true)?);
            }
            Event::Start(e) => {
                p.skip(&e)?;
            }
            Event::End(_) => return Ok(()),
            Event::Eof => return Err(p.error("the part ends inside <c>")),
            _ => {}
        }
    }
}

/// Bytes `a..b` of the part.
fn p_slice(p: &Part<'_>, a: usize, b: usize) -> Vec<u8> {
    p.input().get(a..b).unwrap_or_default().to_vec()
}

/// The text up to the end of the element just started: all of it, or
/// with `runs` only that of `<t>` elements outside phonetic runs.
fn read_text(p: &mut Part<'_>, runs: bool) -> Result<String> {
    let mut out = String::new();
    let mut depth = 0u32;
    let mut in_t = !runs;
    let mut in_ph = 0u32;
    loop {
        let (_, ev) = p.next()?;
        match &ev {
            Event::Start(e) => {
                depth += 1;
                match xml::name(e) {
                    "t" if runs && in_ph == 0 => in_t = true,
                    "rPh" => in_ph += 1,
                    _ => {}
                }
            }
            Event::End(e) => {
                if depth == 0 {
                    return Ok(out);
                }
                depth -= 1;
                match e.local_name().into_inner() {
                    "t" if runs => in_t = false,
                    "rPh" => in_ph = in_ph.saturating_sub(1),
                    _ => {}
                }
            }
            Event::Eof => return Err(p.error("the part ends inside a cell value")),
            _ if in_t => p.text(&ev, &mut out)?,
            _ => {}
        }
    }
}

/// Decodes the `_xHHHH_` escapes of OOXML text (`_x000D_` is a carriage
/// return, `_x005F_` an underscore; surrogate pairs joined); anything
/// else stays as written. The writer escapes the text again.
fn decode_xhhhh(s: &str) -> String {
    fn unit(b: &[u8]) -> Option<u16> {
        match b {
            [b'_', b'x', h @ .., b'_'] if h.len() == 4 => {
                u16::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
            }
            _ => None,
        }
    }
    if !s.contains("_x") {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let mut plain = 0;
    while i < b.len() {
        let Some(u) = b.get(i..i + 7).and_then(unit) else {
            i += 1;
            continue;
        };
        let (c, used) = match u {
            0xD800..=0xDBFF => match b.get(i + 7..i + 14).and_then(unit) {
                Some(lo @ 0xDC00..=0xDFFF) => (
                    char::from_u32(
                        0x10000 + ((u32::from(u) - 0xD800) << 10) + (u32::from(lo) - 0xDC00),
                    ),
                    14,
                ),
                _ => (None, 7),
            },
            _ => (char::from_u32(u32::from(u)), 7),
        };
        match c {
            Some(c) => {
                out.push_str(s.get(plain..i).unwrap_or(""));
                out.push(c);
                i += used;
                plain = i;
            }
            None => i += 7,
        }
    }
    out.push_str(s.get(plain..).unwrap_or(""));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xhhhh_escapes_are_decoded() {
        assert_eq!(decode_xhhhh("a_x000D_b"), "a\rb");
        assert_eq!(decode_xhhhh("_x005F_x000D_"), "_x000D_");
        assert_eq!(decode_xhhhh("_xD83D__xDE00_"), "\u{1F600}");
        assert_eq!(decode_xhhhh("_xD83D_ _xZZZZ_ _x41"), "_xD83D_ _xZZZZ_ _x41");
        assert_eq!(decode_xhhhh("plain"), "plain");
    }

    #[test]
    fn page_setup_loses_its_printer_settings_link() {
        let raw = br#"<pageSetup orientation="landscape" r:id="rId1" scale="90"/>"#;
        assert_eq!(
            strip_rel_attr(raw),
            br#"<pageSetup orientation="landscape" scale="90"/>"#.to_vec()
        );
    }
}
