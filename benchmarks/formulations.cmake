# The rotation-matrix paper's double pendulum by the rotation-matrix formulations (IDA, two-step
# elimination) and catena's mixed-basis IDA: cost and error against the two-angle reference at
# the same tolerances (docs/rotation-matrix-bodies.md, results/double_pendulum_formulations.md).
add_executable(bench_double_pendulum_formulations double_pendulum_formulations.cpp)
target_link_libraries(bench_double_pendulum_formulations PRIVATE catena_rotation_matrix
                      catena_analysis catena_reference)
target_compile_definitions(bench_double_pendulum_formulations PRIVATE
  CATENA_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
# The Lagrangian facility's examples (pendulums, free top, Mechanism0, bar double pendulum):
# cost and error against their references, GGL and index 3, and the cost of the AD
# evaluations (docs/lagrangian-facility.md, results/lagrangian_examples.md).
add_executable(bench_lagrangian_examples lagrangian_examples.cpp)
target_link_libraries(bench_lagrangian_examples PRIVATE catena_lagrangian catena_reference)
target_include_directories(bench_lagrangian_examples PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
# Every formulation on the examples it can express, at the same accuracy: a tolerance sweep per
# formulation against each example's independent reference, the cheapest run that reaches the
# target (issue 7; docs/formulation-comparison.md, results/formulation_comparison.md).
add_executable(bench_formulation_comparison formulation_comparison.cpp)
target_link_libraries(bench_formulation_comparison PRIVATE catena_rotation_matrix catena_natural
                      catena_lagrangian catena_analysis catena_reference)
target_compile_definitions(bench_formulation_comparison PRIVATE
  CATENA_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
