//! The grid and text limits of an XLSX worksheet, as Excel enforces them.

/// Rows in a worksheet (0-based rows 0..=1,048,575).
pub const MAX_ROWS: u32 = 1_048_576;
/// Columns in a worksheet (0-based columns 0..=16,383, `A`..`XFD`).
pub const MAX_COLS: u32 = 16_384;
/// Characters (UTF-16 code units) in one cell's text.
pub const MAX_TEXT_CHARS: usize = 32_767;
/// Characters in a formula.
pub const MAX_FORMULA_CHARS: usize = 8_192;
/// Characters in a sheet name.
pub const MAX_SHEET_NAME_CHARS: usize = 31;
