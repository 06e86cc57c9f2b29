//! The workbook globals substream (phase A): BIFF version, code page, date
//! system, number formats and cell formats (which are dates), the
//! shared-string table and the sheet list.

use super::crypt::FILEPASS;
use super::names::{EXTERNNAME, EXTERNSHEET, Links, NAME, SUPBOOK};
use super::records::{CONTINUE, Records, Segments, Text, malformed, u16_at, u32_at};
use crate::dates::{builtin_date_kind, format_date_kind};
use crate::error::{Error, ErrorKind, Result};
use crate::model::{DateKind, DefinedName, SheetKind, Visibility};
use crate::options::Limits;
use crate::ptg::FormulaBook;
use crate::sst::SharedStrings;
use std::collections::HashMap;

const BOF: u16 = 0x0809;
const EOF: u16 = 0x000A;
const CODEPAGE: u16 = 0x0042;
const DATEMODE: u16 = 0x0022;
const FORMAT: u16 = 0x041E;
const XF: u16 = 0x00E0;
const SST: u16 = 0x00FC;
const BOUNDSHEET: u16 = 0x0085;

/// A sheet as BOUNDSHEET lists it.
#[derive(Debug, Clone)]
pub(super) struct SheetEntry {
    pub name: String,
    pub kind: SheetKind,
    pub visibility: Visibility,
    /// Stream offset of the sheet's BOF record.
    pub offset: usize,
}

/// Everything the sheets share, read once.
#[derive(Debug)]
pub(super) struct Globals {
    pub text: Text,
    pub date_1904: bool,
    /// Date kind of each cell format (XF), by XF index.
    pub xf_dates: Vec<Option<DateKind>>,
    pub sst: SharedStrings,
    pub sheets: Vec<SheetEntry>,
    /// Sheets, names and links that formula tokens refer to.
    pub book: FormulaBook,
    /// Defined names (NAME records) with their definitions.
    pub defined_names: Vec<DefinedName>,
}

/// Reads the globals substream at the start of `stream`.
pub(super) fn read_globals(stream: &[u8], limits: &Limits) -> Result<Globals> {
    let mut recs = Records::new(stream, 0);
    let bof = recs
        .next_record()?
        .ok_or_else(|| malformed("the Workbook stream is empty".into(), 0))?;
    let biff8 = match (bof.typ, u16_at(bof.data, 0)) {
        (BOF, 0x0600) => true,
        (BOF, 0x0500) => false,
        (0x0009 | 0x0209 | 0x0409, _) => {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "a BIFF2-4 workbook (Excel 2.x to 4.0): ream reads BIFF5 to BIFF8 (Excel 5 to 2003)",
            )
            .in_part("Workbook"));
        }
        (typ, v) => {
            return Err(malformed(
                format!(
                    "the Workbook stream starts with record 0x{typ:04X} version 0x{v:04X}, not a BIFF5/8 BOF"
                ),
                0,
            ));
        }
    };
    let mut g = Globals {
        text: Text {
            biff8,
            encoding: encoding_rs::WINDOWS_1252,
        },
        date_1904: false,
        xf_dates: Vec::new(),
        sst: SharedStrings::default(),
        sheets: Vec::new(),
        book: FormulaBook::default(),
        defined_names: Vec::new(),
    };
    let mut links = Links::default();
    let mut formats: HashMap<u16, String> = HashMap::new();
    let mut xf_formats: Vec<u16> = Vec::new();
    while let Some(r) = recs.next_record()? {
        match r.typ {
            EOF => break,
            // The stream was decrypted before (see `crypt`).
            FILEPASS => {}
            CODEPAGE => {
                let cp = u16_at(r.data, 0);
                // 1200 is UTF-16: BIFF8 strings say their width themselves.
                if cp != 1200
                    && let Some(enc) = codepage::to_encoding(cp)
                {
                    g.text.encoding = enc;
                }
            }
            DATEMODE => g.date_1904 = u16_at(r.data, 0) == 1,
            FORMAT => {
                let id = u16_at(r.data, 0);
                let mut code = String::new();
                let body = r.data.get(2..).unwrap_or(&[]);
                if biff8 {
                    g.text.long_string(body, &mut code);
                } else {
                    g.text.short_string(body, &mut code);
                }
                formats.insert(id, code);
            }
            XF => xf_formats.push(u16_at(r.data, 2)),
            SST => {
                let parts = recs.with_continues(r)?;
                g.sst = read_sst(parts, r.offset, limits)?;
            }
            BOUNDSHEET => g.sheets.push(sheet_entry(r.data, &g.text, r.offset)?),
            SUPBOOK => links.supbook(r.data, &g.text),
            EXTERNNAME => links.extern_name(r.data, &g.text),
            EXTERNSHEET if biff8 => links.extern_sheet(&recs.with_continues(r)?.concat()),
            NAME => links.name(&recs.with_continues(r)?.concat(), &g.text),
            CONTINUE => {}
            _ => {}
        }
    }
    let names = g.sheets.iter().map(|s| s.name.clone()).collect();
    (g.book, g.defined_names) = links.finish(names, &g.text);
    g.xf_dates = xf_formats
        .iter()
        .map(|id| match formats.get(id) {
            Some(code) => format_date_kind(code),
            None => builtin_date_kind(u32::from(*id)),
        })
        .collect();
    Ok(g)
}

fn sheet_entry(b: &[u8], text: &Text, offset: usize) -> Result<SheetEntry> {
    if b.len() < 7 {
        return Err(malformed(
            format!("a BOUNDSHEET record of {} bytes (at least 7)", b.len()),
            offset,
        ));
    }
    let visibility = match b.get(4).copied().unwrap_or(0) & 3 {
        0 => Visibility::Visible,
        1 => Visibility::Hidden,
        _ => Visibility::VeryHidden,
    };
    let kind = match b.get(5).copied().unwrap_or(0) {
        0 => SheetKind::Worksheet,
        1 => SheetKind::MacroSheet,
        // 6: a VBA module; listed as a sheet without cells.
        2 => SheetKind::Chartsheet,
        _ => SheetKind::DialogSheet,
    };
    let mut name = String::new();
    text.short_string(b.get(6..).unwrap_or(&[]), &mut name);
    Ok(SheetEntry {
        name,
        kind,
        visibility,
        offset: u32_at(b, 0) as usize,
    })
}

/// The shared-string table from the SST record and its CONTINUEs. The
/// declared count only reserves memory up to what the data can hold; a
/// string cut off by the end of the data ends the table with the strings
/// read so far (a cell naming a missing string reads as empty text).
fn read_sst(parts: Vec<&[u8]>, offset: usize, limits: &Limits) -> Result<SharedStrings> {
    let first = parts.first().copied().unwrap_or(&[]);
    let declared = u32_at(first, 4) as usize;
    let bytes: usize = parts.iter().map(|p| p.len()).sum();
    // Every string takes at least 3 bytes (length and flags).
    let cap = declared.min(bytes / 3);
    let mut parts = parts;
    if let Some(p) = parts.first_mut() {
        *p = p.get(8..).unwrap_or(&[]);
    }
    let mut seg = Segments::new(parts);
    let mut sst = SharedStrings {
        arena: String::with_capacity(bytes),
        ends: Vec::with_capacity(cap),
    };
    let mut one = String::new();
    while sst.ends.len() < declared {
        one.clear();
        if seg.rich_string(&mut one).is_none() {
            break;
        }
        if one.chars().count() > limits.max_string_chars {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "shared string {} is longer than {} characters (max_string_chars)",
                    sst.ends.len(),
                    limits.max_string_chars
                ),
            )
            .in_part("Workbook")
            .at_offset(offset as u64));
        }
        sst.arena.push_str(&one);
        let end = u32::try_from(sst.arena.len()).map_err(|_| {
            Error::new(
                ErrorKind::LimitExceeded,
                "the shared strings hold more than 4 GiB of text",
            )
            .in_part("Workbook")
            .at_offset(offset as u64)
        })?;
        sst.ends.push(end);
    }
    Ok(sst)
}
