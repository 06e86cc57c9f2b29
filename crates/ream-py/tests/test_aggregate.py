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


def test_partial_states_over_cut_ranges_equal_aggregate(tmp_path):
    import pyarrow as pa
    from ream import _ream

    p = tmp_path / "x.csv"
    p.write_bytes(b"\xef\xbb\xbfk;v\na;1.5\nbb;-2\n\na;0.25\nc;1e2\r\nbb;7.0\nc;-0.125")
    n = p.stat().st_size
    want = pa.table(ream.aggregate(p, header=True))
    for cut in range(n + 1):
        states = [_ream._agg_partial(p, 0, cut, header=True), _ream._agg_partial(p, cut, n, header=True)]
        got = pa.table(_ream._agg_finish(_ream._agg_merge(states)))
        assert got.equals(want), cut


def test_partial_state_errors(tmp_path):
    from ream import _ream

    with pytest.raises(FileNotFoundError):
        _ream._agg_partial(tmp_path / "missing.csv", 0, 10)
    p = tmp_path / "q.csv"
    p.write_text('"a,b",1\nc,2\n')
    with pytest.raises(ream.ReamError, match="quote") as e:
        _ream._agg_partial(p, 0, 5, delimiter=",")
    assert e.value.kind == "usage"
    bad = tmp_path / "bad.csv"
    bad.write_text("a;1\nb;2\nc;x\n")
    with pytest.raises(ream.MalformedError, match="line 3") as e:
        _ream._agg_partial(bad, 5, 100)
    assert e.value.offset == 10
    with pytest.raises(ream.ReamError, match=r"states\[1\].*truncated"):
        _ream._agg_merge([_ream._agg_partial(p, 0, 100, delimiter=","), b"REAMAGG1\x00"])
    with pytest.raises(ream.ReamError, match="magic"):
        _ream._agg_finish(b"not a state")
