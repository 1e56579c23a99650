# Double pendulum: rotation-matrix formulations vs mixed basis (double_pendulum_formulations.cpp).
#
# The rotation-matrix paper's double pendulum by the rotation-matrix formulations (IDA, two-step
# elimination) and catena's mixed-basis IDA: cost and error against the two-angle reference at
# the same tolerances (docs/rotation-matrix-bodies.md). Release in build-rotmat unless BUILD_DIR
# says otherwise; about a minute. Writes benchmarks/results/double_pendulum_formulations.md (the
# program's table and the hand-written notes kept from the previous file).
#
#   benchmarks/run.sh double_pendulum_formulations              # --t-end 5 --repeats 3
#   benchmarks/run.sh double_pendulum_formulations --repeats 5  # options go to the program
study() {
  stamp_run lib benchmarks
  build_targets build-rotmat bench_double_pendulum_formulations
  program_study "Double pendulum: rotation-matrix formulations vs catena's mixed basis" \
    double_pendulum_formulations --t-end 5 --repeats 3 "$@"
}
