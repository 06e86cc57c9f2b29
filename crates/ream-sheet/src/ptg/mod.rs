//! Formula decompiler: the parsed-expression tokens (ptgs, reverse Polish)
//! of BIFF5, BIFF8 (`.xls`) and BIFF12 (`.xlsb`) written back as A1-style
//! formula text the way XLSX stores it (no leading `=`, function names in
//! upper case, `Sheet!A1` for other sheets, `'quoted names'` where needed).
//!
//! Operands, operators, parentheses, spaces, functions (by index, see
//! [`functions`]), defined and external names, 3-D references (through
//! the workbook's XTI table, [`FormulaBook`]), relative references of
//! shared formulas (moved to the cell) and array constants are handled.
//! Anything else (data tables, structured references, unknown tokens, a
//! token cut short) is an error naming the token and its byte offset in
//! the token stream; callers keep the cell's cached value and skip the
//! text. Bounded: token streams over [`MAX_RGCE`] bytes and texts over
//! [`MAX_TEXT`] bytes are refused.

mod functions;
mod sheet_formulas;
mod tokens;

pub(crate) use sheet_formulas::{SheetFormulas, split};
pub(crate) use tokens::exp_target;

use std::fmt::Write as _;

/// Largest token stream decompiled (Excel writes at most a few KiB).
pub(crate) const MAX_RGCE: usize = 64 * 1024;
/// Largest formula text produced (Excel's own limit is 8,192 characters).
pub(crate) const MAX_TEXT: usize = 32 * 1024;

/// Which record format the tokens come from: it sets the size of row,
/// column, string and name fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// Excel 5/95 (`Book` stream).
    Biff5,
    /// Excel 97-2003 (`Workbook` stream).
    Biff8,
    /// Excel 2007+ binary workbook (`.xlsb`).
    Biff12,
}

impl Dialect {
    fn rows(self) -> u32 {
        match self {
            Dialect::Biff5 => 16_384,
            Dialect::Biff8 => 65_536,
            Dialect::Biff12 => 1_048_576,
        }
    }

    fn cols(self) -> u32 {
        match self {
            Dialect::Biff5 | Dialect::Biff8 => 256,
            Dialect::Biff12 => 16_384,
        }
    }
}

/// One XTI entry (EXTERNSHEET / BrtExternSheet): which supporting book
/// and which of its sheets a 3-D reference means.
#[derive(Debug, Clone, Default)]
pub(crate) struct Xti {
    /// Index into [`FormulaBook::supbooks`].
    pub supbook: usize,
    /// First and last sheet (negative: deleted or the whole book).
    pub first: i32,
    pub last: i32,
}

/// What a supporting book (SUPBOOK / BrtSup*) is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum SupKind {
    /// This workbook.
    #[default]
    Internal,
    /// Add-in functions (their names in `names`).
    AddIn,
    /// Another file; its 1-based number among external books, as XLSX
    /// writes `[1]Sheet1!A1`.
    External(usize),
}

/// A supporting book: its sheets and its external names (EXTERNNAME).
#[derive(Debug, Clone, Default)]
pub(crate) struct SupBook {
    pub kind: SupKind,
    pub sheets: Vec<String>,
    pub names: Vec<String>,
}

/// What formula tokens refer to by index, read from the workbook globals.
#[derive(Debug, Clone, Default)]
pub(crate) struct FormulaBook {
    /// This workbook's sheet names, by index (BIFF5 3-D references).
    pub sheets: Vec<String>,
    /// Defined names, by index (PtgName holds index + 1).
    pub names: Vec<String>,
    pub xti: Vec<Xti>,
    pub supbooks: Vec<SupBook>,
    /// Code page of BIFF5 string constants (`None`: Windows-1252).
    pub encoding: Option<&'static encoding_rs::Encoding>,
}

/// A token the decompiler cannot write: what and where (byte offset in
/// the token stream).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PtgError {
    pub offset: usize,
    pub message: String,
}

impl std::fmt::Display for PtgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at byte {} of the formula tokens",
            self.message, self.offset
        )
    }
}

/// Decompiles `rgce` (with its trailing data `extra`, which holds array
/// constants) for the cell at `base` (row, col; relative references of
/// shared formulas and names are moved there) into `out` (cleared first).
pub(crate) fn decompile(
    dialect: Dialect,
    rgce: &[u8],
    extra: &[u8],
    book: &FormulaBook,
    base: (u32, u32),
    out: &mut String,
) -> Result<(), PtgError> {
    out.clear();
    if rgce.len() > MAX_RGCE {
        return Err(PtgError {
            offset: 0,
            message: format!(
                "a formula of {} token bytes (at most {MAX_RGCE})",
                rgce.len()
            ),
        });
    }
    let mut d = tokens::Decoder::new(dialect, rgce, extra, book, base);
    d.run()?;
    out.push_str(&d.finish()?);
    Ok(())
}

/// Writes column `col` (0-based) as letters.
fn push_col(out: &mut String, col: u32) {
    let mut n = col + 1;
    let mut buf = [0u8; 4];
    let mut i = buf.len();
    while n > 0 && i > 0 {
        i -= 1;
        let rem = (n - 1) % 26;
        if let Some(slot) = buf.get_mut(i) {
            *slot = b'A' + rem as u8;
        }
        n = (n - 1) / 26;
    }
    for &b in buf.get(i..).unwrap_or_default() {
        out.push(char::from(b));
    }
}

/// Writes a sheet name, quoted when Excel would quote it.
fn push_sheet_name(out: &mut String, name: &str) {
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        && !name.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && crate::refs::parse_a1(name.as_bytes()).is_none()
        && !looks_like_r1c1(name);
    if plain {
        out.push_str(name);
    } else {
        out.push('\'');
        for c in name.chars() {
            if c == '\'' {
                out.push('\'');
            }
            out.push(c);
        }
        out.push('\'');
    }
}

/// `R1C1`, `R`, `C`, `R2`, `C3`-like names that would read as references.
fn looks_like_r1c1(name: &str) -> bool {
    let u = name.to_ascii_uppercase();
    let b = u.as_bytes();
    let mut i = 0;
    let mut any = false;
    for letter in [b'R', b'C'] {
        if b.get(i) == Some(&letter) {
            any = true;
            i += 1;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
    }
    any && i == b.len()
}

/// Writes a number as a formula constant.
fn push_number(out: &mut String, v: f64) {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        let _ = write!(out, "{}", v as i64);
    } else if v != 0.0 && (v.abs() >= 1e15 || v.abs() < 1e-9) {
        // 6.02E+23, 1E-10: Excel's exponent form.
        let s = format!("{v:E}");
        match s.split_once('E') {
            Some((m, e)) if !e.starts_with('-') => {
                let _ = write!(out, "{m}E+{e}");
            }
            _ => out.push_str(&s),
        }
    } else {
        let _ = write!(out, "{v}");
    }
}

/// Writes a string constant with `"` doubled.
fn push_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        if c == '"' {
            out.push('"');
        }
        out.push(c);
    }
    out.push('"');
}

/// The text of a BIFF error code.
fn error_text(code: u8) -> &'static str {
    match code {
        0x00 => "#NULL!",
        0x07 => "#DIV/0!",
        0x0F => "#VALUE!",
        0x17 => "#REF!",
        0x1D => "#NAME?",
        0x24 => "#NUM!",
        0x2A => "#N/A",
        0x2B => "#GETTING_DATA",
        _ => "#N/A",
    }
}

#[cfg(test)]
mod tests;
