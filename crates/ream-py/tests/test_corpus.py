"""Corpus differential: every xlsx/xlsm/ods/xls file of the third-party corpus
that the CLI reads (`ream cat FILE -s all -f cells` exits 0 or 3) gives the
same cells through ``ream.read_excel(path, sheet=None, header_row=None,
errors_as="string")`` as through the CLI.

Cells are compared per sheet by (row, col) in a normalized form: numbers
as floats, booleans, strings (error cells as their text), calendar values
as milliseconds since 1970 and durations / times of day as milliseconds
(from the ISO and ``h:mm:ss`` texts the cells format writes; 1 ms apart
allowed for the rounding of the microsecond texts). In a column that
Python reads as string (mixed types), each value is compared with the
cell's text form. Empty cells and empty text are absent on both sides.

Files are grouped by corpus folder and run on a thread pool (the CLI in
subprocesses, ``read_excel`` with the GIL released).
"""

import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pytest

import ream
import enginehelp
from conftest import CORPUS

SUFFIXES = {".xlsx", ".xlsm", ".ods", ".xls"}
# Folders of the corpus holding inputs (golden/ holds reference outputs).
GROUPS = ["xlsx", "ods", "xls", "written"]
MS_PER_DAY = 86_400_000


@pytest.fixture(scope="session")
def ream_bin():
    """The `ream` CLI (see enginehelp.cli)."""
    return enginehelp.cli()


def corpus_files(group):
    root = CORPUS / group
    return sorted(p for p in root.rglob("*") if p.suffix.lower() in SUFFIXES and p.is_file())


def days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (any year)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


ISO = re.compile(r"(-?\d{4,})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?)?$")
CLOCK = re.compile(r"(-)?(\d+):(\d\d):(\d\d)(?:\.(\d+))?$")


def frac_ms(f):
    return float("0." + f) * 1000 if f else 0.0


def iso_ms(text):
    """Milliseconds since 1970 of `YYYY-MM-DD[THH:MM:SS[.f]]`."""
    m = ISO.match(text)
    assert m, f"not an ISO date: {text!r}"
    y, mo, d, hh, mm, ss, f = m.groups()
    day = days_from_civil(int(y), int(mo), int(d))
    secs = int(hh or 0) * 3600 + int(mm or 0) * 60 + int(ss or 0)
    return day * MS_PER_DAY + secs * 1000 + frac_ms(f)


def clock_ms(text):
    """Milliseconds of `[-]h:mm:ss[.f]` (durations and times of day)."""
    m = CLOCK.match(text)
    assert m, f"not a duration: {text!r}"
    neg, h, mi, s, f = m.groups()
    ms = (int(h) * 3600 + int(mi) * 60 + int(s)) * 1000 + frac_ms(f)
    return -ms if neg else ms


def cli_cell(typ, value):
    """The normalized (kind, value) of a `cells` object, None when empty."""
    if typ == "number" and value is None:
        return ("n", float("nan"))  # JSON has no NaN: `cells` writes null
    if value is None or typ == "empty" or value == "":
        return None
    if typ == "number" or (typ in ("date", "time", "duration") and not isinstance(value, str)):
        return ("n", float(value))
    if typ == "string":
        return ("s", value)
    if typ == "error":
        return ("s", value["error"])
    if typ == "bool":
        return ("b", value)
    if typ == "date":
        return ("cal", iso_ms(value))
    return ("dur", clock_ms(value))


def cli_text(typ, value):
    """The text form of a cell in a string column (see ream-arrow's text.rs),
    as a (kind, value) where numbers stay floats (their spelling differs)."""
    if typ == "bool":
        return ("s", "TRUE" if value else "FALSE")
    if typ == "error":
        return ("s", value["error"])
    if isinstance(value, str):
        return ("s", value)
    return ("n", float(value))


def column_values(col):
    """A pyarrow column as normalized (kind, value) items, None for null."""
    t = col.type
    if pa.types.is_date32(t):
        return [None if v is None else ("cal", v * MS_PER_DAY) for v in col.cast(pa.int32()).to_pylist()]
    if pa.types.is_timestamp(t):
        assert t.unit == "ms" and t.tz is None, t
        return [None if v is None else ("cal", v) for v in col.cast(pa.int64()).to_pylist()]
    if pa.types.is_duration(t):
        assert t.unit == "ms", t
        return [None if v is None else ("dur", v) for v in col.cast(pa.int64()).to_pylist()]
    if pa.types.is_boolean(t):
        return [None if v is None else ("b", v) for v in col.to_pylist()]
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        return [None if v is None else ("n", float(v)) for v in col.to_pylist()]
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return [None if v is None or v == "" else ("s", v) for v in col.to_pylist()]
    assert pa.types.is_null(t), f"unexpected type {t}"
    return [None] * len(col)


def same(a, b):
    if a == b:
        return True
    if a is None or b is None or a[0] != b[0]:
        return False
    if a[0] in ("cal", "dur"):
        return abs(a[1] - b[1]) <= 1
    if a[0] == "n" and isinstance(a[1], float) and isinstance(b[1], float):
        return a[1] != a[1] and b[1] != b[1]  # both NaN
    return False


def compare(ream_bin, path):
    """None when the CLI does not read `path`, else a list of mismatches."""
    proc = subprocess.run(
        [ream_bin, "cat", str(path), "-s", "all", "-f", "cells"],
        capture_output=True,
        timeout=120,
    )
    if proc.returncode not in (0, 3):
        return None
    cli = {}
    for line in proc.stdout.splitlines():
        o = json.loads(line)
        cli.setdefault(o["sheet"], {})[(o["row"], o["col"])] = (o["type"], o["value"])
    name = path.relative_to(CORPUS)
    try:
        tables = ream.read_excel(path, sheet=None, header_row=None, errors_as="string")
    except Exception as e:  # noqa: BLE001 - any failure is a mismatch to report
        return [f"{name}: read_excel failed: {type(e).__name__}: {e}"]
    bad = []
    extra = set(cli) - set(tables)
    if extra:
        bad.append(f"{name}: sheets only in the CLI: {sorted(extra)}")
    for sheet, table in tables.items():
        cells = dict(cli.get(sheet, {}))
        t = pa.table(table)
        for c, col in enumerate(t.columns):
            is_text = pa.types.is_string(col.type)
            for r, got in enumerate(column_values(col)):
                typ, value = cells.pop((r, c), ("empty", None))
                want = cli_cell(typ, value)
                if want is not None and is_text:
                    want = cli_text(typ, value)
                    if want[0] == "n" and got is not None:
                        try:
                            got = ("n", float(got[1]))
                        except ValueError:
                            pass
                if not same(got, want):
                    bad.append(f"{name} [{sheet}] row {r} col {c} ({col.type}): python {got!r}, cli {typ} {value!r}")
        for (r, c), (typ, value) in sorted(cells.items()):
            if cli_cell(typ, value) is not None:
                bad.append(f"{name} [{sheet}] row {r} col {c}: only in the CLI: {typ} {value!r}")
    return bad


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("group", GROUPS)
def test_corpus_cells_match_cli(ream_bin, group):
    if not (CORPUS / group).is_dir():
        pytest.skip(f"no corpus at {CORPUS} (set REAM_CORPUS)")
    files = corpus_files(group)
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        results = list(pool.map(lambda p: compare(ream_bin, p), files))
    read = [r for r in results if r is not None]
    mismatches = [m for r in read for m in r]
    assert read, f"the CLI read none of the {len(files)} files under {group}"
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:40])
