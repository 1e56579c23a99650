# What the tolerances mean: global position error against tolerance (tolerance_calibration.cpp).
#
# Issue 29, item 3: generalized-alpha (error_tolerance 1e-3 .. 1e-9), IDA index 2 and MCS (rtol
# 1e-4 .. 1e-10, atol = rtol L) and each one's defaults on the planar, spatial and double
# pendulums, the heavy top, the spatial slider-crank and the 20-link chain, against independent
# ODEs or catena's tightest runs of a different integrator. Release in build unless BUILD_DIR
# says otherwise; about 40 s. Writes
#   benchmarks/results/tolerance_calibration.md    command, machine, load, the program's tables,
#                                                  the automatic summary (fitted slopes, the
#                                                  tolerance windows), the hand-written notes
#                                                  kept from the previous file
#   benchmarks/results/tolerance_calibration.csv   one row per run (input of the plot)
#   benchmarks/results/tolerance_calibration.png   error / L against tolerance, log-log
#
#   benchmarks/run.sh tolerance_calibration
#   benchmarks/run.sh tolerance_calibration --problems pendulum,chain   # options go to the program
study() {
  stamp_run lib benchmarks tests/support inputs
  build_targets build bench_tolerance_calibration
  local md="$results/tolerance_calibration.md" csv="$results/tolerance_calibration.csv"
  local png="$results/tolerance_calibration.png" status=0
  local bench="$build/benchmarks/bench_tolerance_calibration"
  local args=(--csv "$csv" "$@")
  export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
  start_runs
  "$bench" "${args[@]}" > "$tmp/out" || status=$?
  kept_notes "$md" > "$tmp/notes"
  plot plot_tolerance_calibration.py "$csv" "$png" > "$tmp/summary"
  # The outlier of the sweep, left out to show what a mapping achieves on the others.
  plot plot_tolerance_calibration.py "$csv" "$png" slider_crank >> "$tmp/summary"
  {
    header "What the tolerances mean: global position error against the requested tolerance"
    echo "It builds Release in \`$build\` and runs, with OMP_NUM_THREADS=$OMP_NUM_THREADS"
    echo "on $(cpu_model) ($(nproc --all) cores), load average $load at the start:"
    echo
    echo "    $bench ${args[*]}"
    echo "    /usr/bin/python3 benchmarks/plot_tolerance_calibration.py $csv $png"
    echo "    /usr/bin/python3 benchmarks/plot_tolerance_calibration.py $csv $png slider_crank"
    echo
    echo "Exit status: $status. Plot: \`tolerance_calibration.png\` (relative error against"
    echo "tolerance, one panel per integrator, the lines y = x and y = 10 x)."
    echo
    sed -e '1s/^# .*$/## Output of the program/' -e '2,$s/^## /### /' "$tmp/out"
    echo
    cat "$tmp/summary"
    echo
    cat "$tmp/notes"
  } > "$md"
  echo "wrote $md, $csv and $png" >&2
  return "$status"
}
