#pragma once
/// @file scaling_study.hpp
/// The settings of a scaling study (drivers/catena_scale.cpp) from a YAML study file whose keys
/// are the driver's options, one per field of ScalingStudy below (docs/scaling.md has an example
/// file and what each analysis runs).

#include <string>
#include <vector>

namespace catena {

/// The longest chain of a study: the 10 N unknowns of its saddle-point systems (6 N velocities,
/// 4 N constraint rows) are numbered by the 32-bit Index, which 2.1e8 links would overflow
/// (docs/scaling.md, "Limits", has the memory such a run would need).
constexpr long kMaxChainLinks = 100000000;

struct ScalingStudy {
  std::string family = "chain";  ///< chain, lattice (four-bar, K x K cells), or model (input)
  /// A mechanism file (YAML, docs/input-format.md) run as family "model"; its size is its number
  /// of bodies (no sizes). A study file's `input` is relative to the study file.
  std::string input;
  std::string analysis = "statics";  ///< statics, modal (statics, then modes) or dynamics
  int modes = 4;                     ///< modal: the lowest modes computed
  double t_end = 0.1;                ///< dynamics: simulated time, s
  double rtol = 1e-6;                ///< dynamics: IDA's relative tolerance
  double segment = 0.0;       ///< dynamics: simulated s per restartable segment; 0: the whole run
  bool reproducible = false;  ///< dynamics (chain, input): bitwise the same on any rank count
  std::string linear_solver = "direct";  ///< statics' saddle-point solves: direct, iterative, schur
  std::vector<long> sizes;  ///< chain: links (even, 2 .. kMaxChainLinks); lattice: K (1 .. 20000);
                            ///< model: none
  int repeats = 1;          ///< runs per size
  std::string json;         ///< one JSON line per run; empty: stdout
  std::string checkpoint;   ///< restartable state; empty: <json>.ckpt
  /// How the runs' messages on stderr start: the program that runs them (catena-scale, `catena
  /// statics` under mpirun, the Python module).
  std::string program = "catena-scale";
};

/// Reads a study file. Throws InputError (file:line:column) for unknown keys, duplicate keys or
/// values of the wrong type; the values themselves are checked by checkScalingStudy.
ScalingStudy readScalingStudy(const std::string& file);

/// Checks the settings; throws catena::Error with what was expected and what came.
void checkScalingStudy(const ScalingStudy& study);

}  // namespace catena
