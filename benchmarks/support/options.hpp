#pragma once
/// @file options.hpp
/// The command line of a benchmark program: its own "--name [value]" options, read in order,
/// and the PETSc/SLEPc options it passes on to PetscSession.

#include <functional>
#include <initializer_list>
#include <string>
#include <variant>
#include <vector>

namespace catena::bench {

/// The program name and the PETSc/SLEPc options set aside from a command line, in the form
/// PetscSession(int* argc, char*** argv) takes them.
class PetscArgs {
 public:
  void add(char* arg) { args_.push_back(arg); }
  /// Number of options, the program name not counted.
  std::size_t count() const { return args_.empty() ? 0 : args_.size() - 1; }
  /// The options (not the program name) joined by single spaces.
  std::string joined() const;
  /// For PetscSession(argc(), argv()): argc and a null-terminated argv, valid while this
  /// object lives; add() must not be called afterwards.
  int* argc();
  char*** argv();

 private:
  std::vector<char*> args_, terminated_;
  int argc_ = 0;
  char** argv_ = nullptr;
};

/// Walks argv[1..argc-1]. Options bound to variables (Binding) are read by readAll() or
/// read(); others the program tests itself (is(), then value(), intValue(), ...); other()
/// handles an argument that is none of them. `usage(program, code)` prints the usage of the
/// program argv[0] (to stdout for code 0, else stderr) and exits with `code`. Numbers are read by
/// std::stoi, std::stod, ... (which throw std::invalid_argument on text that is not one); lists are
/// split at commas, empty items skipped, and their numbers read as doubles (so 1e5 is accepted).
///
///   OptionReader r(argc, argv, kUsage, OptionReader::kPetscOptions);
///   r.readAll({option("--sizes", o.sizes), flag("--no-modal", o.modal, false)});
///   PetscSession session(r.petsc().argc(), r.petsc().argv());
class OptionReader {
 public:
  using Usage = std::function<void(const char* program, int code)>;
  /// Whether arguments not starting with "--" are PETSc/SLEPc options (each with the value
  /// that follows it, if that does not start with '-') or unknown options.
  enum Others { kNoPetscOptions, kPetscOptions };

  /// Where a bound option's value goes. A bool is a flag without a value: `--name` sets it
  /// to `flag_value`.
  using Target =
      std::variant<bool*, int*, long*, unsigned*, double*, std::string*, std::vector<int>*,
                   std::vector<long>*, std::vector<double>*, std::vector<std::string>*>;
  struct Binding {
    const char* name;
    Target target;
    bool flag_value = true;
  };

  OptionReader(int argc, char** argv, Usage usage, Others others = kNoPetscOptions);
  /// The same with a usage that is a fixed text, printed as it is.
  OptionReader(int argc, char** argv, const std::string& usage_text,
               Others others = kNoPetscOptions);

  /// Reads every argument: a bound option into its target, anything else through other().
  void readAll(std::initializer_list<Binding> bindings);
  /// If the current argument is one of `bindings`, reads it (and its value) into its target
  /// and returns true; false otherwise.
  bool read(std::initializer_list<Binding> bindings);

  /// Moves to the next argument; false after the last.
  bool next();
  /// The current argument.
  const std::string& arg() const { return arg_; }
  bool is(const char* name) const { return arg_ == name; }

  /// The argument after the current one (consumed). None: "missing value after X", usage(2).
  std::string value();
  int intValue();
  long longValue();
  double doubleValue();
  /// Comma-separated numbers, read as doubles (so 1e5 is accepted) and converted.
  std::vector<int> intList();
  std::vector<long> longList();
  std::vector<double> doubleList();
  std::vector<std::string> stringList();

  /// The current argument is none of the program's options: --help or -h prints the usage
  /// and exits 0; a PETSc/SLEPc option (if accepted) is kept in petsc(); anything else is
  /// reported as "unknown option X" and exits 2 through the usage.
  void other();
  /// Prints `message` and a newline on stderr, then the usage with code 2.
  [[noreturn]] void fail(const std::string& message) const;

  PetscArgs& petsc() { return petsc_; }

 private:
  int argc_, i_ = 0;
  char** argv_;
  Usage usage_;
  Others others_;
  std::string arg_;
  PetscArgs petsc_;
};

/// A bound option `--name VALUE` read into `target` (a bool: `--name` alone sets it to true).
template <typename T>
OptionReader::Binding option(const char* name, T& target) {
  return {name, &target};
}

/// A flag `--name` (no value) that sets `target` to `value`.
inline OptionReader::Binding flag(const char* name, bool& target, bool value = true) {
  return {name, &target, value};
}

/// `text` split at `separator`; empty items are kept.
std::vector<std::string> split(const std::string& text, char separator = ',');

/// Comma-separated numbers ("1e-3,1e-4"); empty items are skipped. Throws
/// std::invalid_argument (std::stod) on an item that is not a number.
std::vector<double> numberList(const std::string& text);

}  // namespace catena::bench
