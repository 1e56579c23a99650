# Alternative formulations (lib/formulations/): unit tests of the rotation-matrix bodies' kernels
# and derivatives (finite differences, KKT and Kronecker oracles), and the double pendulum of the
# rotation-matrix paper against its two-angle reference and catena's mixed-basis IDA
# (docs/rotation-matrix-bodies.md).
foreach(name rm_body rm_joints rm_model rm_two_step rm_dae_ida)
  catena_test(formulations_${name}_test unit unit/formulations/${name}_test.cpp)
  target_link_libraries(formulations_${name}_test PRIVATE catena_rotation_matrix)
endforeach()
target_compile_definitions(formulations_rm_model_test PRIVATE CATENA_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
catena_verification_test(rm_double_pendulum_test verification/rm_double_pendulum_test.cpp)
target_link_libraries(rm_double_pendulum_test PRIVATE catena_rotation_matrix catena_reference)

# The Lagrangian facility (lib/formulations/lagrangian/, docs/lagrangian-facility.md): AD
# derivatives and the AD-formed Newton matrix against finite differences; the examples
# (Cartesian pendulums, free top, Mechanism0, the bar double pendulum) against their
# minimal-coordinate references and invariants.
foreach(name lagrangian_ad lagrangian_dae)
  catena_test(formulations_${name}_test unit unit/formulations/${name}_test.cpp)
  target_link_libraries(formulations_${name}_test PRIVATE catena_lagrangian catena_reference)
endforeach()
catena_verification_test(lagrangian_examples_test verification/lagrangian_examples_test.cpp)
target_link_libraries(lagrangian_examples_test PRIVATE catena_lagrangian catena_reference)

# Natural coordinates (lib/formulations/natural/, docs/natural-coordinates.md): the paper's
# examples from inputs/natural/ (Table 4 counts, robot kinematics, AD vs finite differences,
# YAML errors), and their dynamics against references and invariants.
catena_test(formulations_natural_model_test unit unit/formulations/natural_model_test.cpp)
target_link_libraries(formulations_natural_model_test PRIVATE catena_natural)
target_compile_definitions(formulations_natural_model_test PRIVATE CATENA_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
catena_test(formulations_natural_ad_dynamic_test unit unit/formulations/natural_ad_dynamic_test.cpp)
target_link_libraries(formulations_natural_ad_dynamic_test PRIVATE catena_natural)
target_compile_definitions(formulations_natural_ad_dynamic_test PRIVATE CATENA_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
catena_test(formulations_natural_kinematics_run_test unit unit/formulations/natural_kinematics_run_test.cpp)
target_link_libraries(formulations_natural_kinematics_run_test PRIVATE catena_natural)
target_compile_definitions(formulations_natural_kinematics_run_test PRIVATE CATENA_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
catena_verification_test(natural_examples_test verification/natural_examples_test.cpp)
target_link_libraries(natural_examples_test PRIVATE catena_natural catena_reference)

# `catena simulate` on every natural-coordinates example of inputs/natural/ (IDA on the
# Lagrangian DAE; the massless robot kinematically under its drivers), an option that does not
# apply there, and the mixed-basis commands refusing the natural format with a pointer to it.
foreach(stem mechanism0 mechanism0_torque free_top rscr bar_double_pendulum)
  catena_cli_test(sample_simulate_natural_${stem} simulate_pendulum.expected
                  ARGS simulate --terse
                       --csv ${CMAKE_CURRENT_BINARY_DIR}/natural_${stem}.trajectory.csv
                       --json ${CMAKE_CURRENT_BINARY_DIR}/natural_${stem}.simulate.json
                       ${PROJECT_SOURCE_DIR}/inputs/natural/${stem}.yaml)
endforeach()
catena_cli_test(sample_simulate_natural_closed_chain_robot simulate_natural_kinematics.expected
                ARGS simulate --terse --csv ${CMAKE_CURRENT_BINARY_DIR}/natural_robot.trajectory.csv
                     --json ${CMAKE_CURRENT_BINARY_DIR}/natural_robot.simulate.json
                     ${PROJECT_SOURCE_DIR}/inputs/natural/closed_chain_robot.yaml)
catena_cli_test(sample_simulate_natural_bad_option simulate_natural_bad_option.expected FAIL
                ARGS simulate --vtk out ${PROJECT_SOURCE_DIR}/inputs/natural/rscr.yaml)
catena_cli_test(sample_check_natural_input check_natural_input.expected FAIL
                ARGS check ${PROJECT_SOURCE_DIR}/inputs/natural/rscr.yaml)
