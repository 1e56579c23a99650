# Unity builds: the files of each multi-file target compiled in batches of 8, so that the Eigen,
# PETSc and SUNDIALS templates they share are instantiated once per batch instead of once per
# file. The library's Release compile: 438 -> 327 CPU-s, 240 -> 186 s on 2 cores (docs/ci.md).
# Off by default: a change to one file recompiles its batch. scripts/test.sh and
# scripts/quickstart.sh, which build from scratch, turn it on. A name at namespace scope in an
# anonymous namespace must then be unique across the target's files: the default build and the
# fuzz build (off) still compile each file alone, so a missing #include is found there.
option(CATENA_UNITY_BUILD "Compile each multi-file target in batches of 8 files" OFF)

# Turns on the unity build for every target below the source tree with more than one source.
function(catena_unity_build)
  if(NOT CATENA_UNITY_BUILD)
    return()
  endif()
  catena_targets_below(${PROJECT_SOURCE_DIR} targets)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY")
      continue()
    endif()
    get_target_property(sources ${target} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.(cpp|cc|cxx)$")
    list(LENGTH sources count)
    if(count GREATER 1)
      set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
    endif()
  endforeach()
endfunction()
