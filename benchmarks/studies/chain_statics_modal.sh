# Catenary chain: statics from the 'V' plus 10 modes, N = 1e2..1e5 (chain_statics_modal.cpp).
#
# For several linear-algebra set-ups: the default (KLU through PETSc, OpenBLAS), the reference
# BLAS, and MUMPS with each ordering Debian's sequential MUMPS has (PORD, its default; AMD; AMF;
# QAMD). Each size runs in its own process, so the peak memory is that size's. Writes
#   benchmarks/results/chain_statics_modal.md    commands, machine, the program's tables, summary
#   benchmarks/results/chain_statics_modal.csv   one row per configuration and size
#   benchmarks/results/chain_statics_modal.png   time and memory against N, log-log
#
#   benchmarks/run.sh chain_statics_modal            # the full study (about 15 minutes, 2 cores)
#   QUICK=1 benchmarks/run.sh chain_statics_modal    # N <= 1e4 only (about 2 minutes)
study() {
  # Stamp the revision now: the binary is built from this tree, which may change during the run.
  stamp_run lib benchmarks
  install_deps libopenblas0-pthread python3-numpy python3-matplotlib
  build_targets build-bench bench_chain_statics_modal
  local md="$results/chain_statics_modal.md" csv="$results/chain_statics_modal.csv"
  local bench="$build/benchmarks/bench_chain_statics_modal"
  local multiarch=/usr/lib/x86_64-linux-gnu
  local reference_blas="$multiarch/blas:$multiarch/lapack"  # the netlib libraries, ahead of OpenBLAS
  local openblas="$multiarch/openblas-pthread"
  # label | LD_LIBRARY_PATH | sizes | PETSc options (for both prefixes, statics_ and modal_st_)
  local configurations=(
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
  local c label libs sizes options n reps petsc args
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
      } >> "$tmp/log"
    done
  done
  {
    header "Catenary chain: statics from the 'V' plus 10 modes, N = 1e2..1e5"
    echo "Release build in \`$build\`; one process per configuration and size. The chain: A(0,0,0),"
    echo "sag point C(5,0,-6), B(10,0,0), 1 kg/m, gravity 9.81 m/s^2; Newton starts from the 'V'"
    echo "A-C-B; the checks compare sag and H with the exact discrete equilibrium (1e-6) and f1 with"
    echo "0.2434 Hz (1 %). Times are the best of 3 runs (1 at N = 1e5), wall seconds."
    echo
    echo "## Summary"
    echo
    echo "| configuration | N | n_v + m | Newton its | statics s | 10 modes s | peak MiB statics / modal | checks |"
    echo "|---|---:|---:|---:|---:|---:|---|---|"
    awk -F, '
      NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
      { printf("| %s | %d | %s | %d | %.3f | %.3f | %.0f / %.0f | %s |\n", $col["label"], $col["links"],
          $col["unknowns"], $col["newton_iterations"], $col["statics_best_s"], $col["modal_best_s"],
          $col["peak_statics_mib"], $col["peak_modal_mib"], $col["ok"] == 1 ? "pass" : "**FAIL**") }' "$csv"
    echo
    echo "Plot: \`chain_statics_modal.png\`."
    echo
    cat benchmarks/chain_statics_modal_interpretation.md
    echo
    echo "## Runs"
    echo
    cat "$tmp/log"
  } > "$md"
  plot plot_chain_statics_modal.py "$csv" "$results/chain_statics_modal.png"
  echo "wrote $md, $csv and $results/chain_statics_modal.png" >&2
}
