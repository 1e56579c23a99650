#!/usr/bin/env bash
# Catenary chain released from the 'V' (benchmarks/chain_dynamics.cpp): generalized-alpha with
# and without K_c in the iteration matrix; cost per simulated second, Newton iterations per
# step, error of the mid-chain point against h/8, and the largest step that runs without a cut.
# Builds Release in build-bench (BUILD_DIR=...) and writes
#   benchmarks/results/chain_dynamics.md  and  benchmarks/results/chain_dynamics.csv
#
#   benchmarks/run_chain_dynamics.sh                     # N = 10, 30, 100, 300 (a few minutes)
#   benchmarks/run_chain_dynamics.sh --sizes 10,100      # options go to the program
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
started="$(date -u '+%Y-%m-%d %H:%M UTC')"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
status=0
"$build/benchmarks/bench_chain_dynamics" "${args[@]}" > "$out" || status=$?
{
  echo "# Catenary chain dynamics: generalized-alpha with and without K_c"
  echo
  echo "Produced by \`benchmarks/run_chain_dynamics.sh${*:+ $*}\` (from the repository root),"
  echo "started $started at git \`$revision\`, Release build in \`$build\`,"
  echo "OMP_NUM_THREADS=$OMP_NUM_THREADS, on a machine with $(nproc --all) cores:"
  echo
  echo "    $build/benchmarks/bench_chain_dynamics ${args[*]}"
  echo
  echo "Exit status: $status (0: every run reached t_end)."
  echo
  sed -e '1s/^# .*$/## Output of the program/' "$out"
  echo
  cat benchmarks/chain_dynamics_interpretation.md
} > "$results/chain_dynamics.md"
echo "wrote $results/chain_dynamics.md and $results/chain_dynamics.csv" >&2
exit "$status"
