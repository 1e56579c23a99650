// catena: the command-line driver.
//
// Description:
//   Thin front end to the catena library. Each subcommand reads a YAML mechanism file
//   (docs/input-format.md), runs one analysis and prints a short table on stdout.
//
// Sample runs (each is a CTest regression test against inputs/reference/NAME.check):
//   catena check inputs/anchor_chain.yaml
//   catena check --terse inputs/double_four_bar.yaml
//
// Subcommands:
//   check [--terse] FILE   validate the file, print the model summary and an assembly report
//                          (constraint violation of the initial state, matrix sizes, refill
//                          time); --terse prints only machine-comparable key-value lines
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
    "  check [--terse] FILE   validate a mechanism file; print its summary and an assembly\n"
    "                         report (--terse: key-value lines for regression tests)\n"
    "\n"
    "options:\n"
    "  -h, --help   this text\n"
    "\n"
    "Input format: docs/input-format.md. Units: SI.\n";

int runCheck(const std::string& path, bool terse) {
  using namespace catena;
  // 1. Read and validate the file.
  LoadedInput input = loadMechanismFile(path);
  for (const std::string& w : input.warnings) std::cerr << w << "\n";
  // 2. Assemble at the initial state.
  const AssemblyReport report = computeAssemblyReport(input.model);
  // 3. Report.
  if (terse) {
    printTerseCheck(std::cout, input.model, report);
  } else {
    printModelSummary(std::cout, input.model);
    printAssemblyReport(std::cout, report);
  }
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
      const bool terse = argc == 4 && !std::strcmp(argv[2], "--terse");
      if (argc != 3 && !terse) {
        std::cerr << "catena check: expected [--terse] FILE\n\n" << kUsage;
        return 2;
      }
      return runCheck(argv[argc - 1], terse);
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
