#!/usr/bin/env bash
# The batch workflow of strong.sbatch, run locally with mpirun: a catena-scale study of the
# chain statics on 1 and 2 ranks (RANKS="1 2"), then collect_scaling.py. Checkpoints and
# restarts work as on the cluster: interrupt it (Ctrl-C sends SIGINT, which catena-scale treats
# like SIGTERM) and run it again to continue. Configures and builds Release in build-scale
# (BUILD_DIR=...), and writes
#   benchmarks/results/scaling_chain_statics.md      command, machine, table
#   benchmarks/results/scaling_chain_statics.jsonl   every run's JSON line
#   benchmarks/results/scaling_chain_statics.csv     one row per size and rank count
#   benchmarks/results/scaling_chain_statics.png     speedup, efficiency, time per unknown
#
#   benchmarks/cluster/run_local.sh                              # N = 1e3, 1e4; 1, 2 ranks
#   SIZES=10000,100000 REPEATS=1 benchmarks/cluster/run_local.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
started="$(date -u '+%Y-%m-%d %H:%M UTC')"
revision="$(git rev-parse --short HEAD 2> /dev/null || echo unknown)$(
  git diff --quiet HEAD -- lib drivers benchmarks 2> /dev/null ||
    echo ' with uncommitted changes in lib/, drivers/ or benchmarks/')"
source scripts/deps.sh
catena_install_deps python3-matplotlib
source benchmarks/cluster/scaling_common.sh
build="${BUILD_DIR:-build-scale}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$build" -j2 --target catena_scale > /dev/null
export CATENA_SCALE="$PWD/$build/bin/catena-scale" OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
SIZES="${SIZES:-1000,10000}" REPEATS="${REPEATS:-3}" RANKS="${RANKS:-1 2}"
work="${WORK:-$build/scaling_local}"
results=benchmarks/results
prefix="$results/scaling_chain_statics"
mkdir -p "$work" "$results"
commands=()
for np in $RANKS; do
  json="$work/chain_statics_np$np.jsonl"
  commands+=("mpirun -np $np $CATENA_SCALE --family chain --analysis statics --sizes $SIZES --repeats $REPEATS --json $json")
  echo "[catena] $np ranks: N = $SIZES, $REPEATS repeats" >&2
  catena_scale_study "mpirun --allow-run-as-root --oversubscribe -np" "$np" "$SIZES" "$REPEATS" \
    "$json"
done
cat "$work"/chain_statics_np*.jsonl > "$prefix.jsonl"
/usr/bin/python3 benchmarks/cluster/collect_scaling.py --out "$prefix" \
  --title "Chain statics, strong scaling on this machine" "$work"/chain_statics_np*.jsonl
table="$(sed -e '1,/^|---/{/^|---/!{/^| N /!d}}' -e '/^Inputs:/d' "$prefix.md")"
{
  echo "# Catenary chain statics: strong scaling on this machine"
  echo
  echo "Produced by \`benchmarks/cluster/run_local.sh\` (from the repository root), started"
  echo "$started at git \`$revision\`; $(nproc --all) cores ($(lscpu | sed -n 's/^Model name: *//p'))"
  echo "shared with other jobs, OMP_NUM_THREADS=$OMP_NUM_THREADS. Commands:"
  echo
  for c in "${commands[@]}"; do echo "    $c"; done
  echo
  echo "Distributed Newton statics (lib/parallel/distributed_statics.hpp) from the 'V', MUMPS"
  echo "on MatMPIAIJ. Times: best of the repeats, wall seconds; the phases are that run's, each"
  echo "the maximum over the ranks. Memory: peak resident set per rank (max / sum over ranks,"
  echo "MiB). Check: the vertical support reactions equal the chain's weight (relative residual"
  echo "<= 1e-8) in every repeat. Speedup and efficiency are against 1 rank at the same N."
  echo
  echo "$table"
  echo
  echo "Plot: \`scaling_chain_statics.png\`; every run's JSON line: \`scaling_chain_statics.jsonl\`."
} > "$prefix.md.tmp"
mv "$prefix.md.tmp" "$prefix.md"
echo "wrote $prefix.md, $prefix.jsonl, $prefix.csv and $prefix.png" >&2
