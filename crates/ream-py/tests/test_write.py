"""ream.write_excel: Arrow tables out as XLSX; openpyxl and ream read the
same values back."""

import datetime
import math

import openpyxl
import polars as pl
import pyarrow as pa
import pytest

import ream


def rows(path, sheet=None):
    wb = openpyxl.load_workbook(path, read_only=True)
    ws = wb[sheet] if sheet else wb.worksheets[0]
    return [list(r) for r in ws.iter_rows(values_only=True)]


def test_pyarrow_types_read_back_with_openpyxl(tmp_path):
    t = pa.table(
        {
            "i": pa.array([1, None, -3], pa.int64()),
            "f": pa.array([1.5, 2.25, None]),
            "s": pa.array(["a", "", "x<&>\r\n"]),
            "b": pa.array([True, False, None]),
            "d": pa.array([datetime.date(2024, 1, 31), None, datetime.date(1999, 12, 31)]),
            "ts": pa.array(
                [datetime.datetime(2024, 1, 31, 10, 20, 30), None, datetime.datetime(2020, 2, 29)],
                pa.timestamp("ms"),
            ),
            "big": pa.array([2**60, 1, None], pa.int64()),
            "cat": pa.array(["u", "v", "u"]).dictionary_encode(),
        }
    )
    out = tmp_path / "t.xlsx"
    ream.write_excel(t, out)
    got = rows(out, "Sheet1")
    assert got[0] == ["i", "f", "s", "b", "d", "ts", "big", "cat"]
    assert got[1] == [1, 1.5, "a", True, datetime.datetime(2024, 1, 31), datetime.datetime(2024, 1, 31, 10, 20, 30), str(2**60), "u"]
    assert got[2][:4] == [None, 2.25, None, False]
    # A carriage return is stored as Excel writes it, `_x000D_`, which
    # openpyxl leaves undecoded; ream (and Excel) read it back as CR.
    assert got[3][2] == "x<&>_x000D_\n"
    back = pa.table(ream.read_excel(out, dtypes={"big": "string"}))
    assert back.column("s").to_pylist()[2] == "x<&>\r\n"
    assert got[3][4] == datetime.datetime(1999, 12, 31)
    assert got[3][5] == datetime.datetime(2020, 2, 29)
    assert len(got) == 4


def test_ream_reads_back_the_same_table(tmp_path):
    t = pa.table({"n": [1.0, 2.5, None], "s": ["x", None, "z"], "d": pa.array([0, 19000, None], pa.date32())})
    out = tmp_path / "r.xlsx"
    ream.write_excel(t, out)
    back = pa.table(ream.read_excel(out))
    assert back.column("n").to_pylist() == [1.0, 2.5, None]
    assert back.column("s").to_pylist() == ["x", None, "z"]
    assert back.column("d").to_pylist() == [datetime.date(1970, 1, 1), datetime.date(2022, 1, 8), None]


def test_dict_of_polars_frames_and_ream_tables(tmp_path):
    a = pl.DataFrame({"x": [1, 2, 3], "y": ["p", "q", "r"]})
    src = tmp_path / "src.xlsx"
    ream.write_excel(a, src)
    table = ream.read_excel(src)
    out = tmp_path / "many.xlsx"
    ream.write_excel({"Polars": a, "FromReam": table}, out, autofit=True)
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["Polars", "FromReam"]
    assert [list(r) for r in wb["Polars"].iter_rows(values_only=True)] == [["x", "y"], [1, "p"], [2, "q"], [3, "r"]]
    assert wb["Polars"].freeze_panes == "A2"
    assert wb["Polars"].column_dimensions["A"].width > 0
    assert rows(out, "FromReam") == rows(out, "Polars")


def test_nan_is_num_error_and_times_durations(tmp_path):
    t = pa.table(
        {
            "f": [math.nan, math.inf],
            "t": pa.array([datetime.time(10, 30), datetime.time(0, 0, 1)], pa.time64("us")),
            "dur": pa.array([datetime.timedelta(hours=30), datetime.timedelta(seconds=1)], pa.duration("s")),
        }
    )
    out = tmp_path / "n.xlsx"
    ream.write_excel(t, out)
    got = rows(out)
    assert got[1][0] == "#NUM!" and got[2][0] == "#NUM!"
    assert got[1][1] == datetime.time(10, 30)
    assert got[1][2] == datetime.timedelta(hours=30)


def test_errors(tmp_path):
    with pytest.raises(TypeError):
        ream.write_excel([1, 2], tmp_path / "x.xlsx")
    with pytest.raises(ream.UnsupportedFormatError) as e:
        ream.write_excel(pa.table({"l": [[1], [2]]}), tmp_path / "x.xlsx")
    assert '"l"' in str(e.value) and "List" in str(e.value)
    with pytest.raises(ream.ReamError) as e:
        ream.write_excel(pa.table({"a": [1]}), tmp_path / "x.xlsx", sheet_name="bad/name")
    assert "bad/name" in str(e.value)
    with pytest.raises(ream.LimitExceededError):
        ream.write_excel(pa.table({"s": ["x" * 40_000]}), tmp_path / "x.xlsx")
    with pytest.raises(OSError):
        ream.write_excel(pa.table({"a": [1]}), tmp_path / "no" / "such" / "x.xlsx")
