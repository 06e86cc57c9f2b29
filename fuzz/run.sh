#!/usr/bin/env bash
# Builds every fuzz target and runs each for SECONDS (default 30) from the
# committed seeds (fuzz/seeds/<target>) plus the local, git-ignored corpus
# (fuzz/corpus/<target>, where new inputs are kept between runs).
#
#   fuzz/run.sh [SECONDS] [TARGET...]
#
# Needs nightly and cargo-fuzz. Runs at idle CPU priority (SCHED_IDLE where
# `chrt` exists, else nice 19). Exits 1 when any target finds a crash,
# timeout or memory blow-up; the input is saved under fuzz/artifacts/<target>/
# and the libFuzzer log under $FUZZ_LOGS (default fuzz/artifacts/logs).
# $FUZZ_CORPUS replaces fuzz/corpus (e.g. an empty folder, to time a run
# as CI sees it). $FUZZ_SEED fixes libFuzzer's seed (CI uses 1, so a CI
# run repeats what a local `FUZZ_SEED=1 fuzz/run.sh 30` does).
# Build artifacts go to $CARGO_TARGET_DIR (default fuzz/target, git-ignored).
set -uo pipefail

# All in one function, so bash has parsed the whole script before it runs
# (editing the file during a long run cannot change what runs).
main() {
  cd "$(dirname "$0")"
  local secs=${1:-30}
  shift || true
  all=(zip_directory worksheet_scan xlsx_open ods_content xls_open xlsb_open xls_biff pdf_lexer pdf_xref pdf_open agg_line)
  targets=("$@")
  [ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
  logs=${FUZZ_LOGS:-artifacts/logs}
  local corpus=${FUZZ_CORPUS:-corpus}
  mkdir -p "$logs"

  idle=(nice -n 19)
  if command -v chrt >/dev/null 2>&1 && chrt --idle 0 true 2>/dev/null; then
    idle=(chrt --idle 0)
  fi

  # Release with debug assertions and overflow checks; no sanitizer: the
  # crates forbid unsafe code, so ASan would only slow the runs down. Built
  # once; the runs below start the binaries directly, so a source edit
  # during a long run changes nothing.
  if ! "${idle[@]}" cargo +nightly fuzz build -O -a -s none; then
    echo "fuzz: build failed" >&2
    exit 1
  fi
  local host bin
  host=$(rustc +nightly -vV | sed -n 's/^host: //p')
  bin="${CARGO_TARGET_DIR:-target}/$host/release"

  dict_for() {
    case "$1" in
      worksheet_scan | xlsx_open) echo "-dict=dicts/xlsx.dict" ;;
      ods_content) echo "-dict=dicts/ods.dict" ;;
      pdf_*) echo "-dict=dicts/pdf.dict" ;;
    esac
  }

  failed=()
  summary="$logs/summary.tsv"
  printf 'target\tseconds\tcpu_s\texecs\tcorpus_files\tresult\n' >"$summary"
  for t in "${targets[@]}"; do
    mkdir -p "$corpus/$t" "artifacts/$t"
    log="$logs/$t.log"
    echo "fuzz: $t for ${secs}s"
    # `time` on the group gives the CPU seconds of the fuzzer (user + sys);
    # at idle priority on a busy machine that is less than the wall time.
    TIMEFORMAT='%U %S'
    # shellcheck disable=SC2046
    { time "${idle[@]}" "$bin/$t" -artifact_prefix="artifacts/$t/" \
      -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      ${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
      $(dict_for "$t") "$corpus/$t" "seeds/$t" >"$log" 2>&1; } 2>"$log.cpu"
    rc=$?
    cpu=$(awk '{printf "%.0f", $1 + $2}' "$log.cpu" 2>/dev/null)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    files=$(find "$corpus/$t" -type f | wc -l)
    if [ $rc -eq 0 ]; then
      result=ok
      echo "fuzz: $t ok: ${execs:-?} executions, ${cpu:-?} CPU s, $files corpus files"
    else
      result=FINDING
      echo "fuzz: $t FOUND A PROBLEM (log: fuzz/$log, input under fuzz/artifacts/$t/)" >&2
      # What a CI log must carry to repeat the finding: the panic with
      # its message, and the input itself (base64, when under 16 KiB).
      grep -E -A12 'panicked' "$log" | head -40 >&2
      grep -E 'ERROR: libFuzzer|SUMMARY|Test unit written' "$log" | head -4 >&2
      local unit
      unit=$(sed -n 's/.*Test unit written to //p' "$log" | tail -1)
      if [ -n "$unit" ] && [ -f "$unit" ] && [ "$(wc -c <"$unit")" -lt 16384 ]; then
        echo "fuzz: input as base64 (base64 -d > input; $bin/$t input):" >&2
        base64 -w 100 "$unit" >&2
      fi
      failed+=("$t")
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$secs" "${cpu:-?}" "${execs:-?}" "$files" "$result" >>"$summary"
  done
  if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: findings in: ${failed[*]}" >&2
    exit 1
  fi
  echo "fuzz: ${#targets[@]} targets ran ${secs}s each without findings"
}
main "$@"
