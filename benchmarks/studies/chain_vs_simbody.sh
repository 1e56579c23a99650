# Catenary chain from the 'V': catena vs Simbody at equal accuracy (chain_vs_simbody.cpp).
#
# Tight references of both cross-checked, ladders of tolerances per method, and the cost per
# simulated second at equal accuracy (of the mid-chain joint and of the worst joint) for
# N = 10 .. 3000 links, one thread. Installs what is missing (libsimbody-dev,
# python3-matplotlib) and writes
#   benchmarks/results/chain_vs_simbody.md    command, date, revision, machine, tables, reading
#   benchmarks/results/chain_vs_simbody.csv   one row per run and per (N, method, level)
#   benchmarks/results/chain_vs_simbody.png   cost at equal accuracy against N, log-log
#
#   benchmarks/run.sh chain_vs_simbody                      # the full study (~25 min, 2 cores)
#   benchmarks/run.sh chain_vs_simbody --sizes 10,30,100    # options go to the program
#   RESULTS_NAME=chain_vs_simbody_large benchmarks/run.sh chain_vs_simbody --sizes 1000,3000
#                                                           # other result files, same reading
#   RESULTS_NAME=chain_vs_simbody_references benchmarks/run.sh chain_vs_simbody --sizes 1000,3000 \
#     --methods ga --ladder ga=1e-3 --catena-reference ida=1e-8 --catena-reference-max 3000 \
#     --reference-budget 3000                               # both references cross-checked (~20 min)
#
# Sized for well under an hour on 2 cores: Simbody RK3 stops at N = 300 and catena IDA at
# N = 1000, the catena reference at N = 300; a run stops at 120 s of wall time (its method's
# tighter settings are then skipped), a reference at 300 s. Costs are process CPU seconds
# (--time cpu): the machine is shared, and a single-threaded run's CPU time is its wall time
# without the slices other processes take; the CSV has both. Generalized-alpha may take steps up
# to 0.05 s and its ladder starts at 1e-2, so that the loose accuracy levels are reached by error
# control, not by a step cap that makes it more accurate (and costlier) than asked.
study() {
  # Stamp the revision now: the binary is built from this tree, which may change during the run.
  stamp_run lib benchmarks
  install_deps libsimbody-dev python3-matplotlib
  build_targets build-bench bench_chain_vs_simbody
  local name="${RESULTS_NAME:-chain_vs_simbody}" status=0
  local md="$results/$name.md" csv="$results/$name.csv"
  export OMP_NUM_THREADS=1 OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"
  local args=(--sizes 10,30,100,300,1000,3000 --t-end 1 --methods ga,ida:1000,rkm,rkmc,rk3:300
    --ga-max-step 0.05 --ladder ga=1e-2,3e-3,1e-3,3e-4,1e-4,3e-5,1e-5,3e-6,1e-6,3e-7,1e-7,3e-8,1e-8,3e-9,1e-9
    --budget 120 --reference-budget 300 --time cpu --csv "$csv" "$@")
  local start_s=$SECONDS load_before load_after elapsed
  load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
  "$build/benchmarks/bench_chain_vs_simbody" "${args[@]}" > "$tmp/out" || status=$?
  load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
  elapsed=$((SECONDS - start_s))
  [ -n "${RESULTS_NAME:-}" ] && command="RESULTS_NAME=$name $command"
  {
    header "Catenary chain from the 'V': catena vs Simbody at equal accuracy"
    echo "Release build in \`$build\`, OMP_NUM_THREADS=1,"
    echo "Simbody $(dpkg-query -W -f='${Version}' libsimbody-dev 2> /dev/null || echo '?')" \
      "(Debian's libsimbody-dev), on $(nproc --all) cores ($(cpu_model)); the run took" \
      "$((elapsed / 60)) min:"
    echo
    echo "    $build/benchmarks/bench_chain_vs_simbody ${args[*]}"
    echo
    echo "Load average (1, 5, 15 min) before: $load_before, after: $load_after."
    echo "Exit status: $status (0: every reference and ladder run completed or stopped at the"
    echo "budget; 1: a run failed, see the status column). Plot: \`$name.png\`."
    echo
    sed -e '1,2d' -e 's/^## /### /' "$tmp/out"
    echo
    cat benchmarks/chain_vs_simbody_interpretation.md
  } > "$md"
  plot plot_chain_vs_simbody.py "$csv" "$results/$name.png"
  echo "wrote $md, $csv and $results/$name.png" >&2
  return "$status"
}
