# The rotation-matrix paper's double pendulum by the rotation-matrix formulations (IDA, two-step
# elimination) and catena's mixed-basis IDA: cost and error against the two-angle reference at
# the same tolerances (docs/rotation-matrix-bodies.md, results/double_pendulum_formulations.md).
add_executable(bench_double_pendulum_formulations double_pendulum_formulations.cpp)
target_link_libraries(bench_double_pendulum_formulations PRIVATE catena_rotation_matrix
                      catena_analysis catena_reference)
target_compile_definitions(bench_double_pendulum_formulations PRIVATE
  CATENA_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
