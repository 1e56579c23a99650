// catena: the command-line driver.
//
// Description:
//   Thin front end to the catena library. Each subcommand reads a YAML mechanism file
//   (docs/input-format.md), runs one analysis and prints a short table on stdout.
//
// Sample runs:
//   catena check inputs/anchor_chain.yaml
//   catena check inputs/double_four_bar.yaml
//
// Subcommands:
//   check FILE    validate the file, print the model summary and an assembly report
//                 (constraint violation of the initial state, matrix sizes, refill time)
//
// Exit status: 0 success, 1 invalid input or failed analysis, 2 bad command line.

#include <cstring>
#include <iostream>
#include <string>

#include "io/report.hpp"
#include "io/yaml_loader.hpp"

namespace {

constexpr const char* kUsage =
    "usage: catena <command> [options] FILE\n"
    "\n"
    "commands:\n"
    "  check FILE   validate a mechanism file; print its summary and an assembly report\n"
    "\n"
    "options:\n"
    "  -h, --help   this text\n"
    "\n"
    "Input format: docs/input-format.md. Units: SI.\n";

int runCheck(const std::string& path) {
  using namespace catena;
  // 1. Read and validate the file.
  LoadedInput input = loadMechanismFile(path);
  for (const std::string& w : input.warnings) std::cerr << w << "\n";
  // 2. Describe the model.
  printModelSummary(std::cout, input.model);
  // 3. Assemble at the initial state and report.
  printAssemblyReport(std::cout, computeAssemblyReport(input.model));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  try {
    if (command == "check") {
      if (argc != 3) {
        std::cerr << "catena check: expected exactly one FILE\n\n" << kUsage;
        return 2;
      }
      return runCheck(argv[2]);
    }
    std::cerr << "catena: unknown command '" << command << "'\n\n" << kUsage;
    return 2;
  } catch (const catena::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "catena: internal error: " << e.what() << "\n";
    return 1;
  }
}
