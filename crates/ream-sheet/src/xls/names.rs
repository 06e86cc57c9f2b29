//! What formulas refer to by index, from the globals substream:
//! SUPBOOK (supporting books), EXTERNNAME (their names), EXTERNSHEET
//! (the XTI table of 3-D references) and NAME (defined names, also listed
//! by [`Workbook::defined_names`](crate::Workbook::defined_names) with
//! their definitions decompiled).

use super::records::{Text, u16_at};
use crate::model::DefinedName;
use crate::ptg::{self, Dialect, FormulaBook, SupBook, SupKind, Xti};

pub(super) const SUPBOOK: u16 = 0x01AE;
pub(super) const EXTERNNAME: u16 = 0x0023;
pub(super) const EXTERNSHEET: u16 = 0x0017;
pub(super) const NAME: u16 = 0x0018;

/// Most XTI entries, supporting books and names kept (each record holds
/// at most a few thousand; this bounds memory on hostile input).
const MAX_ENTRIES: usize = 65_536;

/// The built-in names (NAME with fBuiltin: one character code), as XLSX
/// writes them.
fn builtin_name(code: u8) -> String {
    let n = match code {
        0x00 => "Consolidate_Area",
        0x01 => "Auto_Open",
        0x02 => "Auto_Close",
        0x03 => "Extract",
        0x04 => "Database",
        0x05 => "Criteria",
        0x06 => "Print_Area",
        0x07 => "Print_Titles",
        0x08 => "Recorder",
        0x09 => "Data_Form",
        0x0A => "Auto_Activate",
        0x0B => "Auto_Deactivate",
        0x0C => "Sheet_Title",
        0x0D => "_FilterDatabase",
        _ => return format!("_xlnm.Builtin_{code}"),
    };
    format!("_xlnm.{n}")
}

/// A NAME record kept until every name is known (a definition may use
/// names defined after it).
#[derive(Debug, Clone)]
struct RawName {
    name: String,
    hidden: bool,
    local_sheet: Option<usize>,
    rgce: Vec<u8>,
    extra: Vec<u8>,
}

/// Collects the records, then builds the [`FormulaBook`].
#[derive(Debug, Default)]
pub(super) struct Links {
    supbooks: Vec<SupBook>,
    xti: Vec<Xti>,
    names: Vec<RawName>,
    externals: usize,
}

impl Links {
    /// SUPBOOK: this workbook, add-in functions or another file.
    pub(super) fn supbook(&mut self, d: &[u8], text: &Text) {
        if self.supbooks.len() >= MAX_ENTRIES {
            return;
        }
        let (ctab, cch) = (usize::from(u16_at(d, 0)), u16_at(d, 2));
        let kind = match cch {
            0x0401 => SupKind::Internal,
            0x3A01 => SupKind::AddIn,
            _ => {
                self.externals += 1;
                SupKind::External(self.externals)
            }
        };
        let mut sheets = Vec::new();
        if let SupKind::External(_) = kind {
            // The file name (its length is `cch`), then `ctab` sheet names.
            let mut path = String::new();
            let mut at = 2 + text.long_string(d.get(2..).unwrap_or_default(), &mut path);
            for _ in 0..ctab.min(MAX_ENTRIES) {
                if at >= d.len() {
                    break;
                }
                let mut s = String::new();
                at += text.long_string(d.get(at..).unwrap_or_default(), &mut s);
                sheets.push(s);
            }
        }
        self.supbooks.push(SupBook {
            kind,
            sheets,
            names: Vec::new(),
        });
    }

    /// EXTERNNAME: a name of the last supporting book (its text starts
    /// at byte 6 in every form Excel writes).
    pub(super) fn extern_name(&mut self, d: &[u8], text: &Text) {
        let Some(sb) = self.supbooks.last_mut() else {
            return;
        };
        if sb.names.len() >= MAX_ENTRIES {
            return;
        }
        let mut s = String::new();
        text.short_string(d.get(6..).unwrap_or_default(), &mut s);
        sb.names.push(s);
    }

    /// EXTERNSHEET (BIFF8): the XTI table, its CONTINUEs joined.
    pub(super) fn extern_sheet(&mut self, d: &[u8]) {
        let n = usize::from(u16_at(d, 0));
        for k in 0..n.min(MAX_ENTRIES) {
            let at = 2 + k * 6;
            if at + 6 > d.len() {
                break;
            }
            self.xti.push(Xti {
                supbook: usize::from(u16_at(d, at)),
                first: i32::from(u16_at(d, at + 2) as i16),
                last: i32::from(u16_at(d, at + 4) as i16),
            });
        }
    }

    /// NAME: a defined name and its definition's tokens.
    pub(super) fn name(&mut self, d: &[u8], text: &Text) {
        if self.names.len() >= MAX_ENTRIES {
            return;
        }
        let flags = u16_at(d, 0);
        let cch = usize::from(d.get(3).copied().unwrap_or(0));
        let cce = usize::from(u16_at(d, 4));
        // BIFF8: itab at 8; BIFF5: at 8 as well (after ixals at 6).
        let itab = usize::from(u16_at(d, 8));
        let mut at = 14;
        let mut name = String::new();
        let builtin = flags & 0x20 != 0;
        if text.biff8 {
            let high = d.get(at).copied().unwrap_or(0) & 1 != 0;
            at += 1;
            let width = if high { 2 } else { 1 };
            let body = d.get(at..at + cch * width).unwrap_or_default();
            if builtin {
                name = builtin_name(body.first().copied().unwrap_or(0xFF));
            } else if high {
                let units = body.chunks_exact(2).map(|c| u16_at(c, 0));
                name.extend(char::decode_utf16(units).map(|c| c.unwrap_or('\u{FFFD}')));
            } else {
                name.extend(body.iter().map(|&c| char::from(c)));
            }
            at += body.len();
        } else {
            let body = d.get(at..at + cch).unwrap_or_default();
            if builtin {
                name = builtin_name(body.first().copied().unwrap_or(0xFF));
            } else {
                text.push_8bit(&mut name, body);
            }
            at += body.len();
        }
        let rgce = d.get(at..at + cce).unwrap_or_default().to_vec();
        let extra = d.get(at + cce..).unwrap_or_default().to_vec();
        self.names.push(RawName {
            name,
            hidden: flags & 1 != 0,
            local_sheet: itab.checked_sub(1),
            rgce,
            extra,
        });
    }

    /// The formula book for the sheets, and the defined names with their
    /// definitions (a definition that does not decompile is kept empty).
    pub(super) fn finish(
        self,
        sheets: Vec<String>,
        text: &Text,
    ) -> (FormulaBook, Vec<DefinedName>) {
        let book = FormulaBook {
            sheets,
            names: self.names.iter().map(|n| n.name.clone()).collect(),
            xti: self.xti,
            supbooks: self.supbooks,
            encoding: Some(text.encoding),
        };
        let dialect = if text.biff8 {
            Dialect::Biff8
        } else {
            Dialect::Biff5
        };
        let mut out = String::new();
        let defined = self
            .names
            .into_iter()
            .map(|n| {
                if ptg::decompile(dialect, &n.rgce, &n.extra, &book, (0, 0), &mut out).is_err() {
                    out.clear();
                }
                DefinedName {
                    name: n.name,
                    formula: out.clone(),
                    local_sheet: n.local_sheet,
                    hidden: n.hidden,
                }
            })
            .collect();
        (book, defined)
    }
}
