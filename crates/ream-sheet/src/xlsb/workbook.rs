//! Phase A of an XLSB package: `workbook.bin` (sheet list, date system),
//! `styles.bin` (which cell formats are dates) and `sharedStrings.bin`.

use super::names::Links;
use super::records::{Records, malformed, u8_at, u16_at, u32_at, wide_string};
use crate::dates::{builtin_date_kind, format_date_kind};
use crate::error::{Error, Result};
use crate::model::{DateKind, DefinedName, SheetKind, Visibility};
use crate::options::Limits;
use crate::parts::rels::{Relationship, type_is};
use crate::sst::SharedStrings;
use ream_zip::Archive;
use std::collections::HashMap;

const BRT_SST_ITEM: u16 = 19;
const BRT_FMT: u16 = 44;
const BRT_XF: u16 = 47;
const BRT_WB_PROP: u16 = 153;
const BRT_BUNDLE_SH: u16 = 156;
const BRT_BEGIN_CELL_XFS: u16 = 617;
const BRT_END_CELL_XFS: u16 = 618;

/// A sheet as `workbook.bin` lists it.
#[derive(Debug, Clone)]
pub(super) struct SheetEntry {
    pub name: String,
    pub kind: SheetKind,
    pub visibility: Visibility,
    /// Its part (resolved from the workbook's relationships).
    pub part: String,
}

/// Everything the sheets share, read once.
#[derive(Debug, Default)]
pub(super) struct Globals {
    pub date_1904: bool,
    /// Date kind of each cell format (XF), by XF index.
    pub xf_dates: Vec<Option<DateKind>>,
    pub sheets: Vec<SheetEntry>,
    /// Sheets, names and links that formula tokens refer to.
    pub book: crate::ptg::FormulaBook,
    /// Defined names (BrtName) with their definitions.
    pub defined_names: Vec<DefinedName>,
    /// Sheets skipped for want of a part, as warnings.
    pub warnings: Vec<Error>,
}

/// Reads a binary part whole (within the archive's limits), or `None`.
pub(super) fn read_bin(archive: &Archive, name: &str) -> Result<Option<Vec<u8>>> {
    match archive.find(name) {
        Some(e) => archive
            .read(e)
            .map(Some)
            .map_err(|e| Error::from(e).in_part(name)),
        None => Ok(None),
    }
}

/// Reads `workbook.bin` (`data`, part `part`) with its relationships.
pub(super) fn read_workbook(
    data: &[u8],
    part: &str,
    rels: &[Relationship],
    limits: &Limits,
) -> Result<Globals> {
    let mut g = Globals::default();
    let mut recs = Records::new(data, part);
    let max = limits.max_string_chars;
    let mut links = Links::default();
    while let Some(r) = recs.next_record()? {
        if links.record(r.typ, r.data) {
            continue;
        }
        match r.typ {
            BRT_WB_PROP => g.date_1904 = u8_at(r.data, 0) & 1 != 0,
            BRT_BUNDLE_SH => {
                let visibility = match u32_at(r.data, 0) {
                    1 => Visibility::Hidden,
                    2 => Visibility::VeryHidden,
                    _ => Visibility::Visible,
                };
                let mut rid = String::new();
                let mut name = String::new();
                let at = wide_string(r.data, 8, max, &mut rid)
                    .map_err(|e| e.into_error(part, r.offset))?;
                wide_string(r.data, at, max, &mut name)
                    .map_err(|e| e.into_error(part, r.offset))?;
                let rel = rels.iter().find(|x| x.id == rid && !x.external);
                let Some(rel) = rel else {
                    g.warnings.push(malformed(
                        part,
                        format!(
                            "sheet '{name}' has no relationship '{rid}' to a part; it was skipped"
                        ),
                        r.offset,
                    ));
                    continue;
                };
                let kind = if type_is(rel, "chartsheet") {
                    SheetKind::Chartsheet
                } else if type_is(rel, "dialogsheet") {
                    SheetKind::DialogSheet
                } else if type_is(rel, "xlMacrosheet")
                    || type_is(rel, "macrosheet")
                    || type_is(rel, "xlIntlMacrosheet")
                {
                    SheetKind::MacroSheet
                } else {
                    SheetKind::Worksheet
                };
                g.sheets.push(SheetEntry {
                    name,
                    kind,
                    visibility,
                    part: rel.target.clone(),
                });
            }
            _ => {}
        }
    }
    let names = g.sheets.iter().map(|s| s.name.clone()).collect();
    (g.book, g.defined_names) = links.finish(names);
    Ok(g)
}

/// Reads `styles.bin`: the date kind of every cell XF.
pub(super) fn read_styles(
    data: &[u8],
    part: &str,
    limits: &Limits,
) -> Result<Vec<Option<DateKind>>> {
    let mut formats: HashMap<u16, String> = HashMap::new();
    let mut xf_formats: Vec<u16> = Vec::new();
    let mut in_cell_xfs = false;
    let mut recs = Records::new(data, part);
    while let Some(r) = recs.next_record()? {
        match r.typ {
            BRT_FMT => {
                let mut code = String::new();
                wide_string(r.data, 2, limits.max_string_chars, &mut code)
                    .map_err(|e| e.into_error(part, r.offset))?;
                formats.insert(u16_at(r.data, 0), code);
            }
            BRT_BEGIN_CELL_XFS => in_cell_xfs = true,
            BRT_END_CELL_XFS => in_cell_xfs = false,
            BRT_XF if in_cell_xfs => xf_formats.push(u16_at(r.data, 2)),
            _ => {}
        }
    }
    Ok(xf_formats
        .iter()
        .map(|id| match formats.get(id) {
            Some(code) => format_date_kind(code),
            None => builtin_date_kind(u32::from(*id)),
        })
        .collect())
}

/// Reads `sharedStrings.bin`: one BrtSSTItem (a RichStr: flags byte,
/// XLWideString, then runs and phonetic data, skipped) per string. The
/// declared count in BrtBeginSst is not trusted for allocation.
pub(super) fn read_sst(data: &[u8], part: &str, limits: &Limits) -> Result<SharedStrings> {
    let mut arena = String::new();
    let mut ends: Vec<u32> = Vec::new();
    let mut recs = Records::new(data, part);
    while let Some(r) = recs.next_record()? {
        if r.typ != BRT_SST_ITEM {
            continue;
        }
        wide_string(r.data, 1, limits.max_string_chars, &mut arena)
            .map_err(|e| e.into_error(part, r.offset))?;
        let end = u32::try_from(arena.len())
            .map_err(|_| Error::limit("shared strings exceed 4 GiB").in_part(part))?;
        ends.push(end);
    }
    arena.shrink_to_fit();
    Ok(SharedStrings { arena, ends })
}
