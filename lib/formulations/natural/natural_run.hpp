#pragma once
/// @file natural_run.hpp
/// `catena simulate` on a `formulation: natural` input (docs/natural-coordinates.md), as one
/// call the CLI (drivers/simulate_natural.cpp) and the Python module share: a mechanism with
/// mass by IDA on the Lagrangian facility's DAE (momentum form, AD) from the problem's initial
/// guess made consistent (its `fixed` coordinates kept); one without mass kinematically, its
/// `fixed` coordinates driven at their given velocities (natural_kinematics_run.hpp).

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "formulations/natural/natural_yaml.hpp"

namespace catena::natural {

struct NaturalRunOptions {
  double t_end = 1.0;            ///< s (absolute)
  double output_interval = 0.0;  ///< s, > 0
  bool index3 = false;           ///< IDA on the index-3 form instead of GGL (index 2)
  double rtol = 1e-6, atol = 1e-8;
};

/// The options `catena simulate` runs `problem` with: to t0 + duration (s; 0: the problem's
/// t_end), an output every output_interval (s; 0: a 500th of the duration).
NaturalRunOptions naturalRunOptions(const NaturalProblem& problem, double duration,
                                    double output_interval);

/// What one run produced, whichever way it ran.
struct NaturalRun {
  std::string method;
  Status status;
  double t_reached = 0.0;  ///< s
  long steps = 0, newton_iterations = 0, residual_evaluations = 0, jacobian_evaluations = 0,
       error_test_failures = 0, convergence_failures = 0;
  double energy_initial = std::numeric_limits<double>::quiet_NaN(),  ///< J (dynamics)
      energy_final = std::numeric_limits<double>::quiet_NaN(), max_kinetic = 0.0;
  Index rank = -1, free_dof = -1;       ///< kinematic runs (NaturalKinematicsStats)
  std::vector<std::string> worst_rows;  ///< on failure: the largest residuals, by name
};

/// Called at t0 and every output time with t (s), q and q' (nq each), the energy (Jacobi
/// integral, J; 0 for kinematics), max |C| and max |C_q q'|; return false to stop (status ok).
using NaturalRunObserver = std::function<bool(double t, const VecX& q, const VecX& v, double energy,
                                              double max_c, double max_cv)>;

/// Runs `input` to options.t_end: kinematics if isMassless(input.model), else IDA. Never throws
/// on numerical failure (an inconsistent start, a failed step: Status naming why and when).
NaturalRun runNaturalSimulation(const NaturalInput& input, const NaturalRunOptions& options,
                                const NaturalRunObserver& observer);

}  // namespace catena::natural
