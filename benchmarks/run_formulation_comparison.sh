#!/usr/bin/env bash
# Every formulation of catena on the examples it can express, at the same accuracy
# (benchmarks/formulation_comparison.cpp, issue 7 item 5): per example and formulation a sweep of
# the tolerance against the example's independent reference and the cheapest run that reaches
# the target (the double pendulum of the rotation-matrix paper, Mechanism0, the free top).
# Configures and builds Release in build-bench (BUILD_DIR=...), and writes
#   benchmarks/results/formulation_comparison.md   command, date, machine, revision, load, the
#                                                  tables with every run of the sweeps, and the
#                                                  hand-written notes kept from the previous file
# The interpretation is docs/formulation-comparison.md.
#
#   benchmarks/run_formulation_comparison.sh                  # about 2 minutes on 2 cores
#   REPEATS=3 benchmarks/run_formulation_comparison.sh --cases dp   # extra options go to it
#
# Run it on an otherwise idle machine: the wall times are medians of REPEATS (5) runs, but a
# concurrent build on one of the two cores still inflates them (the load is recorded).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."  # the repository root; paths below are relative to it
# Stamp the revision now: the binary is built from this tree, which may change during the run.
source benchmarks/common.sh
stamp_run lib benchmarks tests/support inputs
source scripts/deps.sh
catena_install_deps
build="${BUILD_DIR:-build-bench}"
repeats="${REPEATS:-5}"
results=benchmarks/results
md="$results/formulation_comparison.md"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCATENA_BUILD_BENCHMARKS=ON > /dev/null
cmake --build "$build" -j2 --target bench_formulation_comparison > /dev/null
mkdir -p "$results"
cxx="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")"
flags="$(sed -n 's/^CMAKE_CXX_FLAGS_RELEASE:[A-Z]*=//p' "$build/CMakeCache.txt")"

# The models are small and serial (KLU, dense LU): one thread, so no OpenMP region competes.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
bench="$build/benchmarks/bench_formulation_comparison"
args=(--repeats "$repeats" --sweep "$@")
out="$(mktemp)"
trap 'rm -f "$out" "$out.notes" "$out.time"' EXIT
load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f '%e s wall, %M kB maximum resident set' -o "$out.time" \
  "$bench" "${args[@]}" > "$out"
load_end="$(cut -d' ' -f1-3 /proc/loadavg)"

# Keep the hand-written notes (between the markers) of the previous results file.
if [[ -f "$md" ]] && grep -q '^<!-- notes begin' "$md"; then
  sed -n '/^<!-- notes begin/,/^<!-- notes end/p' "$md" > "$out.notes"
else
  printf '%s\n' '<!-- notes begin: kept by run_formulation_comparison.sh (hand-written; edit here) -->' \
    'Interpretation: docs/formulation-comparison.md.' '<!-- notes end -->' > "$out.notes"
fi

{
  echo "# Formulations compared at the same accuracy"
  echo
  echo "Produced by \`benchmarks/run_formulation_comparison.sh${*:+ $*}\` (from the repository root),"
  echo "started $started at git \`$revision\`."
  echo "It builds Release (\`$flags\`) in \`$build\` and runs, with OMP_NUM_THREADS=$OMP_NUM_THREADS:"
  echo
  echo "    $bench ${args[*]}"
  echo
  echo "Machine: $(getconf _NPROCESSORS_ONLN) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'),"
  echo "$(uname -sr); $("$cxx" --version | head -n1)."
  echo "Load average (1, 5, 15 min) at the start: $load_start; at the end: $load_end."
  echo "Whole run: $(cat "$out.time")."
  echo
  sed -e '1s/^# .*$/## Output of the benchmark/' -e '2,$s/^## /### /' "$out"
  echo
  cat "$out.notes"
} > "$md"
echo "wrote $md" >&2
