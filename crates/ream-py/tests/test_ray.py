"""ream.ray on a local two-node Ray cluster (head + one worker, 1 CPU each,
loopback): every function's result equals the single-machine result."""

import glob
import json
import os
import shutil
import subprocess
import threading
import warnings
from pathlib import Path

import pytest

# Nodes on the loopback address only: Ray's switch for single-machine
# clusters, read when ray is imported (and by the node processes, which
# inherit it).
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
ray = pytest.importorskip("ray")
pa = pytest.importorskip("pyarrow")
from ray.cluster_utils import Cluster  # noqa: E402

import ream  # noqa: E402
import ream.ray as rr  # noqa: E402
from conftest import CORPUS, write_xlsx  # noqa: E402

NODE = {"num_cpus": 1, "object_store_memory": 80 << 20}
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(
        initialize_head=True,
        head_node_args=dict(NODE, include_dashboard=False),
    )
    c.add_node(**NODE)
    c.wait_for_nodes()
    ray.init(address=c.address)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    try:
        assert c.address.startswith("127.0.0.1:"), c.address
        yield c
    finally:
        ray.shutdown()
        c.shutdown()


def rows_of(ds):
    t = ds.to_arrow_refs()
    return pa.concat_tables(ray.get(t)) if t else None


def sort_table(t, keys):
    return t.sort_by([(k, "ascending") for k in keys])


def workbooks(d, n=3, rows=300):
    """n workbooks of two sheets (id int, name str, score float; and x, y)."""
    d.mkdir(exist_ok=True)
    out = []
    for f in range(n):
        data = [["id", "name", "score"]] + [[f * 10000 + i, f"n{f}_{i}", i + 0.5] for i in range(rows)]
        other = [["x", "y"]] + [[i, i % 2 == 0] for i in range(f + 2)]
        out.append(write_xlsx(d / f"book{f}.xlsx", {"Data": data, "Other": other}))
    return out


def single_machine(files, sheet=None, **kw):
    """ream.read_excel on each file and sheet, concatenated (columns as
    the unified schema orders them, missing ones null)."""
    tables = []
    for f in files:
        got = ream.read_excel(f, sheet=sheet, **kw)
        got = got.values() if isinstance(got, dict) else [got]
        tables += [pa.table(t) for t in got]
    return pa.concat_tables(tables, promote_options="default")


def test_read_excel_equals_ream_read_excel(cluster, tmp_path):
    files = workbooks(tmp_path / "books")
    ds = rr.read_excel(str(tmp_path / "books"), sheet="Data")
    got = rows_of(ds)
    want = single_machine(files, sheet="Data")
    assert got.schema == want.schema
    assert sort_table(got, ["id"]).equals(sort_table(want, ["id"]))
    assert ds.count() == 3 * 300


def test_read_excel_all_sheets_unifies_the_schema(cluster, tmp_path):
    files = workbooks(tmp_path / "books")
    got = rows_of(rr.read_excel(str(tmp_path / "books" / "*.xlsx"), include_paths=True))
    assert got.column_names == ["id", "name", "score", "x", "y", "path", "sheet"]
    assert got.num_rows == 3 * 300 + 2 + 3 + 4
    want = single_machine(files)
    assert sorted(got.column("id").drop_null().to_pylist()) == sorted(want.column("id").drop_null().to_pylist())
    assert sorted(got.column("x").drop_null().to_pylist()) == sorted(want.column("x").drop_null().to_pylist())
    assert set(got.column("sheet").to_pylist()) == {"Data", "Other"}
    assert set(got.column("path").to_pylist()) == {str(f) for f in files}


def test_read_excel_mixed_column_across_files_becomes_string(cluster, tmp_path):
    d = tmp_path / "mix"
    d.mkdir()
    write_xlsx(d / "a.xlsx", {"S": [["v"], [1], [2]]})
    write_xlsx(d / "b.xlsx", {"S": [["v"], ["x"], ["y"]]})
    write_xlsx(d / "c.xlsx", {"S": [["v"], [1.5]]})
    with pytest.warns(ream.MixedTypesWarning, match="'v'"):
        ds = rr.read_excel(str(d))
    got = rows_of(ds)
    assert got.schema.field("v").type == pa.string()
    assert sorted(got.column("v").to_pylist()) == ["1", "1.5", "2", "x", "y"]


def test_read_excel_corpus_file(cluster):
    path = CORPUS / "written" / "lo" / "lo_resave_xlsxwriter.xlsx"
    if not path.exists():
        pytest.skip("corpus not present")
    got = rows_of(rr.read_excel(str(path), sheet="Data"))
    want = pa.table(ream.read_excel(path, sheet="Data"))
    assert got.equals(want)


def test_read_excel_broken_file_under_both_policies(cluster, tmp_path):
    files = workbooks(tmp_path / "books", n=2, rows=50)
    broken = tmp_path / "books" / "broken.xlsx"
    broken.write_bytes(b"PK\x03\x04 this is not a zip archive")
    with pytest.raises(ream.ReamError):
        rr.read_excel(str(tmp_path / "books"), sheet="Data")
    with pytest.warns(ream.ReamWarning, match="broken.xlsx") as rec:
        ds = rr.read_excel(str(tmp_path / "books"), sheet="Data", on_error="skip")
    assert any("skipped 1 file" in str(w.message) for w in rec)
    got = rows_of(ds)
    assert sort_table(got, ["id"]).equals(sort_table(single_machine(files, sheet="Data"), ["id"]))


def test_read_excel_sheet_by_index_and_missing_sheet(cluster, tmp_path):
    files = workbooks(tmp_path / "books", n=2, rows=5)
    got = rows_of(rr.read_excel([str(f) for f in files], sheet=1, include_paths=True))
    assert set(got.column("sheet").to_pylist()) == {"Other"}
    assert got.num_rows == 2 + 3
    with pytest.raises(ream.ReamError, match="Nope"):
        rr.read_excel(str(files[0]), sheet="Nope")
    with pytest.warns(ream.ReamWarning, match="skipped 2 file"):
        ds = rr.read_excel(str(tmp_path / "books"), sheet="Nope", on_error="skip")
    assert ds.count() == 0


def test_read_excel_missing_path_and_bad_options(cluster, tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing-here"):
        rr.read_excel(str(tmp_path / "nothing-here"))
    with pytest.raises(FileNotFoundError, match="matches no file"):
        rr.read_excel(str(tmp_path / "*.xlsx"))
    with pytest.raises(ValueError, match="on_error"):
        rr.read_excel(str(tmp_path), on_error="ignore")


def agg_inputs(d):
    d.mkdir()
    files = []
    for f in range(3):
        lines = [f"k{(i * 7 + f) % 13};{(-1) ** i * (i % 97)}.{i % 10}{'5' if i % 3 == 0 else ''}" for i in range(800)]
        p = d / f"part{f}.csv"
        p.write_text("\n".join(lines) + "\n")
        files.append(p)
    return files


def ream_cli():
    """The workspace's `ream` binary (a release or debug build), else one on
    PATH, else None."""
    built = [p for p in (ROOT / "target" / "release" / "ream", ROOT / "target" / "debug" / "ream") if p.exists()]
    return str(built[0]) if built else shutil.which("ream")


def test_aggregate_equals_ream_aggregate_on_the_concatenation(cluster, tmp_path):
    files = agg_inputs(tmp_path / "agg")
    cat = tmp_path / "all.csv"
    cat.write_bytes(b"".join(f.read_bytes() for f in files))
    # 1000-byte ranges: every file is cut mid-line several times.
    got = rows_of(rr.aggregate(str(tmp_path / "agg"), block_bytes=1000, fan_in=3))
    want = pa.table(ream.aggregate(cat))
    assert got.equals(want)
    exe = ream_cli()
    if exe:
        # `ream agg --format jsonl` prints each decimal with its trailing
        # zeros trimmed (one decimal kept); the Arrow columns hold one
        # scale per column. Trimmed, the texts must be identical.
        out = subprocess.run([exe, "agg", "--format", "jsonl", str(cat)], capture_output=True, check=True)
        cli = [json.loads(x, parse_float=str) for x in out.stdout.decode().splitlines()]
        mine = [
            {"key": r["key"], "count": r["count"], **{k: trim(str(r[k])) for k in ("min", "mean", "max")}}
            for r in got.to_pylist()
        ]
        assert mine == cli


def trim(s):
    """A decimal text as `ream agg` prints it: trailing zeros trimmed, one
    decimal kept."""
    if "." in s:
        s = s.rstrip("0")
        if s.endswith("."):
            s += "0"
    return s


def test_aggregate_with_headers_and_errors(cluster, tmp_path):
    d = tmp_path / "h"
    d.mkdir()
    (d / "a.csv").write_text("key;value\na;1\nb;2.5\n")
    (d / "b.csv").write_text("key;value\na;-3\n")
    got = rows_of(rr.aggregate(str(d), header=True, block_bytes=4))
    assert got.column("count").to_pylist() == [2, 1]
    (d / "c.csv").write_text("key;value\na;1\nb;oops\n")
    with pytest.raises(ream.MalformedError, match="line 3"):
        rr.aggregate(str(d), header=True, block_bytes=4)


def test_batch_equals_ream_batch(cluster, tmp_path):
    files = workbooks(tmp_path / "books", n=2, rows=20)
    (tmp_path / "books" / "broken.xlsx").write_bytes(b"not a workbook")
    got = rows_of(rr.batch(str(tmp_path / "books")))
    want = {r["path"]: rr._flat(r) for r in ream.batch(str(tmp_path / "books"))}
    assert got.num_rows == len(want) == 3
    for r in got.to_pylist():
        w = want[r["path"]]
        for k in ("format", "size", "mtime", "outcome", "summary", "warning_count", "warnings"):
            assert r[k] == w[k], k


def test_read_pdf(cluster):
    pdfs = sorted(glob.glob(str(CORPUS / "pdf" / "*.pdf")))[:4]
    if not pdfs:
        pytest.skip("corpus not present")
    info = rows_of(rr.read_pdf(pdfs)).to_pylist()
    assert [r["file"] for r in info] == [os.path.abspath(p) for p in pdfs]
    for r in info:
        assert r["pages"] == ream.pdf_info(r["file"])["pages"]
    pages = rows_of(rr.read_pdf(pdfs[:2], what="pages"))
    want = sum(pa.table(ream.pdf_pages(p)).num_rows for p in pdfs[:2])
    assert pages.num_rows == want


def test_worker_node_killed_mid_read_still_gives_the_exact_result(cluster, tmp_path):
    """A second worker node is added, then removed while it runs a read
    task (seen through a marker file its task writes); Ray retries the
    task elsewhere and the result is exact."""
    files = workbooks(tmp_path / "books", n=6, rows=3000)
    marks = tmp_path / "marks"
    marks.mkdir()
    victim = cluster.add_node(**NODE)
    cluster.wait_for_nodes()

    def mark(batch):
        # Fused into the read task: names the node running it, and slows
        # the task so that it is still running when its node goes.
        import time
        import uuid

        node = ray.get_runtime_context().get_node_id()
        (marks / f"{node}.{uuid.uuid4().hex}").touch()
        time.sleep(0.05)
        return batch

    ds = rr.read_excel(str(tmp_path / "books"), sheet="Data", batch_rows=300)
    ds = ds.map_batches(mark, batch_format="pyarrow", batch_size=None)
    removed = threading.Event()

    def kill_when_busy():
        for _ in range(6000):
            if any(m.name.startswith(victim.node_id) for m in marks.iterdir()):
                cluster.remove_node(victim)
                removed.set()
                return
            threading.Event().wait(0.01)

    killer = threading.Thread(target=kill_when_busy)
    killer.start()
    got = rows_of(ds)
    killer.join()
    want = single_machine(files, sheet="Data")
    assert removed.is_set(), "the victim node never ran a read task"
    assert sort_table(got, ["id"]).equals(sort_table(want, ["id"]))


def test_bad_options_raise_before_any_task(tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("a;1\n")
    with pytest.raises(ValueError, match="what"):
        rr.read_pdf(str(f), what="text")
    with pytest.raises(ValueError, match="block_bytes"):
        rr.aggregate(str(f), block_bytes=0)
    with pytest.raises(ValueError, match="fan_in"):
        rr.aggregate(str(f), fan_in=1)
    with pytest.raises(ValueError, match="batch_rows"):
        rr.read_excel(str(f), batch_rows=0)
    with pytest.raises(FileNotFoundError, match="no files found"):
        rr.read_pdf(str(tmp_path))  # a directory without PDFs


def test_aggregate_quoted_file_cut_into_ranges_is_an_error(cluster, tmp_path):
    f = tmp_path / "q.csv"
    f.write_text('"Rome, IT",1.5\n"Oslo",2\n' * 20)
    with pytest.raises(ream.ReamError, match="quote"):
        rr.aggregate(str(f), delimiter=",", block_bytes=64)
    got = rows_of(rr.aggregate(str(f), delimiter=","))
    assert got.equals(pa.table(ream.aggregate(f, delimiter=",")))
