"""ream.open, Workbook, iter_batches, sources other than paths, threads."""

import threading

import pyarrow as pa
import pytest

import ream
from conftest import CORPUS, write_xlsx


def test_sources_path_bytes_file_object(simple):
    expected = pa.table(ream.read_excel(simple))
    assert pa.table(ream.read_excel(str(simple))).equals(expected)
    assert pa.table(ream.read_excel(simple.read_bytes())).equals(expected)
    with open(simple, "rb") as f:
        assert pa.table(ream.read_excel(f)).equals(expected)


def test_workbook_listing(simple):
    wb = ream.open(simple)
    assert wb.sheet_names == ["Data", "Other"]
    sheets = wb.sheets
    assert [s["name"] for s in sheets] == ["Data", "Other"]
    assert set(sheets[0]) == {
        "index", "name", "kind", "visibility", "dimensions", "cells", "comments", "tables",
        "merged", "hyperlinks", "drawings", "hidden_rows", "hidden_columns",
    }
    assert sheets[0]["kind"] == "worksheet" and sheets[0]["dimensions"] == "A1:D11"
    assert wb.defined_names == []
    assert pa.table(wb.read("Other")).equals(pa.table(ream.read_excel(simple, sheet=1)))


def test_iter_batches_concatenated_equals_read(mixed):
    wb = ream.open(mixed)
    with pytest.warns(ream.MixedTypesWarning):
        whole = pa.table(wb.read(0))
    for batch_rows in [1, 7, 1000, 65536]:
        with pytest.warns(ream.MixedTypesWarning):
            batches = [pa.record_batch(b) for b in wb.iter_batches(0, batch_rows=batch_rows)]
        assert all(b.num_rows <= batch_rows for b in batches)
        assert pa.Table.from_batches(batches).equals(whole)


def test_iter_batches_with_dtypes_and_bad_options(simple):
    wb = ream.open(simple)
    dtypes = {"id": "float64", "name": "string", "when": "date", "score": "float64"}
    batches = list(wb.iter_batches("Data", batch_rows=3, dtypes=dtypes))
    assert [b.num_rows for b in batches] == [3, 3, 3, 1]
    assert batches[0].schema[0] == ("id", "float64")
    with pytest.raises(ream.ReamError, match="nope"):
        wb.iter_batches("Data", columns=["nope"])


def test_iter_batches_misfit_after_inference_raises(tmp_path):
    path = write_xlsx(tmp_path / "i.xlsx", {"S": [["n"], [1], [2], ["late"]]})
    it = ream.open(path).iter_batches(0, batch_rows=1, infer_rows=1)
    next(it)
    with pytest.raises(ream.ReamError) as e:
        for _ in it:
            pass
    assert e.value.cell == "A4" and e.value.sheet == "S"


def test_python_threads_read_at_once(simple):
    expected = pa.table(ream.read_excel(simple))
    results = []

    def work():
        results.append(pa.table(ream.read_excel(simple)).equals(expected))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 4


@pytest.mark.filterwarnings("ignore::ream.MixedTypesWarning")
def test_corpus_openpyxl_mixed():
    path = CORPUS / "written" / "openpyxl" / "openpyxl_mixed.xlsx"
    if not path.exists():
        pytest.skip("corpus absent")
    tables = ream.read_excel(path, sheet=None, header_row=None)
    assert tables
    for name, t in tables.items():
        at = pa.table(t)
        assert at.num_rows == t.num_rows
        assert [c for c in at.column_names] == [f"column_{i}" for i in range(at.num_columns)]
