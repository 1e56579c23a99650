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
