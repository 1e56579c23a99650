#pragma once
/// @file dynamics.hpp
/// What every time integrator of catena shares: the equations it integrates, its statistics,
/// its result, and how it hands out the trajectory.
///
/// Equations of motion (DESIGN.md sign convention), mixed basis:
///   dr/dt = v_lin,  d rho/dt = 1/2 rho (x) (0, omega)     (3D; 2D: dq/dt = v)
///   M(q) dv/dt + C_q^T lambda = f(q, v, t)                 (f includes minus gyroscopic terms)
///   C(q, t) = 0
/// Integrators: integrators/ida_dynamics.hpp (SUNDIALS IDA, index 3 / GGL index 2 / index 1 with
/// projection) and integrators/generalized_alpha.hpp (Lie-group generalized-alpha, index 3).

#include <functional>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "model/state.hpp"

namespace catena {

/// Counters of one integration run, as SUNDIALS users know them.
struct DynamicsStats {
  long steps = 0;                 ///< accepted steps
  long rejected_steps = 0;        ///< error-test failures and step cuts after Newton failures
  long newton_iterations = 0;     ///< nonlinear iterations, all steps
  long jacobian_evaluations = 0;  ///< assemblies of the Newton (iteration) matrix
  long factorizations = 0;        ///< numeric factorizations of it
  long linear_solves = 0;         ///< solves with a factorization
  long error_test_failures = 0;
  long convergence_failures = 0;  ///< Newton iterations that did not converge
  double last_step = 0.0;         ///< s
  double smallest_step = 0.0;     ///< s, of the accepted steps
  double largest_step = 0.0;      ///< s, of the accepted steps
  long projections = 0;           ///< projections onto the constraints (IDA index 1: restarts)
};

/// Called at t0 and at every output time with the state there (q, v, lambda, t; lambda in the
/// joint F2 bases like statics). Return false to stop the run early (status stays ok).
using TrajectoryObserver = std::function<bool(const State&)>;

/// A singular configuration that the run's own integrator could not pass, integrated by MCS or
/// generalized-alpha instead (integrators/singular_passage.hpp).
struct SingularPassage {
  double from = 0.0;     ///< s, the bridge's start (the last output before the failure)
  double failure = 0.0;  ///< s, where the run's integrator failed or left its branch
  double to = 0.0;       ///< s, where the run resumed
  std::string why;       ///< the failure's first line
  std::string by;        ///< the bridge's integrator: "MCS" or "generalized-alpha"
};

struct DynamicsResult {
  Status status;  ///< not ok: why, at which time, with the worst residuals
  State state;    ///< the last state reached (the failure point if the run failed)
  DynamicsStats stats;
  std::string method;  ///< e.g. "IDA index-2 GGL (KLU)", "generalized-alpha rho_inf = 0.8"
  /// The constraint rows with the largest residuals at the failure (Model::rowName: value).
  std::vector<std::string> worst_rows;
  /// Rows found redundant at the start and left out of the integration (Model::rowName); the
  /// multipliers reported for every row are then the minimum-norm set
  /// (integrators/redundant_rows.hpp).
  std::vector<std::string> redundant_rows;
  /// With redundant_rows: which multipliers are reported for every row.
  std::string multipliers_note;
  /// Singular configurations passed by a generalized-alpha bridge, in time order.
  std::vector<SingularPassage> passages;
};

}  // namespace catena
