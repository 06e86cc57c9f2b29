"""Typed columns that never drop a value; dtypes, on_error, errors_as."""

import datetime

import pyarrow as pa
import pytest

import ream
from conftest import write_xlsx


def test_mixed_columns_keep_every_value_and_warn(mixed):
    with pytest.warns(ream.MixedTypesWarning) as rec:
        t = pa.table(ream.read_excel(mixed))
    messages = [str(w.message) for w in rec]
    assert any("'Mixed'" in m and "'a'" in m and "A2002" in m for m in messages), messages
    assert any("'d'" in m and "B2002" in m for m in messages), messages
    a = t.column("a").to_pylist()
    assert t.schema.field("a").type == pa.string()
    assert a[:3] == ["0", "1", "2"] and a[-1] == "text" and None not in a
    d = t.column("d").to_pylist()
    assert d[0] == "2020-01-01" and d[-1] == "not a date" and None not in d
    assert t.num_rows == 2001


def test_dtypes_override_and_bad_values_raise(tmp_path):
    path = write_xlsx(tmp_path / "d.xlsx", {"S": [["n", "t"], [1, "7"], [2, "x"]]})
    t = pa.table(ream.read_excel(path, dtypes={"n": "float64", "t": "string"}))
    assert t.schema.types == [pa.float64(), pa.string()]
    with pytest.raises(ream.ReamError) as e:
        ream.read_excel(path, dtypes={"t": "int64"})
    assert e.value.sheet == "S" and e.value.cell == "B3" and e.value.kind == "usage"
    assert "B3" in str(e.value)


def test_on_error_null_counts_in_a_warning(tmp_path):
    path = write_xlsx(tmp_path / "d.xlsx", {"S": [["t"], ["7"], ["x"], ["y"]]})
    with pytest.warns(ream.ReamWarning, match="2 value"):
        t = pa.table(ream.read_excel(path, dtypes={"t": "int64"}, on_error="null"))
    assert t.column("t").to_pylist() == [7, None, None]


def test_error_cells_null_with_warning_or_text(tmp_path):
    # openpyxl writes "#N/A" as an error cell (t="e").
    path = write_xlsx(tmp_path / "e.xlsx", {"S": [["v"], [1], ["#N/A"], [3]]})
    with pytest.warns(ream.ReamWarning, match="1 error cell"):
        t = pa.table(ream.read_excel(path))
    assert t.column("v").to_pylist() == [1, None, 3]
    with pytest.warns(ream.MixedTypesWarning, match="A3"):
        t = pa.table(ream.read_excel(path, errors_as="string"))
    assert t.column("v").to_pylist() == ["1", "#N/A", "3"]


def test_formula_without_cached_value_is_null(tmp_path):
    path = write_xlsx(tmp_path / "f.xlsx", {"S": [["v"], [1], ["=1/0"], [3]]})
    t = pa.table(ream.read_excel(path))
    assert t.column("v").to_pylist() == [1, None, 3]


def test_bad_option_values():
    with pytest.raises(ValueError, match="on_error"):
        ream.read_excel(b"", on_error="ignore")
    with pytest.raises(ValueError, match="unknown dtype 'int'"):
        ream.read_excel(b"", dtypes={"a": "int"})
    with pytest.raises(TypeError, match="unexpected keyword argument 'header'"):
        ream.read_excel(b"", header=0)
    with pytest.raises(ValueError, match="bad column selection"):
        ream.read_excel(b"", columns="A:1")


def test_infer_rows_then_a_later_misfit_raises(tmp_path):
    path = write_xlsx(tmp_path / "i.xlsx", {"S": [["n"], [1], [2], ["late"]]})
    with pytest.raises(ream.ReamError) as e:
        ream.read_excel(path, infer_rows=2)
    assert e.value.cell == "A4"


def test_header_window_and_columns(tmp_path):
    rows = [["title"], ["a", "a", None, "d"], [1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
    path = write_xlsx(tmp_path / "h.xlsx", {"S": rows})
    t = ream.read_excel(path, header_row=1)
    assert t.column_names == ["a", "a_1", "__UNNAMED__2", "d"]
    t = ream.read_excel(path, header_row=None, skip_rows=2, n_rows=2)
    assert t.column_names == ["column_0", "column_1", "column_2", "column_3"]
    assert pa.table(t).column(0).to_pylist() == [1, 5]
    t = ream.read_excel(path, header_row=1, columns="A,C:D")
    assert t.column_names == ["a", "__UNNAMED__2", "d"]
    t = ream.read_excel(path, header_row=1, columns=["d", 0])
    assert t.column_names == ["d", "a"]
    with pytest.raises(ream.ReamError, match="nope"):
        ream.read_excel(path, header_row=1, columns=["nope"])


def test_dates_and_times(tmp_path):
    rows = [["dt", "day"], [datetime.datetime(2024, 5, 6, 7, 8, 9), datetime.date(2024, 5, 6)]]
    path = write_xlsx(tmp_path / "t.xlsx", {"S": rows})
    t = pa.table(ream.read_excel(path))
    assert t.schema.types == [pa.timestamp("ms"), pa.date32()]
    assert t.column("dt").to_pylist() == [datetime.datetime(2024, 5, 6, 7, 8, 9)]


def test_dtypes_parse_iso_and_duration_text(tmp_path):
    path = write_xlsx(
        tmp_path / "text_dates.xlsx",
        {
            "S": [
                ["d", "dt", "dur"],
                ["2024-01-31", "2024-01-31T10:20:30", "36:00:00"],
                ["2024-02-29", "2024-01-31 10:20:30.5", "-1:30:00"],
                [datetime.date(2024, 3, 1), "2024-01-31T10:20:30Z", "0:00:01.25"],
            ]
        },
    )
    dtypes = {"d": "date", "dt": "datetime", "dur": "duration"}
    t = pa.table(ream.read_excel(path, dtypes=dtypes))
    assert t.schema.types == [pa.date32(), pa.timestamp("ms"), pa.duration("ms")]
    assert t.column("d").to_pylist() == [
        datetime.date(2024, 1, 31), datetime.date(2024, 2, 29), datetime.date(2024, 3, 1)
    ]
    base = datetime.datetime(2024, 1, 31, 10, 20, 30)
    assert t.column("dt").to_pylist() == [base, base + datetime.timedelta(milliseconds=500), base]
    assert t.column("dur").to_pylist() == [
        datetime.timedelta(hours=36), -datetime.timedelta(hours=1, minutes=30),
        datetime.timedelta(seconds=1.25),
    ]
    # Without dtypes the text stays text.
    assert pa.table(ream.read_excel(path, columns=["dur"])).schema.field("dur").type == pa.string()
    # Text that is no date is still a bad value, naming the cell.
    bad = write_xlsx(tmp_path / "bad.xlsx", {"S": [["d"], ["2024-01-31"], ["2023-02-29"]]})
    with pytest.raises(ream.ReamError, match="A3"):
        ream.read_excel(bad, dtypes={"d": "date"})
    with pytest.warns(ream.ReamWarning):
        col = pa.table(ream.read_excel(bad, dtypes={"d": "date"}, on_error="null")).column("d")
    assert col.to_pylist() == [datetime.date(2024, 1, 31), None]
