#!/usr/bin/env bash
# Catenary chain dynamics by generalized-alpha (benchmarks/chain_dynamics.cpp): cost per
# simulated second at a stated accuracy, Newton iterations and factorizations per step with and
# without K_c in the iteration matrix, modified and full Newton, the largest step, growth with N.
# Four studies:
#   1. swing   adaptive (local error 1e-5): N = 10 .. 10^4, the four variants (cost vs N);
#   2. release adaptive (local error 1e-5): N = 10 .. 3000 (the whip);
#   3. release at rho_inf 0.8 (the former default) against 2., N = 100 .. 1000;
#   4. swing   fixed step 2 ms: the largest step that runs without a cut, with and without K_c.
# Every run has a wall-time budget (BUDGET seconds, default 120): a run over it is reported as
# such, not waited for. Builds Release in build-bench (BUILD_DIR=...) and writes
#   benchmarks/results/chain_dynamics.md and chain_dynamics_<study>.csv, then the plot.
#
#   benchmarks/run_chain_dynamics.sh          # about 30 minutes on 2 cores
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/deps.sh
catena_install_deps python3-matplotlib python3-numpy
source benchmarks/common.sh
stamp_run lib benchmarks  # started: reset below, when the runs start
build="${BUILD_DIR:-build-bench}"
budget="${BUDGET:-120}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCATENA_BUILD_BENCHMARKS=ON > /dev/null
cmake --build "$build" -j2 --target bench_chain_dynamics > /dev/null
results=benchmarks/results
mkdir -p "$results"
export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}" OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
bench="$build/benchmarks/bench_chain_dynamics"
started="$(date -u '+%Y-%m-%d %H:%M UTC')"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

declare -A args
args[swing]="--scenario swing --sizes 10,100,1000,10000 --t-end 1 --dt 0.05 --tolerance 1e-5
  --variants kc-modified,kc-full,nokc-modified,nokc-full"
args[release]="--scenario release --sizes 10,30,100,300,1000,3000 --t-end 1 --dt 0.02
  --tolerance 1e-5 --variants kc-modified,kc-full,nokc-modified"
args[release_rho08]="--scenario release --sizes 100,300,1000 --t-end 1 --dt 0.02
  --tolerance 1e-5 --rho-inf 0.8 --variants kc-modified"
args[swing_fixed]="--scenario swing --sizes 10,100,1000 --t-end 1 --dt 0.002 --tolerance 0
  --largest-step --variants kc-modified,nokc-modified"
studies=(swing release release_rho08 swing_fixed)
declare -A status
for study in "${studies[@]}"; do
  # shellcheck disable=SC2086
  status[$study]=0
  "$bench" ${args[$study]} --budget "$budget" --csv "$results/chain_dynamics_$study.csv" \
    > "$tmp/$study.md" || status[$study]=$?
done

{
  echo "# Catenary chain dynamics: generalized-alpha, K_c and modified Newton"
  echo
  echo "Produced by \`benchmarks/run_chain_dynamics.sh\` (from the repository root), started"
  echo "$started at git \`$revision\`, Release build in \`$build\`, OMP_NUM_THREADS=$OMP_NUM_THREADS,"
  echo "on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') ($(nproc --all) cores),"
  echo "a budget of $budget s of wall time per run. Commands:"
  echo
  for study in "${studies[@]}"; do
    echo "    $bench $(echo ${args[$study]}) --budget $budget --csv $results/chain_dynamics_$study.csv"
  done
  echo
  echo "Exit status (0: every run reached t_end within its budget):"
  for study in "${studies[@]}"; do echo "${study} ${status[$study]};"; done | paste -sd' '
  for study in "${studies[@]}"; do
    echo
    sed -e '1s/^# /## /' "$tmp/$study.md"
  done
  echo
  echo "![cost per simulated second against N](chain_dynamics.png)"
  echo
  cat benchmarks/chain_dynamics_interpretation.md
} > "$results/chain_dynamics.md"
/usr/bin/python3 benchmarks/plot_chain_dynamics.py "$results" || echo "plot failed" >&2
echo "wrote $results/chain_dynamics.md, chain_dynamics_*.csv and chain_dynamics.png" >&2
