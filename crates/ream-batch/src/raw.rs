//! What an engine gives back for one file, owned and not yet normalised.
//! The same types travel from an isolated worker over its pipe as JSON.

use ream_sheet::Sheet;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The formats a batch tells apart (from the bytes, never the name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DocFormat {
    /// OOXML workbook.
    Xlsx,
    /// Macro-enabled OOXML workbook.
    Xlsm,
    /// OpenDocument spreadsheet.
    Ods,
    /// Legacy BIFF workbook in a CFB container (not read yet).
    Xls,
    /// Binary OOXML workbook (not read yet).
    Xlsb,
    /// PDF document.
    Pdf,
    /// Password-protected OOXML package.
    EncryptedOoxml,
    /// Delimited (or plain) UTF-8 text.
    Text,
    /// Anything else, including empty files.
    Unknown,
    /// A test-only file (see [`BatchOptions::test_engines`](crate::BatchOptions::test_engines)).
    Test,
}

impl DocFormat {
    /// The name used in records: `xlsx`, `xlsm`, `ods`, `xls`, `xlsb`,
    /// `pdf`, `encrypted-ooxml`, `text`, `unknown`, `test`.
    pub fn as_str(self) -> &'static str {
        match self {
            DocFormat::Xlsx => "xlsx",
            DocFormat::Xlsm => "xlsm",
            DocFormat::Ods => "ods",
            DocFormat::Xls => "xls",
            DocFormat::Xlsb => "xlsb",
            DocFormat::Pdf => "pdf",
            DocFormat::EncryptedOoxml => "encrypted-ooxml",
            DocFormat::Text => "text",
            DocFormat::Unknown => "unknown",
            DocFormat::Test => "test",
        }
    }
}

impl std::fmt::Display for DocFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How one file ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The engine read the file.
    Ok,
    /// The engine (or the batch) refused the file.
    Error {
        /// The error kind: an engine kind (`io`, `malformed`,
        /// `unsupported`, `limit_exceeded`, `encrypted`, `usage`) or a
        /// batch one (`out_of_memory`, `worker`).
        kind: String,
        /// What went wrong, with its location when the engine knows it.
        message: String,
    },
    /// The wall-time limit ran out; the worker process was killed.
    Timeout,
    /// The worker died (signal or exit) or the engine panicked.
    Crashed {
        /// How: `signal N` (the worker was killed by signal N), `exit N`
        /// (it exited with status N mid-job) or `panic` (in-process).
        cause: String,
        /// What is known: the signal's name, the end of the worker's
        /// standard error, the panic message.
        message: String,
    },
}

impl Outcome {
    /// An [`Outcome::Error`].
    pub fn error(kind: impl Into<String>, message: impl Into<String>) -> Outcome {
        Outcome::Error {
            kind: kind.into(),
            message: message.into(),
        }
    }
    /// The kind without details.
    pub fn kind(&self) -> OutcomeKind {
        match self {
            Outcome::Ok => OutcomeKind::Ok,
            Outcome::Error { .. } => OutcomeKind::Error,
            Outcome::Timeout => OutcomeKind::Timeout,
            Outcome::Crashed { .. } => OutcomeKind::Crashed,
        }
    }
}

/// [`Outcome`] without its details.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutcomeKind {
    /// Read.
    Ok,
    /// Refused.
    Error,
    /// Killed after the wall-time limit.
    Timeout,
    /// The worker died.
    Crashed,
}

/// What the engine found in a file, by format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Summary {
    /// A workbook.
    Workbook(WorkbookSummary),
    /// A PDF.
    Pdf(PdfSummary),
    /// Delimited text.
    Text(TextSummary),
}

/// A workbook's sheets and counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkbookSummary {
    /// One entry per sheet, in workbook order.
    pub sheets: Vec<SheetSummary>,
    /// Defined names.
    pub defined_names: usize,
    /// Entries in the shared-string table.
    pub shared_strings: usize,
}

/// One sheet of a workbook: the fields of a batch record's
/// `summary.sheets[]` and of `ream sheets --json` (the README's "Output
/// fields" lists them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SheetSummary {
    /// 0-based position in the workbook.
    pub index: usize,
    /// Tab name.
    pub name: String,
    /// `worksheet`, `chartsheet`, ...
    pub kind: String,
    /// `visible`, `hidden` or `veryHidden`.
    pub visibility: String,
    /// Used range as `A1:B2`, empty for a sheet without cells.
    pub dimensions: String,
    /// Cells the sheet holds ([`Sheet::cell_count`]).
    pub cells: usize,
    /// Cell comments.
    pub comments: usize,
    /// Tables.
    pub tables: usize,
    /// Merged ranges.
    pub merged: usize,
    /// Hyperlinks.
    pub hyperlinks: usize,
    /// Images and charts.
    pub drawings: usize,
    /// Hidden rows.
    pub hidden_rows: usize,
    /// Hidden columns.
    pub hidden_columns: usize,
}

impl SheetSummary {
    /// The summary of `sheet`.
    pub fn of(sheet: &Sheet) -> SheetSummary {
        SheetSummary {
            index: sheet.index(),
            name: sheet.name().to_string(),
            kind: sheet.kind().as_str().to_string(),
            visibility: sheet.visibility().as_str().to_string(),
            dimensions: sheet.bounds().map(|b| b.to_string()).unwrap_or_default(),
            cells: sheet.cell_count(),
            comments: sheet.comments().len(),
            tables: sheet.tables().len(),
            merged: sheet.merged().len(),
            hyperlinks: sheet.hyperlinks().len(),
            drawings: sheet.drawings().len(),
            hidden_rows: sheet.hidden_rows().len(),
            hidden_columns: sheet.hidden_cols().len(),
        }
    }
}

/// A PDF's structure and metadata.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PdfSummary {
    /// Page count (`None` when the page tree could not be read; see
    /// `pages_error`).
    pub pages: Option<u64>,
    /// Why the page count is missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages_error: Option<String>,
    /// Header version, e.g. `1.7`.
    pub version: String,
    /// The Info dictionary as text.
    pub info: BTreeMap<String, String>,
    /// Revisions (the original plus incremental updates).
    pub revisions: usize,
    /// Objects in the cross-reference index.
    pub objects: usize,
    /// Whether the document is encrypted (decrypted with the empty user
    /// password, else only its structure was read).
    pub encrypted: bool,
    /// Whether the cross-reference data had to be rebuilt.
    pub repaired: bool,
}

/// Rows and keys of delimited text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextSummary {
    /// Non-empty lines (newlines inside double quotes do not end a row).
    pub rows: u64,
    /// Fields of the first row.
    pub columns: usize,
    /// Most fields of any row.
    pub max_columns: usize,
    /// The delimiter guessed from the first line (`,` `\t` `;` `|`), or
    /// `None` for one column.
    pub delimiter: Option<String>,
    /// Distinct values of the first column (the header row included).
    pub keys: u64,
    /// True when `keys` stopped at the cap.
    pub keys_capped: bool,
}

/// An engine's answer for one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// The format sniffed from the bytes.
    pub format: DocFormat,
    /// How it ended.
    pub outcome: Outcome,
    /// What was found (`None` unless the engine read something).
    pub summary: Option<Summary>,
    /// The first [`MAX_WARNINGS`] warning texts of the engine (problems
    /// that did not stop the read), in the engine's order.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// All warnings, kept or not.
    #[serde(default)]
    pub warning_count: usize,
}

/// Most warning texts kept per file: 20 (the count covers them all).
pub const MAX_WARNINGS: usize = 20;

impl Analysis {
    /// A failed analysis of `format`.
    pub fn failed(format: DocFormat, outcome: Outcome) -> Analysis {
        Analysis {
            format,
            outcome,
            summary: None,
            warnings: Vec::new(),
            warning_count: 0,
        }
    }

    /// A successful analysis of `format` that found `summary`.
    pub fn read(format: DocFormat, summary: Summary) -> Analysis {
        Analysis {
            format,
            outcome: Outcome::Ok,
            summary: Some(summary),
            warnings: Vec::new(),
            warning_count: 0,
        }
    }

    /// Sets the warnings from the engine's list: the texts of the first
    /// [`MAX_WARNINGS`] and the count of all.
    pub fn with_warnings<W: std::fmt::Display>(mut self, all: &[W]) -> Analysis {
        self.warnings = all
            .iter()
            .take(MAX_WARNINGS)
            .map(|w| w.to_string())
            .collect();
        self.warning_count = all.len();
        self
    }
}
