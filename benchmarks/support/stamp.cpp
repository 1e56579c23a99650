#include "support/stamp.hpp"

#include <cstdlib>
#include <ctime>
#include <fstream>

#ifndef CATENA_BUILD_TYPE
#define CATENA_BUILD_TYPE "unknown"
#endif
#ifndef CATENA_CXX_FLAGS
#define CATENA_CXX_FLAGS "unknown"
#endif

namespace catena::bench {

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  return "unknown";
}

std::string localDate() {
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
  return date;
}

std::string commandLine(int argc, char** argv) {
  std::string command;
  for (int i = 0; i < argc; ++i) {
    if (i) command += ' ';
    command += argv[i];
  }
  return command;
}

std::string envOr(const char* name, const char* unset) {
  const char* v = std::getenv(name);
  return v ? v : unset;
}

const char* buildType() {
  return CATENA_BUILD_TYPE;
}

const char* cxxFlags() {
  return CATENA_CXX_FLAGS;
}

}  // namespace catena::bench
