#!/usr/bin/env bash
# What two ranks can gain on this machine at best: the same serial, single-threaded job (catena
# statics of the N-link catenary chain, no MPI) run once alone and then as two copies at the
# same time. With two independent cores the pair finishes in the time of one job (throughput
# 2x); on cores that share execution units or memory bandwidth, or with other load, less. The
# ratio bounds any parallel efficiency from 1 to 2 ranks measured here (docs/performance-model.md).
#
#   benchmarks/cluster/machine_ceiling.sh              # N = 20000, 3 rounds
#   N=100000 ROUNDS=1 benchmarks/cluster/machine_ceiling.sh
# Prints one line per round and the best ratio and writes them, with the command, revision and
# machine, to benchmarks/results/machine_ceiling.md; needs a Release build (BUILD_DIR, default
# build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build="${BUILD_DIR:-build}" n="${N:-20000}" rounds="${ROUNDS:-3}"
catena="$build/bin/catena"
[ -x "$catena" ] || { echo "no $catena: build Release first (cmake --build $build)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sed "s/links: 20\$/links: $n/" inputs/catenary_chain.yaml > "$work/chain.yaml"
export OMP_NUM_THREADS=1
job() { "$catena" statics "$work/chain.yaml" --terse --json "$work/$1.json" > /dev/null; }
now() { date +%s.%N; }
measure() {
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); N = $n links; $(nproc --all) CPUs"
best=0
for r in $(seq "$rounds"); do
  t0=$(now); job a; t1=$(now)
  job b & job c & wait
  t2=$(now)
  one=$(echo "$t1 - $t0" | bc -l) two=$(echo "$t2 - $t1" | bc -l)
  ratio=$(echo "2 * $one / $two" | bc -l)
  printf 'round %d: one job %.2f s, two at once %.2f s: throughput %.2fx (ceiling of 2-rank efficiency %.0f %%)\n' \
    "$r" "$one" "$two" "$ratio" "$(echo "50 * $ratio" | bc -l)"
  best=$(echo "if ($ratio > $best) $ratio else $best" | bc -l)
done
printf 'best throughput of two concurrent jobs: %.2fx\n' "$best"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}
log="$(measure)"
echo "$log"
{
  echo "# Machine ceiling: two serial jobs at once"
  echo
  echo "Produced by \`benchmarks/cluster/machine_ceiling.sh\` (N=$n ROUNDS=$rounds),"
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), git \`$(git rev-parse --short HEAD)\`,"
  echo "$(lscpu | sed -n 's/^Model name: *//p'), $(nproc --all) CPUs:"
  echo
  echo "$log" | sed 's/^/    /'
} > benchmarks/results/machine_ceiling.md
