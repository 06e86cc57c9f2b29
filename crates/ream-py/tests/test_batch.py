"""ream.batch: the records of `ream batch`, streamed as dicts."""

import json
import subprocess

import pytest

import ream
from conftest import write_xlsx
from enginehelp import cli, pdf_bytes


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "a.pdf").write_bytes(pdf_bytes("A"))
    write_xlsx(d / "b.xlsx", {"S": [["x", "y"], [1, 2]]})
    (d / "c.csv").write_text("k,v\na,1\nb,2\n")
    (d / "d.pdf").write_bytes(b"%PDF-1.4\nnot really\n")
    return d


def untimed(records):
    for r in records:
        r.pop("elapsed_ms")
    return sorted(records, key=lambda r: r["path"])


def test_records_are_the_cli_records(folder):
    got = list(ream.batch(folder, jobs=2))
    assert len(got) == 4 and all(isinstance(r, dict) for r in got)
    by_name = {r["path"].rsplit("/", 1)[-1]: r for r in got}
    assert by_name["a.pdf"]["outcome"] == "ok" and by_name["a.pdf"]["format"] == "pdf"
    assert by_name["b.xlsx"]["format"] == "xlsx"
    assert by_name["d.pdf"]["outcome"]["error"] == "malformed"
    out = subprocess.run([cli(), "batch", "--quiet", "-j", "2", str(folder)], capture_output=True).stdout
    want = [json.loads(line) for line in out.decode().splitlines()]
    assert untimed(got) == untimed(want)


def test_paths_lists_and_globs(folder):
    recs = list(ream.batch([str(folder / "a.pdf"), folder / "c.csv"]))
    assert sorted(r["format"] for r in recs) == ["pdf", "text"]
    only = list(ream.batch([folder], include=["*.pdf"], exclude=["d.*"]))
    assert [r["path"] for r in only] == [str(folder / "a.pdf")]


def test_isolated_records_match(folder):
    a = untimed(list(ream.batch(folder, jobs=2)))
    b = untimed(list(ream.batch(folder, jobs=2, isolate=True)))
    for r in a + b:
        r.pop("threads")
    assert a == b


def test_crash_and_hang_are_outcomes(tmp_path, monkeypatch):
    monkeypatch.setenv("REAM_BATCH_TEST_ENGINES", "1")
    (tmp_path / "hang.txt").write_bytes(b"REAM-TEST-HANG")
    (tmp_path / "panic.txt").write_bytes(b"REAM-TEST-PANIC")
    (tmp_path / "ok.pdf").write_bytes(pdf_bytes())
    recs = {r["path"].rsplit("/", 1)[-1]: r for r in ream.batch(tmp_path, jobs=3, timeout=3)}
    assert recs["hang.txt"]["outcome"] == "timeout"
    assert "crashed" in recs["panic.txt"]["outcome"]
    assert recs["ok.pdf"]["outcome"] == "ok"


def test_records_stream_and_the_iterator_can_stop_early(folder):
    it = ream.batch(folder, jobs=1)
    assert iter(it) is it
    first = next(it)
    assert "path" in first
    del it


def test_nothing_matched_is_a_warning(tmp_path):
    with pytest.warns(ream.ReamWarning, match="no files matched"):
        assert list(ream.batch(tmp_path)) == []


def test_bad_options_are_usage_errors(folder):
    with pytest.raises(ream.ReamError) as e:
        list(ream.batch(folder, include=["a[.pdf"]))
    assert e.value.kind == "usage"
    with pytest.raises(ream.ReamError) as e:
        ream.batch(folder, timeout=-1)
    assert e.value.kind == "usage"
    with pytest.raises(TypeError):
        ream.batch(3)
