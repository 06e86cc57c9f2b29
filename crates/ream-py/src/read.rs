//! `ream.read_excel` and the reads it shares with `Workbook.read`.

use crate::errors;
use crate::input::Source;
use crate::options::read_options;
use crate::table::Table;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use ream::sheet::{OpenOptions, SheetPick, Workbook};
use ream_arrow::{ReadOptions, read_sheets};

/// Which sheet to read: a 0-based index, a name, or (Python `None`) all.
pub enum SheetArg {
    /// 0-based index (negative ones are unknown sheets).
    Index(i64),
    /// Name, exact then case-insensitive.
    Name(String),
    /// Every sheet.
    All,
}

impl SheetArg {
    /// The one sheet to load at open (`None`: every sheet; a negative
    /// index loads none and fails later as an unknown sheet).
    fn pick(&self) -> Option<SheetPick> {
        match self {
            SheetArg::Index(i) => Some(SheetPick::Index(usize::try_from(*i).unwrap_or(usize::MAX))),
            SheetArg::Name(n) => Some(SheetPick::Name(n.clone())),
            SheetArg::All => None,
        }
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for SheetArg {
    type Error = PyErr;
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<SheetArg> {
        if obj.is_none() {
            return Ok(SheetArg::All);
        }
        if let Ok(s) = obj.cast::<PyString>() {
            return Ok(SheetArg::Name(s.to_cow()?.into_owned()));
        }
        obj.extract::<i64>().map(SheetArg::Index).map_err(|_| {
            PyTypeError::new_err("sheet must be a name (str), a 0-based index (int) or None")
        })
    }
}

/// Reads sheet `sheet` (name or 0-based index; default 0) of the workbook
/// at `path` (str, os.PathLike, bytes or a binary file object) into a
/// `ream.Table`, or every sheet into a dict of name to Table when `sheet`
/// is None. Only the sheets asked for are parsed, on `threads` threads (0:
/// one per core, also inside one big sheet), the GIL released.
///
/// Options (keyword only): header_row=0 (None: column_0, column_1, ...),
/// skip_rows=0, n_rows=None (all), columns=None (all; "A:C,F" or a list
/// of names and 0-based indices), dtypes=None ({"col": "string" | "int64"
/// | "float64" | "bool" | "date" | "datetime" | "duration"}; text converts
/// too: number text, true/false, ISO 8601 dates and date-times such as
/// "2024-01-31 10:20:30.5", durations "[-]h:mm:ss[.f]"),
/// infer_rows=None (types from every row), on_error="raise" ("null":
/// values that do not fit their dtype become null, with a ReamWarning),
/// errors_as="null" (error cells null with a ReamWarning; "string": their
/// text). A column mixing types becomes string with a MixedTypesWarning.
/// password=None: the password of an encrypted XLS workbook, tried after
/// Excel's default password "VelvetSweatshop".
#[pyfunction]
#[pyo3(signature = (path, sheet=SheetArg::Index(0), *, threads=0, password=None, **options))]
pub fn read_excel<'py>(
    py: Python<'py>,
    path: &Bound<'py, PyAny>,
    sheet: SheetArg,
    threads: usize,
    password: Option<String>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = read_options(options)?;
    let source = Source::from_py(path)?;
    let path_text = source.path_text();
    let mut open = OpenOptions::new().threads(threads).load_cells(true);
    if let Some(p) = password {
        open = open.password(p);
    }
    if let Some(pick) = sheet.pick() {
        open = open.cells_of(pick);
    }
    let (wb, _) = source.open(py, &open)?;
    let p = path_text.as_deref();
    match sheet {
        SheetArg::All => read_all(py, &wb, &opts, threads, p).map(|d| d.into_any()),
        s => {
            let index = sheet_index(py, &wb, &s, p)?;
            read_one(py, &wb, index, &opts, threads, p).map(|t| t.into_any())
        }
    }
}

/// The 0-based index of the one sheet `sheet` names (`All` is a usage
/// error: a single sheet is needed).
pub fn sheet_index(
    py: Python<'_>,
    wb: &Workbook,
    sheet: &SheetArg,
    path: Option<&str>,
) -> PyResult<usize> {
    let unknown = |what: String| {
        let names: Vec<String> = wb
            .sheets()
            .iter()
            .map(|s| format!("'{}'", s.name()))
            .collect();
        errors::to_py(
            py,
            &ream::sheet::Error::new(
                ream::sheet::ErrorKind::Usage,
                format!("no sheet {what}; the sheets are {}", names.join(", ")),
            ),
            path,
        )
    };
    match sheet {
        SheetArg::Name(name) => wb
            .sheet_by_name(name)
            .map(|s| s.index())
            .ok_or_else(|| unknown(format!("named '{name}'"))),
        SheetArg::Index(i) => usize::try_from(*i)
            .ok()
            .filter(|&i| i < wb.sheets().len())
            .ok_or_else(|| unknown(format!("at index {i} ({} sheets)", wb.sheets().len()))),
        SheetArg::All => Err(errors::usage(
            py,
            "one sheet is needed here (a name or an index), not None",
        )),
    }
}

/// Reads one sheet on up to `threads` threads (0: one per core), the GIL
/// released, and issues its warnings.
pub fn read_one<'py>(
    py: Python<'py>,
    wb: &Workbook,
    index: usize,
    opts: &ReadOptions,
    threads: usize,
    path: Option<&str>,
) -> PyResult<Bound<'py, Table>> {
    let table = py
        .detach(|| read_sheets(wb, &[index], opts, threads).pop())
        .unwrap_or_else(|| Err(ream_arrow::Error::usage("no sheet was read")))
        .map_err(|e| errors::to_py(py, e.as_sheet_error(), path))?;
    errors::warn_all(py, &table.warnings)?;
    Bound::new(py, Table::new(table))
}

/// Reads every sheet on up to `threads` threads (0: one per core), the GIL
/// released; a dict of name to Table in workbook order. The first error
/// (in sheet order) is raised.
fn read_all<'py>(
    py: Python<'py>,
    wb: &Workbook,
    opts: &ReadOptions,
    threads: usize,
    path: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let all: Vec<usize> = (0..wb.sheets().len()).collect();
    let results = py.detach(|| read_sheets(wb, &all, opts, threads));
    let dict = PyDict::new(py);
    for (sheet, r) in wb.sheets().iter().zip(results) {
        let table = r.map_err(|e| errors::to_py(py, e.as_sheet_error(), path))?;
        errors::warn_all(py, &table.warnings)?;
        dict.set_item(sheet.name(), Bound::new(py, Table::new(table))?)?;
    }
    Ok(dict)
}
