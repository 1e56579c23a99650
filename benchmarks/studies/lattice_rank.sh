# Rank of C_q for four-bar lattices: block-wise QRCP vs SuiteSparseQR (lattice_rank.cpp).
#
# Issue 5: block-wise QRCP with 1 and 2 OpenMP threads against a global SuiteSparseQR (of C_q^T
# and of C_q) and, for n <= 3300, the dense Eigen QRCP; every rank checked against the closed
# form of docs/lattice-mobility.md. Writes
#   benchmarks/results/lattice_rank.md    command, date, machine, revision, table, summary, and
#                                         the hand-written notes kept from the previous file
#   benchmarks/results/lattice_rank.csv   one row per (lattice, method, threads)
#   benchmarks/results/lattice_rank.png   time and memory against m, log-log
#
#   benchmarks/run.sh lattice_rank                          # the full study (about 4 minutes)
#   benchmarks/run.sh lattice_rank --cases u:41x41,m:50x50  # extra options go to the benchmark
#
# Run it on an otherwise idle machine: the 2-thread block-wise times suffer most from a
# concurrent job (an OpenMP barrier waits for a descheduled thread). The exit status is that of
# the benchmark: 1 if any rank differs from the closed form (or between thread counts).
# The lattices of 1e6 rows and the failed rank checks, from the CSV.
lattice_summary() {
  awk -F, '
    NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
    $col["method"] == "blockwise" && $col["m"] >= 900000 {
      printf("- %s %sx%s (%s), m = %s: block-wise %s thread(s) %.2f s (%s the 10 s target), rank %s\n",
             $col["kind"], $col["L"], $col["K"], $col["pose"], $col["m"], $col["threads"],
             $col["seconds_best"], $col["seconds_best"] < 10 ? "meets" : "misses", $col["status"])
    }
    $col["method"] ~ /^spqr/ && $col["m"] >= 900000 {
      note = $col["note"]
      gsub(/"/, "", note)
      if ($col["status"] == "skipped")
        printf("- %s %sx%s (%s), m = %s: %s skipped (%s)\n", $col["kind"], $col["L"],
               $col["K"], $col["pose"], $col["m"], $col["method"], note)
      else
        printf("- %s %sx%s (%s), m = %s: %s %.1f s, rank %s\n", $col["kind"], $col["L"],
               $col["K"], $col["pose"], $col["m"], $col["method"], $col["seconds_best"],
               $col["status"])
    }
    $col["status"] == "FAIL" { fails++ }
    END { printf("- rank checks failed: %d\n", fails + 0) }' "$1"
}

study() {
  # Stamp the revision now: the binary is built from this tree, which may change during the run.
  stamp_run lib benchmarks
  install_deps python3-numpy python3-matplotlib
  build_targets build-bench bench_lattice_rank
  local md="$results/lattice_rank.md" csv="$results/lattice_rank.csv" status=0
  local bench="$build/benchmarks/bench_lattice_rank"
  local args=(--threads 1,2 --min-time 1 --min-runs 2 --spqr-budget 120 --dense-max-n 3300
    --csv "$csv" "$@")
  start_runs
  /usr/bin/time -f '%e s wall, %M kB maximum resident set' -o "$tmp/time" \
    "$bench" "${args[@]}" > "$tmp/out" || status=$?
  kept_notes "$md" > "$tmp/notes"
  {
    header "Rank of C_q for four-bar lattices, 1e2..1e6 rows: block-wise QRCP vs SuiteSparseQR"
    echo "It builds Release in \`$build\` and runs:"
    echo
    echo "    $bench ${args[*]}"
    echo
    echo "Load average at the start: $load. Whole run: $(cat "$tmp/time")."
    echo "Plot: \`lattice_rank.png\`."
    echo
    sed -e '1s/^# .*$/## Output of the benchmark/' "$tmp/out"
    echo
    echo "## Summary (automatic)"
    echo
    lattice_summary "$csv"
    echo
    cat "$tmp/notes"
  } > "$md"
  plot plot_lattice_rank.py "$csv" "$results/lattice_rank.png"
  echo "wrote $md, $csv and $results/lattice_rank.png" >&2
  return "$status"
}
