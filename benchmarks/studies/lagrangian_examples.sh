# Lagrangian facility: examples against their references (lagrangian_examples.cpp).
#
# The Lagrangian facility's examples (pendulums, free top, Mechanism0, bar double pendulum): cost
# and error against their references, GGL and index 3, and the cost of the AD evaluations
# (docs/lagrangian-facility.md). Release in build-lagr unless BUILD_DIR says otherwise; about a
# minute. Writes benchmarks/results/lagrangian_examples.md (the program's tables and the
# hand-written notes kept from the previous file).
#
#   benchmarks/run.sh lagrangian_examples              # --repeats 3
#   benchmarks/run.sh lagrangian_examples --repeats 5  # options go to the program
study() {
  stamp_run lib benchmarks
  build_targets build-lagr bench_lagrangian_examples
  program_study "Lagrangian facility: examples against their references" lagrangian_examples \
    --repeats 3 "$@"
}
