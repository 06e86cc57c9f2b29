"""ream beside fastexcel, polars and pandas (calamine) from Python.

Run by `ream-bench py` (which generates the datasets first and picks the
interpreter with --python), or directly:

    python crates/ream-bench/scripts/py_bench.py --dir bench-data --runs 3

Every measurement is a whole process, `python -c CODE FILE`, so interpreter
start-up and the imports count on every side. Engines (--engines):

- fastexcel:   [r.load_sheet(n).to_arrow() for n in r.sheet_names]
- polars:      polars.read_excel(f, sheet_id=0)            (every sheet)
- pandas:      pandas.read_excel(f, sheet_name=None, engine="calamine")
- ream:        [v.to_arrow() for v in ream.read_excel(f, sheet=None).values()]
- ream-pa-table: [pyarrow.table(v) for v in ream.read_excel(f, sheet=None).values()]
               (the same tables; pyarrow.table imports pandas, when
               installed, before it looks for __arrow_c_stream__: about
               0.3 s here)
- ream-stream: pyarrow.record_batch(b) for b in ream.open(f).iter_batches(s),
               every sheet (on the datasets of --stream-datasets)

Each engine runs once untimed (warm-up: page cache, .pyc), then --runs
rounds, each round running every engine once in a rotating order so that
background load hits them alike. The report, Markdown on stdout: median
and range of wall time, median peak RSS (the child's VmHWM; its
ru_maxrss from wait4 where /proc is missing), the rows each engine saw,
and the time ratio to `ream`; then the issue-22 acceptance lines (fastexcel / ream >= 5 on many, >= 4 on giant;
ream-stream peak RSS <= 150 MB on giant) and the versions of Python and of
each package (importlib.metadata; the parent imports none of them).
An engine that fails shows its error in the notes instead of stopping the
run. Datasets are files DIR/NAME.xlsx (NAME-sSCALE.xlsx with --scale).
"""

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata

ENGINES = {
    "fastexcel": """
import sys, fastexcel, pyarrow
r = fastexcel.read_excel(sys.argv[1])
ts = [r.load_sheet(n).to_arrow() for n in r.sheet_names]
print(sum(t.num_rows for t in ts))
""",
    "polars": """
import sys, polars
d = polars.read_excel(sys.argv[1], sheet_id=0)
print(sum(x.height for x in d.values()))
""",
    "pandas": """
import sys, pandas
d = pandas.read_excel(sys.argv[1], sheet_name=None, engine="calamine")
print(sum(len(x) for x in d.values()))
""",
    "ream": """
import sys, ream
ts = [v.to_arrow() for v in ream.read_excel(sys.argv[1], sheet=None).values()]
print(sum(t.num_rows for t in ts))
""",
    "ream-pa-table": """
import sys, ream, pyarrow
ts = [pyarrow.table(v) for v in ream.read_excel(sys.argv[1], sheet=None).values()]
print(sum(t.num_rows for t in ts))
""",
    "ream-stream": """
import sys, ream, pyarrow
wb = ream.open(sys.argv[1])
n = 0
for s in wb.sheet_names:
    for b in wb.iter_batches(s):
        n += pyarrow.record_batch(b).num_rows
print(n)
""",
}
# Appended to every engine: the child's own peak RSS in KiB (VmHWM starts
# afresh at exec; ru_maxrss from wait4 would also count the forking
# parent's size), "-" where /proc is missing.
PEAK = """
try:
    print([l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM:")][0])
except (OSError, IndexError):
    print("-")
"""
PACKAGES = ["ream", "pyarrow", "fastexcel", "polars", "pandas", "python-calamine"]
# Issue 22's acceptance: fastexcel time / ream time at least this.
TARGETS = {"many": 5.0, "giant": 4.0}
STREAM_RSS_MB = 150


def run_child(python, engine, path, timeout):
    """(wall s, peak RSS MB, rows, error) of one child: its output goes to
    temporary files; it prints its rows and its VmHWM, and is reaped with
    wait4 (ru_maxrss as the fallback)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [python, "-c", ENGINES[engine] + PEAK, str(path)], stdin=subprocess.DEVNULL, stdout=out, stderr=err
        )
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                wall = time.perf_counter() - t0
                proc.returncode = os.waitstatus_to_exitcode(status)
                break
            if time.perf_counter() - t0 > timeout:
                proc.kill()
                proc.wait()
                return None, None, None, f"timed out after {timeout:.0f} s"
            time.sleep(0.001)
        out.seek(0)
        err.seek(0)
        text, errors = out.read(), err.read()
    rss_mb = usage.ru_maxrss / 1024  # KiB on Linux; an upper bound
    if proc.returncode != 0:
        lines = errors.decode(errors="replace").strip().splitlines()
        return wall, rss_mb, None, f"exit {proc.returncode}: {lines[-1] if lines else ''}"
    try:
        *_, rows, hwm = text.split()
        rows = int(rows)
        if hwm != b"-":
            rss_mb = int(hwm) / 1024
    except ValueError:
        return wall, rss_mb, None, f"unexpected output {text[:80]!r}"
    return wall, rss_mb, rows, None


def version(pkg):
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return "not installed"


def fmt_ratio(x):
    return f"{x:.2f}x" if x is not None else "-"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default="bench-data", help="folder of the datasets (default bench-data)")
    ap.add_argument("--datasets", default="many,giant", help="comma-separated (default many,giant)")
    ap.add_argument("--runs", type=int, default=3, help="timed runs per engine, after one warm-up (default 3)")
    ap.add_argument("--engines", default=",".join(ENGINES), help=f"comma-separated (default {','.join(ENGINES)})")
    ap.add_argument("--stream-datasets", default="giant", help="datasets ream-stream runs on (default giant)")
    ap.add_argument("--scale", type=float, default=1.0, help="use NAME-sSCALE.xlsx (default 1: NAME.xlsx)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per run (default 600)")
    a = ap.parse_args(argv)
    engines = [e for e in a.engines.split(",") if e]
    unknown = [e for e in engines if e not in ENGINES]
    if unknown:
        ap.error(f"unknown engines {unknown}; known: {', '.join(ENGINES)}")
    if a.runs < 1:
        ap.error("--runs must be at least 1")
    streamed = set(a.stream_datasets.split(","))
    python = sys.executable
    suffix = "" if a.scale == 1.0 else f"-s{a.scale:g}"

    print(f"# ream vs Python readers ({a.runs} runs, medians; whole processes)\n")
    print(f"- Python {platform.python_version()} ({python}), {os.cpu_count()} cores, {platform.platform()}")
    print("- " + ", ".join(f"{p} {version(p)}" for p in PACKAGES))
    print()
    print("| dataset | engine | median s | min-max s | peak RSS MB | rows | time / ream | notes |")
    print("|---|---|---|---|---|---|---|---|")
    checks = []
    for ds in [d for d in a.datasets.split(",") if d]:
        path = os.path.join(a.dir, f"{ds}{suffix}.xlsx")
        if not os.path.isfile(path):
            print(f"| {ds} | - | - | - | - | - | - | missing {path} (ream-bench gen --only {ds}) |")
            continue
        todo = [e for e in engines if e != "ream-stream" or ds in streamed]
        walls = {e: [] for e in todo}
        rss = {e: [] for e in todo}
        rows = {e: set() for e in todo}
        notes = {e: [] for e in todo}
        for e in todo:  # warm-up
            print(f"{ds}: warm-up {e}", file=sys.stderr)
            _, _, _, err = run_child(python, e, path, a.timeout)
            if err:
                notes[e].append(f"warm-up: {err}")
        for i in range(a.runs):
            order = todo[i % len(todo):] + todo[: i % len(todo)]
            for e in order:
                if notes[e] and notes[e][0].startswith("warm-up"):
                    continue
                wall, mb, n, err = run_child(python, e, path, a.timeout)
                print(f"{ds}: run {i + 1} {e}: {wall if wall is None else round(wall, 3)} s", file=sys.stderr)
                if err:
                    notes[e].append(err)
                    continue
                walls[e].append(wall)
                rss[e].append(mb)
                rows[e].add(n)
        med = {e: statistics.median(w) for e, w in walls.items() if w}
        base = med.get("ream")
        for e in todo:
            if e in med:
                w = walls[e]
                ratio = med[e] / base if base else None
                r = ",".join(str(x) for x in sorted(rows[e]))
                print(
                    f"| {ds} | {e} | {med[e]:.2f} | {min(w):.2f}-{max(w):.2f} | "
                    f"{statistics.median(rss[e]):.0f} | {r} | {fmt_ratio(ratio)} | {'; '.join(notes[e])} |"
                )
            else:
                print(f"| {ds} | {e} | - | - | - | - | - | {'; '.join(notes[e])} |")
        target = TARGETS.get(ds)
        for r in ("ream", "ream-pa-table"):
            if target and med.get(r) and "fastexcel" in med:
                x = med["fastexcel"] / med[r]
                ok = "met" if x >= target else "not met"
                checks.append(f"- {ds}: fastexcel / {r} = {x:.2f}x (target >= {target:g}x: {ok})")
        if ds == "giant" and rss.get("ream-stream"):
            mb = statistics.median(rss["ream-stream"])
            checks.append(f"- giant through iter_batches: peak RSS {mb:.0f} MB (target <= {STREAM_RSS_MB} MB: {'met' if mb <= STREAM_RSS_MB else 'not met'})")
    if checks:
        print("\nAcceptance (issue 22):\n")
        print("\n".join(checks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
