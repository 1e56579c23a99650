# Per-step cost of the tangent continuation vs the traditional QR (mcs_continuation.cpp).
#
# The MCS integrator on the papers' examples (issue 5 item 7) at fixed steps (the same steps in
# every mode) and adaptive at rtol 1e-8. Release in build-mcs unless BUILD_DIR says otherwise;
# REPEATS runs per measurement (5). Writes benchmarks/results/mcs_continuation.md and .csv.
#
#   benchmarks/run.sh mcs_continuation          # about 2 minutes on 2 cores
study() {
  install_deps
  stamp_run lib benchmarks
  build_targets build-mcs bench_mcs_continuation
  local repeats="${REPEATS:-5}" table
  export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
  start_runs
  table="$("$build/benchmarks/bench_mcs_continuation" --repeats "$repeats" \
    --csv "$results/mcs_continuation.csv")"
  {
    header "Per-step cost of the tangent continuation (MCS integrator)"
    echo "REPEATS=$repeats, OMP_NUM_THREADS=$OMP_NUM_THREADS, Release build in \`$build\`."
    echo "Raw numbers: \`mcs_continuation.csv\`. Interpretation: \`docs/dynamics-mcs.md\`, \"Cost\"."
    echo
    echo "Fixed steps h (the same steps in every mode). CPU us/step: process CPU time of a whole run"
    echo "over its steps, median of the repeats (the steadiest number on this shared machine). The"
    echo "QR, continuation and correction columns are wall-clock sums of each part inside the"
    echo "integrator (steady_clock) over the last repeat, per step: indicative, noisier (another"
    echo "process preempting a part shows up there). \"continuation / traditional step\": the"
    echo "continuation's own time over the traditional CPU time per step; \"CPU vs traditional\": the"
    echo "whole run. The adaptive column: ARKODE at rtol 1e-8, atol 1e-10, to the same end time."
    echo
    echo "$table"
  } > "$results/mcs_continuation.md"
  echo "wrote $results/mcs_continuation.md and $results/mcs_continuation.csv"
}
