# Merged lattices on 1, 2 and 4 ranks: redundant rows left out, the same motion (catena-scale).
#
# Issue 28, item 3 (distributed): `catena-scale --input` on merged four-bar lattices LxL (one
# coupler per level, from inputs/merged_four_bar_lattice_3x4.yaml with `levels`, `cells` L and
# the cranks released at 80 degrees), IDA dynamics (rtol 1e-8) for T_END s (default 0.1) on each
# rank count of RANKS (default "1 2 4"; more ranks than cores are oversubscribed, so their wall
# times are waiting, not work). Per run: status, steps, rows left out, wall time, the
# minimum-norm multipliers' time, and against the 1-rank run the largest difference of the
# final positions (the first 64 bodies, m) and of the ground hinges' reactions (the first 16,
# relative to the largest). Writes benchmarks/results/merged_lattice_ranks.md.
#
#   benchmarks/run.sh merged_lattice_ranks                  # 10x10 .. 100x100: a few minutes idle
#   SIZES="10 30" RANKS="1 2" benchmarks/run.sh merged_lattice_ranks
study() {
  stamp_run lib drivers
  build_targets build-bench catena_scale
  install_deps
  local sizes="${SIZES:-10 30 56 100}" ranks="${RANKS:-1 2 4}" t_end="${T_END:-0.1}"
  local md="$results/merged_lattice_ranks.md" rows="$tmp/rows.txt" status=0
  : > "$rows"
  start_runs
  for l in $sizes; do
    sed -e "s/^  levels: .*/  levels: $l/" -e "s/^  cells: .*/  cells: $l/" \
      -e "s/^  crank_angle_deg: .*/  crank_angle_deg: 80/" \
      inputs/merged_four_bar_lattice_3x4.yaml > "$tmp/lattice_$l.yaml"
    for np in $ranks; do
      echo "[bench] ${l}x$l on $np rank(s)" >&2
      rm -f "$tmp/run_${l}_$np.jsonl"
      OMP_NUM_THREADS=1 /usr/bin/time -f "%e" -o "$tmp/time" \
        mpirun --allow-run-as-root --oversubscribe -np "$np" "$build/bin/catena-scale" \
        --input "$tmp/lattice_$l.yaml" --analysis dynamics --t-end "$t_end" --rtol 1e-8 \
        --json "$tmp/run_${l}_$np.jsonl" > "$tmp/out" 2>&1 || status=1
      echo "$l $np $(tail -n 1 "$tmp/time")" >> "$rows"
    done
  done
  {
    header "Merged four-bar lattices on 1, 2 and 4 ranks, redundant rows left out"
    echo "Machine: $(cpu_model), $(nproc) cores; load $load at the start; one thread per rank."
    echo
    /usr/bin/python3 - "$tmp" "$rows" << 'EOF'
import json, sys
tmp, rows = sys.argv[1], sys.argv[2]
runs = {}
for line in open(rows):
    l, np, wall = line.split()
    try:
        runs[(int(l), int(np))] = (json.loads(open(f"{tmp}/run_{l}_{np}.jsonl").readline()), float(wall))
    except (OSError, ValueError):
        runs[(int(l), int(np))] = (None, float(wall))
print("| lattice | ranks | bodies | status | steps | rows left out | wall s | minimum-norm s |"
      " max position difference to 1 rank, m | max reaction difference to 1 rank (relative) |")
print("|:---|---:|---:|:---|---:|---:|---:|---:|---:|---:|")
for (l, np), (r, wall) in sorted(runs.items()):
    if r is None:
        print(f"| {l}x{l} | {np} | - | no JSON line | | | {wall:.2f} | | | |")
        continue
    one = runs.get((l, 1), (None, 0))[0]
    dq = dr = "-"
    if one is not None and np != 1:
        a, b = one["body_positions_m"], r["body_positions_m"]
        dq = "%.1e" % max(abs(x - y) for k in a for x, y in zip(a[k], b[k]))
        a, b = one["support_reactions_n"], r["support_reactions_n"]
        big = max(abs(x) for k in a for x in a[k])
        dr = "%.1e" % (max(abs(x - y) for k in a for x, y in zip(a[k], b[k])) / big)
    print(f"| {l}x{l} | {np} | {r.get('bodies', '-')} | {r['status']} | {r.get('steps', '-')} |"
          f" {len(r.get('redundant_rows', []))} | {wall:.2f} | {r.get('time_minimum_norm_s', 0):.3g} |"
          f" {dq} | {dr} |")
EOF
    echo
    kept_notes "$md"
  } > "$md.new"
  mv "$md.new" "$md"
  echo "wrote $md" >&2
  return "$status"
}
