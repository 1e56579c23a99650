#pragma once
/// @file stamp.hpp
/// What identifies a benchmark run in its own output: the machine, the date, the command line
/// and how the program was built. (The git revision and the load are stamped by
/// benchmarks/run.sh, which builds and runs the programs.)

#include <string>

namespace catena::bench {

/// "Intel(R) Xeon(R) ..." from /proc/cpuinfo; "unknown" if unavailable.
std::string cpuModel();

/// The local date and time now, "YYYY-MM-DD HH:MM:SS ZONE".
std::string localDate();

/// argv[0] .. argv[argc - 1] joined by single spaces.
std::string commandLine(int argc, char** argv);

/// The value of the environment variable `name`, or `unset` if it is not set.
std::string envOr(const char* name, const char* unset = "(unset)");

/// CMAKE_BUILD_TYPE of the build tree the benchmarks were compiled in ("unknown" if none).
const char* buildType();

/// CMAKE_CXX_FLAGS plus the flags of that build type ("unknown" if not recorded).
const char* cxxFlags();

}  // namespace catena::bench
