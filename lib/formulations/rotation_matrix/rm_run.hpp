#pragma once
/// @file rm_run.hpp
/// What the rotation-matrix integrators (rm_dae_ida.hpp, rm_two_step.hpp) report.

#include <functional>
#include <string>

#include "core/status.hpp"
#include "formulations/rotation_matrix/rm_assembly.hpp"
#include "formulations/rotation_matrix/rm_model.hpp"

namespace catena::rm {

struct RmRunStats {
  long steps = 0;  ///< accepted steps
  long error_test_failures = 0;
  long rhs_evaluations = 0;       ///< ODE right-hand sides (two-step) or DAE residuals (IDA)
  long newton_iterations = 0;     ///< IDA only
  long convergence_failures = 0;  ///< IDA only
  long jacobian_evaluations = 0;  ///< IDA only
  long projections = 0;           ///< two-step only: steps after which the state was projected
  double wall_seconds = 0.0;
  RmDrift max_drift;  ///< over the observed states
};

/// Called at t0 and every output time; return false to stop (status stays ok).
using RmObserver = std::function<bool(const RmState&)>;

struct RmRunResult {
  Status status;
  RmState state;  ///< the last state reached
  RmRunStats stats;
  std::string method;
};

}  // namespace catena::rm
