#!/usr/bin/env bash
# Catenary chain released from the 'V' (benchmarks/chain_dynamics.cpp): generalized-alpha with
# and without K_c in the iteration matrix; cost per simulated second, Newton iterations per
# step, error of the mid-chain point against h/8, and the largest step that runs without a cut.
# Two studies: a fixed step of 4 ms, and an adaptive step at a local error tolerance of 1e-5
# (the cost at a stated accuracy). Builds Release in build-bench (BUILD_DIR=...) and writes
#   benchmarks/results/chain_dynamics.md, chain_dynamics.csv (fixed), chain_dynamics_adaptive.csv
#
#   benchmarks/run_chain_dynamics.sh                     # N = 10, 30, 100, 300 (~10 minutes)
#   benchmarks/run_chain_dynamics.sh --sizes 10,100      # options go to both runs
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
revision="$(git rev-parse --short HEAD 2> /dev/null || echo unknown)$(
  git diff --quiet HEAD -- lib benchmarks 2> /dev/null ||
    echo ' with uncommitted changes in lib/ or benchmarks/')"
build="${BUILD_DIR:-build-bench}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCATENA_BUILD_BENCHMARKS=ON > /dev/null
cmake --build "$build" -j2 --target bench_chain_dynamics > /dev/null
results=benchmarks/results
mkdir -p "$results"
export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}" OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
args=(--sizes 10,30,100,300 --t-end 1 --dt 4e-3 --csv "$results/chain_dynamics.csv" "$@")
adaptive=(--sizes 10,30,100,300 --t-end 1 --dt 2e-2 --tolerance 1e-5
  --csv "$results/chain_dynamics_adaptive.csv" "$@")
started="$(date -u '+%Y-%m-%d %H:%M UTC')"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
out2="$(mktemp)"
trap 'rm -f "$out" "$out2"' EXIT
status=0 status2=0
"$build/benchmarks/bench_chain_dynamics" "${args[@]}" > "$out" || status=$?
"$build/benchmarks/bench_chain_dynamics" "${adaptive[@]}" > "$out2" || status2=$?
{
  echo "# Catenary chain dynamics: generalized-alpha with and without K_c"
  echo
  echo "Produced by \`benchmarks/run_chain_dynamics.sh${*:+ $*}\` (from the repository root),"
  echo "started $started at git \`$revision\`, Release build in \`$build\`,"
  echo "OMP_NUM_THREADS=$OMP_NUM_THREADS, on a machine with $(nproc --all) cores:"
  echo
  echo "    $build/benchmarks/bench_chain_dynamics ${args[*]}"
  echo "    $build/benchmarks/bench_chain_dynamics ${adaptive[*]}"
  echo
  echo "Exit status: $status (fixed step), $status2 (adaptive); 0: every run reached t_end."
  echo
  echo "## Fixed step"
  echo
  sed -e '1s/^# /### /' "$out"
  echo
  echo "## Adaptive step (error control)"
  echo
  sed -e '1s/^# /### /' "$out2"
  echo
  cat benchmarks/chain_dynamics_interpretation.md
} > "$results/chain_dynamics.md"
echo "wrote $results/chain_dynamics.md and $results/chain_dynamics.csv" >&2
[ "$status2" -eq 0 ] || exit "$status2"
exit "$status"
