# The distributed statics' two saddle-point solvers side by side (catena-scale).
#
# Issue 6, docs/parallel.md: MUMPS (direct) and the augmented Lagrangian (FGMRES +
# PCFIELDSPLIT, --linear-solver iterative) on the catenary chain and the four-bar lattice, 1 and
# 2 ranks, 1 thread per rank. Each configuration runs once through catena-scale; the table gives
# Newton and Krylov iterations, the wall time (whole run, and the factorization + solve phases),
# the peak memory per rank and the sag (chain) or lowest point (lattice) with its difference from
# the direct solver's. Writes
#   benchmarks/results/saddle_point_solvers.md      command, machine, table
#   benchmarks/results/saddle_point_solvers.jsonl   every run's JSON line
#
#   benchmarks/run.sh saddle_point_solvers
#   CHAIN="2000 20000" LATTICE="20" RANKS="2" benchmarks/run.sh saddle_point_solvers
#   CATENA_SCALE=build/bin/catena-scale ...      # a built binary (else: Release in build-scale)
study() {
  stamp_run lib drivers
  if [ -z "${CATENA_SCALE:-}" ]; then
    build_targets build-scale catena_scale
    CATENA_SCALE="$build/bin/catena-scale"
  fi
  local chain="${CHAIN:-2000 20000 100000}" lattice="${LATTICE:-20 50}" ranks="${RANKS:-1 2}"
  local jsonl="$results/saddle_point_solvers.jsonl" md="$results/saddle_point_solvers.md" p n k s
  : > "$tmp/all.jsonl"
  export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}" OMP_NUM_THREADS=1
  for p in $ranks; do
    for n in $chain; do for s in direct iterative; do saddle_run chain "$n" "$p" "$s"; done; done
    for k in $lattice; do for s in direct iterative; do saddle_run lattice "$k" "$p" "$s"; done; done
  done
  cp "$tmp/all.jsonl" "$jsonl"
  /usr/bin/python3 - "$jsonl" "$md" "$command" "$started" "$revision" << 'EOF'
import json, sys
path, md, command, started, revision = sys.argv[1:6]
lines = [json.loads(l) for l in open(path) if l.strip()]
def value(l):  # the physical check value: sag (chain) or lowest point (lattice), m
    return l["sag_m"] if l["family"] == "chain" else l["lowest_point_m"]
direct = {(l["family"], l["size"], l["ranks"]): l for l in lines if l["linear_solver"] != "fieldsplit-al"}
cpu = open("/proc/cpuinfo").read().split("model name")[1].split("\n")[0].strip(": \t")
out = ["# Distributed statics: direct (MUMPS) and iterative (augmented Lagrangian) saddle-point solves",
       "",
       f"Produced by `{command}` (from the repository root),",
       f"started {started} at git `{revision}`; {cpu}, 1 thread per rank. One run per configuration.",
       "",
       "Chain: N links, the closed catenary chain of docs/scaling.md (sag m below the supports). "
       "Lattice: K x K four-bar cells hanging from the top row (lowest point m). Krylov: FGMRES "
       "iterations over all saddle-point solves (direct: one per solve). fact+solve: the "
       "factorization and solve phases (maximum over the ranks); total: the whole run. "
       "Memory: peak RSS, maximum over the ranks. |diff|: the check value's difference from the "
       "direct solver's on the same ranks.",
       "",
       "| family | size | n_v + m | ranks | solver | status | Newton | Krylov | fact+solve s | total s | MiB/rank | check value m | diff |",
       "|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"]
for l in lines:
    d = direct.get((l["family"], l["size"], l["ranks"]))
    diff = abs(value(l) - value(d)) if d and d["status"] == "ok" and l["status"] == "ok" else float("nan")
    status = "ok" if l["status"] == "ok" else "failed"
    out.append(f"| {l['family']} | {l['size']} | {l['unknowns']} | {l['ranks']} | "
               f"{l['linear_solver']} | {status} | {l['newton_iterations']} | {l['krylov_iterations']} | "
               f"{l['time_factorization_s'] + l['time_solve_s']:.2f} | {l['time_total_s']:.2f} | "
               f"{l['max_rss_mib_max']:.0f} | {value(l):.12g} | {diff:.1e} |")
failed = [l for l in lines if l["status"] != "ok"]
for l in failed:
    out += ["", f"{l['family']} {l['size']} on {l['ranks']} ranks ({l['linear_solver']}): {l['status']}"]
open(md, "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
}

# saddle_run FAMILY SIZE RANKS SOLVER: one catena-scale statics, its JSON line kept.
saddle_run() {
  echo "[saddle_point_solvers] $1 $2, $3 ranks, $4" >&2
  mpirun --allow-run-as-root --oversubscribe -np "$3" "$CATENA_SCALE" --family "$1" \
    --sizes "$2" --analysis statics --linear-solver "$4" --json "$tmp/run.jsonl" > /dev/null ||
    echo "[saddle_point_solvers] $1 $2, $3 ranks, $4: exit status $?" >&2
  cat "$tmp/run.jsonl" >> "$tmp/all.jsonl"
}
