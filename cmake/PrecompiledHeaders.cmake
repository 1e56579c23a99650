# Eigen and the standard library, parsed once per build instead of once per file: about 3 s of
# every file's compile on the 2-core CI machine (docs/ci.md). Every target compiled by GCC that
# links Eigen and OpenMP takes the precompiled header of one of two owner targets, so that its
# flags match: position independent code (libraries linked by the Python module) or not. A
# precompiled header whose flags differ is ignored by GCC, which then warns (-Winvalid-pch) and
# reads the text: slower, never different. A file that forgets an #include it needs compiles
# here all the same: the fuzz build (clang, core library and loader) and
# -DCATENA_PRECOMPILE_HEADERS=OFF find it.
option(CATENA_PRECOMPILE_HEADERS "Precompile Eigen and standard headers (GCC)" ON)

set(CATENA_PCH_HEADERS
  <Eigen/Dense> <Eigen/Sparse>
  <algorithm> <array> <chrono> <cmath> <cstdint> <cstdlib> <cstring> <filesystem> <fstream>
  <functional> <iomanip> <iostream> <limits> <map> <memory> <numbers> <numeric> <optional>
  <random> <span> <sstream> <stdexcept> <string> <string_view> <unordered_map> <utility>
  <vector>)

# The targets defined in DIR and below it.
function(catena_targets_below dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    catena_targets_below(${sub} below)
    list(APPEND targets ${below})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# Which of Eigen3::Eigen and OpenMP::OpenMP_CXX TARGET links, directly or through catena's
# libraries: the precompiled header needs both (Eigen's path; -fopenmp defines macros it reads).
function(catena_pch_dependencies target out)
  set(found "")
  get_target_property(type ${target} TYPE)
  set(links "")
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(links ${target} LINK_LIBRARIES)
  endif()
  get_target_property(interface ${target} INTERFACE_LINK_LIBRARIES)
  foreach(lib IN LISTS links interface)
    if(lib STREQUAL "Eigen3::Eigen" OR lib STREQUAL "OpenMP::OpenMP_CXX")
      list(APPEND found ${lib})
    elseif(TARGET ${lib} AND lib MATCHES "^catena")
      catena_pch_dependencies(${lib} below)
      list(APPEND found ${below})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES found)
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# Gives every C++ target below the source tree that links Eigen and OpenMP the precompiled
# header of its owner.
function(catena_precompile_headers)
  if(NOT CATENA_PRECOMPILE_HEADERS OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    return()
  endif()
  foreach(pic OFF ON)
    add_library(catena_pch_${pic} OBJECT EXCLUDE_FROM_ALL
                ${PROJECT_SOURCE_DIR}/cmake/precompiled_headers.cpp)
    target_link_libraries(catena_pch_${pic} PRIVATE Eigen3::Eigen OpenMP::OpenMP_CXX)
    set_target_properties(catena_pch_${pic} PROPERTIES POSITION_INDEPENDENT_CODE ${pic})
    target_precompile_headers(catena_pch_${pic} PRIVATE ${CATENA_PCH_HEADERS})
  endforeach()
  catena_targets_below(${PROJECT_SOURCE_DIR} targets)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$"
       OR target MATCHES "^catena_pch_")
      continue()
    endif()
    catena_pch_dependencies(${target} dependencies)
    list(LENGTH dependencies count)
    if(count LESS 2)
      continue()
    endif()
    get_target_property(pic ${target} POSITION_INDEPENDENT_CODE)
    if(type MATCHES "^(SHARED|MODULE)_LIBRARY$")
      set(pic ON)
    endif()
    if(pic)
      target_precompile_headers(${target} REUSE_FROM catena_pch_ON)
    else()
      target_precompile_headers(${target} REUSE_FROM catena_pch_OFF)
    endif()
  endforeach()
endfunction()
