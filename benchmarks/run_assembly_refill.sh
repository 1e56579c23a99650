#!/usr/bin/env bash
# Assembly refill benchmark (benchmarks/assembly_refill.cpp): configures and builds Release in
# build-bench, runs bench_assembly_refill for a catenary chain of N = 1e3, 1e4, 1e5, 1e6 links
# with 1 and 2 OpenMP threads, and writes
#   benchmarks/results/assembly_refill.md   command, date, machine, table, automatic summary,
#                                           and the hand-written notes kept from the old file
#   benchmarks/results/assembly_refill.csv  one row per (N, threads)
#   benchmarks/results/assembly_refill.png  if /usr/bin/python3 has matplotlib
#
#   benchmarks/run_assembly_refill.sh                      # the full study (about 3 minutes)
#   benchmarks/run_assembly_refill.sh --sizes 1000,10000   # extra options go to the benchmark
#
# Run it on an otherwise idle machine: both timings take the best of several interleaved
# measurements, but a concurrent build on one of the two cores ruins the 2-thread numbers (the
# OpenMP barriers wait for a descheduled thread).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."  # the repository root; paths below are relative to it
results=benchmarks/results
md="$results/assembly_refill.md"
csv="$results/assembly_refill.csv"
png="$results/assembly_refill.png"

cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build-bench -j2 --target bench_assembly_refill > /dev/null
mkdir -p "$results"

bench=build-bench/benchmarks/bench_assembly_refill
args=(--sizes 1000,10000,100000,1000000 --threads 1,2 --min-time 0.5 --measurements 7
      --csv "$csv" "$@")
out="$(mktemp)"
trap 'rm -f "$out" "$out.notes"' EXIT
# The benchmark's exit status is nonzero if thread counts gave different bits: keep the output.
started="$(date -u '+%Y-%m-%d %H:%M UTC')"
load="$(cut -d' ' -f1-3 /proc/loadavg)"
status=0
"$bench" "${args[@]}" > "$out" || status=$?

# Keep the hand-written notes (between the markers) of the previous results file.
if [[ -f "$md" ]] && grep -q '^<!-- notes begin' "$md"; then
  sed -n '/^<!-- notes begin/,/^<!-- notes end/p' "$md" > "$out.notes"
else
  printf '%s\n' '<!-- notes begin: kept by run_assembly_refill.sh -->' \
    '(interpretation, before/after numbers)' '<!-- notes end -->' > "$out.notes"
fi

{
  echo "# Assembly refill: C_q and K_c of a spatial catenary chain vs memcpy"
  echo
  echo "Produced by \`benchmarks/run_assembly_refill.sh${*:+ $*}\` (from the repository root),"
  echo "started $started at git \`$(git rev-parse --short HEAD 2> /dev/null || echo unknown)\`$(
    git diff --quiet HEAD -- lib benchmarks 2> /dev/null ||
      echo ' with uncommitted changes in lib/ or benchmarks/')."
  echo "It builds Release in \`build-bench\` and runs:"
  echo
  echo "    $bench ${args[*]}"
  echo
  echo "Load average at the start: $load."
  echo
  sed -e '1s/^# .*$/## Output of the benchmark/' "$out"
  echo
  echo "## Summary (automatic)"
  echo
  awk -F, 'NR > 1 {
      verdict = ($17 >= 0.5) ? "meets" : "misses";
      printf("- N = %s, %s thread(s): %.0f ns/joint, %.2f GB/s vs memcpy %.2f GB/s: ratio %.3f %s the 0.5 target\n",
             $1, $3, $10, $12, $16, $17, verdict) }' "$csv"
  echo
  cat "$out.notes"
} > "$md"

if /usr/bin/python3 -c 'import matplotlib' 2> /dev/null; then
  /usr/bin/python3 benchmarks/plot_assembly_refill.py "$csv" "$png"
else
  echo "no plot: install python3-matplotlib (Debian) for /usr/bin/python3" >&2
fi
echo "wrote $md and $csv" >&2
exit "$status"
