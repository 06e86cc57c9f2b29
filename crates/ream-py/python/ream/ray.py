"""ream as Ray Data sources: spreadsheets, PDFs, batch analysis and exact
delimited aggregation spread over the nodes of a Ray cluster.

Needs the ``[ray]`` extra (``pip install "ream[ray]"``: ray[data], pyarrow).
Every function takes a path, a directory (walked recursively, sorted), a
glob pattern (``*``, ``?``, ``[``; ``**`` recursive) or a list of them, and
returns a ``ray.data.Dataset`` (lazy: nothing is read until it is consumed,
except the planning that ``read_excel`` and ``aggregate`` do, stated
below). Connects to the cluster ``ray.init()`` finds (``RAY_ADDRESS``, or a
local one) when Ray is not initialised yet.

Where the files are:

- Local paths (and ``file://`` URIs) are made absolute on the driver; every
  node must see the files at the same paths (shared storage: NFS, a
  mounted bucket). ream memory-maps them, so a task reads only what it
  touches.
- Other URIs (``s3://bucket/key``, ``gs://``, ``hdfs://``, ``abfs://``)
  go through ``pyarrow.fs.FileSystem.from_uri``, or fsspec
  (``fsspec.core.url_to_fs``) for schemes pyarrow lacks; or pass
  ``filesystem=`` (a ``pyarrow.fs.FileSystem``, or an fsspec filesystem,
  wrapped with ``pyarrow.fs.FSSpecHandler``) and paths in its terms. All
  paths of one call are on one filesystem. A task then reads each file's
  bytes into memory (a workbook or PDF whole, at its compressed size;
  ``aggregate`` only its byte range), so a remote workbook must fit a
  task's memory once more than a local one.
"""

from __future__ import annotations

import glob as _glob
import json
import os
import re
import shutil
import tempfile
import urllib.parse
import warnings
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import pyarrow as pa
import pyarrow.fs as pafs
import ray
from ray.data import Dataset, Datasource, ReadTask
from ray.data.block import BlockMetadata

import ream
from ream import _ream

_PathArg = Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]]

#: File name endings a directory walk keeps for each reader.
EXCEL_EXTENSIONS = (".xlsx", ".xlsm", ".ods", ".xls")
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

# --- where the files are ----------------------------------------------------

_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")


class _Src:
    """One input file: ``path`` in the terms of ``fs`` (None: the local
    file system, ream maps the file), ``name`` as messages, records and
    the ``path`` column give it (the local path, or the URI), ``size`` in
    bytes and ``mtime`` in ns (None when the filesystem does not say)."""

    __slots__ = ("fs", "path", "name", "size", "mtime")

    def __init__(self, fs, path: str, name: str, size: int, mtime: Optional[int] = None):
        self.fs, self.path, self.name, self.size, self.mtime = fs, path, name, size, mtime

    def __reduce__(self):
        return (_Src, (self.fs, self.path, self.name, self.size, self.mtime))

    def data(self):
        """The local path, or the file's bytes read through its filesystem."""
        if self.fs is None:
            return self.path
        with self.fs.open_input_file(self.path) as f:
            return f.read()


def _as_list(paths: _PathArg) -> List[str]:
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    out = []
    for raw in paths:
        p = os.fspath(raw)
        out.append(os.fsdecode(p) if isinstance(p, bytes) else p)
    return out


def _wrap_filesystem(filesystem: Any) -> Any:
    """A pyarrow filesystem as is; an fsspec one wrapped in FSSpecHandler."""
    if isinstance(filesystem, pafs.FileSystem):
        return filesystem
    if hasattr(filesystem, "protocol") and hasattr(filesystem, "open"):
        return pafs.PyFileSystem(pafs.FSSpecHandler(filesystem))
    raise TypeError(
        f"filesystem must be a pyarrow.fs.FileSystem or an fsspec filesystem, not {type(filesystem).__name__}"
    )


def _local_path(uri: str) -> str:
    return urllib.parse.unquote(urllib.parse.urlparse(uri).path)


def _from_uri(uri: str) -> Tuple[Any, str]:
    """The filesystem of a URI and the path in it: pyarrow's, else fsspec's."""
    try:
        return pafs.FileSystem.from_uri(uri)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError) as e:
        try:
            import fsspec.core
        except ImportError:
            raise ValueError(
                f"{uri}: pyarrow cannot open this URI ({e}) and fsspec is not installed; "
                "install fsspec and its backend, or pass filesystem="
            ) from None
        fs, path = fsspec.core.url_to_fs(uri)
        return _wrap_filesystem(fs), path


def _resolve(paths: _PathArg, filesystem: Any) -> Tuple[Any, List[str], str]:
    """(filesystem or None for local, the paths in its terms, the prefix
    that makes a path a name the user recognises: the URI scheme)."""
    items = _as_list(paths)
    if filesystem is not None:
        fs = _wrap_filesystem(filesystem)
        bare = [_local_path(p) if p.startswith("file://") else _URI.sub("", p) for p in items]
        if type(fs) is pafs.LocalFileSystem:
            return None, bare, ""
        return fs, bare, ""
    uris = [p for p in items if _URI.match(p) and not p.startswith("file://")]
    if not uris:
        return None, [_local_path(p) if p.startswith("file://") else p for p in items], ""
    if len(uris) != len(items):
        raise ValueError("paths mix local paths and URIs: give one filesystem per call")
    scheme = uris[0].split("://", 1)[0]
    fs, first = _from_uri(uris[0])
    out = [first]
    for u in uris[1:]:
        if u.split("://", 1)[0] != scheme:
            raise ValueError(f"paths mix URI schemes ({scheme}:// and {u}): give one filesystem per call")
        out.append(_path_in(fs, u))
    if type(fs) is pafs.LocalFileSystem:
        return None, out, ""
    return fs, out, scheme + "://"


def _path_in(fs: Any, uri: str) -> str:
    """The path of ``uri`` on ``fs`` (its filesystem): object stores name
    ``bucket/key`` (no per-URI look-up), others as ``from_uri`` says."""
    stores = tuple(getattr(pafs, n) for n in ("S3FileSystem", "GcsFileSystem") if hasattr(pafs, n))
    if isinstance(fs, stores):
        return uri.split("://", 1)[1]
    return _from_uri(uri)[1]


def _glob_regex(pattern: str) -> "re.Pattern[str]":
    """A glob as a regex over whole paths: ``*`` and ``?`` stay within one
    path component, ``**`` crosses them, ``[...]`` is a character class."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and "]" in pattern[i + 2 :]:
            j = pattern.index("]", i + 2)
            body = pattern[i + 1 : j]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = j + 1
            continue
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out))


def _mtime_ns(info: Any) -> Optional[int]:
    m = getattr(info, "mtime_ns", None)
    return int(m) if m is not None else None


def _expand_remote(fs: Any, items: List[str], prefix: str,
                   extensions: Optional[Tuple[str, ...]]) -> List[_Src]:
    out: List[_Src] = []
    seen = set()

    def add(info: Any) -> None:
        if info.path not in seen:
            seen.add(info.path)
            out.append(_Src(fs, info.path, prefix + info.path, int(info.size or 0), _mtime_ns(info)))

    def walk(d: str) -> None:
        infos = fs.get_file_info(pafs.FileSelector(d, recursive=True))
        for info in sorted(infos, key=lambda i: i.path):
            name = info.path.rsplit("/", 1)[-1]
            if info.type == pafs.FileType.File and (extensions is None or name.lower().endswith(extensions)):
                add(info)

    for p in items:
        if any(c in p for c in "*?["):
            parts = p.split("/")
            fixed = []
            for part in parts:
                if any(c in part for c in "*?["):
                    break
                fixed.append(part)
            base = "/".join(fixed) or ("/" if p.startswith("/") else "")
            rx = _glob_regex(p.rstrip("/"))
            infos = fs.get_file_info(pafs.FileSelector(base, recursive=True, allow_not_found=True))
            hits = sorted((i for i in infos if rx.fullmatch(i.path)), key=lambda i: i.path)
            if not hits:
                raise FileNotFoundError(f"{prefix}{p}: the pattern matches no file")
            for h in hits:
                walk(h.path) if h.type == pafs.FileType.Directory else add(h)
            continue
        info = fs.get_file_info(p.rstrip("/") or p)
        if info.type == pafs.FileType.Directory:
            walk(info.path)
        elif info.type == pafs.FileType.File:
            add(info)
        else:
            raise FileNotFoundError(f"{prefix}{p}: no such file or directory")
    if not out:
        raise FileNotFoundError(f"{[prefix + p for p in items]}: no files found")
    return out


def _sources(paths: _PathArg, filesystem: Any, extensions: Optional[Tuple[str, ...]]) -> List[_Src]:
    """The input files of a call, local or through a filesystem."""
    fs, items, prefix = _resolve(paths, filesystem)
    if fs is None:
        out = []
        for p in expand_paths(items, extensions):
            st = os.stat(p)
            out.append(_Src(None, p, p, st.st_size, st.st_mtime_ns))
        return out
    return _expand_remote(fs, items, prefix, extensions)


def _named(e: BaseException, name: str) -> BaseException:
    """A ream exception raised on a file's bytes, naming the file: the same
    class and attributes, the message prefixed with ``name``."""
    if not isinstance(e, ream.ReamError) or getattr(e, "path", None):
        return e
    new = type(e)(f"{name}: {e}")
    for attr in ("kind", "part", "sheet", "cell", "offset"):
        setattr(new, attr, getattr(e, attr, None))
    new.path = name
    return new



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


try:  # the column Ray's own readers give a block of rows without columns
    from ray.data._internal.arrow_block import _BATCH_SIZE_PRESERVING_STUB_COL_NAME as _STUB
except ImportError:  # pragma: no cover - other Ray versions
    _STUB = "__bsp_stub"


class _Tasks(Datasource):
    """A datasource of ready-made read functions, one read task each. A
    projection Ray pushes down (``select_columns``, ``count``) is applied
    in the task, so only the columns asked for leave it."""

    def __init__(self, name: str, tasks: List[Tuple[Any, List[str], Optional[pa.Schema]]]):
        super().__init__()
        self._name = name
        self._tasks = tasks
        self._projection_map = None

    def get_name(self) -> str:
        return self._name

    def supports_projection_pushdown(self) -> bool:
        return True

    def estimate_inmemory_data_size(self) -> Optional[int]:
        return None

    def get_read_tasks(self, parallelism: int, per_task_row_limit=None, data_context=None) -> List[ReadTask]:
        keep = None if self._projection_map is None else list(self._projection_map)
        out = []
        for fn, files, schema in self._tasks:
            if keep is not None:
                fn = _projected(fn, keep)
                if schema is not None:
                    schema = pa.schema([f for f in schema if f.name in keep])
            out.append(ReadTask(fn, _metadata(files), schema=schema))
        return out


def _projected(fn: Any, keep: List[str]) -> Any:
    """`fn`'s tables with only the columns of `keep` (Ray's stub column
    when none is kept, so that the tables keep their row counts)."""

    def read() -> Iterable[pa.Table]:
        for t in fn():
            names = [n for n in t.column_names if n in keep]
            yield t.select(names) if names else pa.table({_STUB: pa.nulls(t.num_rows)})

    return read


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


def _plan_file(src: _Src, sheet: Any, options: Dict[str, Any]) -> Dict[str, Any]:
    """The sheets of one workbook with the (name, dtype) columns a read of
    each gives (one streaming inference pass per sheet, no rows built) and
    the warnings that inference raised (mixed-type columns), or the error
    that reading the file raised."""
    try:
        wb = ream.open(src.data())
        all_names = wb.sheet_names
        if sheet is None:
            names = all_names
        elif isinstance(sheet, int) and 0 <= sheet < len(all_names):
            names = [all_names[sheet]]
        else:
            names = [sheet]  # a name, or an index ream reports as missing
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sheets = [(s, wb.schema(s, **options)) for s in names]
        notes = [
            ("mixed" if issubclass(w.category, ream.MixedTypesWarning) else "other", str(w.message))
            for w in caught
        ]
        return {"src": src, "sheets": sheets, "warnings": notes}
    except Exception as e:  # noqa: BLE001 - reported to the driver as is
        return {"src": src, "error": _named(e, src.name)}


_plan_task = ray.remote(num_cpus=1)(_plan_file)


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
                where.setdefault(name, {}).setdefault(t, []).append(f"{plan['src'].name} [{sheet}]")
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


def _excel_read(src: _Src, sheet: Any, cols: List[str], options: Dict[str, Any], schema: pa.Schema,
                keep: Optional[List[str]], batch_rows: int, include_paths: bool):
    """The read function of one (file, sheet): its batches as tables of
    `schema` (columns the sheet lacks are null), or only the columns of
    `keep` (None: all; a projection Ray pushed down). Only the sheet's
    columns in `keep` are parsed into Arrow; with none (a count), the
    first column is, and the tables keep their row counts without columns."""
    names = schema.names if keep is None else [n for n in schema.names if n in keep]
    out = pa.schema([schema.field(n) for n in names])
    kept = [c for c in cols if c in names] or cols[:1]
    # Every column read is typed and selected: one pass, no inference.
    opts = dict(options, dtypes={c: options["dtypes"][c] for c in kept})
    if options.get("columns") is None:
        opts["columns"] = [i for i, c in enumerate(cols) if c in kept]
    elif options.get("header_row") is None:
        opts["columns"] = [int(c[len("column_"):]) for c in kept]
    else:
        opts["columns"] = kept

    def read() -> Iterable[pa.Table]:
        if not cols:
            yield out.empty_table()
            return
        try:
            wb = ream.open(src.data())
            batches = wb.iter_batches(sheet, batch_rows=batch_rows, **opts)
            present = None
            for b in batches:
                tb = pa.Table.from_batches([pa.record_batch(b)])
                n = tb.num_rows
                present = True
                if not names:
                    # Ray's stub column: a table without columns has no rows.
                    yield pa.table({_STUB: pa.nulls(n)})
                    continue
                arrays = []
                for f in out:
                    if f.name in tb.column_names:
                        arrays.append(tb.column(f.name))
                    elif include_paths and f.name == "path":
                        arrays.append(pa.array([src.name] * n, pa.string()))
                    elif include_paths and f.name == "sheet":
                        arrays.append(pa.array([str(sheet)] * n, pa.string()))
                    else:
                        arrays.append(pa.nulls(n, f.type))
                yield pa.Table.from_arrays(arrays, schema=out)
        except Exception as e:  # noqa: BLE001 - the same error, naming the file
            raise _named(e, src.name) from None
        if present is None:
            yield out.empty_table()

    return read, out


class _ExcelSource(Datasource):
    """One read task per (file, sheet), with the column selection of a
    projection (``select_columns``, ``count``) pushed down into ream."""

    def __init__(self, units: List[Tuple[_Src, Any, List[str], Dict[str, Any]]], schema: pa.Schema,
                 batch_rows: int, include_paths: bool):
        super().__init__()
        self._units = units
        self._schema = schema
        self._batch_rows = batch_rows
        self._include_paths = include_paths
        self._projection_map = None

    def get_name(self) -> str:
        return "ReamExcel"

    def supports_projection_pushdown(self) -> bool:
        return True

    def estimate_inmemory_data_size(self) -> Optional[int]:
        return None

    def get_read_tasks(self, parallelism: int, per_task_row_limit=None, data_context=None) -> List[ReadTask]:
        keep = None if self._projection_map is None else list(self._projection_map)
        tasks = []
        for src, sheet, cols, opts in self._units:
            fn, out = _excel_read(src, sheet, cols, opts, self._schema, keep, self._batch_rows,
                                  self._include_paths)
            tasks.append(ReadTask(fn, _metadata([src.name]), schema=out))
        return tasks


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
    filesystem: Any = None,
) -> Dataset:
    """Workbooks (XLSX, XLSM, ODS; a directory walk keeps those endings) as
    one Dataset: one read task per (file, sheet), each streaming its sheet
    with ``ream.open(p).iter_batches`` in blocks of ``batch_rows`` rows
    (default 65536), so a task holds about three batches, never the sheet
    (plus, for a file read through a filesystem, the file's bytes).

    ``sheet``: None (default) reads every sheet of every file; a name or
    0-based index reads that sheet of each file. ``header_row``,
    ``columns`` and ``dtypes`` are those of ``ream.read_excel``.
    ``include_paths=True`` adds string columns ``path`` and ``sheet``.
    ``filesystem``: see the module docstring (URIs need none).

    Planning (eager, in Ray tasks, one per file): each sheet's columns and
    types come from ``Workbook.schema`` (one streaming pass, no rows
    built); mixed-type columns inside a sheet warn on the driver
    (MixedTypesWarning naming the file). The schema is the union of columns
    in order of first appearance, each typed as the Python reader types a
    column: the one type its sheets agree on (null columns give way),
    float64 for int64 with float64, else string with a MixedTypesWarning
    naming the files and sheets; ``dtypes`` overrides. The read tasks then
    read with every column typed and selected (one pass, values converted
    as ``dtypes`` does); a column a sheet lacks is null there.

    ``on_error="raise"`` (default): a file that cannot be read raises its
    ream exception (or OSError), naming the file. ``"skip"``: such files
    are left out and one ReamWarning lists each with its error.
    """
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error = {on_error!r}: give 'raise' or 'skip'")
    if batch_rows < 1:
        raise ValueError(f"batch_rows = {batch_rows}: give 1 or more")
    files = _sources(paths, filesystem, EXCEL_EXTENSIONS)
    _init()
    options: Dict[str, Any] = {"header_row": header_row}
    if columns is not None:
        options["columns"] = columns
    if dtypes:
        options["dtypes"] = dict(dtypes)
    plans = ray.get([_plan_task.remote(f, sheet, options) for f in files])
    bad = [p for p in plans if "error" in p]
    if bad:
        if on_error == "raise":
            raise bad[0]["error"]
        listing = "; ".join(f"{p['src'].name}: {type(p['error']).__name__}: {p['error']}" for p in bad)
        warnings.warn(f"skipped {len(bad)} file(s) that could not be read: {listing}",
                      ream.ReamWarning, stacklevel=2)
    good = [p for p in plans if "error" not in p]
    for p in good:
        for kind, text in p["warnings"]:
            category = ream.MixedTypesWarning if kind == "mixed" else ream.ReamWarning
            warnings.warn(f"{p['src'].name}: {text}", category, stacklevel=2)
    types = _unify(good, dtypes or {})
    schema = _excel_schema(types, include_paths)
    units = [
        (p["src"], s, [n for n, _ in cols], dict(options, dtypes={n: types[n] for n, _ in cols}))
        for p in good
        for s, cols in p["sheets"]
    ]
    if not units:
        return ray.data.from_arrow(schema.empty_table())
    return ray.data.read_datasource(_ExcelSource(units, schema, batch_rows, include_paths))


# --- PDFs -----------------------------------------------------------------


def read_pdf(paths: _PathArg, what: str = "info", *, password: Optional[str] = None,
             filesystem: Any = None) -> Dataset:
    """PDFs (a directory walk keeps ``.pdf``): ``what="info"`` (default)
    gives one row per file with the fields of ``ream.pdf_info``;
    ``"pages"`` one row per page with the columns of ``ream.pdf_pages`` and
    a ``path`` column. Nested values (info, revisions, warnings) are JSON
    text. Files are read in slices, four per CPU of the cluster; a file
    that cannot be read raises its ream exception (or OSError), naming the
    file. ``filesystem``: see the module docstring."""
    if what not in ("info", "pages"):
        raise ValueError(f"what = {what!r}: give 'info' or 'pages'")
    files = _sources(paths, filesystem, PDF_EXTENSIONS)
    _init()

    def task(chunk: Sequence[_Src]):
        def read() -> Iterable[pa.Table]:
            for src in chunk:
                try:
                    if what == "info":
                        info = ream.pdf_info(src.data(), password=password)
                    else:
                        t = pa.table(ream.pdf_pages(src.data(), password=password))
                except Exception as e:  # noqa: BLE001 - the same error, naming the file
                    raise _named(e, src.name) from None
                if what == "info":
                    info["file"] = src.name
                    yield pa.Table.from_pylist([_flat(info)])
                else:
                    yield t.append_column("path", pa.array([src.name] * t.num_rows, pa.string()))

        return read, [s.name for s in chunk], None

    return _dataset("ReamPdf", [task(c) for c in _slices(files, _default_tasks())])


# --- batch ----------------------------------------------------------------


def _batch_records(chunk: Sequence[_Src], isolate: bool, timeout: Optional[float]) -> List[Dict[str, Any]]:
    """``ream.batch`` records of `chunk`: local files in place; files on a
    filesystem copied one at a time into a private temporary directory
    (records then name the file as given, with its size and mtime there)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ream.ReamWarning)
        local = [s.path for s in chunk if s.fs is None]
        rows = list(ream.batch(local, jobs=1, isolate=isolate, timeout=timeout)) if local else []
        remote = [s for s in chunk if s.fs is not None]
        if remote:
            tmp = tempfile.mkdtemp(prefix="ream-batch-")
            try:
                for s in remote:
                    copy = os.path.join(tmp, s.path.rsplit("/", 1)[-1] or "file")
                    with s.fs.open_input_stream(s.path) as src, open(copy, "wb") as dst:
                        shutil.copyfileobj(src, dst, 1 << 20)
                    for r in ream.batch([copy], jobs=1, isolate=isolate, timeout=timeout):
                        r["path"] = s.name
                        r["mtime"] = s.mtime
                        rows.append(r)
                    os.unlink(copy)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    return rows


def batch(paths: _PathArg, *, isolate: bool = False, timeout: Optional[float] = None,
          filesystem: Any = None) -> Dataset:
    """``ream.batch`` over a cluster: one row per file with the fields of a
    ``ream batch`` record (path, format, size, mtime, outcome, summary,
    warning_count, warnings, elapsed_ms, threads); nested values (an
    outcome other than "ok"/"timeout", summary, warnings) are JSON text.
    Files (every file of a directory) are analysed in slices, four per CPU
    of the cluster, each task running ``ream.batch(slice, jobs=1,
    isolate=isolate, timeout=timeout)``; rows come in task order, within a
    task in the order files finish. Files on a ``filesystem`` (see the
    module docstring) are copied one at a time to the task's temporary
    directory first (disk: the largest file of the slice)."""
    files = _sources(paths, filesystem, None)
    _init()

    def task(chunk: Sequence[_Src]):
        def read() -> Iterable[pa.Table]:
            rows = [_flat(r) for r in _batch_records(chunk, isolate, timeout)]
            yield pa.Table.from_pylist(rows, schema=_BATCH_SCHEMA)

        return read, [s.name for s in chunk], _BATCH_SCHEMA

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

#: Default budget of distinct keys, in bytes, for each task and the
#: combine (as ``ream agg --max-key-memory``): 512 MiB.
MAX_KEY_MEMORY = 512 << 20

#: Bytes read at a time while looking for a line break past a range's end.
_SCAN = 64 << 10


def _line_start_after(f: Any, x: int, size: int) -> int:
    """The first line start after byte ``x`` of the file open as ``f``:
    one past the first ``\\n`` at or after ``x``, or ``size``."""
    while x < size:
        chunk = f.read_at(min(_SCAN, size - x), x)
        i = chunk.find(b"\n")
        if i >= 0:
            return x + i + 1
        x += len(chunk)
    return size


def _body_start(src: _Src, header: bool) -> int:
    """Where a file's first data line starts: after a UTF-8 BOM and, with
    ``header``, after the first line (as ream-agg finds it)."""
    if src.size == 0:
        return 0
    with src.fs.open_input_file(src.path) as f:
        bom = 3 if f.read_at(min(3, src.size), 0) == b"\xef\xbb\xbf" else 0
        return _line_start_after(f, bom, src.size) if header else bom


def _range_state(src: _Src, body: int, start: int, end: int, whole: bool, options: Dict[str, Any]) -> bytes:
    """The partial state of the lines of `src` that start in
    ``start..end`` (and at or after ``body``), reading only those lines
    (and the line break before them) through its filesystem. A local file
    is memory-mapped by ream instead. Errors name the file, line and byte
    offset (the lines before the range are counted only then)."""
    keep = ("delimiter", "key_col", "value_col", "max_key_memory")
    if src.fs is None:
        return _ream._agg_partial(src.path, start, end, **options)
    try:
        if whole:
            return _ream._agg_partial(src.data(), 0, src.size, **options)
        opts = {k: options[k] for k in keep}
        with src.fs.open_input_file(src.path) as f:
            s = max(start, body)
            if s > body:
                s = _line_start_after(f, s - 1, src.size)
            e = min(end, src.size)
            if e > s:
                e = _line_start_after(f, e - 1, src.size)
            data = f.read_at(e - s, s) if e > s else b""
            try:
                return _ream._agg_lines(data, base_offset=s, **opts)
            except ream.ReamError as err:
                if err.offset is None:
                    raise
                lines = 0
                at = 0
                while at < s:
                    chunk = f.read_at(min(_SCAN * 16, s - at), at)
                    lines += chunk.count(b"\n")
                    at += len(chunk)
                return _ream._agg_lines(data, base_line=lines, base_offset=s, **opts)
    except Exception as e:  # noqa: BLE001 - the same error, naming the file
        raise _named(e, src.name) from None


@ray.remote(num_cpus=1)
def _agg_range(src: _Src, body: int, start: int, end: int, whole: bool, options: Dict[str, Any]) -> bytes:
    return _range_state(src, body, start, end, whole, options)


@ray.remote(num_cpus=1)
def _agg_combine(max_key_memory: int, *states: bytes) -> bytes:
    return _ream._agg_merge(list(states), max_key_memory=max_key_memory)


def aggregate(
    paths: _PathArg,
    *,
    delimiter: str = ";",
    key_col: int = 0,
    value_col: int = 1,
    header: bool = False,
    block_bytes: int = BLOCK_BYTES,
    fan_in: int = 16,
    max_key_memory: int = MAX_KEY_MEMORY,
    filesystem: Any = None,
) -> Dataset:
    """``ream.aggregate`` over files spread across a cluster: one row per
    key (key, count, min, mean, max; exact decimals), equal to ``ream agg``
    on the files concatenated (each file must end with a line break for
    that concatenation to keep its lines apart).

    Each file is cut into byte ranges of ``block_bytes`` (default 64 MiB);
    a range owns the lines that start in it, and only a file's first range
    skips its header (``header=True``: the first line of every file). Each
    range is one Ray task (1 CPU, one thread) that aggregates its range
    into an exact partial state (count, fixed-point sum, min, max per key):
    a local file is memory-mapped, a file on a ``filesystem`` (see the
    module docstring) read from its range's start to the line break past
    its end. The states are merged by a tree of Ray tasks, ``fan_in``
    (default 16) states each, and the last state becomes the result. The
    work runs when this function is called (the Dataset holds the result).

    A file with quoted fields (a delimiter other than ";") must fit one
    range. Errors (a bad row, a missing file) raise as ``ream.aggregate``
    raises them, naming the file, line and byte offset.

    Memory: a task holds the distinct keys of its range (a partial state is
    about 100 bytes per key), plus its range's bytes for a remote file;
    ``max_key_memory`` (default 512 MiB, counted as ``ream agg
    --max-key-memory`` counts it) bounds the keys of every task and of
    every combine, which raises LimitExceededError past it.
    """
    if block_bytes < 1:
        raise ValueError(f"block_bytes = {block_bytes}: give 1 or more")
    if fan_in < 2:
        raise ValueError(f"fan_in = {fan_in}: give 2 or more")
    files = _sources(paths, filesystem, None)
    _init()
    options = dict(delimiter=delimiter, key_col=key_col, value_col=value_col, header=header,
                   threads=1, max_key_memory=max_key_memory)
    refs = []
    for f in files:
        body = _body_start(f, header) if f.fs is not None else 0
        whole = f.size <= block_bytes
        for start in range(0, max(f.size, 1), block_bytes):
            refs.append(_agg_range.remote(f, body, start, start + block_bytes, whole, options))
    while len(refs) > 1:
        refs = [_agg_combine.remote(max_key_memory, *refs[i : i + fan_in]) for i in range(0, len(refs), fan_in)]
    table = pa.table(_ream._agg_finish(ray.get(refs[0])))
    return ray.data.from_arrow(table)


__all__ = ["read_excel", "read_pdf", "batch", "aggregate", "expand_paths", "BLOCK_BYTES", "MAX_KEY_MEMORY"]
