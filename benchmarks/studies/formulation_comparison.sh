# Every formulation at the same accuracy on the examples (formulation_comparison.cpp).
#
# Issue 7 item 5: per example and formulation a sweep of the tolerance against the example's
# independent reference and the cheapest run that reaches the target (the double pendulum of
# the rotation-matrix paper, Mechanism0, the free top). Writes
#   benchmarks/results/formulation_comparison.md   command, date, machine, revision, load, the
#                                                  tables with every run of the sweeps, and the
#                                                  hand-written notes kept from the previous file
# The interpretation is docs/formulation-comparison.md.
#
#   benchmarks/run.sh formulation_comparison                  # about 2 minutes on 2 cores
#   REPEATS=3 benchmarks/run.sh formulation_comparison --cases dp   # extra options go to it
#
# Run it on an otherwise idle machine: the wall times are medians of REPEATS (5) runs, but a
# concurrent build on one of the two cores still inflates them (the load is recorded).
study() {
  # Stamp the revision now: the binary is built from this tree, which may change during the run.
  stamp_run lib benchmarks tests/support inputs
  install_deps
  build_targets build-bench bench_formulation_comparison
  local md="$results/formulation_comparison.md" load_end cxx flags
  cxx="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")"
  flags="$(sed -n 's/^CMAKE_CXX_FLAGS_RELEASE:[A-Z]*=//p' "$build/CMakeCache.txt")"
  # The models are small and serial (KLU, dense LU): one thread, so no OpenMP region competes.
  export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
  local bench="$build/benchmarks/bench_formulation_comparison"
  local args=(--repeats "${REPEATS:-5}" --sweep "$@")
  start_runs
  /usr/bin/time -f '%e s wall, %M kB maximum resident set' -o "$tmp/time" \
    "$bench" "${args[@]}" > "$tmp/out"
  load_end="$(cut -d' ' -f1-3 /proc/loadavg)"
  kept_notes "$md" > "$tmp/notes"
  {
    header "Formulations compared at the same accuracy"
    echo "It builds Release (\`$flags\`) in \`$build\` and runs, with OMP_NUM_THREADS=$OMP_NUM_THREADS:"
    echo
    echo "    $bench ${args[*]}"
    echo
    echo "Machine: $(getconf _NPROCESSORS_ONLN) cores, $(cpu_model),"
    echo "$(uname -sr); $("$cxx" --version | head -n1)."
    echo "Load average (1, 5, 15 min) at the start: $load; at the end: $load_end."
    echo "Whole run: $(cat "$tmp/time")."
    echo
    sed -e '1s/^# .*$/## Output of the benchmark/' -e '2,$s/^## /### /' "$tmp/out"
    echo
    cat "$tmp/notes"
  } > "$md"
  echo "wrote $md" >&2
}
