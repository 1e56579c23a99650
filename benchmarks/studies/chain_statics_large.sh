# Catenary chain: serial statics at large N, time and memory (catena statics).
#
# Issue 6: N = 10^6 links under 5 minutes on a 2-core, 24 GiB machine, with the memory model
# in bytes per link. Runs `catena statics` on
# inputs/catenary_chain.yaml with `links: N` (Newton from the 'V', K_c, KLU), one process per N and
# OpenMP thread count, and writes benchmarks/results/chain_statics_large.md:
#   - wall time and peak resident memory of the whole process (/usr/bin/time -f "%e %M"), the
#     statics time, Newton iterations and unknowns (n_v + m) from the JSON summary;
#   - the sag check of benchmarks/chain_statics_modal.cpp: mid-span sag (the lowest joint,
#     link_{N/2}/start) and H (x-force of end_a) against the exact equilibrium of the discrete
#     chain (a uniform rigid link is parallel to the force at its mid-point: tan(theta_k) =
#     c (k + 1/2 - N/2), c = w l / H, sum_k l cos(theta_k) = 10 m), relative error <= 1e-6;
#   - the memory model: peak RSS = a + b N fitted per binary (b: bytes per link), and the heap at
#     its peak by consumer at N = 2e4 (heaptrack, when installed; HEAPTRACK=0 skips it).
# A size runs only when the fit of the sizes already run (the first two always run) leaves
# 3 GiB of MemAvailable; a skipped size is listed with the memory it would need.
#
#   benchmarks/run.sh chain_statics_large                   # N = 2e4, 1e5, 2e5, 1e6; 1, 2 threads
#   SIZES="20000 100000" THREADS=1 benchmarks/run.sh chain_statics_large
#   COMPARE="before=/tmp/catena_old" benchmarks/run.sh chain_statics_large   # also another binary
#   CATENA=build/bin/catena BUILD_DIR=build ...             # a built binary (else: Release build)
study() {
  stamp_run lib drivers
  if [ -z "${CATENA:-}" ]; then
    build_targets build-bench catena_cli
    CATENA="$build/bin/catena"
  fi
  local sizes="${SIZES:-20000 100000 200000 1000000}" threads="${THREADS:-1 2}"
  reserve_kib=$((3 * 1024 * 1024))  # MemAvailable left to the rest of the machine
  local md="$results/chain_statics_large.md"
  rows="$tmp/rows.csv"  # label,N,threads,load,unknowns,its,statics_s,wall_s,peak_kib,sag,sag_ref,h,h_ref
  : > "$rows"
  export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"
  runs=("after=$CATENA")
  for c in ${COMPARE:-}; do runs+=("$c"); done
  skipped=""
  for n in $sizes; do
    sed "s/^  links: .*/  links: $n/" inputs/catenary_chain.yaml > "$tmp/chain.yaml"
    read -r sag_ref h_ref < <(reference "$n")
    for r in "${runs[@]}"; do
      label="${r%%=*}" bin="${r#*=}"
      need="$(predict_kib "$label" "$n")"
      avail="$(awk '/MemAvailable/ { print $2 }' /proc/meminfo)"
      if [ "$need" -gt 0 ] && [ $((need + reserve_kib)) -gt "$avail" ]; then
        skipped+="| $label | $n | predicted peak $((need / 1024)) MiB, MemAvailable $((avail / 1024)) MiB |"$'\n'
        echo "[bench] $label N = $n skipped: needs ~$((need / 1024)) MiB" >&2
        continue
      fi
      for t in $threads; do
        echo "[bench] $label N = $n, $t thread(s)" >&2
        load="$(cut -d' ' -f1 /proc/loadavg)"
        status=0
        OMP_NUM_THREADS="$t" /usr/bin/time -f "%e %M" -o "$tmp/time" \
          "$bin" statics "$tmp/chain.yaml" --terse --json "$tmp/run.json" > "$tmp/out" 2>&1 ||
          status=$?
        read -r wall peak < <(tail -n 1 "$tmp/time") || true
        if [ "$status" -ne 0 ] || [ ! -s "$tmp/run.json" ]; then
          echo "$label,$n,$t,$load,0,0,0,${wall:-0},${peak:-0},0,$sag_ref,0,$h_ref" >> "$rows"
          sed 's/^/    /' "$tmp/out" >&2
          continue
        fi
        # The JSON has a reaction per joint (~330 MB at 10^6 links): read only what is needed.
        /usr/bin/python3 - "$tmp/run.json" >> "$tmp/fields" << 'EOF'
import re, sys
s = open(sys.argv[1]).read()
g = lambda p: re.search(p, s).group(1)
print(int(g(r'"n_v":(\d+)')) + int(g(r'"m":(\d+)')), g(r'"iterations":(\d+)'),
      g(r'"statics":\{[^[]*?"seconds":([^,]+)'), g(r'"sag_m":([^,]+)'),
      abs(float(g(r'"joint":"end_a","force_world_N":\[([^,]+)'))))
EOF
        read -r unknowns its statics_s sag h < <(tail -n 1 "$tmp/fields")
        echo "$label,$n,$t,$load,$unknowns,$its,$statics_s,$wall,$peak,$sag,$sag_ref,$h,$h_ref" >> "$rows"
        rm -f "$tmp/run.json"
      done
    done
  done

  # The heap at its peak by consumer (heaptrack), N = 2e4, 1 thread.
  consumers=""
  if [ "${HEAPTRACK:-1}" = 1 ] && command -v heaptrack > /dev/null; then
    n=20000
    sed "s/^  links: .*/  links: $n/" inputs/catenary_chain.yaml > "$tmp/chain.yaml"
    for r in "${runs[@]}"; do
      label="${r%%=*}" bin="${r#*=}"
      echo "[bench] heaptrack $label N = $n" >&2
      OMP_NUM_THREADS=1 heaptrack -o "$tmp/ht_$label" "$bin" statics "$tmp/chain.yaml" --terse \
        --json "$tmp/run.json" > /dev/null 2>&1
      heaptrack_print -f "$tmp/ht_$label.zst" --flamegraph-cost-type peak \
        -F "$tmp/stacks_$label" > /dev/null 2>&1
      consumers+="$(/usr/bin/python3 - "$tmp/stacks_$label" "$label" "$n" << 'EOF'
import sys
# Consumer of an allocation: the first of these (in this order) on its call stack.
groups = [
    ("KluLu::factor", "KLU numeric factorization: L and U (at their initial size, see below), pivots, work"),
    ("KluLu::KluLu", "KLU symbolic analysis and value array"),
    ("SaddlePointSolver::SaddlePointSolver", "KKT matrix: pattern (kept by KLU), row pointers, PETSc copy and slots if any"),
    ("SaddlePointSolver::", "saddle-point solver: other (solve vectors)"),
    ("makeBodyMatrix", "statics workspace: nv x nv body matrices (K, K_c, ...)"),
    ("makeConstraintMatrix", "statics workspace: C_q"),
    ("solveStatics", "statics: state and Newton vectors"),
    ("buildAssemblyPlan", "assembly plan: patterns, slots, marker frames, colours"),
    ("ModelBuilder", "model: bodies, markers, joints (built by the generator)"),
    ("loadMechanism", "model: loader"),
    ("initialState", "initial state"),
    ("PetscSession", "PETSc, SLEPc, MPI initialization"),
]
total = {}
for line in open(sys.argv[1]):
    stack, _, cost = line.rstrip().rpartition(" ")
    name = next((d for key, d in groups if key in stack), "other (libraries, I/O)")
    total[name] = total.get(name, 0) + int(cost)
label, n, s = sys.argv[2], int(sys.argv[3]), sum(total.values())
for name, b in sorted(total.items(), key=lambda kv: -kv[1]):
    print(f"| {label} | {name} | {b / 2**20:.1f} | {b / n:.0f} |")
print(f"| {label} | **heap at its peak** | **{s / 2**20:.1f}** | **{s / n:.0f}** |")
EOF
  )"$'\n'
    done
  fi

  table="$(awk -F, '{
      sag_err = $11 > 0 ? ($10 - $11) / $11 : 1; h_err = $13 > 0 ? ($12 - $13) / $13 : 1
      if (sag_err < 0) sag_err = -sag_err; if (h_err < 0) h_err = -h_err
      ok = $5 > 0 && sag_err <= 1e-6 && h_err <= 1e-6
      printf("| %s | %d | %d | %s | %d | %d | %.1f | %.1f | %.0f | %.0f | %.9f (%.0e) | %.6f (%.0e) | %s |\n",
        $1, $2, $3, $4, $5, $6, $7, $8, $9 / 1024, $9 * 1024 / $2, $10, sag_err, $12, h_err,
        ok ? "pass" : "**FAIL**") }' "$rows")"
  model="$(awk -F, '$3 == 1 { x[$1] = x[$1] " " $2; y[$1] = y[$1] " " $9 }
    END { for (l in x) { m = split(x[l], xs, " "); split(y[l], ys, " "); sx = sy = sxx = sxy = 0
        for (i = 1; i <= m; ++i) { sx += xs[i]; sy += ys[i]; sxx += xs[i] * xs[i]; sxy += xs[i] * ys[i] }
        if (m < 2) continue
        b = (m * sxy - sx * sy) / (m * sxx - sx * sx); a = (sy - b * sx) / m
        printf("| %s | %s | %.0f | %.0f | %.1f |\n", l, x[l], a / 1024, b * 1024, (a + b * 1e6) / 1048576) } }' \
    "$rows")"

  {
    header "Catenary chain: serial statics at large N"
    echo
    echo "- Machine: $(cpu_model), $(nproc) cores,"
    echo "  $(awk '/MemTotal/ { printf("%.1f GiB", $2 / 1048576) }' /proc/meminfo) RAM; shared with other work (load: 1-minute average before each run)."
    echo "- Command per run (binary \`after\`: $CATENA${COMPARE:+; compared: $COMPARE}):"
    echo
    echo "      OMP_NUM_THREADS=T /usr/bin/time -f \"%e %M\" catena statics chain.yaml --terse --json run.json"
    echo
    echo "  chain.yaml is inputs/catenary_chain.yaml with \`links: N\`: A(0,0,0), sag point C(5,0,-6),"
    echo "  B(10,0,0), 1 kg/m, gravity 9.81 m/s^2, Newton with K_c from the 'V', KLU (the default)."
    echo "- wall s: the whole process (loading, generator, assembly plan, statics, report, JSON summary"
    echo "  with a reaction per joint); statics s: solveStatics alone (the JSON's statics.seconds)."
    echo "  peak MiB: peak resident set of the process; bytes per link: peak / N."
    echo "- Checks: sag and H against the exact discrete equilibrium, relative error (in brackets) <= 1e-6."
    echo
    echo "| binary | N | threads | load | n_v + m | Newton its | statics s | wall s | peak MiB | bytes per link | sag m (rel. err.) | H N (rel. err.) | check |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|"
    echo "$table"
    if [ -n "$skipped" ]; then
      echo
      echo "Not run (the fit of the smaller sizes leaves less than 3 GiB of MemAvailable):"
      echo
      echo "| binary | N | why |"
      echo "|---|---:|---|"
      printf '%s' "$skipped"
    fi
    echo
    echo "## Memory model"
    echo
    echo "Peak RSS = a + b N, least squares over the sizes run with 1 thread:"
    echo
    echo "| binary | sizes | a MiB | b bytes per link | predicted at N = 10^6, GiB |"
    echo "|---|---|---:|---:|---:|"
    echo "$model"
    if [ -n "$consumers" ]; then
      echo
      echo "The heap at its peak by consumer, N = 2e4, 1 thread (heaptrack; each allocation charged to"
      echo "the first consumer on its call stack; MiB and bytes per link):"
      echo
      echo "| binary | consumer | MiB | bytes per link |"
      echo "|---|---|---:|---:|"
      printf '%s' "$consumers"
    fi
    if [ -f benchmarks/chain_statics_large_interpretation.md ]; then
      echo
      cat benchmarks/chain_statics_large_interpretation.md
    fi
  } > "$md"
  echo "wrote $md" >&2
}

# Exact discrete equilibrium (benchmarks/support/references.hpp, solveDiscreteChain): sag and H.
reference() {
  /usr/bin/python3 - "$1" << 'EOF'
import sys
import numpy as np
N = int(sys.argv[1]); span = 10.0; length = 2.0 * np.sqrt(61.0); l = length / N
k = np.arange(N) + 0.5 - 0.5 * N
reach = lambda c: np.sum(l / np.hypot(1.0, c * k))
lo, hi = 0.0, 1.0
while reach(hi) > span: hi *= 2.0
for _ in range(200):
    if hi - lo <= 1e-16 * hi: break
    mid = 0.5 * (lo + hi)
    if reach(mid) > span: lo = mid
    else: hi = mid
c = 0.5 * (lo + hi); t = c * k; n = np.hypot(1.0, t)
z = np.concatenate(([0.0], np.cumsum(l * t / n)))
print(f"{-z[N // 2]:.17g} {9.81 * l / c:.17g}")
EOF
}

# Peak RSS (KiB) the runs of one label predict for N: least squares over its sizes (first thread
# count), + 5 %; 0 (no prediction) before two sizes have run.
predict_kib() {
  awk -F, -v label="$1" -v n="$2" '
    $1 == label && $9 > 0 && !($2 in seen) { seen[$2] = 1; x[++m] = $2; y[m] = $9 }
    END {
      if (m < 2) { print 0; exit }
      for (i = 1; i <= m; ++i) { sx += x[i]; sy += y[i]; sxx += x[i] * x[i]; sxy += x[i] * y[i] }
      b = (m * sxy - sx * sy) / (m * sxx - sx * sx); a = (sy - b * sx) / m
      printf("%.0f\n", 1.05 * (a + b * n)) }' "$rows"
}
