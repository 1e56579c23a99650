# Merged lattices and a chain with a doubled support, redundant rows left out (merged_lattice_dynamics.cpp).
#
# Issue 28, item 3 (serial): over-constrained mechanisms through the public integrators, which
# leave the redundant rows out (withIndependentRows). CASES, in the order they run (default
# "10x10 10x30 18x18 30x30 56x56 chain:100000 100x100"): merged lattices LxK (levels x cells,
# 10^2 to 10^4 cells) for 2 s by generalized-alpha and, up to IDA_MAX_CELLS cells (default
# 10000), IDA index 2; chain:N, the catenary chain of N links with its support at B doubled,
# swinging for 0.05 s.
# Outputs (where the minimum-norm multipliers are computed) every OUTPUT s (default 0.5). One
# process per case, smallest first, under `nice`, one thread, a wall budget of BUDGET s per run
# (default 2400): a run over it is reported with the time it reached. Writes
#   benchmarks/results/merged_lattice_dynamics.md   command, date, machine, revision, tables,
#                                                   slopes, and the notes kept from the last file
#   benchmarks/results/merged_lattice_dynamics.csv  one row per run
#   benchmarks/results/merged_lattice_dynamics.png  CPU per step, selection, multipliers, memory
#
#   benchmarks/run.sh merged_lattice_dynamics                 # about an hour on 2 loaded cores
#   CASES="10x10 10x30 chain:1000" benchmarks/run.sh merged_lattice_dynamics   # a minute
#
# The exit status is 0 when every run reached its end within its budget.

# Log-log slopes (least squares) against bodies of the lattices that reached t_end, one set per
# integrator, from the CSV.
merged_lattice_slopes() {
  local integrator
  for integrator in generalized-alpha "IDA index 2"; do
    awk -F, -v integrator="$integrator" '
      NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
      $col["kind"] == "lattice" && $col["integrator"] == integrator && $col["ok"] == 1 {
        x = log($col["bodies"]); n++; sx += x; sxx += x * x
        split("cpu_per_step_s cpu_per_step_net_s select_s multipliers_s", names, " ")
        for (k in names) { y = log($col[names[k]]); sy[k] += y; sxy[k] += x * y }
        shapes = shapes (n > 1 ? ", " : "") $col["shape"]
      }
      END {
        if (n < 2) { printf("%s: fewer than two lattices reached t_end, no slope\n\n", integrator); exit }
        label[1] = "CPU s per step (everything the integrate call does)"
        label[2] = "CPU s per step without the minimum-norm multipliers"
        label[3] = "row selection (independentRows, one call)"
        label[4] = "minimum-norm multipliers (one call)"
        printf("%s, over %d lattices (%s):\n\n", integrator, n, shapes)
        for (k = 1; k <= 4; ++k)
          printf("- %s: %.2f\n", label[k], (n * sxy[k] - sx * sy[k]) / (n * sxx - sx * sx))
        printf("\n")
      }' "$1"
  done
}

study() {
  stamp_run lib benchmarks
  install_deps python3-numpy python3-matplotlib
  build_targets build-bench bench_merged_lattice_dynamics
  local md="$results/merged_lattice_dynamics.md" csv="$results/merged_lattice_dynamics.csv"
  local bench="$build/benchmarks/bench_merged_lattice_dynamics" status=0 shape run=0
  local cases="${CASES:-10x10 10x30 18x18 30x30 56x56 chain:100000 100x100}"
  local common=(--t-end 2 --chain-t-end 0.05 --output-interval "${OUTPUT:-0.5}"
    --ida-max-cells "${IDA_MAX_CELLS:-10000}" --budget "${BUDGET:-2400}")
  export OMP_NUM_THREADS=1
  start_runs
  : > "$tmp/commands"
  # One process per case: its own peak resident set, and a failure stops nothing else.
  for shape in $cases; do
    run=$((run + 1))
    local args=("${common[@]}" --lattices "$shape" --chain-links "" --csv "$tmp/$run.csv")
    [[ "$shape" == chain:* ]] && args=("${common[@]}" --lattices "" --chain-links "${shape#chain:}" --csv "$tmp/$run.csv")
    echo "    nice $bench ${args[*]}" >> "$tmp/commands"
    nice "$bench" "${args[@]}" > "$tmp/$run.md" 2> "$tmp/$run.err" || status=1
  done
  head -n 1 "$tmp/1.csv" > "$csv"
  for ((i = 1; i <= run; ++i)); do tail -n +2 "$tmp/$i.csv" >> "$csv"; done
  kept_notes "$md" > "$tmp/notes"
  {
    header "Merged four-bar lattices and a chain with a doubled support, redundant rows left out"
    echo "It builds Release in \`$build\` and runs, one process per case, OMP_NUM_THREADS=1,"
    echo "on $(cpu_model) ($(nproc --all) cores, $(free -g | awk '/^Mem:/ { print $2 }') GiB),"
    echo "load average $load at the start:"
    echo
    cat "$tmp/commands"
    echo
    echo "Exit status: $status (0: every run reached its end within its budget)."
    echo
    sed -n '3,4p' "$tmp/1.md"
    for title in "Merged four-bar lattices" "Catenary chain"; do
      echo
      grep -h -m1 "^## $title" "$tmp"/*.md | head -n 1 || true
      echo
      grep -h -A3 "^## $title" "$tmp"/*.md | grep -m2 '^|' || true
      for ((i = 1; i <= run; ++i)); do
        sed -n "/^## $title/,/^## /p" "$tmp/$i.md" | grep '^| [0-9]' || true
      done
    done
    echo
    echo "## Log-log slopes against bodies (automatic)"
    echo
    merged_lattice_slopes "$csv"
    echo
    echo "Messages of the runs (stderr):"
    echo
    cat "$tmp"/*.err | sed 's/^/    /'
    echo
    echo "![CPU per step, selection, multipliers and memory against bodies](merged_lattice_dynamics.png)"
    echo
    cat "$tmp/notes"
  } > "$md"
  plot plot_merged_lattice_dynamics.py "$csv" "$results/merged_lattice_dynamics.png"
  echo "wrote $md, $csv and $results/merged_lattice_dynamics.png" >&2
  return "$status"
}
