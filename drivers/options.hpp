#pragma once
/// @file options.hpp
/// The one command-line parser of catena (every command) and catena-scale (STYLE.md rule 14):
/// long options "--name [VALUE]" checked against the command's own (an option of another
/// command is named as such), positional arguments, -h/--help, and single-dash options passed
/// through to PETSc/SLEPc. Numbers are read strictly: the whole string, finite, in range, no
/// integer overflow. A bad command line throws UsageError (exit status 2) before any model is
/// read or PETSc starts.

#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace catena::cli {

/// A bad command line. what() names the option, what it expects and what came, without the
/// program's name (the driver prefixes "catena simulate: ").
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The values a real-valued option accepts: finite numbers between min and max, each end open
/// (excluded) or closed; an infinite end is no bound. NaN and infinities are always refused.
struct RealRange {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false, max_open = false;
  std::string_view unit;  ///< for the message: "s", "Hz"; may be empty
  std::string_view note;  ///< for the message, after the range: why, or what a value means

  static RealRange greaterThan(double min, std::string_view unit = {}, std::string_view note = {}) {
    return {min, std::numeric_limits<double>::infinity(), true, false, unit, note};
  }
  static RealRange atLeast(double min, std::string_view unit = {}, std::string_view note = {}) {
    return {min, std::numeric_limits<double>::infinity(), false, false, unit, note};
  }
  /// (min, max)
  static RealRange open(double min, double max) { return {min, max, true, true, {}, {}}; }
  /// [min, max)
  static RealRange closedOpen(double min, double max, std::string_view note = {}) {
    return {min, max, false, true, {}, note};
  }
};

/// `text` read as a real number in `range`: a decimal or exponent form (an optional leading
/// '+'), consumed whole. Throws UsageError "OPTION expects a finite number > 0 s, got 'TEXT'".
double parseReal(std::string_view option, std::string_view text, const RealRange& range);

/// `text` read as an integer in [min, max] (decimal, an optional leading '+'), consumed whole;
/// overflow is refused, not wrapped. Throws UsageError "OPTION expects an integer >= 1, got
/// 'TEXT'".
long long parseInteger(std::string_view option, std::string_view text, long long min = 0,
                       long long max = std::numeric_limits<long long>::max());

/// A comma-separated list of integers, each in [min, max] (parseInteger), at least one.
std::vector<long long> parseIntegerList(std::string_view option, std::string_view text,
                                        long long min, long long max);

/// An option of a command: "--name" and whether a value follows it.
struct OptionSpec {
  std::string_view name;
  bool takes_value = false;
};

/// A command and its options. A program lists all its commands, so that an option of one
/// command given to another is refused with the commands it belongs to.
struct CommandSpec {
  std::string_view name;
  std::vector<OptionSpec> options;
};

/// A parsed command line.
struct CommandLine {
  std::vector<std::pair<std::string, std::string>> options;  ///< in order; a flag's value ""
  std::vector<std::string> arguments;                        ///< positional (the FILE)
  bool help = false;                                         ///< -h or --help was given
  /// argv for PETSc: the program's name, the single-dash options and their values, nullptr
  /// (MPI_Init walks argv to argv[argc]). Points into the argv given to parseCommandLine.
  std::vector<char*> petsc;

  bool has(std::string_view option) const;
  /// The single-dash options passed to PETSc, without their values.
  std::vector<std::string> petscOptions() const;
  int petscArgc() const { return static_cast<int>(petsc.size()) - 1; }
};

/// Parses argv[first..argc) as a command line of `program`'s command `command`. A word that
/// starts with "--" must be one of the command's options (its value, if it takes one, is the
/// next word whatever it is); "-h" and "--help" set `help`; another word that starts with '-' is
/// a PETSc option, followed by its value when the next word does not start with '-'; the rest
/// are positional arguments. Throws UsageError for an option of another command, an unknown
/// option, or a missing value.
CommandLine parseCommandLine(int argc, char** argv, int first, std::string_view command,
                             const std::vector<CommandSpec>& program);

/// Prints "PROGRAM: warning: PETSc option -NAME was not used" on stderr for each option.
void warnUnusedPetscOptions(std::string_view program, const std::vector<std::string>& options);

/// Warns at the end of its scope, whichever way the run ends, of the PETSc options nothing read:
/// warnUnusedPetscOptions(program, unused()). Declared after the PetscSession whose
/// unusedOptions() `unused` returns, so that it ends before the session does.
class UnusedPetscOptionsWarning {
 public:
  UnusedPetscOptionsWarning(std::string program, std::function<std::vector<std::string>()> unused)
      : program_(std::move(program)), unused_(std::move(unused)) {}
  ~UnusedPetscOptionsWarning();
  UnusedPetscOptionsWarning(const UnusedPetscOptionsWarning&) = delete;
  UnusedPetscOptionsWarning& operator=(const UnusedPetscOptionsWarning&) = delete;

 private:
  std::string program_;
  std::function<std::vector<std::string>()> unused_;
};

}  // namespace catena::cli
