"""ream.aggregate against `ream agg` and the 1BRC reference outputs."""

import csv
import decimal
import io
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest

import ream
from enginehelp import ROOT, cli

SAMPLES = ROOT / ".." / "shared" / "data" / "1brc" / "samples"


def samples():
    found = sorted(SAMPLES.glob("measurements*.txt"))
    if not found:
        pytest.skip("1brc samples absent (../shared/data/1brc/samples)")
    return found


def text(d):
    """A decimal as `ream agg -f csv` prints it: trailing zeros trimmed to
    one decimal at least."""
    s = format(d, "f")
    if "." not in s:
        return s + ".0"
    s = s.rstrip("0")
    return s + "0" if s.endswith(".") else s


def one_decimal(d):
    """Rounded half up (toward +infinity) to one decimal, as the 1BRC prints."""
    v = (d * 10 + decimal.Decimal("0.5")).to_integral_value(rounding=decimal.ROUND_FLOOR) / 10
    return format(v, ".1f")


def test_the_table_matches_the_reference_outputs():
    for txt in samples():
        rows = pa.table(ream.aggregate(txt)).to_pylist()
        line = ", ".join(
            f"{r['key']}={one_decimal(r['min'])}/{one_decimal(r['mean'])}/{one_decimal(r['max'])}" for r in rows
        )
        want = txt.with_suffix(".out").read_text(encoding="utf-8").strip()
        assert "{" + line + "}" == want, txt.name


def test_the_table_matches_ream_agg_csv():
    for txt in samples():
        t = ream.aggregate(str(txt), threads=2)
        assert t.column_names == ["key", "count", "min", "mean", "max"]
        got = [
            [r["key"], str(r["count"]), text(r["min"]), text(r["mean"]), text(r["max"])]
            for r in pa.table(t).to_pylist()
        ]
        out = subprocess.run([cli(), "agg", "-f", "csv", str(txt)], capture_output=True, check=True).stdout
        want = list(csv.reader(io.StringIO(out.decode())))
        assert want[0] == ["key", "count", "min", "mean", "max"]
        assert got == want[1:], txt.name


def test_options(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('id,city,temp\n1,"Rome, IT",12.5\n2,Oslo,-3\n3,"Rome, IT",0.25\n')
    rows = pa.table(ream.aggregate(path, delimiter=",", key_col=1, value_col=2, header=True)).to_pylist()
    assert [(r["key"], r["count"], text(r["mean"])) for r in rows] == [("Oslo", 1, "-3.0"), ("Rome, IT", 2, "6.375")]
    tabbed = ream.aggregate(b"a\t1\nb\t2\n", delimiter="tab")
    assert tabbed.num_rows == 2
    assert ream.aggregate(b"a\t1\n", delimiter="\t").num_rows == 1


@pytest.mark.parametrize(
    "kwargs",
    [
        {"delimiter": "::"},
        {"delimiter": "\n"},
        {"delimiter": '"'},
        {"key_col": 1, "value_col": 1},
        {"key_col": -1},
        {"threads": -2},
    ],
)
def test_bad_options_are_usage_errors(kwargs):
    with pytest.raises(ream.ReamError) as e:
        ream.aggregate(b"a;1\n", **kwargs)
    assert e.value.kind == "usage" and type(e.value) is ream.ReamError


def test_bad_row_is_malformed_with_its_offset(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"a;1.0\nb;oops\n")
    with pytest.raises(ream.MalformedError, match="line 2") as e:
        ream.aggregate(path)
    # The offset of the bad value on line 2.
    assert e.value.offset == 8 and e.value.path == str(path)


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        ream.aggregate(tmp_path / "missing.txt")
    assert e.value.filename == str(tmp_path / "missing.txt")


def test_into_polars():
    pl = pytest.importorskip("polars")
    df = pl.DataFrame(ream.aggregate(b"b;2\na;1\na;3\n"))
    assert df["key"].to_list() == ["a", "b"] and df["count"].to_list() == [2, 1]
