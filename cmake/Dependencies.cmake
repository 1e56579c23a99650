# All dependencies come from Debian 12 packages (../shared/TOOLCHAIN.md). A missing one stops
# configure with the name of the package to install.

function(catena_missing what package)
  message(FATAL_ERROR
    "catena needs ${what}, which was not found.\n"
    "Install the Debian 12 package with:\n"
    "    sudo apt-get install ${package}\n"
    "or run scripts/quickstart.sh, which installs every dependency.")
endfunction()

find_package(Eigen3 3.4 QUIET NO_MODULE)
if(NOT Eigen3_FOUND)
  catena_missing("Eigen 3.4" libeigen3-dev)
endif()

find_package(OpenMP QUIET)
if(NOT OpenMP_CXX_FOUND)
  catena_missing("OpenMP" "g++ (libgomp)")
endif()

find_package(yaml-cpp 0.7 QUIET)
if(NOT yaml-cpp_FOUND)
  catena_missing("yaml-cpp 0.7" libyaml-cpp-dev)
endif()

if(CATENA_FUZZ)
  return()  # the fuzz build needs only the loader's dependencies
endif()

find_package(Boost 1.74 QUIET COMPONENTS unit_test_framework)
if(NOT Boost_FOUND)
  catena_missing("Boost.Test 1.74" libboost-test-dev)
endif()

find_package(MPI QUIET COMPONENTS C CXX)  # before SUNDIALS: its targets use MPI::MPI_C
if(NOT MPI_FOUND)
  catena_missing("MPI (Open MPI)" "libopenmpi-dev openmpi-bin")
endif()

find_package(SUNDIALS 6.4 QUIET COMPONENTS ida arkode nvecserial)
if(NOT SUNDIALS_FOUND)
  catena_missing("SUNDIALS 6.4" libsundials-dev)
endif()

find_package(PkgConfig QUIET)
if(NOT PkgConfig_FOUND)
  catena_missing("pkg-config" pkg-config)
endif()
pkg_check_modules(PETSC QUIET IMPORTED_TARGET PETSc>=3.18)
if(NOT PETSC_FOUND)
  catena_missing("PETSc 3.18" petsc-dev)
endif()
pkg_check_modules(SLEPC QUIET IMPORTED_TARGET SLEPc>=3.18)
if(NOT SLEPC_FOUND)
  catena_missing("SLEPc 3.18" slepc-dev)
endif()
# Debian's .pc files carry the packages' own build flags (-Wdate-time -D_FORTIFY_SOURCE=2), not
# requirements of their interfaces: dropped, so that every catena target compiles with the same
# flags and shares one precompiled header (cmake/PrecompiledHeaders.cmake).
foreach(target PkgConfig::PETSC PkgConfig::SLEPC)
  get_target_property(options ${target} INTERFACE_COMPILE_OPTIONS)
  if(options)
    list(REMOVE_ITEM options -Wdate-time -D_FORTIFY_SOURCE=2)
    set_target_properties(${target} PROPERTIES INTERFACE_COMPILE_OPTIONS "${options}")
  endif()
endforeach()

# SuiteSparse 5.12 has neither a CMake config nor pkg-config files.
find_path(SUITESPARSE_INCLUDE_DIR SuiteSparseQR.hpp PATH_SUFFIXES suitesparse)
foreach(lib spqr cholmod klu amd camd btf suitesparseconfig)
  find_library(SS_${lib}_LIBRARY NAMES ${lib})
  if(NOT SS_${lib}_LIBRARY)
    catena_missing("SuiteSparse (${lib})" libsuitesparse-dev)
  endif()
endforeach()
if(NOT SUITESPARSE_INCLUDE_DIR)
  catena_missing("SuiteSparse headers" libsuitesparse-dev)
endif()
if(NOT TARGET SuiteSparse::SPQR)
  add_library(SuiteSparse::SPQR INTERFACE IMPORTED)
  target_include_directories(SuiteSparse::SPQR SYSTEM INTERFACE ${SUITESPARSE_INCLUDE_DIR})
  target_link_libraries(SuiteSparse::SPQR INTERFACE
    ${SS_spqr_LIBRARY} ${SS_cholmod_LIBRARY} ${SS_suitesparseconfig_LIBRARY})
endif()
if(NOT TARGET SuiteSparse::KLU)
  add_library(SuiteSparse::KLU INTERFACE IMPORTED)
  target_include_directories(SuiteSparse::KLU SYSTEM INTERFACE ${SUITESPARSE_INCLUDE_DIR})
  target_link_libraries(SuiteSparse::KLU INTERFACE ${SS_klu_LIBRARY} ${SS_amd_LIBRARY} ${SS_camd_LIBRARY} ${SS_btf_LIBRARY}
    ${SS_suitesparseconfig_LIBRARY})
endif()
