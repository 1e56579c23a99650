# The double four-bar through its singular configurations (singular_passage.cpp, issue 28).
#
# inputs/double_four_bar.yaml and inputs/double_four_bar_3d.yaml (full revolutes, 6 redundant
# rows) for 10 s through their horizontal configurations by generalized-alpha (error control and
# fixed steps), IDA index 2, 1 and 3, MCS and Runge-Kutta at tolerances 1e-4 .. 1e-10, against the
# parallelogram motion in closed form. Release in build unless BUILD_DIR says otherwise; about a
# minute. Writes benchmarks/results/singular_passage.md (the program's table and the hand-written
# notes kept from the previous file).
#
#   benchmarks/run.sh singular_passage
study() {
  stamp_run lib benchmarks
  build_targets build bench_singular_passage
  program_study "The double four-bar through its singular configurations, every integrator" \
    singular_passage --t-end 10 "$@"
}
