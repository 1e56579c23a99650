#!/usr/bin/env bash
# The closed catenary chain released from the 'V' in catena and in Simbody
# (benchmarks/chain_vs_simbody.cpp): tight references of both cross-checked, ladders of
# tolerances per method, and the cost per simulated second at equal accuracy (of the mid-chain
# joint and of the worst joint) for N = 10 .. 3000 links, one thread. Installs what is missing
# (libsimbody-dev, python3-matplotlib), builds Release in build-bench (BUILD_DIR=...) and writes
#   benchmarks/results/chain_vs_simbody.md    command, date, revision, machine, tables, reading
#   benchmarks/results/chain_vs_simbody.csv   one row per run and per (N, method, level)
#   benchmarks/results/chain_vs_simbody.png   cost at equal accuracy against N, log-log
#
#   benchmarks/run_chain_vs_simbody.sh                       # the full study (~25 min, 2 cores)
#   benchmarks/run_chain_vs_simbody.sh --sizes 10,30,100     # options go to the program
#   RESULTS_NAME=chain_vs_simbody_large benchmarks/run_chain_vs_simbody.sh --sizes 1000,3000
#                                                            # other result files, same reading
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# Stamp the revision now: the binary is built from this tree, which may change during the run.
source benchmarks/common.sh
stamp_run lib benchmarks
source scripts/deps.sh
catena_install_deps libsimbody-dev python3-matplotlib
build="${BUILD_DIR:-build-bench}"
results=benchmarks/results
name="${RESULTS_NAME:-chain_vs_simbody}"
md="$results/$name.md"
csv="$results/$name.csv"
png="$results/$name.png"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCATENA_BUILD_BENCHMARKS=ON > /dev/null
cmake --build "$build" -j2 --target bench_chain_vs_simbody > /dev/null
mkdir -p "$results"
export OMP_NUM_THREADS=1 OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"
# Sized for well under an hour on 2 cores: Simbody RK3 stops at N = 300 and catena IDA at
# N = 1000, the catena reference at N = 300; a run stops at 120 s of wall time (its method's
# tighter settings are then skipped), a reference at 300 s. Costs are process CPU seconds
# (--time cpu): the machine is shared, and a single-threaded run's CPU time is its wall time
# without the slices other processes take; the CSV has both.
# Generalized-alpha may take steps up to 0.05 s and its ladder starts at 1e-2, so that the loose
# accuracy levels are reached by error control, not by a step cap that makes it more accurate
# (and costlier) than asked.
args=(--sizes 10,30,100,300,1000,3000 --t-end 1 --methods ga,ida:1000,rkm,rkmc,rk3:300
  --ga-max-step 0.05 --ladder ga=1e-2,3e-3,1e-3,3e-4,1e-4,3e-5,1e-5,3e-6,1e-6,3e-7,1e-7,3e-8,1e-8,3e-9,1e-9
  --budget 120 --reference-budget 300 --time cpu --csv "$csv" "$@")
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
status=0
start_s=$SECONDS
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
"$build/benchmarks/bench_chain_vs_simbody" "${args[@]}" > "$out" || status=$?
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
elapsed=$((SECONDS - start_s))
{
  echo "# Catenary chain from the 'V': catena vs Simbody at equal accuracy"
  echo
  echo "Produced by \`${RESULTS_NAME:+RESULTS_NAME=$name }benchmarks/run_chain_vs_simbody.sh${*:+ $*}\` (from the repository root),"
  echo "started $started at git \`$revision\`, Release build in \`$build\`, OMP_NUM_THREADS=1,"
  echo "Simbody $(dpkg-query -W -f='${Version}' libsimbody-dev 2> /dev/null || echo '?')" \
    "(Debian's libsimbody-dev), on $(nproc --all) cores ($(bench_cpu="$(grep -m1 'model name' \
    /proc/cpuinfo | cut -d: -f2)"; echo "${bench_cpu# }")); the run took $((elapsed / 60)) min:"
  echo
  echo "    $build/benchmarks/bench_chain_vs_simbody ${args[*]}"
  echo
  echo "Load average (1, 5, 15 min) before: $load_before, after: $load_after."
  echo "Exit status: $status (0: every reference and ladder run completed or stopped at the"
  echo "budget; 1: a run failed, see the status column). Plot: \`$name.png\`."
  echo
  sed -e '1,2d' -e 's/^## /### /' "$out"
  echo
  cat benchmarks/chain_vs_simbody_interpretation.md
} > "$md"
/usr/bin/python3 benchmarks/plot_chain_vs_simbody.py "$csv" "$png"
echo "wrote $md, $csv and $png" >&2
exit "$status"
