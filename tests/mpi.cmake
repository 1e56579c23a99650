# MPI tests (label mpi, never unit: Open MPI leaks under LeakSanitizer): the distributed models
# (parallel/, docs/parallel.md) against the serial catena, under mpiexec with 1, 2 and 4 ranks
# (4 oversubscribed on a 2-core machine).

# Open MPI as root, oversubscribed; ob1 (no shared-memory transport surprises in containers);
# passive OpenMP waiting: the thread tests run 2 threads per rank, 8 threads at 4 ranks on the
# 2-core machine, where spinning barriers cost 30x in assembly (and passive waiting changes no
# result); ranks waiting in MPI yield the core (Open MPI does so by itself only when one job
# oversubscribes, not when ctest -j2 runs two jobs side by side; docs/ci.md); LeakSanitizer off
# (Open MPI leaks).
set(CATENA_MPI_ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_pml=ob1;OMPI_MCA_mpi_yield_when_idle=1;OMP_WAIT_POLICY=passive;ASAN_OPTIONS=detect_leaks=0")

# mpi/NAME_test.cpp as ctest tests mpi_NAME_np{1,2,4}, each under mpiexec with that many ranks.
function(catena_mpi_test name timeout)
  add_executable(mpi_${name}_test mpi/${name}_test.cpp)
  target_link_libraries(mpi_${name}_test PRIVATE catena_parallel catena_analysis
                        Boost::unit_test_framework OpenMP::OpenMP_CXX MPI::MPI_CXX)
  target_include_directories(mpi_${name}_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support)
  foreach(np 1 2 4)
    add_test(NAME mpi_${name}_np${np}
             COMMAND ${MPIEXEC_EXECUTABLE} --allow-run-as-root --oversubscribe
                     ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS}
                     $<TARGET_FILE:mpi_${name}_test> ${MPIEXEC_POSTFLAGS} --color_output=false)
    set_tests_properties(mpi_${name}_np${np} PROPERTIES LABELS mpi TIMEOUT ${timeout}
                         ENVIRONMENT "${CATENA_MPI_ENVIRONMENT}")
  endforeach()
endfunction()

# The distributed chain: numbering, ghosts, assembly and statics against the serial catena.
catena_mpi_test(distributed_chain 120)
# PETSc options set by a test (the decomposition's parts).
target_link_libraries(mpi_distributed_chain_test PRIVATE PkgConfig::PETSC)
# The distributed modal analysis (modal/distributed_modal.hpp) against the serial solveModal.
# 300 s: on 4 ranks it is waiting, not computing (4.5 s of CPU): 33-41 s alone on the loaded
# 2-core machine, 139 s beside another MPI test under ctest -j2 (a failure under load, its log
# lost, most likely ran out of the former 180 s).
catena_mpi_test(distributed_modal 300)
# PETSc options set by a test (the eigensolver held to one restart).
target_link_libraries(mpi_distributed_modal_test PRIVATE PkgConfig::PETSC)
# The distributed IDA dynamics (integrators/distributed_dynamics.hpp) against the serial
# integrateIda.
catena_mpi_test(distributed_dynamics 180)
# The distributed IDA's results bit for bit the same on 1, 2 and 4 ranks: the 1-rank run writes
# the reference that the others compare with (a ctest fixture orders them).
catena_mpi_test(reproducible_dynamics 180)
foreach(np 1 2 4)
  set_property(TEST mpi_reproducible_dynamics_np${np} APPEND PROPERTY ENVIRONMENT
    "CATENA_REPRODUCIBLE_REFERENCE=${CMAKE_CURRENT_BINARY_DIR}/reproducible_dynamics_reference.txt")
endforeach()
set_tests_properties(mpi_reproducible_dynamics_np1 PROPERTIES FIXTURES_SETUP reproducible_reference)
set_tests_properties(mpi_reproducible_dynamics_np2 mpi_reproducible_dynamics_np4 PROPERTIES
                     FIXTURES_REQUIRED reproducible_reference)
# The distributed COO matrix (parallel/petsc_coo_matrix.hpp) against dense sums and PETSc's COO.
catena_mpi_test(coo_matrix 60)
target_link_libraries(mpi_coo_matrix_test PRIVATE PkgConfig::PETSC)
# The gathered KLU (solvers/gathered_klu.hpp) against Eigen's dense LU.
catena_mpi_test(gathered_klu 60)
# The distributed four-bar lattice (graph partition, parallel/lattice_part.hpp) against the
# serial statics and modes and the closed-form hanging lattice.
catena_mpi_test(distributed_lattice 180)
# Any model through the distributed analyses: YAML inputs partitioned by
# parallel/model_partition.hpp against the serial statics.
catena_mpi_test(model_partition 120)
target_compile_definitions(mpi_model_partition_test PRIVATE CATENA_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

# catena-scale (drivers/catena_scale.cpp, docs/scaling.md) under mpiexec, checked by
# mpi/catena_scale_test.py: the same study on 1 and 2 ranks gives the same check values; a study
# stopped by SIGTERM and restarted gives the lines of an uninterrupted one; bad options fail; the
# iterative saddle-point solver gives the direct one's check values; the modal analysis on 1 and
# 2 ranks gives the same frequencies; the lattice passes its closed-form checks on 1, 2 and 4
# ranks; the dynamics on 1 and 2 ranks the same state to the integration error, and a run in
# segments stopped and restarted bitwise the uninterrupted one; --reproducible dynamics bitwise
# the same on 1, 2 (1 and 2 threads) and 4 ranks; the lattice's
# dynamics on 1, 2 and 4 ranks passes its closed-form check and agrees to round-off; SIGTERM
# to mpiexec, kill -9 of a rank, damaged segment files and orphaned temporaries end in a restart
# with the uninterrupted lines (interrupt); running out of memory writes the run's line with
# the estimated need and exits 4 (memory); --input runs YAML models through the same distributed
# analyses and agrees with the serial catena (input).
find_package(Python3 COMPONENTS Interpreter)
# mpi/NAME_test.py MODE as ctest tests mpi_NAME_MODE, one per mode given, each in its own work
# folder, with the programs and inputs it runs.
function(catena_scale_script_test name)
  foreach(mode ${ARGN})
    add_test(NAME mpi_${name}_${mode}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/mpi/${name}_test.py
                     --mpiexec ${MPIEXEC_EXECUTABLE} --scale $<TARGET_FILE:catena_scale>
                     --catena $<TARGET_FILE:catena_cli> --inputs ${PROJECT_SOURCE_DIR}/inputs
                     --work ${CMAKE_CURRENT_BINARY_DIR}/${name}_${mode} ${mode})
    set_tests_properties(mpi_${name}_${mode} PROPERTIES LABELS mpi TIMEOUT 300
      ENVIRONMENT "${CATENA_MPI_ENVIRONMENT};OMP_NUM_THREADS=1")
  endforeach()
endfunction()
if(Python3_Interpreter_FOUND)
  catena_scale_script_test(catena_scale ranks restart options iterative modal lattice dynamics
                           dynamics_restart reproducible lattice_dynamics interrupt memory input)
endif()

# Redundant constraint rows through catena-scale --input, checked by mpi/redundant_rows_test.py
# (docs/dynamics-redundant.md, "Distributed runs"): a merged four-bar lattice's dynamics on 1, 2
# and 4 ranks equal to round-off and to the serial catena simulate to the integration error,
# with the same rows left out; a start at a singular configuration stopped; the hanging
# lattice's statics with minimum-norm reactions and its modes against the lattice without
# redundant rows (dynamics, statics).
if(Python3_Interpreter_FOUND)
  catena_scale_script_test(redundant_rows dynamics statics)
endif()

# catena statics|modal|simulate under mpiexec (drivers/mpi_commands.hpp, docs/parallel.md
# "catena under mpirun"), checked by mpi/catena_mpirun_test.py: on 1, 2 and 4 ranks a YAML chain
# and a merged lattice with redundant rows give the serial command's JSON to round-off, rank 0
# alone writing (chain, lattice), and the serial IDA's time history (simulate); a model with
# fewer bodies than ranks or with a spring, check, --no-kc and simulate's gen-alpha refused
# (refused), a singular configuration bridged on 2 ranks (passage), SIGTERM between outputs
# (signal).
if(Python3_Interpreter_FOUND)
  catena_scale_script_test(catena_mpirun chain lattice simulate refused passage signal
                         coarse)
endif()
