//! `ream.open`, `ream.Workbook` and the batch iterator of
//! `Workbook.iter_batches`.

use crate::channel::Inbox;
use crate::errors;
use crate::input::Source;
use crate::options::read_options;
use crate::read::{SheetArg, read_one, sheet_index};
use crate::table::{Batch, Table};
use arrow_array::RecordBatch;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use ream::sheet::OpenOptions;
use ream_arrow::{ReadOptions, Warning, iter_batches, sheet_schema};
use ream_batch::SheetSummary;
use std::sync::Arc;
use std::sync::mpsc::{SyncSender, sync_channel};

/// Opens the workbook at `path` (str, os.PathLike, bytes or a binary file
/// object) without parsing its sheets: `read` and `iter_batches` stream the
/// one sheet they are asked for. `threads` (0: one per core) bounds the
/// threads a streamed sheet inflates on. `password` (default None) opens
/// an encrypted XLS workbook, tried after Excel's default password
/// "VelvetSweatshop".
#[pyfunction]
#[pyo3(signature = (path, threads=0, *, password=None))]
pub fn open(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    threads: usize,
    password: Option<String>,
) -> PyResult<Workbook> {
    let source = Source::from_py(path)?;
    let path = source.path_text();
    let mut opts = OpenOptions::new().threads(threads).load_cells(false);
    if let Some(p) = password {
        opts = opts.password(p);
    }
    let (wb, bytes) = source.open(py, &opts)?;
    Ok(Workbook {
        wb: Arc::new(wb),
        bytes,
        path,
    })
}

/// An opened workbook (see `ream.open`).
#[pyclass(module = "ream", frozen)]
pub struct Workbook {
    wb: Arc<ream::sheet::Workbook>,
    /// The file's bytes, for the dimensions sheets declare.
    bytes: ream::io::Bytes,
    path: Option<String>,
}

#[pymethods]
impl Workbook {
    /// Sheet names in workbook order.
    #[getter]
    fn sheet_names(&self) -> Vec<String> {
        self.wb
            .sheets()
            .iter()
            .map(|s| s.name().to_string())
            .collect()
    }
    /// One dict per sheet with the fields of `ream sheets --json`: index,
    /// name, kind, visibility, dimensions, cells, comments, tables, merged,
    /// hyperlinks, drawings, hidden_rows, hidden_columns. `ream.open` does
    /// not parse the sheets, so `dimensions` is the range the sheet
    /// declares (empty when it declares none, and for ODS), `cells` is
    /// None and the object counts are those known without parsing.
    #[getter]
    fn sheets<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let sheets: Vec<SheetSummary> = self
            .wb
            .sheets()
            .iter()
            .map(|s| {
                let mut sum = SheetSummary::of(s);
                if !s.is_loaded() {
                    sum.dimensions = ream::declared_dimension(&self.bytes, s.part())
                        .map(|d| d.to_string())
                        .unwrap_or_default();
                }
                sum
            })
            .collect();
        let text = serde_json::to_string(&sheets)
            .map_err(|e| PyValueError::new_err(format!("sheet summaries: {e}")))?;
        let list = py.import("json")?.call_method1("loads", (text,))?;
        for (d, s) in list.try_iter()?.zip(self.wb.sheets()) {
            if !s.is_loaded() {
                d?.set_item("cells", py.None())?;
            }
        }
        Ok(list)
    }
    /// Defined names: dicts of name, formula, local_sheet (0-based index,
    /// None for workbook scope) and hidden.
    #[getter]
    fn defined_names<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for n in self.wb.defined_names() {
            let d = PyDict::new(py);
            d.set_item("name", &n.name)?;
            d.set_item("formula", &n.formula)?;
            d.set_item("local_sheet", n.local_sheet)?;
            d.set_item("hidden", n.hidden)?;
            list.append(d)?;
        }
        Ok(list)
    }
    fn __repr__(&self) -> String {
        format!(
            "ream.Workbook({}; sheets {:?})",
            self.path.as_deref().unwrap_or("<bytes>"),
            self.sheet_names()
        )
    }
    /// Reads one sheet (name or 0-based index, default the first) into a
    /// Table; options as `ream.read_excel`.
    #[pyo3(signature = (sheet=SheetArg::Index(0), **options))]
    fn read<'py>(
        &self,
        py: Python<'py>,
        sheet: SheetArg,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, Table>> {
        let opts = read_options(options)?;
        let index = sheet_index(py, &self.wb, &sheet, self.path.as_deref())?;
        read_one(py, &self.wb, index, &opts, 1, self.path.as_deref())
    }
    /// The columns a read of one sheet gives, as (name, dtype name) pairs
    /// (`int64`, `float64`, `bool`, `string`, `date`, `datetime`,
    /// `duration`, `null`), without building any row: types are inferred
    /// as `read` infers them (one streaming pass over the data rows; none
    /// when `dtypes` covers every column the header or `columns` names).
    /// Options as `ream.read_excel`; mixed-type columns warn as `read`
    /// warns. The GIL is released during the pass.
    #[pyo3(signature = (sheet=SheetArg::Index(0), **options))]
    fn schema(
        &self,
        py: Python<'_>,
        sheet: SheetArg,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Vec<(String, &'static str)>> {
        let opts = read_options(options)?;
        let index = sheet_index(py, &self.wb, &sheet, self.path.as_deref())?;
        let wb = Arc::clone(&self.wb);
        let (cols, warnings) = py
            .detach(move || sheet_schema(&wb, index, &opts))
            .map_err(|e| errors::to_py(py, e.as_sheet_error(), self.path.as_deref()))?;
        errors::warn_all(py, &warnings)?;
        Ok(cols.into_iter().map(|(n, t)| (n, t.as_str())).collect())
    }
    /// Streams one sheet as `ream.Batch`es of at most `batch_rows` rows
    /// (at least 1); options as `ream.read_excel`.
    #[pyo3(signature = (sheet=SheetArg::Index(0), batch_rows=65536, **options))]
    fn iter_batches(
        &self,
        py: Python<'_>,
        sheet: SheetArg,
        batch_rows: usize,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<BatchReader> {
        let opts = read_options(options)?;
        let index = sheet_index(py, &self.wb, &sheet, self.path.as_deref())?;
        BatchReader::start(
            py,
            Arc::clone(&self.wb),
            index,
            opts,
            batch_rows,
            self.path.clone(),
        )
    }
}

/// What the streaming thread sends.
enum Msg {
    Schema,
    Batch(RecordBatch),
    Error(ream_arrow::Error),
    Done(Vec<Warning>),
}

/// The batches of one sheet, made on a thread of their own one batch ahead
/// of the consumer (so at most two batches and the one being built are in
/// memory). Dropping the iterator stops the thread at its next batch.
#[pyclass(module = "ream", frozen)]
pub struct BatchReader {
    inbox: Inbox<Msg>,
    path: Option<String>,
}

impl BatchReader {
    /// Starts the thread and waits (GIL released) for the schema, so a bad
    /// option or unknown column raises here rather than at the first batch.
    fn start(
        py: Python<'_>,
        wb: Arc<ream::sheet::Workbook>,
        sheet: usize,
        opts: ReadOptions,
        batch_rows: usize,
        path: Option<String>,
    ) -> PyResult<BatchReader> {
        let (tx, rx) = sync_channel(1);
        std::thread::Builder::new()
            .name("ream-batches".into())
            .spawn(move || stream(&wb, sheet, &opts, batch_rows, &tx))
            .map_err(|e| errors::usage(py, format!("starting the batch thread: {e}")))?;
        let reader = BatchReader {
            inbox: Inbox::new(rx),
            path,
        };
        match reader.recv(py)? {
            Some(Msg::Schema) => Ok(reader),
            Some(Msg::Error(e)) => Err(errors::to_py(
                py,
                e.as_sheet_error(),
                reader.path.as_deref(),
            )),
            _ => Err(errors::usage(py, "the batch thread ended early")),
        }
    }

    /// The next message, or None once the stream is over.
    fn recv(&self, py: Python<'_>) -> PyResult<Option<Msg>> {
        self.inbox
            .recv(py, |m| matches!(m, Msg::Done(_) | Msg::Error(_)))
    }
}

#[pymethods]
impl BatchReader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Batch>> {
        match self.recv(py)? {
            Some(Msg::Batch(b)) => Ok(Some(Batch::new(b))),
            Some(Msg::Error(e)) => Err(errors::to_py(py, e.as_sheet_error(), self.path.as_deref())),
            Some(Msg::Done(w)) => {
                errors::warn_all(py, &w)?;
                Ok(None)
            }
            Some(Msg::Schema) | None => Ok(None),
        }
    }
}

/// The thread body: the schema signal, each batch, then the warnings (or
/// the first error). Stops when the receiver is gone.
fn stream(
    wb: &ream::sheet::Workbook,
    sheet: usize,
    opts: &ReadOptions,
    batch_rows: usize,
    tx: &SyncSender<Msg>,
) {
    let mut it = match iter_batches(wb, sheet, opts, batch_rows) {
        Ok(it) => it,
        Err(e) => {
            let _ = tx.send(Msg::Error(e));
            return;
        }
    };
    if tx.send(Msg::Schema).is_err() {
        return;
    }
    for b in it.by_ref() {
        let msg = match b {
            Ok(b) => Msg::Batch(b),
            Err(e) => Msg::Error(e),
        };
        if tx.send(msg).is_err() {
            return;
        }
    }
    let _ = tx.send(Msg::Done(it.warnings().to_vec()));
}
