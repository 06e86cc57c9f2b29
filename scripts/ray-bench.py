"""ream.ray on a local two-node Ray cluster (head + one worker, 1 CPU each,
loopback) over bench-data/: wall time and the peak RSS of Ray task
processes (sampled from /proc every 50 ms). Not a ream-bench run: one run
each, whole-cluster start excluded. Usage (a venv with ream[ray]):
  python scripts/ray-bench.py agg excel batch fs   (bench-data from ream-bench gen:
  1brc-100m.txt from `ream-bench agg gen`; seed, many, giant)
fs: the aggregate and read_excel again with the files read through a
pyarrow filesystem (SubTreeFileSystem over bench-data: the route of files
in object stores, without the network).
Writes /tmp/rbench/ray.jsonl and, with fs, ray-fs.jsonl (the aggregates,
to compare with `ream agg --format jsonl`)."""
import os, sys, time, json, threading, subprocess
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
import ray, pyarrow as pa
from ray.cluster_utils import Cluster
import ream, ream.ray as rr

NODE = {"num_cpus": 1, "object_store_memory": 200 << 20}
c = Cluster(initialize_head=True, head_node_args=dict(NODE, include_dashboard=False))
c.add_node(**NODE); c.wait_for_nodes(); ray.init(address=c.address)
ray.data.DataContext.get_current().enable_progress_bars = False

peak = {}
stop = threading.Event()
def sample():
    while not stop.is_set():
        for pid in os.listdir("/proc"):
            if not pid.isdigit(): continue
            try:
                cmd = open(f"/proc/{pid}/cmdline","rb").read().split(b"\0")[0].decode()
                if not cmd.startswith("ray::"): continue
                for l in open(f"/proc/{pid}/status"):
                    if l.startswith("VmRSS"):
                        kb = int(l.split()[1]); peak[cmd] = max(peak.get(cmd, 0), kb)
            except Exception: pass
        time.sleep(0.05)
threading.Thread(target=sample, daemon=True).start()

def run(name, f):
    peak.clear(); t = time.time(); r = f(); dt = time.time() - t
    print(json.dumps({"run": name, "wall_s": round(dt, 2), "result": r,
                      "peak_task_rss_mb": {k: v // 1024 for k, v in sorted(peak.items(), key=lambda x: -x[1])[:3]}}), flush=True)

D = os.environ.get("BENCH_DATA", "bench-data")
what = sys.argv[1:]
if "agg" in what:
    def agg():
        t = pa.concat_tables(ray.get(rr.aggregate(f"{D}/1brc-100m.txt").to_arrow_refs()))
        return t.num_rows, int(pa.compute.sum(t["count"]).as_py())
    run("ray.aggregate 1brc-100m", agg)
    t = pa.concat_tables(ray.get(rr.aggregate(f"{D}/1brc-100m.txt").to_arrow_refs()))
    os.makedirs("/tmp/rbench", exist_ok=True)
    with open("/tmp/rbench/ray.jsonl", "w") as out:
        for r in t.to_pylist():
            out.write(json.dumps([r["key"], r["count"], str(r["min"]), str(r["mean"]), str(r["max"])]) + "\n")
if "excel" in what:
    books = [f"{D}/{n}.xlsx" for n in ("seed", "many", "giant")]
    def exact():
        n = 0
        for p in books:
            wb = ream.open(p)
            for s in wb.sheet_names:
                n += sum(b.num_rows for b in wb.iter_batches(s, header_row=None))
        return n
    run("one process: iter_batches seed+many+giant rows", exact)
    def excel():
        t = time.time(); ds = rr.read_excel(books, header_row=None); plan = time.time() - t
        return {"rows": ds.count(), "planning_s": round(plan, 2)}
    run("ray.read_excel seed+many+giant count", excel)
    def excel_arrow():
        refs = rr.read_excel(books, header_row=None).to_arrow_refs()
        return sum(t.num_rows for t in ray.get(refs))
    run("ray.read_excel seed+many+giant to_arrow_refs (every column built)", excel_arrow)
if "fs" in what:
    import pyarrow.fs as pafs
    fs = pafs.SubTreeFileSystem(os.path.abspath(D), pafs.LocalFileSystem())
    def agg_fs():
        t = pa.concat_tables(ray.get(rr.aggregate("1brc-100m.txt", filesystem=fs).to_arrow_refs()))
        os.makedirs("/tmp/rbench", exist_ok=True)
        with open("/tmp/rbench/ray-fs.jsonl", "w") as out:
            for r in t.to_pylist():
                out.write(json.dumps([r["key"], r["count"], str(r["min"]), str(r["mean"]), str(r["max"])]) + "\n")
        return t.num_rows, int(pa.compute.sum(t["count"]).as_py())
    run("ray.aggregate 1brc-100m through a pyarrow filesystem", agg_fs)
    run("ray.read_excel seed+many+giant through a pyarrow filesystem count",
        lambda: rr.read_excel(["seed.xlsx", "many.xlsx", "giant.xlsx"], header_row=None, filesystem=fs).count())
if "batch" in what:
    run("ray.batch corpus", lambda: rr.batch(os.environ.get("CORPUS", "../shared/corpus")).count())
    t=time.time(); n=sum(1 for _ in ream.batch(os.environ.get("CORPUS", "../shared/corpus"))); print("ream.batch", n, round(time.time()-t,2))
stop.set(); ray.shutdown(); c.shutdown()
