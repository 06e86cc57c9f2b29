"""ream as Ray Data sources: spreadsheets, PDFs, batch analysis and exact
delimited aggregation spread over the nodes of a Ray cluster.

Needs the ``[ray]`` extra (``pip install "ream[ray]"``: ray[data], pyarrow).
Every function takes a path, a directory (walked recursively, sorted), a
glob pattern (``*``, ``?``, ``[``; ``**`` recursive) or a list of them, and
returns a ``ray.data.Dataset`` (lazy: nothing is read until it is consumed,
except the planning that ``read_excel`` and ``aggregate`` do, stated
below). Paths are made absolute on the driver; every node must see the
files at the same paths (shared storage). Connects to the cluster
``ray.init()`` finds (``RAY_ADDRESS``, or a local one) when Ray is not
initialised yet.
"""

from __future__ import annotations

import glob as _glob
import json
import os
import warnings
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import pyarrow as pa
import ray
from ray.data import Dataset, Datasource, ReadTask
from ray.data.block import BlockMetadata

import ream
from ream import _ream

_PathArg = Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]]

#: File name endings a directory walk keeps for each reader.
EXCEL_EXTENSIONS = (".xlsx", ".xlsm", ".ods")
PDF_EXTENSIONS = (".pdf",)

#: The arrow type of each ream dtype name, and back.
_DTYPES = {
    "int64": pa.int64(),
    "float64": pa.float64(),
    "bool": pa.bool_(),
    "string": pa.string(),
    "date": pa.date32(),
    "datetime": pa.timestamp("ms"),
    "duration": pa.duration("ms"),
    "null": pa.null(),
}


def expand_paths(paths: _PathArg, extensions: Optional[Tuple[str, ...]] = None) -> List[str]:
    """The files named by ``paths`` (see the module docstring), absolute, in
    the order given (directories and globs sorted), each once. A directory
    walk keeps only names ending in one of ``extensions`` (case-insensitive;
    None: all); files named directly are always kept. A path that does not
    exist and a pattern that matches nothing raise FileNotFoundError."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: List[str] = []
    seen = set()

    def add(p: str) -> None:
        p = os.path.abspath(p)
        if p not in seen:
            seen.add(p)
            out.append(p)

    def walk(d: str) -> None:
        for root, dirs, files in os.walk(d):
            dirs.sort()
            for f in sorted(files):
                if extensions is None or f.lower().endswith(extensions):
                    add(os.path.join(root, f))

    for raw in paths:
        p = os.fspath(raw)
        if isinstance(p, bytes):
            p = os.fsdecode(p)
        if os.path.isdir(p):
            walk(p)
        elif os.path.exists(p):
            add(p)
        elif any(c in p for c in "*?["):
            hits = sorted(_glob.glob(p, recursive=True))
            if not hits:
                raise FileNotFoundError(f"{p}: the pattern matches no file")
            for h in hits:
                walk(h) if os.path.isdir(h) else add(h)
        else:
            raise FileNotFoundError(f"{p}: no such file or directory")
    if not out:
        raise FileNotFoundError(f"{list(map(os.fspath, paths))}: no files found")
    return out


def _init() -> None:
    if not ray.is_initialized():
        ray.init()


def _flat(record: Mapping[str, Any]) -> Dict[str, Any]:
    """A record with its nested values (dicts, lists) as JSON text, so that
    records of different shapes share one schema."""
    return {
        k: json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v
        for k, v in record.items()
    }


def _metadata(files: Sequence[str]) -> BlockMetadata:
    return BlockMetadata(num_rows=None, size_bytes=None, exec_stats=None, input_files=tuple(files))


class _Tasks(Datasource):
    """A datasource of ready-made read functions, one read task each."""

    def __init__(self, name: str, tasks: List[Tuple[Any, List[str], Optional[pa.Schema]]]):
        self._name = name
        self._tasks = tasks

    def get_name(self) -> str:
        return self._name

    def estimate_inmemory_data_size(self) -> Optional[int]:
        return None

    def get_read_tasks(self, parallelism: int, per_task_row_limit=None, data_context=None) -> List[ReadTask]:
        return [
            ReadTask(fn, _metadata(files), schema=schema) for fn, files, schema in self._tasks
        ]


def _dataset(name: str, tasks: List[Tuple[Any, List[str], Optional[pa.Schema]]]) -> Dataset:
    _init()
    return ray.data.read_datasource(_Tasks(name, tasks))


def _slices(items: Sequence[Any], n: int) -> List[Sequence[Any]]:
    n = max(1, min(n, len(items)))
    size = -(-len(items) // n)
    return [items[i : i + size] for i in range(0, len(items), size)]


def _default_tasks() -> int:
    """Slices for the per-file readers: 4 per CPU of the cluster."""
    return max(1, 4 * int(ray.cluster_resources().get("CPU", 1)))


# --- spreadsheets ---------------------------------------------------------


def _dtype_name(t: pa.DataType) -> str:
    for name, at in _DTYPES.items():
        if t == at:
            return name
    return "string"


@ray.remote(num_cpus=1)
def _plan_file(path: str, sheet: Any, options: Dict[str, Any]) -> Dict[str, Any]:
    """The sheets of one workbook and the inferred types of their columns
    (a full streaming inference pass, stopped after the first batch), or
    the error that reading it raised."""
    try:
        wb = ream.open(path)
        all_names = wb.sheet_names
        if sheet is None:
            names = all_names
        elif isinstance(sheet, int) and 0 <= sheet < len(all_names):
            names = [all_names[sheet]]
        else:
            names = [sheet]  # a name, or an index ream reports as missing
        sheets = []
        for s in names:
            it = wb.iter_batches(s, batch_rows=1, **options)
            first = next(iter(it), None)
            if first is None:
                schema = pa.table(wb.read(s, n_rows=0, **options)).schema
            else:
                schema = pa.record_batch(first).schema
            sheets.append((s, [(f.name, _dtype_name(f.type)) for f in schema]))
            del it
        return {"path": path, "sheets": sheets}
    except Exception as e:  # noqa: BLE001 - reported to the driver as is
        return {"path": path, "error": e}


def _unify(plans: List[Dict[str, Any]], dtypes: Mapping[str, str]) -> Dict[str, str]:
    """One dtype per column over all sheets: the shared type; int64 with
    float64 gives float64; null gives way to any type; any other mix gives
    string with a MixedTypesWarning naming the files and sheets. `dtypes`
    overrides."""
    types: Dict[str, str] = {}
    where: Dict[str, Dict[str, List[str]]] = {}
    for plan in plans:
        for sheet, cols in plan["sheets"]:
            for name, t in cols:
                where.setdefault(name, {}).setdefault(t, []).append(f"{plan['path']} [{sheet}]")
                old = types.get(name)
                if old is None or old == "null":
                    types[name] = t
                elif t == "null" or t == old:
                    pass
                elif {old, t} == {"int64", "float64"}:
                    types[name] = "float64"
                else:
                    types[name] = "string"
    for name, t in list(types.items()):
        if name in dtypes:
            types[name] = dtypes[name]
        elif t == "string" and len([k for k in where[name] if k != "null"]) > 1:
            seen = "; ".join(f"{k} in {', '.join(v[:3])}" for k, v in where[name].items() if k != "null")
            warnings.warn(
                f"column {name!r} has different types across files and sheets ({seen}): read as string",
                ream.MixedTypesWarning,
                stacklevel=3,
            )
    return types


def _excel_task(path: str, sheet: Any, options: Dict[str, Any], types: Dict[str, str],
                batch_rows: int, include_paths: bool):
    schema = _excel_schema(types, include_paths)

    def read() -> Iterable[pa.Table]:
        wb = ream.open(path)
        present = None
        for b in wb.iter_batches(sheet, batch_rows=batch_rows, **options):
            rb = pa.record_batch(b)
            n = rb.num_rows
            cols = {f.name: rb.column(i) for i, f in enumerate(rb.schema)}
            present = True
            arrays = []
            for f in schema:
                if f.name in cols:
                    arrays.append(cols[f.name])
                elif include_paths and f.name == "path":
                    arrays.append(pa.array([path] * n, pa.string()))
                elif include_paths and f.name == "sheet":
                    arrays.append(pa.array([str(sheet)] * n, pa.string()))
                else:
                    arrays.append(pa.nulls(n, f.type))
            yield pa.Table.from_arrays(arrays, schema=schema)
        if present is None:
            yield schema.empty_table()

    return read, [path], schema


def _excel_schema(types: Dict[str, str], include_paths: bool) -> pa.Schema:
    fields = [pa.field(n, _DTYPES.get(t, pa.string())) for n, t in types.items()]
    if include_paths:
        fields += [pa.field("path", pa.string()), pa.field("sheet", pa.string())]
    return pa.schema(fields)


def read_excel(
    paths: _PathArg,
    sheet: Union[str, int, None] = None,
    *,
    header_row: Optional[int] = 0,
    columns: Union[str, Sequence[Union[str, int]], None] = None,
    dtypes: Optional[Mapping[str, str]] = None,
    batch_rows: int = 65536,
    include_paths: bool = False,
    on_error: str = "raise",
) -> Dataset:
    """Workbooks (XLSX, XLSM, ODS; a directory walk keeps those endings) as
    one Dataset: one read task per (file, sheet), each streaming its sheet
    with ``ream.open(p).iter_batches`` in blocks of ``batch_rows`` rows
    (default 65536), so a task holds about three batches, never the sheet.

    ``sheet``: None (default) reads every sheet of every file; a name or
    0-based index reads that sheet of each file. ``header_row``,
    ``columns`` and ``dtypes`` are those of ``ream.read_excel``.
    ``include_paths=True`` adds string columns ``path`` and ``sheet``.

    Planning (eager, in Ray tasks, one per file): each sheet's column types
    are inferred by a streaming pass; the schema is the union of columns in
    order of first appearance, each typed as the Python reader types a
    column: the one type its sheets agree on (null columns give way),
    float64 for int64 with float64, else string with a MixedTypesWarning
    naming the files and sheets; ``dtypes`` overrides. The read tasks then
    read with those dtypes (one pass, values converted as ``dtypes`` does);
    a column a sheet lacks is null there.

    ``on_error="raise"`` (default): a file that cannot be read raises its
    ream exception (or OSError). ``"skip"``: such files are left out and
    one ReamWarning lists each with its error.
    """
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error = {on_error!r}: give 'raise' or 'skip'")
    if batch_rows < 1:
        raise ValueError(f"batch_rows = {batch_rows}: give 1 or more")
    files = expand_paths(paths, EXCEL_EXTENSIONS)
    _init()
    options: Dict[str, Any] = {"header_row": header_row}
    if columns is not None:
        options["columns"] = columns
    if dtypes:
        options["dtypes"] = dict(dtypes)
    plans = ray.get([_plan_file.remote(f, sheet, options) for f in files])
    bad = [p for p in plans if "error" in p]
    if bad:
        if on_error == "raise":
            raise bad[0]["error"]
        listing = "; ".join(f"{p['path']}: {type(p['error']).__name__}: {p['error']}" for p in bad)
        warnings.warn(f"skipped {len(bad)} file(s) that could not be read: {listing}",
                      ream.ReamWarning, stacklevel=2)
    good = [p for p in plans if "error" not in p]
    types = _unify(good, dtypes or {})
    tasks = []
    for p in good:
        for s, cols in p["sheets"]:
            # Every column of the sheet typed: the read task reads once.
            opts = dict(options, dtypes={n: types[n] for n, _ in cols})
            tasks.append(_excel_task(p["path"], s, opts, types, batch_rows, include_paths))
    if not tasks:
        schema = _excel_schema(types, include_paths)
        return ray.data.from_arrow(schema.empty_table())
    return _dataset("ReamExcel", tasks)


# --- PDFs -----------------------------------------------------------------


def read_pdf(paths: _PathArg, what: str = "info", *, password: Optional[str] = None) -> Dataset:
    """PDFs (a directory walk keeps ``.pdf``): ``what="info"`` (default)
    gives one row per file with the fields of ``ream.pdf_info``;
    ``"pages"`` one row per page with the columns of ``ream.pdf_pages`` and
    a ``path`` column. Nested values (info, revisions, warnings) are JSON
    text. Files are read in slices, four per CPU of the cluster; a file
    that cannot be read raises its ream exception (or OSError)."""
    if what not in ("info", "pages"):
        raise ValueError(f"what = {what!r}: give 'info' or 'pages'")
    files = expand_paths(paths, PDF_EXTENSIONS)
    _init()

    def task(chunk: Sequence[str]):
        def read() -> Iterable[pa.Table]:
            if what == "info":
                yield pa.Table.from_pylist([_flat(ream.pdf_info(p, password=password)) for p in chunk])
            else:
                for p in chunk:
                    t = pa.table(ream.pdf_pages(p, password=password))
                    yield t.append_column("path", pa.array([p] * t.num_rows, pa.string()))

        return read, list(chunk), None

    return _dataset("ReamPdf", [task(c) for c in _slices(files, _default_tasks())])


# --- batch ----------------------------------------------------------------


def batch(paths: _PathArg, *, isolate: bool = False, timeout: Optional[float] = None) -> Dataset:
    """``ream.batch`` over a cluster: one row per file with the fields of a
    ``ream batch`` record (path, format, size, mtime, outcome, summary,
    warning_count, warnings, elapsed_ms, threads); nested values (an
    outcome other than "ok"/"timeout", summary, warnings) are JSON text.
    Files (every file of a directory) are analysed in slices, four per CPU
    of the cluster, each task running ``ream.batch(slice, jobs=1,
    isolate=isolate, timeout=timeout)``; rows come in task order, within a
    task in the order files finish."""
    files = expand_paths(paths)
    _init()

    def task(chunk: Sequence[str]):
        def read() -> Iterable[pa.Table]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ream.ReamWarning)
                rows = [_flat(r) for r in ream.batch(list(chunk), jobs=1, isolate=isolate, timeout=timeout)]
            yield pa.Table.from_pylist(rows, schema=_BATCH_SCHEMA)

        return read, list(chunk), _BATCH_SCHEMA

    return _dataset("ReamBatch", [task(c) for c in _slices(files, _default_tasks())])


_BATCH_SCHEMA = pa.schema([
    ("path", pa.string()),
    ("format", pa.string()),
    ("size", pa.int64()),
    ("mtime", pa.int64()),
    ("outcome", pa.string()),
    ("summary", pa.string()),
    ("warning_count", pa.int64()),
    ("warnings", pa.string()),
    ("elapsed_ms", pa.float64()),
    ("threads", pa.int64()),
])


# --- aggregation ----------------------------------------------------------

#: Default byte range per aggregation task (64 MiB).
BLOCK_BYTES = 64 << 20


@ray.remote(num_cpus=1)
def _agg_range(path: str, start: int, end: int, options: Dict[str, Any]) -> bytes:
    return _ream._agg_partial(path, start, end, **options)


@ray.remote(num_cpus=1)
def _agg_combine(*states: bytes) -> bytes:
    return _ream._agg_merge(list(states))


def aggregate(
    paths: _PathArg,
    *,
    delimiter: str = ";",
    key_col: int = 0,
    value_col: int = 1,
    header: bool = False,
    block_bytes: int = BLOCK_BYTES,
    fan_in: int = 16,
) -> Dataset:
    """``ream.aggregate`` over files spread across a cluster: one row per
    key (key, count, min, mean, max; exact decimals), equal to ``ream agg``
    on the files concatenated (each file must end with a line break for
    that concatenation to keep its lines apart).

    Each file is cut into byte ranges of ``block_bytes`` (default 64 MiB);
    a range owns the lines that start in it, and only a file's first range
    skips its header (``header=True``: the first line of every file). Each
    range is one Ray task (1 CPU, one thread) that memory-maps its range
    and aggregates it into an exact partial state (count, fixed-point sum,
    min, max per key); the states are merged by a tree of Ray tasks,
    ``fan_in`` (default 16) states each, and the last state becomes the
    result. The work runs when this function is called (the Dataset holds
    the result). A file with quoted fields (a delimiter other than ";")
    must fit one range. Errors (a bad row, a missing file) raise as
    ``ream.aggregate`` raises them, naming the file, line and byte offset.
    Per-task memory: the distinct keys of the range (a partial state is
    about 100 bytes per key).
    """
    if block_bytes < 1:
        raise ValueError(f"block_bytes = {block_bytes}: give 1 or more")
    if fan_in < 2:
        raise ValueError(f"fan_in = {fan_in}: give 2 or more")
    files = expand_paths(paths)
    _init()
    options = dict(delimiter=delimiter, key_col=key_col, value_col=value_col, header=header, threads=1)
    refs = []
    for f in files:
        size = os.path.getsize(f)
        for start in range(0, max(size, 1), block_bytes):
            refs.append(_agg_range.remote(f, start, start + block_bytes, options))
    while len(refs) > 1:
        refs = [_agg_combine.remote(*refs[i : i + fan_in]) for i in range(0, len(refs), fan_in)]
    table = pa.table(_ream._agg_finish(ray.get(refs[0])))
    return ray.data.from_arrow(table)


__all__ = ["read_excel", "read_pdf", "batch", "aggregate", "expand_paths", "BLOCK_BYTES"]
