#!/usr/bin/env bash
# The batch workflow of strong.sbatch, run locally with mpirun: a catena-scale study of the
# chain or, with FAMILY=lattice, the four-bar lattice of K x K cells (ANALYSIS=statics, modal or
# dynamics, with T_END and RTOL) on 1 and 2 ranks (RANKS="1 2") and 1 thread per rank (THREADS="1 2" for
# both), then collect_scaling.py. Checkpoints and
# restarts work as on the cluster: interrupt it (Ctrl-C sends SIGINT, which catena-scale treats
# like SIGTERM) and run it again to continue. Configures and builds Release in build-scale
# (BUILD_DIR=...), and writes
#   benchmarks/results/scaling_FAMILY_ANALYSIS.md      command, machine, table
#   benchmarks/results/scaling_FAMILY_ANALYSIS.jsonl   every run's JSON line
#   benchmarks/results/scaling_FAMILY_ANALYSIS.csv     one row per size, rank and thread count
#   benchmarks/results/scaling_FAMILY_ANALYSIS.png     speedup, efficiency, time per unknown
#
#   benchmarks/cluster/run_local.sh                              # N = 1e3, 1e4; 1, 2 ranks
#   SIZES=10000,100000 REPEATS=1 benchmarks/cluster/run_local.sh
#   ANALYSIS=modal THREADS="1 2" SIZES=1000,10000,100000 benchmarks/cluster/run_local.sh
#   PER_RANK=10000,50000 THREADS="1 2" benchmarks/cluster/run_local.sh   # weak: N = PER_RANK x P
#   FAMILY=lattice SIZES=50,100,200,400 REPEATS=1 benchmarks/cluster/run_local.sh
#   FAMILY=lattice PER_RANK=100,200 benchmarks/cluster/run_local.sh  # weak: K = PER_RANK sqrt(P)
# (weak results go to benchmarks/results/scaling_FAMILY_ANALYSIS_weak.*)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
source benchmarks/common.sh
stamp_run lib drivers benchmarks
source scripts/deps.sh
catena_install_deps python3-matplotlib
source benchmarks/cluster/scaling_common.sh
build="${BUILD_DIR:-build-scale}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$build" -j2 --target catena_scale > /dev/null
export CATENA_SCALE="$PWD/$build/bin/catena-scale"
SIZES="${SIZES:-1000,10000}" REPEATS="${REPEATS:-3}" RANKS="${RANKS:-1 2}" THREADS="${THREADS:-1}"
export ANALYSIS="${ANALYSIS:-statics}" FAMILY="${FAMILY:-chain}"
work="${WORK:-$build/scaling_local}"
results=benchmarks/results
weak="${PER_RANK:+_weak}"
prefix="$results/scaling_${FAMILY}_$ANALYSIS$weak"
mkdir -p "$work" "$results"
commands=()
files=()
dynamics_options=""
[ "$ANALYSIS" = dynamics ] && dynamics_options=" --t-end ${T_END:-0.1} --rtol ${RTOL:-1e-6}"
for threads in $THREADS; do
  for np in $RANKS; do
    json="$work/${FAMILY}_${ANALYSIS}${weak}_np${np}_t$threads.jsonl"
    sizes="$SIZES"
    [ -n "$weak" ] && sizes="$(weak_sizes "$PER_RANK" "$np")"  # the same work per rank
    commands+=("OMP_NUM_THREADS=$threads mpirun -np $np $CATENA_SCALE --family $FAMILY --analysis $ANALYSIS${dynamics_options} --sizes $sizes --repeats $REPEATS --json $json")
    echo "[catena] $ANALYSIS, $np ranks x $threads threads: N = $sizes, $REPEATS repeats" >&2
    OMP_NUM_THREADS=$threads catena_scale_study "mpirun --allow-run-as-root --oversubscribe -x OMP_NUM_THREADS -np" \
      "$np" "$sizes" "$REPEATS" "$json"
    files+=("$json")
  done
done
cat "${files[@]}" > "$prefix.jsonl"
kind="${weak:+weak}"
kind="${kind:-strong}"
/usr/bin/python3 benchmarks/cluster/collect_scaling.py ${weak:+--weak} --out "$prefix" \
  --title "${FAMILY^} $ANALYSIS, $kind scaling on this machine" "${files[@]}"
table="$(sed -e '1,/^|---/{/^|---/!{/^| N /!d}}' -e '/^Inputs:/d' "$prefix.md")"
{
  if [ "$FAMILY" = lattice ]; then
    echo "# Four-bar lattice $ANALYSIS: $kind scaling on this machine"
  else
    echo "# Catenary chain $ANALYSIS: $kind scaling on this machine"
  fi
  echo
  echo "Produced by \`benchmarks/cluster/run_local.sh\` (from the repository root), started"
  echo "$started at git \`$revision\`; $(nproc --all) cores ($(lscpu | sed -n 's/^Model name: *//p'))"
  echo "shared with other jobs; load average before: $load_start, after: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Commands:"
  echo
  for c in "${commands[@]}"; do echo "    $c"; done
  echo
  if [ "$FAMILY" = lattice ] && [ "$ANALYSIS" = dynamics ]; then
    echo "The four-bar lattice of K x K cells (K levels of K parallelograms; 2 K (3 K + 1)"
    echo "constraints), its bodies partitioned by PT-Scotch (MatPartitioning) on 2 ranks,"
    echo "released at rest in the shape of its slowest small oscillation (0.02 rad at most) and"
    echo "integrated by the distributed IDA (index-2 GGL, MUMPS; docs/parallel.md). Times: best of"
    echo "the repeats, wall seconds; the phases are that run's, each the maximum over the ranks."
    echo "Memory: peak resident set per rank (max / sum over ranks, MiB). Check: energy and"
    echo "constraint drift within the tolerance, and the levels' angles within 1e-3 of the"
    echo "amplitude of the closed-form small oscillations (hangingFourBarLatticeSmallMotion)."
  elif [ "$FAMILY" = lattice ]; then
    echo "The four-bar lattice of K x K cells (K levels of K parallelograms; 2 K (3 K + 1)"
    echo "constraints), its bodies partitioned by PT-Scotch (MatPartitioning) on 2 ranks, each"
    echo "level leaning up to 0.02 rad from hanging: distributed Newton statics"
    echo "(lib/statics/distributed_statics.hpp), MUMPS on MatMPIAIJ (modal: then"
    echo "solveDistributedModal, docs/parallel.md). Times: best of the repeats, wall seconds; the"
    echo "phases are that run's, each the maximum over the ranks. Memory: peak resident set per"
    echo "rank (max / sum over ranks, MiB). Check: the ground hinges carry the weight and the"
    echo "lowest point is K h below them (the closed-form hanging lattice; relative residual <="
    echo "1e-8), modal: the frequencies equal the closed form (hangingFourBarLatticeFrequencies)"
    echo "to 1e-8; 'sag / lowest' is the lowest point. Speedup and efficiency are against the"
    echo "fewest ranks at the same K (strong) or the same cells per rank (weak) and thread count."
  else
    echo "Distributed Newton statics (lib/statics/distributed_statics.hpp) from the 'V', MUMPS"
    echo "on MatMPIAIJ (modal: then solveDistributedModal, docs/parallel.md; dynamics: then the"
    echo "distributed IDA). Times: best of the repeats, wall seconds; the phases are that run's,"
    echo "each the maximum over the ranks. Memory: peak resident set per rank (max / sum over"
    echo "ranks, MiB). Check: the vertical support reactions equal the chain's weight (relative"
    echo "residual <= 1e-8) in every repeat. Speedup and efficiency are against the fewest ranks"
    echo "at the same N (strong) or the same links per rank (weak: efficiency T(1) / T(P)) and"
    echo "thread count."
  fi
  echo
  echo "$table"
  echo
  echo "Plot: \`$(basename "$prefix").png\`; every run's JSON line: \`$(basename "$prefix").jsonl\`."
} > "$prefix.md.tmp"
mv "$prefix.md.tmp" "$prefix.md"
echo "wrote $prefix.md, $prefix.jsonl, $prefix.csv and $prefix.png" >&2
