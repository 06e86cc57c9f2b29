#!/usr/bin/env bash
# Thread-scaling sweep of the whole-workbook open for a many-core machine
# (the workplace's device): what the 2-core VM cannot show.
#
# Build here, then run on the device with the release binaries carried:
#   cargo build --release -p ream-bench
#   run(command="bash crates/ream-bench/scripts/device-sweep.sh", carry=["target/release/ream-bench"])
# The datasets are generated on the device (deterministic, ~250 MB for
# giant, mixed and giant_ods at scale 1). Each (dataset, threads) pair runs
# RUNS times in a fresh process, interleaved by thread count; the medians
# and speed-ups over 1 thread are printed as a Markdown table, and every
# run's JSON line is kept in $OUT/sweep.jsonl when $OUT is set.
#
# giant_ods is read over a window on 1 and 2 threads and overlapped
# (whole part in memory, parsed on all threads) from 3 on; the "path"
# column says which ran, so the sweep shows where the overlapped read
# starts to pay (ods/windowed.rs MAX_THREADS).
#
# Environment: THREADS (default "1 2 3 4 8 16"), RUNS (default 5), SCALE
# (default 1), DATASETS (default "giant mixed giant_ods"), BIN (default
# target/release).
set -euo pipefail
BIN=${BIN:-target/release}
THREADS=${THREADS:-"1 2 3 4 8 16"}
RUNS=${RUNS:-5}
SCALE=${SCALE:-1}
DATASETS=${DATASETS:-"giant mixed giant_ods"}
DATA=${DATA:-$(mktemp -d)}
LOG=${OUT:-$DATA}/sweep.jsonl
mkdir -p "$(dirname "$LOG")"
: > "$LOG"

only=$(echo "$DATASETS" | tr ' ' ',')
"$BIN/ream-bench" gen --dir "$DATA" --only "$only" --scale "$SCALE" >&2

file_of() {
  local stem=${1%_ods} ext=xlsx suffix=""
  [[ $1 == *_ods ]] && ext=ods
  [[ $SCALE != 1 ]] && suffix="-s$SCALE"
  echo "$DATA/$stem$suffix.$ext"
}

echo "nproc: $(nproc); $(uname -r)" >&2
for ds in $DATASETS; do
  f=$(file_of "$ds")
  "$BIN/ream-bench" measure --engine ream --threads 1 --file "$f" > /dev/null # warm-up
  for ((r = 1; r <= RUNS; r++)); do
    for t in $THREADS; do
      line=$("$BIN/ream-bench" measure --engine ream --threads "$t" --file "$f")
      echo "{\"dataset\":\"$ds\",\"threads\":$t,\"run\":$r,\"result\":$line}" >> "$LOG"
    done
  done
done

python3 - "$LOG" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
by = {}
for r in rows:
    by.setdefault((r["dataset"], r["threads"]), []).append(r["result"])
print("| dataset | threads | median s | speed-up vs 1t | cpu/wall | peak RSS MiB | path |")
print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
for ds in dict.fromkeys(k[0] for k in by):
    base = statistics.median(x["wall_s"] for x in by[(ds, 1)]) if (ds, 1) in by else None
    for (d, t), res in sorted((k, v) for k, v in by.items() if k[0] == ds):
        wall = statistics.median(x["wall_s"] for x in res)
        cpu = statistics.median(x["cpu_s"] / x["wall_s"] for x in res)
        rss = max(x["peak_rss_bytes"] for x in res) / 2**20
        up = f"{base / wall:.2f}x" if base else "-"
        extra = res[0].get("extra") or {}
        path = "windowed" if extra.get("windowed") else ("chunked" if extra.get("chunks") else "whole")
        print(f"| {d} | {t} | {wall:.4f} | {up} | {cpu:.2f} | {rss:.1f} | {path} |")
PY
