"""ream: read big spreadsheets fast into Arrow tables.

Tables and batches implement the Arrow PyCapsule interface, so
``pyarrow.table(t)``, ``polars.DataFrame(t)``, ``duckdb.sql("select * from t")``
and pandas (through pyarrow) take them without a copy. ``import ream``
imports none of pyarrow, polars, pandas or numpy.

Read options (``read_excel``, ``Workbook.read``, ``Workbook.iter_batches``):

- ``header_row`` (default 0): 0-based row holding the column names; ``None``
  names the columns ``column_0``, ``column_1``, ... Duplicate names become
  unique (``a``, ``a_1``) and empty ones ``__UNNAMED__{i}``.
- ``skip_rows`` (default 0): rows skipped after the header (or from row 0
  without one).
- ``n_rows`` (default None: all): at most this many data rows, empty rows
  included.
- ``columns`` (default None: all): Excel letters and ranges as one string
  (``"A:C,F"``), or a list of column names (str) and 0-based indices (int),
  in the order wanted. Unknown ones raise ReamError.
- ``dtypes`` (default None): ``{"column": type}`` overriding the inferred
  type; types: ``"string"``, ``"int64"``, ``"float64"``, ``"bool"``,
  ``"date"``, ``"datetime"``, ``"duration"`` (and ``"null"``). Text cells
  convert too: number text into int64/float64, ``true``/``false`` into
  bool, ISO 8601 text into date (``2024-01-31``, at midnight) and datetime
  (``2024-01-31T10:20:30``, ``2024-01-31 10:20:30.5``; a trailing ``Z`` is
  dropped, other UTC offsets are not taken), and ``[-]h:mm:ss[.f]`` text
  into duration (``36:00:00``, ``-1:30:00``). Numbers convert into date and
  datetime as Excel date serials and into duration as days.
- ``infer_rows`` (default None: every row): infer the types from the first
  N data rows only; a later value that does not fit raises ReamError naming
  the cell.
- ``on_error`` (default ``"raise"``): a value that cannot become its asked
  dtype raises ReamError naming the sheet and cell; ``"null"`` makes it null
  with one ReamWarning per column counting them.
- ``errors_as`` (default ``"null"``): error cells (``#N/A`` ...) become null
  with a ReamWarning; ``"string"`` keeps their text (the column types as
  string).

Inferred types: int64 when every number is integral and fits, else
float64; bool; string; date (date32) for date-formatted whole days,
datetime (timestamp[ms]) for date-times, duration (duration[ms]) for
durations and times of day; null for an empty column. A column mixing
types becomes string, every value kept as text (numbers in their shortest
round-trip form, dates in ISO 8601), with a MixedTypesWarning naming the
sheet, column and first cell of the other type.
"""

import os
from typing import IO, Any, Dict, Iterator, List, Literal, Mapping, Optional, Protocol, Sequence, Tuple, Union, overload

__version__: str

_Path = Union[str, "os.PathLike[str]", bytes, IO[bytes]]
_Sheet = Union[str, int]
_DType = Literal["string", "int64", "float64", "bool", "date", "datetime", "duration", "null"]
_Columns = Union[str, Sequence[Union[str, int]], None]

class ReamError(Exception):
    """A file ream cannot read, or a request it cannot meet (usage errors:
    unknown sheet or column, a value that does not fit its dtype)."""

    kind: str
    """malformed, unsupported, limit_exceeded, encrypted, usage or io."""
    path: Optional[str]
    part: Optional[str]
    """The ZIP part (e.g. ``xl/worksheets/sheet1.xml``) or the PDF object
    (``object 12 0``), when known."""
    sheet: Optional[str]
    cell: Optional[str]
    """A1-style cell, when known."""
    offset: Optional[int]
    """Byte offset in the part (or file), when known."""

class MalformedError(ReamError):
    """The file breaks its format's rules (truncated, corrupt, inconsistent)."""

class LimitExceededError(ReamError):
    """A resource limit (size, inflate ratio, cell count, depth) was exceeded."""

class UnsupportedFormatError(ReamError):
    """Not a format ream reads, or a feature ream does not implement."""

class EncryptedError(ReamError):
    """The file is encrypted or password-protected."""

class ReamWarning(UserWarning):
    """Error cells or bad values read as null (one warning per column)."""

class MixedTypesWarning(UserWarning):
    """A column mixing types was read as string; every value is kept."""

class Table:
    """A sheet in Arrow: named, typed columns, every row in memory."""

    @property
    def num_rows(self) -> int: ...
    @property
    def num_columns(self) -> int: ...
    @property
    def column_names(self) -> List[str]: ...
    @property
    def schema(self) -> List[Tuple[str, str]]:
        """``[(name, type)]``; types as in ``dtypes``."""
    def __len__(self) -> int: ...
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object:
        """An ``arrow_array_stream`` PyCapsule (the requested schema is ignored)."""
    def __arrow_c_schema__(self) -> object:
        """An ``arrow_schema`` PyCapsule."""
    def to_arrow(self) -> Any:
        """A ``pyarrow.Table``, zero-copy (imports pyarrow only;
        ``pyarrow.table(t)`` gives the same but first imports pandas when it
        is installed, about 0.3 s)."""
    def to_polars(self) -> Any:
        """A ``polars.DataFrame`` (imports polars)."""
    def to_pandas(self) -> Any:
        """A ``pandas.DataFrame`` (imports pyarrow and pandas)."""

class Batch:
    """One record batch of ``Workbook.iter_batches``."""

    @property
    def num_rows(self) -> int: ...
    @property
    def column_names(self) -> List[str]: ...
    @property
    def schema(self) -> List[Tuple[str, str]]: ...
    def __len__(self) -> int: ...
    def __arrow_c_array__(self, requested_schema: Optional[object] = None) -> Tuple[object, object]:
        """``(arrow_schema, arrow_array)`` PyCapsules: a struct array of the columns."""
    def __arrow_c_schema__(self) -> object: ...
    def to_arrow(self) -> Any:
        """A ``pyarrow.RecordBatch`` (imports pyarrow)."""

class BatchReader(Iterator[Batch]):
    """The batches of one sheet, made one batch ahead on a thread of their
    own; warnings are issued when the iteration ends."""

    def __iter__(self) -> "BatchReader": ...
    def __next__(self) -> Batch: ...

class Workbook:
    """A workbook opened by ``ream.open``: sheets listed, none parsed yet."""

    @property
    def sheet_names(self) -> List[str]: ...
    @property
    def sheets(self) -> List[Dict[str, Any]]:
        """The fields of ``ream sheets --json``: index, name, kind, visibility,
        dimensions, cells, comments, tables, merged, hyperlinks, drawings,
        hidden_rows, hidden_columns (counts are 0 for sheets not parsed)."""
    @property
    def defined_names(self) -> List[Dict[str, Any]]:
        """Dicts of name, formula, local_sheet (index or None) and hidden."""
    def read(
        self,
        sheet: _Sheet = 0,
        *,
        header_row: Optional[int] = 0,
        skip_rows: int = 0,
        n_rows: Optional[int] = None,
        columns: _Columns = None,
        dtypes: Optional[Mapping[str, _DType]] = None,
        infer_rows: Optional[int] = None,
        on_error: Literal["raise", "null"] = "raise",
        errors_as: Literal["null", "string"] = "null",
    ) -> Table:
        """Streams one sheet into a Table (types from a first pass)."""
    def schema(
        self,
        sheet: _Sheet = 0,
        *,
        header_row: Optional[int] = 0,
        skip_rows: int = 0,
        n_rows: Optional[int] = None,
        columns: _Columns = None,
        dtypes: Optional[Mapping[str, _DType]] = None,
        infer_rows: Optional[int] = None,
        on_error: Literal["raise", "null"] = "raise",
        errors_as: Literal["null", "string"] = "null",
    ) -> List[Tuple[str, _DType]]:
        """The (name, dtype) columns a read of the sheet gives, inferred by one
        streaming pass without building rows (none when ``dtypes`` covers
        every column the header or ``columns`` names); mixed-type columns
        warn as ``read`` warns."""
    def iter_batches(
        self,
        sheet: _Sheet = 0,
        batch_rows: int = 65536,
        *,
        header_row: Optional[int] = 0,
        skip_rows: int = 0,
        n_rows: Optional[int] = None,
        columns: _Columns = None,
        dtypes: Optional[Mapping[str, _DType]] = None,
        infer_rows: Optional[int] = None,
        on_error: Literal["raise", "null"] = "raise",
        errors_as: Literal["null", "string"] = "null",
    ) -> BatchReader:
        """Streams one sheet as batches of at most ``batch_rows`` rows, in the
        memory of about three batches. Types come from a first streaming pass
        unless ``dtypes`` covers every column or ``infer_rows`` is given."""

def open(path: _Path, threads: int = 0, *, password: Optional[str] = None) -> Workbook:
    """Opens a workbook (XLSX, XLSM, ODS) without parsing its sheets.
    ``threads`` (0: one per core) bounds the threads a streamed sheet uses.
    ``password`` opens an encrypted XLS workbook (Excel's default password
    "VelvetSweatshop" is tried first)."""

@overload
def read_excel(
    path: _Path,
    sheet: _Sheet = 0,
    *,
    header_row: Optional[int] = 0,
    skip_rows: int = 0,
    n_rows: Optional[int] = None,
    columns: _Columns = None,
    dtypes: Optional[Mapping[str, _DType]] = None,
    infer_rows: Optional[int] = None,
    on_error: Literal["raise", "null"] = "raise",
    errors_as: Literal["null", "string"] = "null",
    threads: int = 0,
    password: Optional[str] = None,
) -> Table: ...
@overload
def read_excel(
    path: _Path,
    sheet: None,
    *,
    header_row: Optional[int] = 0,
    skip_rows: int = 0,
    n_rows: Optional[int] = None,
    columns: _Columns = None,
    dtypes: Optional[Mapping[str, _DType]] = None,
    infer_rows: Optional[int] = None,
    on_error: Literal["raise", "null"] = "raise",
    errors_as: Literal["null", "string"] = "null",
    threads: int = 0,
    password: Optional[str] = None,
) -> Dict[str, Table]:
    """Reads a sheet (name or 0-based index) into a Table, or with
    ``sheet=None`` every sheet into a dict of name to Table. The whole
    workbook is parsed at open, its sheets in parallel on ``threads``
    threads (0: one per core); to read one sheet of a big many-sheet
    workbook, ``ream.open(path).read(sheet)`` streams only that one.
    Missing files raise FileNotFoundError (an OSError)."""

class _ArrowStream(Protocol):
    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any: ...

def write_excel(
    data: Union[_ArrowStream, Mapping[str, _ArrowStream]],
    path: Union[str, "os.PathLike[str]"],
    *,
    sheet_name: str = "Sheet1",
    autofit: bool = False,
    template: Optional[Union[str, "os.PathLike[str]"]] = None,
    template_sheet: Optional[Union[str, int]] = None,
    start_row: Optional[int] = None,
) -> None:
    """Writes an XLSX workbook: ``data`` is a table (anything with
    ``__arrow_c_stream__``: pyarrow, polars, a ream Table) written as sheet
    ``sheet_name``, or a dict of sheet name to table (sheets written in
    parallel). Each sheet has a frozen header row of the column names, then
    one row per table row; nulls are empty cells. Types: integers and
    floats are numbers (integers beyond 2**53 are written as text, NaN and
    infinities as #NUM!), decimals numbers, bools, strings and
    dictionary-encoded strings text, date32 a date (``yyyy-mm-dd``),
    timestamps and date64 date-times (UTC wall time; at midnight a date),
    time32/64 times of day, durations ``[h]:mm:ss``; dates before 1900 are
    written as text. Other types (lists, structs, binary) raise
    UnsupportedFormatError. ``autofit`` sizes columns to their longest
    value. Memory stays bounded whatever the row count; more than 1,048,575
    rows raise LimitExceededError.

    ``template`` (default None): an .xlsx file whose sheet
    ``template_sheet`` (name or 0-based index; default the first) every
    sheet starts as: its rows above ``start_row``, column widths, views,
    merged cells, conditional formats and page setup, with the template's
    styles and theme. The header row goes to ``start_row`` (0-based;
    default the row after the template sheet's last row with a cell) and
    the data below it; a value takes the format of the template's cell in
    its column on row ``start_row`` (or the column's format). The header
    is not frozen (the template's views are kept). A broken template
    raises an error naming the file and part."""

# The other engines: PDF, aggregation (``ream agg``), batch (``ream batch``).

def pdf_info(
    path: Union[str, "os.PathLike[str]", bytes],
    *,
    password: Optional[str] = None,
    verify_pages: bool = False,
) -> Dict[str, Any]:
    """The keys and values of ``ream pdf info --json``: file, bytes, version,
    pages, pages_verified, encrypted, encryption, repaired, objects, info,
    xmp_bytes, revisions, warnings. ``verify_pages`` walks the page tree
    instead of trusting /Count. An encrypted PDF is decrypted with the empty
    password or ``password`` (user or owner); when neither opens it,
    EncryptedError names the handler, V and R; a broken one
    MalformedError with ``offset``; the reader's warnings are also issued as
    ReamWarning."""

def pdf_pages(
    path: Union[str, "os.PathLike[str]", bytes], *, password: Optional[str] = None
) -> Table:
    """One row per page, the columns of ``ream pdf pages``: number (uint64),
    object (``"12 0"`` or None), media_box and crop_box (four floats or
    None), rotate (int64)."""

def pdf_set_info(
    path: Union[str, "os.PathLike[str]"],
    info: Mapping[str, Optional[str]],
    *,
    out: Union[str, "os.PathLike[str]", None] = None,
    in_place: bool = False,
    password: Optional[str] = None,
) -> Dict[str, Any]:
    """Sets Info entries (None removes one) in an appended revision, like
    ``ream pdf update --set-info``: ``out`` writes a new file, ``in_place``
    appends to ``path``; exactly one of them, else ReamError (kind usage).
    An encrypted PDF keeps its encryption (``password`` opens it when the
    empty password does not). Returns the dict of ``ream pdf update --json``."""

def aggregate(
    path: _Path,
    *,
    delimiter: str = ";",
    key_col: int = 0,
    value_col: int = 1,
    header: bool = False,
    threads: int = 0,
) -> Table:
    """``ream agg``: columns key, count (uint64), min, mean, max (exact
    decimal128(38, s), the texts of ``ream agg -f csv``), one row per key,
    keys sorted by bytes. A bad delimiter or column raises ReamError (kind
    usage); a bad row MalformedError naming its line, with ``offset``."""

class BatchIter(Iterator[Dict[str, Any]]):
    """The records of ``ream.batch``, as files finish."""

    def __iter__(self) -> "BatchIter": ...
    def __next__(self) -> Dict[str, Any]: ...

def batch(
    paths: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]],
    *,
    jobs: int = 0,
    isolate: bool = False,
    timeout: Optional[float] = None,
    include: Optional[Sequence[str]] = None,
    exclude: Optional[Sequence[str]] = None,
) -> BatchIter:
    """``ream batch``: one dict per file (the keys and values of its JSON
    Lines record), streamed as files finish. Paths are files, directories
    (walked) and ``@LISTFILE``s; ``include``/``exclude`` globs as the CLI's.
    ``jobs=0``: one per core. ``isolate`` runs files in worker processes;
    ``timeout`` (seconds, implies isolate) limits each file."""

def _batch_worker() -> None:
    """The worker process of ``batch(isolate=True)``; not for direct use."""
