# Assembly refill: C_q and K_c of a spatial catenary chain vs memcpy (assembly_refill.cpp).
#
# Runs bench_assembly_refill for a chain of N = 1e3, 1e4, 1e5, 1e6 links with 1 and 2 OpenMP
# threads (about 3 minutes) and writes
#   benchmarks/results/assembly_refill.md   command, date, machine, table, automatic summary,
#                                           and the hand-written notes kept from the old file
#   benchmarks/results/assembly_refill.csv  one row per (N, threads)
#   benchmarks/results/assembly_refill.png  if /usr/bin/python3 has matplotlib
#
#   benchmarks/run.sh assembly_refill                      # the full study
#   benchmarks/run.sh assembly_refill --sizes 1000,10000   # extra options go to the benchmark
#
# Run it on an otherwise idle machine: both timings take the best of several interleaved
# measurements, but a concurrent build on one of the two cores ruins the 2-thread numbers (the
# OpenMP barriers wait for a descheduled thread). The exit status is the benchmark's: nonzero if
# thread counts gave different bits.
study() {
  stamp_run lib benchmarks
  build_targets build-bench bench_assembly_refill
  local md="$results/assembly_refill.md" csv="$results/assembly_refill.csv"
  local bench="$build/benchmarks/bench_assembly_refill" status=0
  local args=(--sizes 1000,10000,100000,1000000 --threads 1,2 --min-time 0.5 --measurements 7
    --csv "$csv" "$@")
  start_runs
  "$bench" "${args[@]}" > "$tmp/out" || status=$?
  kept_notes "$md" > "$tmp/notes"
  {
    header "Assembly refill: C_q and K_c of a spatial catenary chain vs memcpy"
    echo "It builds Release in \`$build\` and runs:"
    echo
    echo "    $bench ${args[*]}"
    echo
    echo "Load average at the start: $load."
    echo
    sed -e '1s/^# .*$/## Output of the benchmark/' "$tmp/out"
    echo
    echo "## Summary (automatic)"
    echo
    awk -F, 'NR > 1 {
        verdict = ($17 >= 0.5) ? "meets" : "misses";
        printf("- N = %s, %s thread(s): %.0f ns/joint, %.2f GB/s vs memcpy %.2f GB/s: ratio %.3f %s the 0.5 target\n",
               $1, $3, $10, $12, $16, $17, verdict) }' "$csv"
    echo
    cat "$tmp/notes"
  } > "$md"
  plot plot_assembly_refill.py "$csv" "$results/assembly_refill.png"
  echo "wrote $md and $csv" >&2
  return "$status"
}
