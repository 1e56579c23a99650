#!/usr/bin/env bash
# Rank and redundancy detection for four-bar lattices of 1e2..1e6 constraint rows
# (benchmarks/lattice_rank.cpp, issue 5): block-wise QRCP with 1 and 2 OpenMP threads against a
# global SuiteSparseQR (of C_q^T and of C_q) and, for n <= 3300, the dense Eigen QRCP; every
# rank checked against the closed form of docs/lattice-mobility.md. Configures and builds
# Release in build-bench (BUILD_DIR=...), and writes
#   benchmarks/results/lattice_rank.md    command, date, machine, revision, table, summary, and
#                                         the hand-written notes kept from the previous file
#   benchmarks/results/lattice_rank.csv   one row per (lattice, method, threads)
#   benchmarks/results/lattice_rank.png   time and memory against m, log-log
#
#   benchmarks/run_lattice_rank.sh                          # the full study (about 4 minutes)
#   benchmarks/run_lattice_rank.sh --cases u:41x41,m:50x50  # extra options go to the benchmark
#
# Run it on an otherwise idle machine: the 2-thread block-wise times suffer most from a
# concurrent job (an OpenMP barrier waits for a descheduled thread). The exit status is that of
# the benchmark: 1 if any rank differs from the closed form (or between thread counts).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."  # the repository root; paths below are relative to it
# Stamp the revision now: the binary is built from this tree, which may change during the run.
source benchmarks/common.sh
stamp_run lib benchmarks
source scripts/deps.sh
catena_install_deps python3-numpy python3-matplotlib
build="${BUILD_DIR:-build-bench}"
results=benchmarks/results
md="$results/lattice_rank.md"
csv="$results/lattice_rank.csv"
png="$results/lattice_rank.png"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCATENA_BUILD_BENCHMARKS=ON > /dev/null
cmake --build "$build" -j2 --target bench_lattice_rank > /dev/null
mkdir -p "$results"

bench="$build/benchmarks/bench_lattice_rank"
args=(--threads 1,2 --min-time 1 --min-runs 2 --spqr-budget 120 --dense-max-n 3300 --csv "$csv"
  "$@")
out="$(mktemp)"
trap 'rm -f "$out" "$out.notes" "$out.time"' EXIT
load="$(cut -d' ' -f1-3 /proc/loadavg)"
status=0
/usr/bin/time -f '%e s wall, %M kB maximum resident set' -o "$out.time" \
  "$bench" "${args[@]}" > "$out" || status=$?

# Keep the hand-written notes (between the markers) of the previous results file.
if [[ -f "$md" ]] && grep -q '^<!-- notes begin' "$md"; then
  sed -n '/^<!-- notes begin/,/^<!-- notes end/p' "$md" > "$out.notes"
else
  printf '%s\n' '<!-- notes begin: kept by run_lattice_rank.sh (hand-written; edit here) -->' \
    '(interpretation)' '<!-- notes end -->' > "$out.notes"
fi

{
  echo "# Rank of C_q for four-bar lattices, 1e2..1e6 rows: block-wise QRCP vs SuiteSparseQR"
  echo
  echo "Produced by \`benchmarks/run_lattice_rank.sh${*:+ $*}\` (from the repository root),"
  echo "started $started at git \`$revision\`."
  echo "It builds Release in \`$build\` and runs:"
  echo
  echo "    $bench ${args[*]}"
  echo
  echo "Load average at the start: $load. Whole run: $(cat "$out.time")."
  echo "Plot: \`lattice_rank.png\`."
  echo
  sed -e '1s/^# .*$/## Output of the benchmark/' "$out"
  echo
  echo "## Summary (automatic)"
  echo
  awk -F, '
    NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
    $col["method"] == "blockwise" && $col["m"] >= 900000 {
      printf("- %s %sx%s (%s), m = %s: block-wise %s thread(s) %.2f s (%s the 10 s target), rank %s\n",
             $col["kind"], $col["L"], $col["K"], $col["pose"], $col["m"], $col["threads"],
             $col["seconds_best"], $col["seconds_best"] < 10 ? "meets" : "misses", $col["status"])
    }
    $col["method"] ~ /^spqr/ && $col["m"] >= 900000 {
      note = $col["note"]
      gsub(/"/, "", note)
      if ($col["status"] == "skipped")
        printf("- %s %sx%s (%s), m = %s: %s skipped (%s)\n", $col["kind"], $col["L"],
               $col["K"], $col["pose"], $col["m"], $col["method"], note)
      else
        printf("- %s %sx%s (%s), m = %s: %s %.1f s, rank %s\n", $col["kind"], $col["L"],
               $col["K"], $col["pose"], $col["m"], $col["method"], $col["seconds_best"],
               $col["status"])
    }
    $col["status"] == "FAIL" { fails++ }
    END { printf("- rank checks failed: %d\n", fails + 0) }' "$csv"
  echo
  cat "$out.notes"
} > "$md"

/usr/bin/python3 benchmarks/plot_lattice_rank.py "$csv" "$png"
echo "wrote $md, $csv and $png" >&2
exit "$status"
