# Chain statics by the Schur-complement decomposition: 1-2 ranks, per-rank work to 32, a model.
#
# Issue 30, items 1, 3 and 4 (benchmarks/summarize_schur_scaling.py makes the tables):
#   A. strong scaling on this machine's 2 cores: `catena statics` (serial KLU, the fastest
#      one-process path) and catena-scale statics with MUMPS (--linear-solver direct) and with
#      the decomposition (--linear-solver schur) on 1 and 2 ranks, SIZES links (default
#      "100000 200000");
#   B. per-rank work of the decomposition on RANKS ranks (default "2 4 8 16 32", oversubscribed
#      beyond 2: CPU seconds per rank, which stay each rank's own work), WORK_N links (10^5);
#   C. weak scaling, PER_RANK links per rank (default 25000) on WEAK_RANKS ranks (default
#      "2 4 8 16"; 32 x 25000 links did not fit the machine's 23.5 GiB: the kernel killed a rank);
#   D. threads: THREAD_N links (default 100000) on 1 rank x 1 thread, 1 rank x 2 threads
#      (-statics_dd_parts 2, --bind-to none) and 2 ranks x 1 thread;
#   E. communication per rank: the bytes and messages each rank sends during the statics, with
#      the decomposition on COMM_RANKS ranks (default "2 4 8 16") for COMM_SIZES links (default
#      "20000 80000"), and with MUMPS on 2 and 4 ranks;
#   F. the large chain: `catena statics` and the decomposition on 2 ranks, alternating,
#      BIG_REPEATS times each (default 3), then on BIG_RANKS ranks (default "4"), for BIG_N
#      links (default 10^6; about 19 GiB in all on 2 or 4 ranks, 13 GiB serial, so the runs go
#      one after another; about 10 minutes);
# then the performance model fitted to B and C, predicting 10^7-link statics to 1024 ranks.
# PARTS (default "A B C D E"; F only when asked) chooses the parts; RESULTS_NAME (default
# schur_scaling) the files. One thread per rank. About 20 minutes idle. Writes
# benchmarks/results/NAME.md and benchmarks/results/NAME.jsonl (every run's record, the model's
# input).
#
#   benchmarks/run.sh schur_scaling
#   SIZES=20000 RANKS="2 4" PER_RANK=5000 benchmarks/run.sh schur_scaling   # a quick look
#   PARTS=E RESULTS_NAME=schur_communication benchmarks/run.sh schur_scaling
study() {
  stamp_run lib drivers
  build_targets build-bench catena_scale catena_cli
  install_deps
  local sizes="${SIZES:-100000 200000}" ranks="${RANKS:-2 4 8 16 32}"
  local work_n="${WORK_N:-100000}" per_rank="${PER_RANK:-25000}"
  local weak_ranks="${WEAK_RANKS:-2 4 8 16}"
  local parts="${PARTS:-A B C D E}" name="${RESULTS_NAME:-schur_scaling}"
  local md="$results/$name.md" jsonl="$results/$name.jsonl" status=0
  : > "$tmp/runs.jsonl"
  start_runs
  export OMP_NUM_THREADS=1
  # scale_run PART RANKS N SOLVER [PETSc options]: one catena-scale statics run, its record
  # tagged with PART. OMP_NUM_THREADS reaches the ranks; they are not bound to cores (a bound
  # rank's threads would share its one core).
  scale_run() {
    rm -f "$tmp/run.jsonl"
    echo "[bench] $1: $3 links on $2 rank(s) x $OMP_NUM_THREADS thread(s), $4 ${*:5}" >&2
    /usr/bin/time -f "%e %M" -o "$tmp/time" mpirun --allow-run-as-root --oversubscribe \
      --bind-to none -x OMP_NUM_THREADS -np "$2" \
      "$build/bin/catena-scale" --family chain --sizes "$3" --analysis statics \
      --linear-solver "$4" --json "$tmp/run.jsonl" "${@:5}" > "$tmp/out" 2>&1 || status=1
    /usr/bin/python3 - "$1" "$4" "$tmp/run.jsonl" "$tmp/time" "$2" "$3" "$tmp/out" \
      >> "$tmp/runs.jsonl" << 'EOF'
import json, sys
part, solver, path, timing, ranks, size, out = sys.argv[1:8]
try:
    r = json.loads(open(path).readline())
except (OSError, ValueError):
    # No record: the run died (e.g. killed for memory); its last output lines say how.
    tail = [l.strip() for l in open(out, errors="replace") if l.strip()][-3:]
    r = {"ranks": int(ranks), "size": int(size), "status": "no record: " + " / ".join(tail)}
wall, kb = open(timing).read().split()[-2:]
r.update(part=part, solver=solver, wall_s=float(wall), peak_rss_kib_largest_process=int(kb))
print(json.dumps(r))
EOF
  }
  has() { [[ " $parts " == *" $1 "* ]]; }
  # serial_run PART N: `catena statics` of the N-link chain, its record tagged with PART.
  serial_run() {
    sed "s/^\(\s*links:\).*/\1 $2/" inputs/catenary_chain.yaml > "$tmp/chain_$2.yaml"
    echo "[bench] $1: $2 links, catena statics (serial)" >&2
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$build/bin/catena" statics "$tmp/chain_$2.yaml" \
      --terse --json "$tmp/serial.json" > /dev/null 2>&1 || status=1
    /usr/bin/python3 - "$1" "$2" "$tmp/serial.json" "$tmp/time" >> "$tmp/runs.jsonl" << 'EOF'
import json, sys
part, n, path, timing = sys.argv[1:5]
s = json.load(open(path))["statics"]
wall, kb = open(timing).read().split()[-2:]
print(json.dumps({"part": part, "solver": "serial klu", "size": int(n), "ranks": 1,
                  "status": "ok" if s["converged"] else s["message"],
                  "newton_iterations": s["iterations"], "time_statics_s": s["seconds"],
                  "sag_m": s["sag_m"], "wall_s": float(wall),
                  "peak_rss_kib_largest_process": int(kb)}))
EOF
  }
  has A && for n in $sizes; do
    serial_run A "$n"
    for np in 1 2; do
      for solver in direct schur; do scale_run A "$np" "$n" "$solver"; done
    done
  done
  if has B; then for np in $ranks; do scale_run B "$np" "$work_n" schur; done; fi
  if has C; then for np in 1 $weak_ranks; do scale_run C "$np" $((per_rank * np)) schur; done; fi
  local thread_n="${THREAD_N:-100000}"
  if has D; then
    scale_run D 1 "$thread_n" schur
    OMP_NUM_THREADS=2 scale_run D 1 "$thread_n" schur -statics_dd_parts 2
    scale_run D 2 "$thread_n" schur
  fi
  if has E; then
    for n in ${COMM_SIZES:-20000 80000}; do
      for np in ${COMM_RANKS:-2 4 8 16}; do scale_run E "$np" "$n" schur; done
      for np in 2 4; do scale_run E "$np" "$n" direct; done
    done
  fi
  if has F; then
    # The serial path's statics varied 53-64 s at 10^6 links from run to run on an idle
    # machine (hand runs, 2026-11-28): serial and 2-rank runs alternate, BIG_REPEATS each.
    local repeat
    for ((repeat = 0; repeat < ${BIG_REPEATS:-3}; ++repeat)); do
      serial_run F "${BIG_N:-1000000}"
      scale_run F 2 "${BIG_N:-1000000}" schur
    done
    for np in ${BIG_RANKS:-4}; do scale_run F "$np" "${BIG_N:-1000000}" schur; done
  fi
  cp "$tmp/runs.jsonl" "$jsonl"
  # The settings given by environment belong to the command that reproduces the file.
  local v
  for v in GLIBC_TUNABLES BIG_N BIG_RANKS BIG_REPEATS COMM_SIZES COMM_RANKS THREAD_N WEAK_RANKS PER_RANK \
    WORK_N RANKS SIZES \
    RESULTS_NAME PARTS; do
    if [ -n "${!v:-}" ]; then command="$v=\"${!v}\" $command"; fi
  done
  {
    header "Chain statics by the Schur-complement decomposition"
    echo "Machine: $(cpu_model), $(nproc --all) cores; load $load at the start; one thread per rank;"
    echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null ||
      echo unknown)."
    echo "Runs: \`catena statics chain.yaml --terse --json\` (inputs/catenary_chain.yaml with"
    echo "\`links: N\`) and \`mpirun -np P catena-scale --family chain --sizes N --analysis statics"
    echo "--linear-solver direct|schur\`; every record is in \`$name.jsonl\`."
    echo
    /usr/bin/python3 benchmarks/summarize_schur_scaling.py "$jsonl"
    echo
    kept_notes "$md"
  } > "$md.new"
  mv "$md.new" "$md"
  echo "wrote $md and $jsonl" >&2
  return "$status"
}
