//! Shared code of the fuzz targets: a stored-ZIP writer (so targets can
//! wrap one fuzzed part into a valid package with correct CRCs), the
//! package boilerplate around a fuzzed worksheet or ODS `content.xml`, and
//! the visitors that touch everything an opened workbook or PDF exposes.
//!
//! Every visitor only reads; an `Err` from the library is a normal outcome.
//! A panic, an abort, a hang or an allocation past libFuzzer's
//! `-rss_limit_mb` is a finding.

use ream_pdf::{Object, Pdf, PdfOptions};
use ream_sheet::{OpenOptions, Value, Workbook};

/// Most objects, streams and rows a visitor touches in one input, so that a
/// tiny file declaring millions of (missing) objects does not turn every
/// run into a timeout of the harness rather than of the library.
pub const VISIT_CAP: usize = 4096;

/// A ZIP archive of `parts`, every entry stored (method 0) with its real
/// CRC-32, so the library under test always gets past the container.
pub fn stored_zip(parts: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in parts {
        let offset = u32::try_from(out.len()).unwrap_or(u32::MAX);
        let crc = crc32fast::hash(data);
        let size = u32::try_from(data.len()).unwrap_or(u32::MAX);
        let name_len = u16::try_from(name.len()).unwrap_or(u16::MAX);
        // Local file header.
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // version, flags, method, time, date
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&name_len.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        // Central directory record.
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&[20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // made by, needed, flags, method, time, date
        central.extend_from_slice(&crc.to_le_bytes());
        central.extend_from_slice(&size.to_le_bytes());
        central.extend_from_slice(&size.to_le_bytes());
        central.extend_from_slice(&name_len.to_le_bytes());
        central.extend_from_slice(&[0; 12]); // extra, comment, disk, internal and external attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let cd_offset = u32::try_from(out.len()).unwrap_or(u32::MAX);
    let cd_size = u32::try_from(central.len()).unwrap_or(u32::MAX);
    let count = u16::try_from(parts.len()).unwrap_or(u16::MAX);
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]); // disk numbers
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&cd_size.to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

const CONTENT_TYPES: &str = r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>"#;
const ROOT_RELS: &str = r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#;
const WORKBOOK: &str = r#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>"#;
const WORKBOOK_RELS: &str = r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>"#;
const SST: &str = r#"<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="3" uniqueCount="3"><si><t>a</t></si><si><r><t>rich</t></r><r><t xml:space="preserve"> text</t></r></si><si><t>x&amp;y</t></si></sst>"#;
/// Styles 0..=4: general, a date (14), a custom time, a duration, a
/// custom date-time; so `s="1"`..`s="4"` in a fuzzed sheet reach the date
/// code.
const STYLES: &str = r#"<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="3"><numFmt numFmtId="164" formatCode="hh:mm"/><numFmt numFmtId="165" formatCode="[h]:mm:ss"/><numFmt numFmtId="166" formatCode="yyyy-mm-dd hh:mm"/></numFmts><cellXfs count="5"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="166"/></cellXfs></styleSheet>"#;

/// An XLSX package whose only worksheet is `sheet`, with three shared
/// strings and five cell styles (general, date, time, duration,
/// date-time).
pub fn xlsx_around_sheet(sheet: &[u8]) -> Vec<u8> {
    stored_zip(&[
        ("[Content_Types].xml", CONTENT_TYPES.as_bytes()),
        ("_rels/.rels", ROOT_RELS.as_bytes()),
        ("xl/workbook.xml", WORKBOOK.as_bytes()),
        ("xl/_rels/workbook.xml.rels", WORKBOOK_RELS.as_bytes()),
        ("xl/sharedStrings.xml", SST.as_bytes()),
        ("xl/styles.xml", STYLES.as_bytes()),
        ("xl/worksheets/sheet1.xml", sheet),
    ])
}

/// An ODS package (`mimetype` first, stored) whose `content.xml` is
/// `content`.
pub fn ods_around_content(content: &[u8]) -> Vec<u8> {
    stored_zip(&[
        (
            "mimetype",
            b"application/vnd.oasis.opendocument.spreadsheet",
        ),
        ("content.xml", content),
    ])
}

/// The marker that starts a part in the text form [`parts_to_zip`] reads.
pub const PART_MARKER: &[u8] = b"--part ";

/// Reads `--part NAME\n<bytes>` blocks (each ends where the next
/// `\n--part ` starts) into a stored ZIP with correct CRCs; `None` when
/// `data` does not start with the marker. Lets the fuzzer mutate the XML
/// of every part of a package without breaking CRCs.
pub fn parts_to_zip(data: &[u8]) -> Option<Vec<u8>> {
    let rest = data.strip_prefix(PART_MARKER)?;
    let mut parts: Vec<(String, &[u8])> = Vec::new();
    let mut sep = Vec::with_capacity(PART_MARKER.len() + 1);
    sep.push(b'\n');
    sep.extend_from_slice(PART_MARKER);
    for block in split_on(rest, &sep) {
        let (name, body) = match block.iter().position(|&b| b == b'\n') {
            Some(i) => (block.get(..i)?, block.get(i + 1..)?),
            None => (block, &[][..]),
        };
        parts.push((String::from_utf8_lossy(name).into_owned(), body));
    }
    let refs: Vec<(&str, &[u8])> = parts.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    Some(stored_zip(&refs))
}

fn split_on<'a>(mut data: &'a [u8], sep: &[u8]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    while let Some(i) = data.windows(sep.len()).position(|w| w == sep) {
        out.extend(data.get(..i));
        data = data.get(i + sep.len()..).unwrap_or_default();
    }
    out.push(data);
    out
}

/// One cell in a form that compares across engines: row, column, the
/// value's debug text (NaN-safe) and the formula.
pub type CellKey = (u32, u32, String, Option<String>);

/// Touches every cell and every sheet-level list of `wb` and returns the
/// cells of every sheet (sorted), for comparisons between open modes.
pub fn visit_workbook(wb: &Workbook) -> Vec<Vec<CellKey>> {
    let mut all = Vec::new();
    let _ = wb.defined_names().len();
    let _ = wb.warnings().iter().map(ToString::to_string).count();
    for sheet in wb.sheets() {
        let mut cells = Vec::with_capacity(sheet.cell_count());
        for c in sheet.cells() {
            touch_value(&c.value);
            cells.push((
                c.row,
                c.col,
                format!("{:?}", c.value),
                c.formula.map(str::to_string),
            ));
        }
        if let Some(first) = cells.first() {
            let _ = sheet.get(first.0, first.1);
        }
        let _ = sheet.bounds();
        let _ = (
            sheet.merged().len(),
            sheet.comments().len(),
            sheet.tables().len(),
        );
        let _ = (sheet.hyperlinks().len(), sheet.drawings().len());
        let _ = (sheet.hidden_rows().len(), sheet.hidden_cols().len());
        for part in sheet.cells_split(3) {
            let _ = part.count();
        }
        cells.sort();
        all.push(cells);
    }
    all
}

/// Streams every row of every sheet of `wb` and returns their cells as a
/// loaded open keeps them: sorted, and of a cell given twice the last one
/// (the stream yields rows in file order, and a row repeated in a later
/// block again, as `rows.rs` documents). `Err` is the first error a row
/// reader gave.
pub fn stream_rows(wb: &Workbook) -> Result<Vec<Vec<CellKey>>, ream_sheet::Error> {
    let mut all = Vec::new();
    for i in 0..wb.sheets().len() {
        let mut cells = std::collections::BTreeMap::new();
        let mut rows = wb.rows(i)?;
        while let Some(row) = rows.next_row()? {
            for c in row.cells() {
                touch_value(&c.value);
                let v = (format!("{:?}", c.value), c.formula.map(str::to_string));
                cells.insert((c.row, c.col), v);
            }
        }
        all.push(
            cells
                .into_iter()
                .map(|((r, c), (v, f))| (r, c, v, f))
                .collect(),
        );
    }
    Ok(all)
}

fn touch_value(v: &Value<'_>) {
    if let Value::DateTime(d) = v {
        let _ = (d.to_iso(), d.to_unix_seconds(), d.as_seconds());
    }
    let _ = v.type_name();
}

/// Options for the single-threaded whole-sheet parse.
pub fn serial() -> OpenOptions {
    OpenOptions::new().parallel(false).limits(fuzz_limits())
}

/// Default limits except at most 200,000 cells per sheet: a few bytes of
/// ODS repeats legally reach a million cells, which an instrumented build
/// visiting them in three modes cannot do within libFuzzer's 10 s timeout
/// (a 1,048,576-cell ods_content input takes 24 ms in release but times
/// out instrumented).
/// The limit path itself stays covered.
pub fn fuzz_limits() -> ream_sheet::Limits {
    ream_sheet::Limits::default().max_cells_per_sheet(200_000)
}

/// Options that cut any XLSX sheet of 4 KiB or more into 1 KiB chunks
/// parsed on three threads, and give the ODS pipeline 1 KiB row chunks
/// for its third thread, whatever the cores (XLS: sheets parsed on three
/// threads).
pub fn chunked() -> OpenOptions {
    OpenOptions::new()
        .threads(3)
        .tune_cores(3)
        .tune_chunk_bytes(1 << 10)
        .limits(fuzz_limits())
}

/// Options that read any ODS `content.xml` of 2 KiB or more over a
/// sliding window on one thread, in blocks from 61 bytes (XLSX: a plain
/// serial open).
pub fn windowed() -> OpenOptions {
    serial().tune_chunk_bytes(1 << 10).tune_stream_block(61)
}

/// [`windowed`] on three threads whatever the cores: an inflater ahead,
/// and the ODS window's big tables cut into 1 KiB row chunks (and tables
/// of 64 KiB or more sent whole) for a second parser.
pub fn windowed_two() -> OpenOptions {
    windowed().parallel(true).threads(3).tune_cores(3)
}

/// Options for a phase-A-only open whose streamed rows are read in tiny
/// blocks (61 bytes, then doubling), so that fuzz-sized parts are cut
/// many times, at every kind of place.
pub fn lazy() -> OpenOptions {
    serial().load_cells(false).tune_stream_block(61)
}

/// The inflated `content.xml` of a ZIP package, if it has one.
pub fn ods_content_of(data: &[u8]) -> Option<Vec<u8>> {
    let zip = ream_zip::Archive::new(
        ream_io::Bytes::from_vec(data.to_vec()),
        ream_zip::Limits::default(),
    )
    .ok()?;
    zip.read(zip.find("content.xml")?).ok()
}

/// True when quick-xml reads `xml` to its end with matching end tags and
/// every attribute well quoted, and no attribute value holds a `<` (XML
/// forbids it there; quick-xml does not check, and the ODS listing pass,
/// which skips a row to its first `</table:table-row>`, stops inside such
/// a value: finding 17).
pub fn well_formed(xml: &[u8]) -> bool {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_reader(xml);
    reader.config_mut().check_end_names = true;
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Eof) => return true,
            Ok(Event::Start(e) | Event::Empty(e)) => {
                if e.attributes().any(|a| match a {
                    Ok(a) => a.value.contains('<'),
                    Err(_) => true,
                }) {
                    return false;
                }
            }
            Ok(_) => {}
            Err(_) => return false,
        }
        buf.clear();
    }
}

/// For ODS, where the streamed read parses with the loaded read's table
/// walker: when the loaded open of `data` succeeds and its `content` is
/// well-formed XML, the lazy open must succeed too, list the same sheets
/// and names, and stream every sheet without error. (On tags that do not
/// pair up the listing pass, which skips a row to its first
/// `</table:table-row>`, and the loaded walk, which counts depth, may see
/// different tables; both are then only required not to fail badly.)
pub fn check_ods_stream(data: &[u8], content: &[u8]) -> Result<(), String> {
    let Ok(whole) = Workbook::from_bytes(data.to_vec(), &serial()) else {
        return Ok(());
    };
    if !well_formed(content) {
        if let Ok(lazy) = Workbook::from_bytes(data.to_vec(), &lazy()) {
            let _ = stream_rows(&lazy);
        }
        return Ok(());
    }
    let lazy = Workbook::from_bytes(data.to_vec(), &lazy())
        .map_err(|e| format!("the loaded open succeeds, the lazy open fails: {e}"))?;
    let listing = |wb: &Workbook| {
        let sheets: Vec<_> = wb
            .sheets()
            .iter()
            .map(|s| (s.name().to_string(), s.visibility()))
            .collect();
        (sheets, format!("{:?}", wb.defined_names()))
    };
    if listing(&whole) != listing(&lazy) {
        return Err(format!(
            "listings differ:\nloaded: {:?}\nlazy:   {:?}",
            listing(&whole),
            listing(&lazy)
        ));
    }
    let rows = stream_rows(&lazy)
        .map_err(|e| format!("the loaded open succeeds, streaming fails: {e}"))?;
    // A listing stopped at the first sheet (`sheets_needed(1)`, what
    // `ream cat` does) streams that sheet's rows alike.
    if let Some(first) = rows.first() {
        let head = Workbook::from_bytes(data.to_vec(), &self::lazy().sheets_needed(1))
            .map_err(|e| format!("the lazy open fails with sheets_needed(1): {e}"))?;
        let got = stream_rows(&head)
            .map_err(|e| format!("streaming fails with sheets_needed(1): {e}"))?;
        if got.len() != 1 || got.first() != Some(first) {
            return Err(format!(
                "sheets_needed(1) streams other rows:\nall:   {first:?}\nfirst: {got:?}"
            ));
        }
    }
    // A listing stopped at a sheet named exactly (`ream cat -s NAME`)
    // lists up to the first sheet of that name and streams it alike.
    let (sheets, _) = listing(&lazy);
    if let Some((name, _)) = sheets.last() {
        let k = sheets.iter().position(|(n, _)| n == name).unwrap_or(0);
        let named = Workbook::from_bytes(
            data.to_vec(),
            &self::lazy().sheet_needed_named(name.as_str()),
        )
        .map_err(|e| format!("the lazy open fails with sheet_needed_named: {e}"))?;
        let got = stream_rows(&named)
            .map_err(|e| format!("streaming fails with sheet_needed_named: {e}"))?;
        if got.len() != k + 1 || got.get(k) != rows.get(k) {
            return Err(format!(
                "sheet_needed_named({name:?}) lists {} sheets (want {}) or streams other rows",
                got.len(),
                k + 1
            ));
        }
    }
    Ok(())
}

/// Opens `data` serially and chunked, visits both, streams the rows of a
/// phase-A-only open, and checks that every mode that succeeds reads the
/// same cells. Returns a description of the first disagreement.
pub fn check_workbook(data: &[u8]) -> Result<(), String> {
    let whole = Workbook::from_bytes(data.to_vec(), &serial());
    let whole_cells = whole.as_ref().ok().map(visit_workbook);
    let split = Workbook::from_bytes(data.to_vec(), &chunked());
    let split_cells = split.as_ref().ok().map(visit_workbook);
    if let (Some(a), Some(b)) = (&whole_cells, &split_cells)
        && a != b
    {
        return Err(format!(
            "serial and chunked parses differ:\nserial:  {a:?}\nchunked: {b:?}"
        ));
    }
    if let (Ok(_), Err(e)) | (Err(e), Ok(_)) = (&whole, &split) {
        return Err(format!("serial and chunked opens disagree on success: {e}"));
    }
    // The windowed ODS read, on one thread and on two, gives the
    // whole-part read's cells or error.
    for opts in [windowed(), windowed_two()] {
        check_windowed(data, &whole, &whole_cells, &opts)?;
    }
    check_lazy(data, &whole, &whole_cells)
}

/// The windowed read with `opts` against the whole read.
fn check_windowed(
    data: &[u8],
    whole: &Result<Workbook, ream_sheet::Error>,
    whole_cells: &Option<Vec<Vec<CellKey>>>,
    opts: &OpenOptions,
) -> Result<(), String> {
    let win = Workbook::from_bytes(data.to_vec(), opts);
    match (whole, &win) {
        (Ok(_), Ok(w)) => {
            let (a, b) = (whole_cells, &Some(visit_workbook(w)));
            if a != b {
                return Err(format!(
                    "whole and windowed reads differ:\nwhole:    {a:?}\nwindowed: {b:?}"
                ));
            }
        }
        (Err(a), Err(b)) if a.to_string() == b.to_string() => {}
        (a, b) => {
            let text = |r: &Result<Workbook, ream_sheet::Error>| match r {
                Ok(_) => "ok".to_string(),
                Err(e) => e.to_string(),
            };
            return Err(format!(
                "whole and windowed reads disagree: {} / {}",
                text(a),
                text(b)
            ));
        }
    }
    Ok(())
}

/// The phase-A-only open streamed against the whole read.
fn check_lazy(
    data: &[u8],
    whole: &Result<Workbook, ream_sheet::Error>,
    whole_cells: &Option<Vec<Vec<CellKey>>>,
) -> Result<(), String> {
    let lazy = Workbook::from_bytes(data.to_vec(), &lazy());
    // An ODS listing pass and the loaded walk agree on well-formed XML
    // only (see `check_ods_stream`).
    let comparable = |wb: &Workbook| {
        wb.sheets()
            .first()
            .is_none_or(|s| s.part() != "content.xml")
            || ods_content_of(data).is_some_and(|c| well_formed(&c))
    };
    if let Some(wb) = lazy.as_ref().ok().filter(|wb| comparable(wb)) {
        let streamed = stream_rows(wb);
        if let (Some(a), Ok(b)) = (&whole_cells, &streamed)
            && a != b
        {
            return Err(format!(
                "loaded and streamed rows differ:\nloaded:   {a:?}\nstreamed: {b:?}"
            ));
        }
        // XLSX: the row stream reads on past a malformed block cut (up to
        // 64 MiB) as the whole-part parse does, so where the loaded open
        // succeeds the stream must too (ODS: `check_ods_stream`).
        let xlsx = wb
            .sheets()
            .first()
            .is_some_and(|s| s.part() != "content.xml");
        if let (true, Ok(_), Err(e)) = (xlsx, &whole, &streamed) {
            return Err(format!("the loaded open succeeds, streaming fails: {e}"));
        }
    }
    Ok(())
}

/// Opens `data` as a PDF (lenient, then strict) and walks everything the
/// reader exposes: version, revisions, trailer, page count and the page
/// walk, Info and XMP, every object (up to [`VISIT_CAP`]) and the decoded
/// data of every stream, and the metadata index on one thread.
pub fn visit_pdf(data: &[u8]) {
    for strict in [false, true] {
        // "user" is the user password of the encrypted seeds (the empty
        // password is tried first), so their strings and streams are
        // decrypted; an encrypted file it does not open is read locked.
        let opts = PdfOptions::new()
            .strict(strict)
            .password("user")
            .allow_encrypted(true);
        let Ok(pdf) = Pdf::from_bytes(data.to_vec(), &opts) else {
            continue;
        };
        let _ = (
            pdf.version().len(),
            pdf.revisions().len(),
            pdf.newest_xref(),
        );
        let _ = (pdf.trailer(), pdf.is_encrypted(), pdf.was_repaired());
        let _ = pdf.page_count();
        let _ = pdf.pages();
        let _ = pdf
            .info()
            .map(|i| i.iter().map(|(k, v)| format!("{k}{v}")).count());
        let _ = pdf.xmp();
        for num in pdf.object_numbers().into_iter().take(VISIT_CAP) {
            let r = ream_pdf::ObjRef::new(num, 0);
            if let Ok(Object::Stream(s)) = pdf.object(r) {
                let _ = pdf.stream_data(&s, true);
                let _ = pdf.stream_data(&s, false);
            }
        }
        let _ = pdf.index_objects(1);
        let _ = pdf.warnings().len();
    }
}
