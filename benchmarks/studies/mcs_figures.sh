# The figures of the projection-continuation and QRCP papers from catena's MCS integrator.
#
# Issue 5, item 4: runs `catena simulate --formulation mcs` with --continuation on and off on
# the papers' examples, then benchmarks/plot_mcs_figures.py. Release in build-mcs unless
# BUILD_DIR says otherwise; the runs' CSV/JSON go to $BUILD_DIR/mcs_figures, the plots to
# benchmarks/results/mcs_*.png and the commands to benchmarks/results/mcs_figures.md.
#
#   benchmarks/run.sh mcs_figures          # about 20 s
study() {
  install_deps python3-matplotlib python3-numpy
  stamp_run lib drivers
  build_targets build-mcs catena_cli
  data="$build/mcs_figures"
  catena="$build/bin/catena"
  commands=()
  mkdir -p "$data"
  mcs_pair modified_2x2_four_bar 1.7 1e-3
  mcs_pair double_four_bar 1.7 1e-3
  mcs_pair modified_triple_four_bar 1.7 1e-3
  mcs_pair spatial_pendulum 1.0 1e-3 --align-basis
  mcs_pair spatial_slider_crank 4.0 1e-3
  mcs_pair spin_top 5.0 1e-2
  /usr/bin/python3 benchmarks/plot_mcs_figures.py "$data" "$results"
  {
    header "Figures of the projection-continuation and QRCP papers, from catena"
    echo "The plots come from \`benchmarks/plot_mcs_figures.py $data $results\` after these runs:"
    echo
    echo '```sh'
    for c in "${commands[@]}"; do echo "$c"; done
    echo '```'
    echo
    echo "| figure | what it shows | paper |"
    echo "| --- | --- | --- |"
    echo "| \`mcs_2x2_r1.png\` | the 22 retained diagonal entries of R1 over time, modified 2x2 four-bar; one vanishes at each horizontal level (dotted: singular configurations found) | QRCP Fig. 14 |"
    echo "| \`mcs_double_r1.png\` | the 14 diagonal entries of R1, double four-bar; two vanish when the bars align | QRCP Fig. 2 |"
    echo "| \`mcs_2x2_qdot.png\` | q1', q2' with the traditional QR and with continuation, 2x2 four-bar | QRCP Fig. 15 |"
    echo "| \`mcs_triple_T.png\` | the rows of T of bar 1, modified triple four-bar, continuation (top) and traditional (bottom) | QRCP Figs. 10-11 |"
    echo "| \`mcs_spatial_pendulum_qdot.png\` | q1', q2', spatial pendulum (continuation with the aligned initial basis) | projection Fig. 9 |"
    echo "| \`mcs_spatial_pendulum_T.png\` | the columns of T, spatial pendulum | projection Fig. 10 |"
    echo "| \`mcs_slider_crank_qdot.png\` | q1', spatial slider-crank: the traditional QR flips its sign | projection Fig. 6 |"
    echo "| \`mcs_spin_top_qdot.png\` | q1'..q3', spin top | projection Fig. 14 |"
    echo
    echo "Summaries of the runs (singular configurations, flips of T):"
    echo
    echo '```'
    for f in "$data"/*_continuation.txt "$data"/*_traditional.txt; do
      echo "== $(basename "$f" .txt)"
      grep -E "MCS:|singular configuration" "$f" || true
    done
    echo '```'
  } > "$results/mcs_figures.md"
  echo "wrote $results/mcs_*.png and $results/mcs_figures.md"
}

# mcs_pair STEM T_END OUTPUT_INTERVAL [extra options of the continuation run...]: the example
# inputs/STEM.yaml with the traditional QR and with continuation; the commands are recorded.
mcs_pair() {
  local stem="$1" t_end="$2" dt="$3"
  shift 3
  local mode
  for mode in traditional continuation; do
    local extra=()
    [ "$mode" = continuation ] && extra=("$@")
    local c=("$catena" simulate "inputs/$stem.yaml" --formulation mcs
      --continuation "$([ "$mode" = continuation ] && echo on || echo off)" --t-end "$t_end"
      --output-interval "$dt" --rtol 1e-9 --atol 1e-11 "${extra[@]}"
      --mcs-csv "$data/${stem}_$mode.mcs.csv" --csv "$data/${stem}_$mode.trajectory.csv"
      --json "$data/${stem}_$mode.simulate.json")
    "${c[@]}" > "$data/${stem}_$mode.txt"
    commands+=("${c[*]}")
  done
}
