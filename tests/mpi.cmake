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
