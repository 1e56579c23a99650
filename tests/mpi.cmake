# MPI tests (label mpi, never unit: Open MPI leaks under LeakSanitizer): the distributed chain
# (parallel/, docs/parallel.md) against the serial catena, under mpiexec with 1, 2 and 4 ranks
# (4 oversubscribed on a 2-core machine).
add_executable(mpi_distributed_chain_test mpi/distributed_chain_test.cpp)
target_link_libraries(mpi_distributed_chain_test PRIVATE catena_parallel catena_analysis
                      Boost::unit_test_framework OpenMP::OpenMP_CXX MPI::MPI_CXX)
target_include_directories(mpi_distributed_chain_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support)
foreach(np 1 2 4)
  add_test(NAME mpi_distributed_chain_np${np}
           COMMAND ${MPIEXEC_EXECUTABLE} --allow-run-as-root --oversubscribe ${MPIEXEC_NUMPROC_FLAG}
                   ${np} ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpi_distributed_chain_test>
                   ${MPIEXEC_POSTFLAGS} --color_output=false)
  set_tests_properties(mpi_distributed_chain_np${np} PROPERTIES LABELS mpi TIMEOUT 120
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_pml=ob1;ASAN_OPTIONS=detect_leaks=0")
endforeach()

# The distributed modal analysis (parallel/distributed_modal.hpp) against the serial solveModal,
# the same way: 1, 2 and 4 ranks.
add_executable(mpi_distributed_modal_test mpi/distributed_modal_test.cpp)
target_link_libraries(mpi_distributed_modal_test PRIVATE catena_parallel catena_analysis
                      Boost::unit_test_framework OpenMP::OpenMP_CXX MPI::MPI_CXX)
target_include_directories(mpi_distributed_modal_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support)
foreach(np 1 2 4)
  add_test(NAME mpi_distributed_modal_np${np}
           COMMAND ${MPIEXEC_EXECUTABLE} --allow-run-as-root --oversubscribe ${MPIEXEC_NUMPROC_FLAG}
                   ${np} ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpi_distributed_modal_test>
                   ${MPIEXEC_POSTFLAGS} --color_output=false)
  set_tests_properties(mpi_distributed_modal_np${np} PROPERTIES LABELS mpi TIMEOUT 180
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_pml=ob1;ASAN_OPTIONS=detect_leaks=0")
endforeach()

# The distributed IDA dynamics (parallel/distributed_dynamics.hpp) against the serial
# integrateIda, the same way: 1, 2 and 4 ranks. Its thread test runs 2 OpenMP threads per rank:
# with 4 ranks that is 8 threads on the 2-core machine, where spinning OpenMP barriers cost 30x
# in assembly (and the test twice its time); passive waiting changes no result.
add_executable(mpi_distributed_dynamics_test mpi/distributed_dynamics_test.cpp)
target_link_libraries(mpi_distributed_dynamics_test PRIVATE catena_parallel catena_analysis
                      Boost::unit_test_framework OpenMP::OpenMP_CXX MPI::MPI_CXX)
target_include_directories(mpi_distributed_dynamics_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support)
foreach(np 1 2 4)
  add_test(NAME mpi_distributed_dynamics_np${np}
           COMMAND ${MPIEXEC_EXECUTABLE} --allow-run-as-root --oversubscribe ${MPIEXEC_NUMPROC_FLAG}
                   ${np} ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpi_distributed_dynamics_test>
                   ${MPIEXEC_POSTFLAGS} --color_output=false)
  set_tests_properties(mpi_distributed_dynamics_np${np} PROPERTIES LABELS mpi TIMEOUT 180
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_pml=ob1;OMP_WAIT_POLICY=passive;ASAN_OPTIONS=detect_leaks=0")
endforeach()

# catena-scale (drivers/catena_scale.cpp, docs/scaling.md) under mpiexec, checked by
# mpi/catena_scale_test.py: the same study on 1 and 2 ranks gives the same check values; a study
# stopped by SIGTERM and restarted gives the lines of an uninterrupted one; bad options fail; the
# modal analysis on 1 and 2 ranks gives the same frequencies; the dynamics on 1 and 2 ranks the
# same state to the integration error.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(mode ranks restart options modal dynamics)
    add_test(NAME mpi_catena_scale_${mode}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/mpi/catena_scale_test.py
                     --mpiexec ${MPIEXEC_EXECUTABLE} --scale $<TARGET_FILE:catena_scale>
                     --work ${CMAKE_CURRENT_BINARY_DIR}/catena_scale_${mode} ${mode})
    set_tests_properties(mpi_catena_scale_${mode} PROPERTIES LABELS mpi TIMEOUT 300
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_pml=ob1;OMP_NUM_THREADS=1;ASAN_OPTIONS=detect_leaks=0")
  endforeach()
endif()
