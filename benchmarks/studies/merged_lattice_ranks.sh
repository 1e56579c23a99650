# Merged lattices on 1, 2 and 4 ranks: redundant rows left out, the same motion (catena-scale).
#
# Issue 28, item 3 (distributed): `catena-scale --input` on merged four-bar lattices LxL (one
# coupler per level, from inputs/merged_four_bar_lattice_3x4.yaml with `levels`, `cells` L and
# the cranks released at rest at CRANK_DEG degrees, default -70: hanging 20 degrees off, so the
# lattice swings without passing a singular configuration, which the distributed IDA does not
# bridge), IDA dynamics (rtol 1e-8) for T_END s (default 2) on each rank count of RANKS
# (default "1 2 4"; more ranks than cores are oversubscribed, so their wall times are waiting,
# not work), with each solve of MODES (default "mumps reproducible": MUMPS on the graph
# partition, and `--reproducible`: contiguous parts with their halo, a KLU of the gathered
# matrix on every rank). Per run: status, steps, rows left out, wall time, the minimum-norm
# multipliers' time, and against the 1-rank run of the same mode the largest difference of the
# final positions (the first 64 bodies, m), of the ground hinges' reactions (the first 16,
# relative to the largest) and whether every field of the JSON line but timings and memory is
# bitwise the same. Writes benchmarks/results/merged_lattice_ranks.md.
#
#   benchmarks/run.sh merged_lattice_ranks                  # 10x10 .. 100x100: about 30 minutes
#   SIZES="10 30" RANKS="1 2" T_END=0.1 benchmarks/run.sh merged_lattice_ranks
study() {
  stamp_run lib drivers
  build_targets build-bench catena_scale
  install_deps
  local sizes="${SIZES:-10 30 56 100}" ranks="${RANKS:-1 2 4}" t_end="${T_END:-2}"
  local modes="${MODES:-mumps reproducible}" crank="${CRANK_DEG:--70}"
  local md="$results/merged_lattice_ranks.md" rows="$tmp/rows.txt" status=0
  : > "$rows"
  start_runs
  for l in $sizes; do
    sed -e "s/^  levels: .*/  levels: $l/" -e "s/^  cells: .*/  cells: $l/" \
      -e "s/^  crank_angle_deg: .*/  crank_angle_deg: $crank/" \
      -e "s/^  crank_rate: .*/  crank_rate: 0.0/" \
      inputs/merged_four_bar_lattice_3x4.yaml > "$tmp/lattice_$l.yaml"
    for mode in $modes; do
      local flag=""
      [ "$mode" = reproducible ] && flag="--reproducible"
      for np in $ranks; do
        echo "[bench] ${l}x$l on $np rank(s), $mode" >&2
        rm -f "$tmp/run_${l}_${mode}_$np.jsonl"
        OMP_NUM_THREADS=1 /usr/bin/time -f "%e" -o "$tmp/time" \
          mpirun --allow-run-as-root --oversubscribe -np "$np" "$build/bin/catena-scale" \
          --input "$tmp/lattice_$l.yaml" --analysis dynamics --t-end "$t_end" --rtol 1e-8 \
          $flag --json "$tmp/run_${l}_${mode}_$np.jsonl" > "$tmp/out" 2>&1 || status=1
        echo "$l $mode $np $(tail -n 1 "$tmp/time")" >> "$rows"
      done
    done
  done
  {
    header "Merged four-bar lattices on 1, 2 and 4 ranks, redundant rows left out"
    echo "Machine: $(cpu_model), $(nproc) cores; load $load at the start; one thread per rank."
    echo "Lattices released at rest, cranks at $crank degrees; IDA index 2, rtol 1e-8, $t_end s."
    echo
    /usr/bin/python3 - "$tmp" "$rows" << 'EOF'
import json, sys
tmp, rows = sys.argv[1], sys.argv[2]
runs = {}
for line in open(rows):
    l, mode, np, wall = line.split()
    try:
        runs[(int(l), mode, int(np))] = (
            json.loads(open(f"{tmp}/run_{l}_{mode}_{np}.jsonl").readline()), float(wall))
    except (OSError, ValueError):
        runs[(int(l), mode, int(np))] = (None, float(wall))
def same_bits(a, b):
    skip = {"ranks", "threads", "max_rss_mib_max", "max_rss_mib_sum"}
    return all(a[k] == b.get(k) for k in a if k not in skip and not k.startswith("time_"))
print("| lattice | solve | ranks | bodies | status | steps | rows left out | wall s |"
      " minimum-norm s | max position difference to 1 rank, m |"
      " max reaction difference to 1 rank (relative) | bitwise as 1 rank |")
print("|:---|:---|---:|---:|:---|---:|---:|---:|---:|---:|---:|:---|")
for (l, mode, np), (r, wall) in sorted(runs.items(), key=lambda kv: (kv[0][0], kv[0][1] != "mumps", kv[0][2])):
    solve = "gathered KLU (--reproducible)" if mode == "reproducible" else "MUMPS"
    if r is None:
        print(f"| {l}x{l} | {solve} | {np} | - | no JSON line | | | {wall:.2f} | | | | |")
        continue
    one = runs.get((l, mode, 1), (None, 0))[0]
    dq = dr = bits = "-"
    if one is not None and np != 1:
        a, b = one["body_positions_m"], r["body_positions_m"]
        dq = "%.1e" % max(abs(x - y) for k in a for x, y in zip(a[k], b[k]))
        a, b = one["support_reactions_n"], r["support_reactions_n"]
        big = max(abs(x) for k in a for x in a[k])
        dr = "%.1e" % (max(abs(x - y) for k in a for x, y in zip(a[k], b[k])) / big)
        bits = "yes" if same_bits(one, r) else "no"
    status = r["status"] if r["status"] == "ok" else "**" + r["status"][:60] + "**"
    print(f"| {l}x{l} | {solve} | {np} | {r.get('bodies', '-')} | {status} |"
          f" {r.get('steps', '-')} |"
          f" {len(r.get('redundant_rows', []))} | {wall:.2f} | {r.get('time_minimum_norm_s', 0):.3g} |"
          f" {dq} | {dr} | {bits} |")
EOF
    echo
    kept_notes "$md"
  } > "$md.new"
  mv "$md.new" "$md"
  echo "wrote $md" >&2
  return "$status"
}
