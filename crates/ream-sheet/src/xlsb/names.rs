//! What BIFF12 formulas refer to by index, from `workbook.bin`: the
//! supporting books (BrtSupSelf, BrtSupSame, BrtSupAddin, BrtSupBookSrc),
//! the XTI table (BrtExternSheet) and the defined names (BrtName, also
//! listed by [`Workbook::defined_names`](crate::Workbook::defined_names)
//! with their definitions decompiled).

use super::records::{u8_at, u32_at, wide_string};
use crate::model::DefinedName;
use crate::ptg::{self, Dialect, FormulaBook, SupBook, SupKind, Xti, split};

pub(super) const BRT_NAME: u16 = 39;
pub(super) const BRT_SUP_SELF: u16 = 357;
pub(super) const BRT_SUP_SAME: u16 = 358;
pub(super) const BRT_SUP_BOOK_SRC: u16 = 360;
pub(super) const BRT_EXTERN_SHEET: u16 = 362;
pub(super) const BRT_SUP_ADDIN: u16 = 667;

/// Most XTI entries, supporting books and names kept.
const MAX_ENTRIES: usize = 65_536;
/// Longest name read (Excel allows 255 characters).
const MAX_NAME_CHARS: usize = 1_024;

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
    /// One record of `workbook.bin`; false when it is none of these.
    pub(super) fn record(&mut self, typ: u16, d: &[u8]) -> bool {
        match typ {
            BRT_SUP_SELF | BRT_SUP_SAME => self.supbook(SupKind::Internal),
            BRT_SUP_ADDIN => self.supbook(SupKind::AddIn),
            BRT_SUP_BOOK_SRC => {
                self.externals += 1;
                self.supbook(SupKind::External(self.externals));
            }
            BRT_EXTERN_SHEET => {
                let n = u32_at(d, 0) as usize;
                for k in 0..n.min(MAX_ENTRIES) {
                    let at = 4 + k * 12;
                    if at + 12 > d.len() || self.xti.len() >= MAX_ENTRIES {
                        break;
                    }
                    self.xti.push(Xti {
                        supbook: u32_at(d, at) as usize,
                        first: u32_at(d, at + 4) as i32,
                        last: u32_at(d, at + 8) as i32,
                    });
                }
            }
            BRT_NAME => self.name(d),
            _ => return false,
        }
        true
    }

    fn supbook(&mut self, kind: SupKind) {
        if self.supbooks.len() < MAX_ENTRIES {
            self.supbooks.push(SupBook {
                kind,
                sheets: Vec::new(),
                names: Vec::new(),
            });
        }
    }

    /// BrtName: flags, shortcut key, sheet (0xFFFFFFFF: workbook), the
    /// name, its definition. A name that does not read is left out.
    fn name(&mut self, d: &[u8]) {
        if self.names.len() >= MAX_ENTRIES {
            return;
        }
        let flags = u32_at(d, 0);
        let itab = u32_at(d, 5);
        let mut name = String::new();
        let Ok(at) = wide_string(d, 9, MAX_NAME_CHARS, &mut name) else {
            return;
        };
        if flags & 0x20 != 0 && !name.starts_with("_xlnm.") {
            name.insert_str(0, "_xlnm.");
        }
        let (rgce, extra) = split(d, at, true);
        self.names.push(RawName {
            name,
            hidden: flags & 1 != 0 || u8_at(d, 0) & 1 != 0,
            local_sheet: (itab != u32::MAX).then_some(itab as usize),
            rgce: rgce.to_vec(),
            extra: extra.to_vec(),
        });
    }

    /// The formula book for the sheets, and the defined names with their
    /// definitions (a definition that does not decompile is kept empty).
    pub(super) fn finish(self, sheets: Vec<String>) -> (FormulaBook, Vec<DefinedName>) {
        let book = FormulaBook {
            sheets,
            names: self.names.iter().map(|n| n.name.clone()).collect(),
            xti: self.xti,
            supbooks: self.supbooks,
            encoding: None,
        };
        let mut out = String::new();
        let defined = self
            .names
            .into_iter()
            .map(|n| {
                if ptg::decompile(Dialect::Biff12, &n.rgce, &n.extra, &book, (0, 0), &mut out)
                    .is_err()
                {
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
