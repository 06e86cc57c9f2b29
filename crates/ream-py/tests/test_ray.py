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


# --- files on a filesystem (pyarrow.fs, fsspec, URIs) ----------------------


def subtree(d):
    """A pyarrow filesystem rooted at d: its paths ('books/a.xlsx') are not
    paths of this machine, so every read goes through the filesystem."""
    return pa.fs.SubTreeFileSystem(str(d), pa.fs.LocalFileSystem())


def merged_table(states):
    return pa.table(ream._ream._agg_finish(ream._ream._agg_merge(states)))


def test_range_states_through_a_filesystem_every_cut(tmp_path):
    """Without a cluster: a file read through a filesystem, cut into two
    ranges at every byte, gives the result of one ream.aggregate run."""
    body = "a;1.5\nbb;-2\n\na;0.25\nc;1e2\r\nbb;7.0\nc;-0.125\n"
    opts = dict(delimiter=";", key_col=0, value_col=1, threads=1, max_key_memory=rr.MAX_KEY_MEMORY)
    for text, header in ((f"\ufeffk;v\n{body}", True), (f"\ufeff{body}", False), (body, False)):
        (tmp_path / "in.csv").write_text(text, encoding="utf-8")
        want = pa.table(ream.aggregate(tmp_path / "in.csv", header=header))
        src = rr._sources("in.csv", subtree(tmp_path), None)[0]
        assert src.fs is not None and src.name == "in.csv"
        bstart = rr._body_start(src, header)
        size = src.size
        for cut in range(size + 1):
            states = [
                rr._range_state(src, bstart, a, b, False, dict(opts, header=header))
                for a, b in ((0, cut), (cut, size))
            ]
            assert merged_table(states).equals(want), (header, cut)
        whole = rr._range_state(src, bstart, 0, size, True, dict(opts, header=header))
        assert merged_table([whole]).equals(want)


def test_range_errors_through_a_filesystem_name_the_line(tmp_path):
    (tmp_path / "bad.csv").write_text("k;v\na;1\nb;2\nc;x\nd;4\n")
    src = rr._sources("bad.csv", subtree(tmp_path), None)[0]
    opts = dict(delimiter=";", key_col=0, value_col=1, header=True, threads=1, max_key_memory=rr.MAX_KEY_MEMORY)
    body = rr._body_start(src, True)
    assert body == 4
    assert rr._range_state(src, body, 0, 12, False, opts)
    with pytest.raises(ream.MalformedError, match=r"^bad.csv: line 4, byte 14") as e:
        rr._range_state(src, body, 12, 100, False, opts)
    assert (e.value.path, e.value.offset) == ("bad.csv", 14)
    # The whole-file route (one range) names the same place.
    with pytest.raises(ream.MalformedError, match=r"^bad.csv: line 4, byte 14"):
        rr._range_state(src, body, 0, src.size, True, opts)


def test_glob_patterns_on_a_filesystem(tmp_path):
    for p in ("a/x.xlsx", "a/b/y.xlsx", "a/b/z.csv", "c/w.xlsx"):
        (tmp_path / p).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / p).write_bytes(b"x")
    fs = subtree(tmp_path)

    def names(p, ext=None):
        return [s.name for s in rr._sources(p, fs, ext)]

    assert names("a/*.xlsx") == ["a/x.xlsx"]
    assert names("a/**/*.xlsx") == ["a/b/y.xlsx", "a/x.xlsx"]
    assert names("*/w.xls[xm]") == ["c/w.xlsx"]
    assert names("a", rr.EXCEL_EXTENSIONS) == ["a/b/y.xlsx", "a/x.xlsx"]
    assert names(["a/x.xlsx", "a/*.xlsx"]) == ["a/x.xlsx"]
    with pytest.raises(FileNotFoundError, match="matches no file"):
        names("a/*.pdf")
    with pytest.raises(FileNotFoundError, match="nope"):
        names("nope")
    with pytest.raises(TypeError, match="filesystem"):
        rr._sources("a", object(), None)
    with pytest.raises(ValueError, match="mix local paths and URIs"):
        rr._sources([str(tmp_path / "a"), "s3://bucket/key"], None, None)


def test_filesystem_sources_equal_local_ones(cluster, tmp_path):
    files = workbooks(tmp_path / "books", n=2, rows=200)
    fs = subtree(tmp_path)
    got = rows_of(rr.read_excel("books", sheet="Data", filesystem=fs, include_paths=True))
    want = single_machine(files, sheet="Data")
    assert set(got.column("path").to_pylist()) == {"books/book0.xlsx", "books/book1.xlsx"}
    got = got.drop_columns(["path", "sheet"])
    assert sort_table(got, ["id"]).equals(sort_table(want, ["id"]))

    agg = agg_inputs(tmp_path / "agg")
    cat = tmp_path / "all.csv"
    cat.write_bytes(b"".join(f.read_bytes() for f in agg))
    got = rows_of(rr.aggregate("agg/*.csv", block_bytes=1000, fan_in=3, filesystem=fs))
    assert got.equals(pa.table(ream.aggregate(cat)))

    (tmp_path / "books" / "broken.xlsx").write_bytes(b"not a workbook")
    recs = rows_of(rr.batch("books", filesystem=fs)).to_pylist()
    local = {os.path.relpath(r["path"], tmp_path): rr._flat(r) for r in ream.batch(str(tmp_path / "books"))}
    assert sorted(r["path"] for r in recs) == sorted(local)
    for r in recs:
        for k in ("format", "size", "outcome", "summary", "warning_count"):
            assert r[k] == local[r["path"]][k], (r["path"], k)
    with pytest.raises(ream.ReamError, match="^books/broken.xlsx: "):
        rr.read_excel("books", filesystem=fs)


def test_uris_and_fsspec_filesystems(cluster, tmp_path):
    files = workbooks(tmp_path / "books", n=2, rows=50)
    want = single_machine(files, sheet="Data")
    uri = (tmp_path / "books").as_uri()
    got = rows_of(rr.read_excel(uri, sheet="Data"))
    assert sort_table(got, ["id"]).equals(sort_table(want, ["id"]))
    fsspec = pytest.importorskip("fsspec")
    got = rows_of(rr.read_excel(str(tmp_path / "books"), sheet="Data", filesystem=fsspec.filesystem("file")))
    assert sort_table(got, ["id"]).equals(sort_table(want, ["id"]))
    pdfs = sorted(glob.glob(str(CORPUS / "pdf" / "*.pdf")))[:2]
    if pdfs:
        info = rows_of(rr.read_pdf(pdfs, filesystem=fsspec.filesystem("file"))).to_pylist()
        assert [r["pages"] for r in info] == [ream.pdf_info(p)["pages"] for p in pdfs]
        assert [r["file"] for r in info] == pdfs


def test_mixed_types_inside_one_sheet_warn_on_the_driver(cluster, tmp_path):
    d = tmp_path / "one"
    d.mkdir()
    write_xlsx(d / "mixed.xlsx", {"S": [["v", "w"], [1, 1], ["x", 2]]})
    with pytest.warns(ream.MixedTypesWarning, match=r"mixed.xlsx: .*'v'"):
        ds = rr.read_excel(str(d))
    got = rows_of(ds)
    assert got.schema.field("v").type == pa.string()
    assert got.column("v").to_pylist() == ["1", "x"]
    assert got.column("w").to_pylist() == [1, 2]


def test_aggregate_combine_keeps_the_key_budget(cluster, tmp_path):
    d = tmp_path / "keys"
    d.mkdir()
    for f in range(3):
        (d / f"p{f}.csv").write_text("".join(f"k{f}_{i};1\n" for i in range(4)))
    # About 200 bytes a key: each file's 4 keys fit 1 KiB, the 12 merged do not.
    with pytest.raises(ream.LimitExceededError, match="merged states"):
        rr.aggregate(str(d), max_key_memory=1024)
    got = rows_of(rr.aggregate(str(d), max_key_memory=4096))
    assert got.num_rows == 12
    (d / "p0.csv").write_text("".join(f"k0_{i};1\n" for i in range(10)))
    with pytest.raises(ream.LimitExceededError, match="p0.csv"):
        rr.aggregate(str(d), max_key_memory=1024)


def test_column_projection_is_pushed_into_the_reader(cluster, tmp_path):
    d = tmp_path / "proj"
    d.mkdir()
    # Column b ends before column a: the row count must not follow the
    # columns read.
    write_xlsx(d / "a.xlsx", {"S": [["a", "b", "c"], [1, "x", 1.5], [2, None, None], [3, None, 2.5]]})
    write_xlsx(d / "b.xlsx", {"S": [["c", "a"], [9.5, 7]], "T": [["z"]]})
    ds = rr.read_excel(str(d), include_paths=True)
    assert ds.count() == 4
    full = rows_of(ds)
    got = rows_of(ds.select_columns(["b", "sheet"]))
    assert got.column_names == ["b", "sheet"]
    assert got.equals(full.select(["b", "sheet"]))
    got = rows_of(rr.read_excel(str(d), sheet="S", columns=["c", "a"]).select_columns(["a"]))
    assert sorted(got.column("a").to_pylist()) == [1, 2, 3, 7]
    got = rows_of(rr.read_excel(str(d / "a.xlsx"), header_row=None, columns="B:C").select_columns(["column_2"]))
    assert got.column("column_2").to_pylist() == ["c", "1.5", None, "2.5"]


def test_projection_of_batch_and_pdf_rows(cluster, tmp_path):
    files = workbooks(tmp_path / "books", n=2, rows=5)
    ds = rr.batch(str(tmp_path / "books"))
    assert ds.count() == 2
    got = rows_of(ds.select_columns(["path", "outcome"]))
    assert got.column_names == ["path", "outcome"]
    assert sorted(got.column("path").to_pylist()) == sorted(str(f) for f in files)
    pdfs = sorted(glob.glob(str(CORPUS / "pdf" / "*.pdf")))[:3]
    if pdfs:
        assert rr.read_pdf(pdfs, what="pages").count() == sum(pa.table(ream.pdf_pages(p)).num_rows for p in pdfs)
