#pragma once
/// @file scaling_study.hpp
/// The settings of a scaling study (drivers/catena_scale.cpp, docs/scaling.md), from a YAML
/// study file with the same keys as the driver's options:
///
///   family: chain            # model family: chain, or lattice (four-bar, K x K cells)
///   analysis: statics        # statics, modal (statics, then the lowest modes) or dynamics
///                            # (released at rest: the chain from its 'V', the lattice a
///                            # little off hanging; IDA GGL)
///   modes: 4                 # modal: how many modes
///   t_end: 0.1               # dynamics: simulated time, s
///   rtol: 1e-6               # dynamics: IDA's relative tolerance
///   segment: 0.05            # dynamics: simulated s per restartable segment (0: one; a
///                            # checkpoint after each, docs/parallel.md)
///   reproducible: false      # dynamics of the chain: bitwise the same on any rank and thread
///                            # count (halo parts, a redundant KLU on every rank: slower)
///   linear_solver: direct    # statics, modal's statics: direct (MUMPS) or iterative (augmented
///                            # Lagrangian, FGMRES + PCFIELDSPLIT; docs/parallel.md)
///   sizes: [10000, 100000]   # chain: links, each even, 2 .. 10^8; lattice: K for K x K cells
///   repeats: 3               # runs per size
///   json: results.jsonl      # one JSON line per run (optional; stdout otherwise)
///   checkpoint: study.ckpt   # restartable state (optional; default: <json>.ckpt)

#include <string>
#include <vector>

namespace catena {

/// The longest chain of a study: the 10 N unknowns of its saddle-point systems (6 N velocities,
/// 4 N constraint rows) are numbered by the 32-bit Index, which 2.1e8 links would overflow
/// (docs/scaling.md, "Limits", has the memory such a run would need).
constexpr long kMaxChainLinks = 100000000;

struct ScalingStudy {
  std::string family = "chain";
  std::string analysis = "statics";
  int modes = 4;              ///< modal: the lowest modes computed
  double t_end = 0.1;         ///< dynamics: simulated time, s
  double rtol = 1e-6;         ///< dynamics: IDA's relative tolerance
  double segment = 0.0;       ///< dynamics: simulated s per restartable segment; 0: the whole run
  bool reproducible = false;  ///< chain dynamics: bitwise the same on any rank count
  std::string linear_solver = "direct";  ///< statics' saddle-point solves: direct or iterative
  std::vector<long> sizes;
  int repeats = 1;
  std::string json;
  std::string checkpoint;
};

/// Reads a study file. Throws InputError (file:line:column) for unknown keys, duplicate keys or
/// values of the wrong type; the values themselves are checked by checkScalingStudy.
ScalingStudy readScalingStudy(const std::string& file);

/// Checks the settings; throws catena::Error with what was expected and what came.
void checkScalingStudy(const ScalingStudy& study);

}  // namespace catena
