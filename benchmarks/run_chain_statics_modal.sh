#!/usr/bin/env bash
# Statics from the 'V' plus the 10 lowest modes of the catenary chain, N = 1e2..1e5
# (benchmarks/chain_statics_modal.cpp), for several linear-algebra set-ups: the default (KLU
# through PETSc, OpenBLAS), the reference BLAS, and MUMPS with each ordering Debian's sequential
# MUMPS has (PORD, its default; AMD; AMF; QAMD). Each size runs in its own process, so the peak
# memory is that size's. Configures and builds Release in build-bench (BUILD_DIR=...), and writes
#   benchmarks/results/chain_statics_modal.md    commands, machine, the program's tables, summary
#   benchmarks/results/chain_statics_modal.csv   one row per configuration and size
#   benchmarks/results/chain_statics_modal.png   time and memory against N, log-log
#
#   benchmarks/run_chain_statics_modal.sh            # the full study (about 15 minutes, 2 cores)
#   QUICK=1 benchmarks/run_chain_statics_modal.sh    # N <= 1e4 only (about 2 minutes)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# Stamp the revision now: the binary is built from this tree, which may change during the run.
source benchmarks/common.sh
stamp_run lib benchmarks
source scripts/deps.sh
catena_install_deps libopenblas0-pthread python3-numpy python3-matplotlib
build="${BUILD_DIR:-build-bench}"
results=benchmarks/results
md="$results/chain_statics_modal.md"
csv="$results/chain_statics_modal.csv"
png="$results/chain_statics_modal.png"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCATENA_BUILD_BENCHMARKS=ON > /dev/null
cmake --build "$build" -j2 --target bench_chain_statics_modal > /dev/null
mkdir -p "$results"
bench="$build/benchmarks/bench_chain_statics_modal"
multiarch=/usr/lib/x86_64-linux-gnu
reference_blas="$multiarch/blas:$multiarch/lapack"  # the netlib libraries, ahead of OpenBLAS
openblas="$multiarch/openblas-pthread"

# label | LD_LIBRARY_PATH | sizes | PETSc options (for both prefixes, statics_ and modal_st_)
configurations=(
  "klu-openblas|$openblas|100 1000 10000 100000|"
  "klu-refblas|$reference_blas|100 1000 10000 100000|"
  "umfpack-openblas|$openblas|100 1000 10000 100000|pc_factor_mat_solver_type umfpack"
  "mumps-pord-openblas|$openblas|100 1000 10000|pc_factor_mat_solver_type mumps"
  "mumps-amd-openblas|$openblas|100 1000 10000 100000|pc_factor_mat_solver_type mumps mat_mumps_icntl_7 0 mat_mumps_icntl_14 400"
  "mumps-amd-refblas|$reference_blas|100 1000 10000|pc_factor_mat_solver_type mumps mat_mumps_icntl_7 0 mat_mumps_icntl_14 400"
  "mumps-amf-openblas|$openblas|100 1000 10000|pc_factor_mat_solver_type mumps mat_mumps_icntl_7 2 mat_mumps_icntl_14 400"
  "mumps-qamd-openblas|$openblas|100 1000 10000|pc_factor_mat_solver_type mumps mat_mumps_icntl_7 6 mat_mumps_icntl_14 400"
)

export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"
rm -f "$csv"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for c in "${configurations[@]}"; do
  IFS='|' read -r label libs sizes options <<< "$c"
  petsc=()
  set -- $options
  while [ $# -gt 0 ]; do
    petsc+=("-statics_$1" "$2" "-modal_st_$1" "$2")
    shift 2
  done
  for n in $sizes; do
    [ -n "${QUICK:-}" ] && [ "$n" -gt 10000 ] && continue
    reps=3
    [ "$n" -ge 100000 ] && reps=1
    args=(--sizes "$n" --modes 10 --repetitions "$reps" --label "$label" --csv "$csv" --append
      "${petsc[@]}")
    echo "[bench] $label N = $n" >&2
    {
      echo "### $label, N = $n"
      echo
      echo "    LD_LIBRARY_PATH=$libs $bench ${args[*]}"
      echo
      LD_LIBRARY_PATH="$libs" timeout 900 "$bench" "${args[@]}" |
        sed -e '1d' -e 's/^linear solver/- linear solver/' || echo "(exit status $?)"
      echo
    } >> "$log"
  done
done

summary="$(awk -F, '
  NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
  { printf("| %s | %d | %s | %d | %.3f | %.3f | %.0f / %.0f | %s |\n", $col["label"], $col["links"],
      $col["unknowns"], $col["newton_iterations"], $col["statics_best_s"], $col["modal_best_s"],
      $col["peak_statics_mib"], $col["peak_modal_mib"], $col["ok"] == 1 ? "pass" : "**FAIL**") }' "$csv")"

{
  echo "# Catenary chain: statics from the 'V' plus 10 modes, N = 1e2..1e5"
  echo
  echo "Produced by \`benchmarks/run_chain_statics_modal.sh\` (from the repository root), started"
  echo "$started at git \`$revision\`."
  echo "Release build in \`$build\`; one process per configuration and size. The chain: A(0,0,0),"
  echo "sag point C(5,0,-6), B(10,0,0), 1 kg/m, gravity 9.81 m/s^2; Newton starts from the 'V'"
  echo "A-C-B; the checks compare sag and H with the exact discrete equilibrium (1e-6) and f1 with"
  echo "0.2434 Hz (1 %). Times are the best of 3 runs (1 at N = 1e5), wall seconds."
  echo
  echo "## Summary"
  echo
  echo "| configuration | N | n_v + m | Newton its | statics s | 10 modes s | peak MiB statics / modal | checks |"
  echo "|---|---:|---:|---:|---:|---:|---|---|"
  echo "$summary"
  echo
  echo "Plot: \`chain_statics_modal.png\`."
  echo
  cat benchmarks/chain_statics_modal_interpretation.md
  echo
  echo "## Runs"
  echo
  cat "$log"
} > "$md"

/usr/bin/python3 benchmarks/plot_chain_statics_modal.py "$csv" "$png"
echo "wrote $md, $csv and $png" >&2
