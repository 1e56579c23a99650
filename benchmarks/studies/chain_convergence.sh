# Catenary chain: convergence of statics and modes with N (chain_convergence.cpp).
#
# Runs bench_chain_convergence for N = 10, 20, 40, 80, 160, 320 links (a few seconds; Release in
# build-conv unless BUILD_DIR says otherwise) and writes
#   benchmarks/results/chain_convergence.md   command, date, git revision, the program's tables,
#                                             automatic summary and interpretation
#   benchmarks/results/chain_convergence.csv  one row per N (input of the plot)
#   benchmarks/results/chain_convergence.png  errors vs N, log-log, slope -2 reference
#
#   benchmarks/run.sh chain_convergence                        # the full study
#   benchmarks/run.sh chain_convergence --sizes 10,20,40,80    # extra options go to the program
#   benchmarks/run.sh chain_convergence -statics_ksp_view      # and so do PETSc/SLEPc options
study() {
  stamp_run lib benchmarks
  build_targets build-conv bench_chain_convergence
  local md="$results/chain_convergence.md" csv="$results/chain_convergence.csv"
  # Quiet, fast MPI start-up as a singleton (TOOLCHAIN.md); harmless if already set.
  export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"
  local bench="$build/benchmarks/bench_chain_convergence" status=0
  local args=(--sizes 10,20,40,80,160,320 --modes 4 --csv "$csv" "$@")
  start_runs
  "$bench" "${args[@]}" > "$tmp/out" || status=$?
  {
    header "Catenary chain: convergence of statics and modes with the number of links"
    echo "It builds Release in \`$build\` and runs:"
    echo
    echo "    OMPI_MCA_pml=$OMPI_MCA_pml $bench ${args[*]}"
    echo
    echo "Exit status of the program: $status (0: every statics and modal analysis succeeded)."
    echo "Plot: \`chain_convergence.png\` (errors vs N, log-log, slope -2 reference)."
    echo
    sed -e '1s/^# .*$/## Output of the program/' -e 's/^## /### /' -e '1s/^### /## /' "$tmp/out"
    echo
    echo "## Summary (automatic, finest sizes)"
    echo
    convergence_summary "$csv"
    echo
    cat benchmarks/chain_convergence_interpretation.md
  } > "$md"
  plot plot_chain_convergence.py "$csv" "$results/chain_convergence.png"
  echo "wrote $md, $csv and $results/chain_convergence.png" >&2
  return "$status"
}

# Observed orders and Richardson values of the finest sizes, from the CSV.
convergence_summary() {
  awk -F, '
  NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
  $col["statics_ok"] == 1 { ++n; N[n] = $1; e[n] = $col["max_distance"]; h[n] = $col["H_rel_error"]
    for (k = 1; ("f" k) in col; ++k) f[n, k] = $col["f" k]; modes = k - 1 }
  function ab(x) { return x < 0 ? -x : x }
  END {
    if (n < 3) exit
    r = N[n] / N[n - 1]
    printf("- Joint points: max distance to the catenary %.3e m at N = %d; observed order %.3f (N = %d -> %d).\n",
           e[n], N[n], log(e[n - 1] / e[n]) / log(r), N[n - 1], N[n])
    printf("- Horizontal tension: (H - a w) / (a w) = %+.3e at N = %d; observed order %.3f.\n",
           h[n], N[n], log(ab(h[n - 1]) / ab(h[n])) / log(r))
    for (k = 1; k <= modes; ++k) {
      if (f[n, k] == "nan" || f[n - 2, k] == "nan") continue
      d1 = f[n - 1, k] - f[n - 2, k]; d2 = f[n, k] - f[n - 1, k]
      printf("- Mode %d: f = %.9f Hz at N = %d, Richardson (order 2) %.9f Hz; observed order %.3f (N = %d, %d, %d).\n",
             k, f[n, k], N[n], f[n, k] + d2 / (r * r - 1), log(ab(d1) / ab(d2)) / log(r),
             N[n - 2], N[n - 1], N[n])
    }
  }' "$1"
}
