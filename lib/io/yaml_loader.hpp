#pragma once
/// @file yaml_loader.hpp
/// The YAML mechanism format (docs/input-format.md) -> ModelBuilder -> Model, plus the run
/// options of the `analysis:` section. Every problem is reported as an InputError whose message
/// names the file, the line and the column, e.g.
///   inputs/pendulum.yaml:12:5: error: body 'bob': mass must be positive and finite, got -1 kg
/// Unknown keys, duplicate keys, wrong types, wrong vector lengths, NaN/Inf, unknown joint types,
/// missing bodies or markers, duplicate names, bad masses and inertias are all such errors.

#include <cstddef>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "model/model.hpp"

namespace catena {

/// A bad input file. what() is the full "file:line:col: error: message" text.
class InputError : public Error {
 public:
  InputError(std::string file, int line, int column, const std::string& message);
  const std::string& file() const { return file_; }
  int line() const { return line_; }      ///< 1-based; 0 if unknown
  int column() const { return column_; }  ///< 1-based; 0 if unknown
 private:
  std::string file_;
  int line_, column_;
};

/// Settings of the `analysis:` section.
struct RunOptions {
  std::string analysis = "check";  ///< check | statics | modal | simulate
};

struct LoadedInput {
  Model model;
  RunOptions options;
  /// Non-fatal remarks, each "file:line:col: warning: ..." (e.g. a normalized quaternion).
  std::vector<std::string> warnings;
};

/// The input-size limit: CATENA_MAX_INPUT_BYTES from the environment if set (a positive
/// integer; anything else throws Error), else 256 MiB.
std::size_t defaultMaxInputBytes();

struct LoaderLimits {
  /// Largest model a generator may build from one file; the fuzzer lowers it.
  long max_generated_bodies = 20'000'000;
  /// Largest input file, bytes: reading stops there with an error (so an endless input such
  /// as /dev/zero ends; docs/reliability.md, "Answers").
  std::size_t max_input_bytes = defaultMaxInputBytes();
};

/// Reads and validates a mechanism file. Throws InputError.
LoadedInput loadMechanismFile(const std::string& path, const LoaderLimits& limits = {});
/// Throws InputError "FILE: error: the mechanism has no bodies: nothing to analyse" if `model`
/// has none. The analyses call it after loading; a file without bodies is still a valid file
/// (`catena check` accepts it, and loadMechanismFile does not refuse it).
void requireBodies(const Model& model, const std::string& file);

/// Same for text held in memory; source_name is used in messages in place of a file name.
LoadedInput loadMechanismString(const std::string& text, const std::string& source_name,
                                const LoaderLimits& limits = {});

}  // namespace catena
