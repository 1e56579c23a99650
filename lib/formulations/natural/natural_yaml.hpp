#pragma once
/// @file natural_yaml.hpp
/// The `formulation: natural` YAML input (docs/natural-coordinates.md): a mechanism in natural
/// coordinates close in spirit to the paper's MechSpec, plus an initial-value problem. Every
/// problem is an InputError "file:line:col: error: message" (yaml-cpp's Mark).

#include <istream>
#include <string>
#include <vector>

#include "formulations/natural/natural_model.hpp"
#include "io/yaml_loader.hpp"

namespace catena::natural {

/// The `problem:` section: initial guess (q0, v0), flags of coordinates the consistent
/// projection keeps (the paper's fixedpositions), the time range.
struct NaturalProblem {
  double t0 = 0.0, t_end = 1.0;
  VecX q0, v0;
  std::vector<bool> fixed;  ///< nq flags
};

struct NaturalInput {
  NaturalModel model;
  NaturalProblem problem;
};

/// Reads a natural-coordinates mechanism. `file` names the source in error messages.
NaturalInput readNaturalInput(std::istream& in, const std::string& file);
NaturalInput loadNaturalInput(const std::string& path);

/// True if the file is YAML whose top level says `formulation: natural` (a peek for drivers
/// that read both formats; any other file, readable or not, is left to the other reader).
bool declaresNaturalFormulation(const std::string& path);

}  // namespace catena::natural
