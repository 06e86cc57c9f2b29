//! The engines behind a trait: sniff a file's format from its bytes and run
//! the right reader (workbook, PDF, text), giving an owned [`Analysis`].

use crate::raw::{
    Analysis, DocFormat, Outcome, PdfSummary, SheetSummary, Summary, WorkbookSummary,
};
use crate::text;
use ream_io::{Bytes, MapMode};
use ream_pdf::{Pdf, PdfOptions};
use ream_sheet::{OpenOptions, Workbook};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

/// Reads one file and says what is in it. Implementations must not panic
/// (a panic is still caught and recorded as `crashed`) and must be usable
/// from several threads at once.
pub trait Analyzer: Send + Sync {
    /// Analyses the file at `path`, using up to `threads` engine threads.
    fn analyze(&self, path: &Path, threads: usize) -> Analysis;
}

/// The standard engines: ream's workbook reader (XLSX, XLSM, ODS), its PDF
/// reader, and the text scanner of this crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StandardAnalyzer {
    /// Recognise the test-only `REAM-TEST-*` files (see
    /// [`BatchOptions::test_engines`](crate::BatchOptions::test_engines)).
    /// Default `false`; ignored unless the crate is built with its
    /// `test-engines` feature.
    pub test_engines: bool,
    /// Most distinct first-column keys counted per text file. Default
    /// 100,000.
    pub text_key_cap: usize,
}

impl Default for StandardAnalyzer {
    fn default() -> StandardAnalyzer {
        StandardAnalyzer {
            test_engines: false,
            text_key_cap: crate::options::DEFAULT_TEXT_KEY_CAP,
        }
    }
}

impl Analyzer for StandardAnalyzer {
    fn analyze(&self, path: &Path, threads: usize) -> Analysis {
        self.analyze_with(path, threads, &mut |_| {})
    }
}

impl StandardAnalyzer {
    /// Like [`Analyzer::analyze`], calling `on_format` as soon as the format
    /// is known, before the engine runs (an isolated worker reports it
    /// early, so a crash in the engine is still filed under its format).
    pub fn analyze_with(
        &self,
        path: &Path,
        threads: usize,
        on_format: &mut dyn FnMut(DocFormat),
    ) -> Analysis {
        let bytes = match Bytes::open(path, MapMode::Map) {
            Ok(b) => b,
            Err(e) => {
                return Analysis::failed(
                    DocFormat::Unknown,
                    Outcome::error("io", format!("cannot open: {e}")),
                );
            }
        };
        #[cfg(feature = "test-engines")]
        if self.test_engines && bytes.starts_with(crate::testing::MAGIC) {
            on_format(DocFormat::Test);
            return crate::testing::run(&bytes);
        }
        let format = sniff(&bytes);
        on_format(format);
        match format {
            DocFormat::Xlsx
            | DocFormat::Xlsm
            | DocFormat::Xlsb
            | DocFormat::Ods
            | DocFormat::Xls => workbook(format, bytes, threads),
            DocFormat::Pdf => pdf(path),
            DocFormat::Text => {
                Analysis::read(format, Summary::Text(text::scan(&bytes, self.text_key_cap)))
            }
            DocFormat::EncryptedOoxml => Analysis::failed(
                format,
                Outcome::error(
                    "encrypted",
                    "the workbook is password-protected (decryption is not supported)",
                ),
            ),
            DocFormat::Unknown | DocFormat::Test => {
                let what = if bytes.is_empty() {
                    "the file is empty (0 bytes)".to_string()
                } else {
                    format!(
                        "not a spreadsheet, PDF or text file (first bytes {})",
                        hex_head(&bytes)
                    )
                };
                Analysis::failed(DocFormat::Unknown, Outcome::error("unsupported", what))
            }
        }
    }
}

/// Runs `analyzer`, turning a panic into a `crashed` outcome.
pub(crate) fn guarded(analyzer: &dyn Analyzer, path: &Path, threads: usize) -> Analysis {
    catch(|| analyzer.analyze(path, threads))
}

/// [`StandardAnalyzer::analyze_with`], turning a panic into `crashed`.
pub(crate) fn guarded_with(
    engines: &StandardAnalyzer,
    path: &Path,
    threads: usize,
    on_format: &mut dyn FnMut(DocFormat),
) -> Analysis {
    catch(|| engines.analyze_with(path, threads, on_format))
}

fn catch(run: impl FnOnce() -> Analysis) -> Analysis {
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(a) => a,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown payload".to_string());
            Analysis::failed(
                DocFormat::Unknown,
                Outcome::Crashed {
                    cause: "panic".into(),
                    message: format!("the engine panicked: {msg}"),
                },
            )
        }
    }
}

/// The format of `bytes`: ream's container sniffing, then text.
pub fn sniff(bytes: &Bytes) -> DocFormat {
    use ream_sniff::Format;
    match ream_sniff::sniff_bytes(bytes) {
        Format::Xlsx => DocFormat::Xlsx,
        Format::Xlsm => DocFormat::Xlsm,
        Format::Ods => DocFormat::Ods,
        Format::Xls => DocFormat::Xls,
        Format::Xlsb => DocFormat::Xlsb,
        Format::Pdf => DocFormat::Pdf,
        Format::EncryptedOoxml => DocFormat::EncryptedOoxml,
        Format::Unknown if text::looks_like_text(bytes) => DocFormat::Text,
        Format::Unknown => DocFormat::Unknown,
    }
}

/// Up to 8 leading bytes in hex, for "unknown format" messages.
fn hex_head(b: &[u8]) -> String {
    b.iter().take(8).map(|x| format!("{x:02x}")).collect()
}

fn workbook(format: DocFormat, bytes: Bytes, threads: usize) -> Analysis {
    let opts = OpenOptions::new()
        .parallel(threads > 1)
        .threads(threads.max(1));
    match Workbook::from_source(bytes, &opts) {
        Ok(wb) => Analysis::read(
            format,
            Summary::Workbook(WorkbookSummary {
                sheets: wb.sheets().iter().map(SheetSummary::of).collect(),
                defined_names: wb.defined_names().len(),
                shared_strings: wb.shared_string_count(),
            }),
        )
        .with_warnings(wb.warnings()),
        Err(e) => Analysis::failed(format, Outcome::error(e.kind().as_str(), e.to_string())),
    }
}

fn pdf(path: &Path) -> Analysis {
    let opts = PdfOptions::new().allow_encrypted(true);
    let pdf = match Pdf::open(path, &opts) {
        Ok(p) => p,
        Err(e) => {
            return Analysis::failed(
                DocFormat::Pdf,
                Outcome::error(e.kind().as_str(), e.to_string()),
            );
        }
    };
    let (pages, pages_error) = match pdf.page_count() {
        Ok(n) => (Some(n), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let info = pdf
        .info()
        .map(|i| i.into_iter().map(|(k, v)| (k, v.to_string())).collect())
        .unwrap_or_default();
    let mut a = Analysis::read(
        DocFormat::Pdf,
        Summary::Pdf(PdfSummary {
            pages,
            pages_error,
            version: pdf.version().to_string(),
            info,
            revisions: pdf.revisions().len(),
            objects: pdf.object_numbers().len(),
            encrypted: pdf.is_encrypted(),
            repaired: pdf.was_repaired(),
        }),
    )
    .with_warnings(&pdf.warnings());
    if pdf.is_locked() {
        let why = pdf
            .encryption()
            .and_then(|e| e.error.clone())
            .unwrap_or_default();
        a.outcome = Outcome::error(
            "encrypted",
            format!(
                "the document is encrypted and cannot be decrypted ({why}); only its structure (pages, revisions, objects) was read"
            ),
        );
    }
    a
}
