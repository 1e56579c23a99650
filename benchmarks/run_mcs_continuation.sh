#!/usr/bin/env bash
# Per-step cost of the tangent continuation against the traditional QR projection in the MCS
# integrator (benchmarks/mcs_continuation.cpp, issue 5 item 7): the papers' examples at fixed
# steps (the same steps in every mode) and adaptive at rtol 1e-8. Builds Release in build-mcs
# (BUILD_DIR=...) and writes benchmarks/results/mcs_continuation.md and .csv.
#
#   benchmarks/run_mcs_continuation.sh          # about 2 minutes on 2 cores
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/deps.sh
catena_install_deps
source benchmarks/common.sh
stamp_run lib benchmarks  # started: reset below, when the runs start
build="${BUILD_DIR:-build-mcs}"
repeats="${REPEATS:-5}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCATENA_BUILD_BENCHMARKS=ON > /dev/null
cmake --build "$build" -j2 --target bench_mcs_continuation > /dev/null
results=benchmarks/results
mkdir -p "$results"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
started="$(date -u '+%Y-%m-%d %H:%M UTC')"
table="$("$build/benchmarks/bench_mcs_continuation" --repeats "$repeats" \
  --csv "$results/mcs_continuation.csv")"
{
  echo "# Per-step cost of the tangent continuation (MCS integrator)"
  echo
  echo "Made by \`benchmarks/run_mcs_continuation.sh\` (REPEATS=$repeats, OMP_NUM_THREADS=$OMP_NUM_THREADS)"
  echo "on $started, revision $revision, Release build in \`$build\`."
  echo "Raw numbers: \`mcs_continuation.csv\`. Interpretation: \`docs/dynamics-mcs.md\`, \"Cost\"."
  echo
  echo "Fixed steps h (the same steps in every mode). CPU us/step: process CPU time of a whole run"
  echo "over its steps, median of the repeats (the steadiest number on this shared machine). The"
  echo "QR, continuation and correction columns are wall-clock sums of each part inside the"
  echo "integrator (steady_clock) over the last repeat, per step: indicative, noisier (another"
  echo "process preempting a part shows up there). \"continuation / traditional step\": the"
  echo "continuation's own time over the traditional CPU time per step; \"CPU vs traditional\": the"
  echo "whole run. The adaptive column: ARKODE at rtol 1e-8, atol 1e-10, to the same end time."
  echo
  echo "$table"
} > "$results/mcs_continuation.md"
echo "wrote $results/mcs_continuation.md and $results/mcs_continuation.csv"
