# Catenary chain dynamics by generalized-alpha: K_c and modified Newton (chain_dynamics.cpp).
#
# Cost per simulated second at a stated accuracy, Newton iterations and factorizations per step
# with and without K_c in the iteration matrix, modified and full Newton, the largest step,
# growth with N. Four studies:
#   1. swing   adaptive (local error 1e-5): N = 10 .. 10^4, the four variants (cost vs N);
#   2. release adaptive (local error 1e-5): N = 10 .. 3000 (the whip);
#   3. release at rho_inf 0.8 (the former default) against 2., N = 100 .. 1000;
#   4. swing   fixed step 2 ms: the largest step that runs without a cut, with and without K_c.
# Every run has a wall-time budget (BUDGET seconds, default 120): a run over it is reported as
# such, not waited for. Writes benchmarks/results/chain_dynamics.md and
# chain_dynamics_<study>.csv, then the plot.
#
#   benchmarks/run.sh chain_dynamics          # about 30 minutes on 2 cores
study() {
  install_deps python3-matplotlib python3-numpy
  stamp_run lib benchmarks
  build_targets build-bench bench_chain_dynamics
  local budget="${BUDGET:-120}" bench="$build/benchmarks/bench_chain_dynamics" s
  export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}" OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
  local -A args status
  args[swing]="--scenario swing --sizes 10,100,1000,10000 --t-end 1 --dt 0.05 --tolerance 1e-5
    --variants kc-modified,kc-full,nokc-modified,nokc-full"
  args[release]="--scenario release --sizes 10,30,100,300,1000,3000 --t-end 1 --dt 0.02
    --tolerance 1e-5 --variants kc-modified,kc-full,nokc-modified"
  args[release_rho08]="--scenario release --sizes 100,300,1000 --t-end 1 --dt 0.02
    --tolerance 1e-5 --rho-inf 0.8 --variants kc-modified"
  args[swing_fixed]="--scenario swing --sizes 10,100,1000 --t-end 1 --dt 0.002 --tolerance 0
    --largest-step --variants kc-modified,nokc-modified"
  local studies=(swing release release_rho08 swing_fixed)
  start_runs
  for s in "${studies[@]}"; do
    status[$s]=0
    # shellcheck disable=SC2086
    "$bench" ${args[$s]} --budget "$budget" --csv "$results/chain_dynamics_$s.csv" \
      > "$tmp/$s.md" || status[$s]=$?
  done
  {
    header "Catenary chain dynamics: generalized-alpha, K_c and modified Newton"
    echo "Release build in \`$build\`, OMP_NUM_THREADS=$OMP_NUM_THREADS,"
    echo "on $(cpu_model) ($(nproc --all) cores),"
    echo "a budget of $budget s of wall time per run. Commands:"
    echo
    for s in "${studies[@]}"; do
      # shellcheck disable=SC2086
      echo "    $bench $(echo ${args[$s]}) --budget $budget --csv $results/chain_dynamics_$s.csv"
    done
    echo
    echo "Exit status (0: every run reached t_end within its budget):"
    for s in "${studies[@]}"; do echo "$s ${status[$s]};"; done | paste -sd' '
    for s in "${studies[@]}"; do
      echo
      sed -e '1s/^# /## /' "$tmp/$s.md"
    done
    echo
    echo "![cost per simulated second against N](chain_dynamics.png)"
    echo
    cat benchmarks/chain_dynamics_interpretation.md
  } > "$results/chain_dynamics.md"
  plot plot_chain_dynamics.py "$results"
  echo "wrote $results/chain_dynamics.md, chain_dynamics_*.csv and chain_dynamics.png" >&2
}
