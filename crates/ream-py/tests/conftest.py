"""Fixtures: workbooks written with openpyxl into tmp_path."""

import datetime
import os
from pathlib import Path

import openpyxl
import pytest

# The repository root.
REPO = Path(__file__).resolve().parents[3]
# The third-party corpus: $REAM_CORPUS, else ../shared/corpus beside the
# checkout (see its README.md), as the Rust tests find it.
CORPUS = Path(os.environ.get("REAM_CORPUS") or REPO / ".." / "shared" / "corpus")


def write_xlsx(path, sheets):
    """Writes {sheet name: rows} to path (rows: lists of cell values)."""
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, rows in sheets.items():
        ws = wb.create_sheet(name)
        for row in rows:
            ws.append(row)
    wb.save(path)
    return path


@pytest.fixture
def simple(tmp_path):
    """Two sheets: Data (id int, name str, when date, score float) and Other."""
    rows = [["id", "name", "when", "score"]]
    for i in range(10):
        rows.append([i, f"n{i}", datetime.date(2024, 1, i + 1), i + 0.5])
    return write_xlsx(
        tmp_path / "simple.xlsx",
        {"Data": rows, "Other": [["x", "y"], [True, "a"], [False, "b"]]},
    )


@pytest.fixture
def mixed(tmp_path):
    """Sheet Mixed: 2000 integers then one text cell in column a; dates then
    one text cell in column d."""
    rows = [["a", "d"]]
    for i in range(2000):
        rows.append([i, datetime.date(2020, 1, 1) + datetime.timedelta(days=i)])
    rows.append(["text", "not a date"])
    return write_xlsx(tmp_path / "mixed.xlsx", {"Mixed": rows})
