#pragma once
/// @file statics.hpp
/// Static equilibrium (tangent-stiffness paper, section 4): Newton on
///   R = [ f(q) - C_q^T lambda ; C(q, t) ] = 0
/// with the tangent [ K + K_c, C_q^T ; C_q, 0 ], K = -df/dq, K_c = d(C_q^T lambda)/dq, solved by
/// SaddlePointSolver; quaternions are updated on the manifold (rho exp(theta)). Steps are damped
/// by Deuflhard's natural monotonicity test (affine covariant: the simplified Newton correction
/// at the trial point must shrink), which keeps the iteration count of a chain from its 'V'
/// independent of N; a residual-merit line search did not (6 iterations at N = 100, 26 at 10^4).
/// A step is also shortened so that no body turns by more than max_rotation_step.
/// Scaling all loads would not help: the tangent scales with them. Convergence is a hard flag:
/// a failed run says why.
///
/// Converged means: every body's force residual against the forces on that body, and every
/// joint's constraint residual against that joint's size (analysis/scales.hpp:
/// bodyForceResidual, jointPositionResidual), below the tolerances. Not against the largest
/// force of the model, which let a 1 g pendulum beside a 1000 t body "converge" where it
/// started, nor against the mechanism's size, which tightened the test of a 10^6-link chain
/// below round-off. Tolerances below round-off are taken at round-off (kRoundoffTolerance).

#include <functional>
#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "core/status.hpp"
#include "model/state.hpp"

namespace catena {

struct StaticsIteration {
  double force_residual;     ///< max over bodies of |f - C_q^T lambda| / the body's forces
  double position_residual;  ///< max over joints of |C| / the joint's size (rotations: rad)
  double step;               ///< damped Newton step length (1: full step)
};

struct StaticsOptions {
  bool constraint_stiffness = true;   ///< include K_c in the tangent (the paper's point)
  int max_iterations = 100;           ///< Newton iterations
  double force_tolerance = 1e-9;      ///< on each body's |f - C_q^T lambda| / its forces
  double position_tolerance = 1e-10;  ///< on each joint's |C| / its size (rotations: rad)
  double min_step = 1e-6;             ///< smallest damped Newton step tried
  /// rad: a Newton step is shortened so that no body turns by more than this in one iteration.
  /// The linearized constraints mean nothing at a turn of a radian: from a 0.5 rad lean, a
  /// 24-level four-bar lattice's first step (0.29 of the full one) left the joints 32 m apart,
  /// and the iteration wandered to a failure (statics_test, leaning_lattice_reaches_hanging).
  /// Deuflhard's test (above) does not see it. INFINITY: no limit.
  double max_rotation_step = 0.5;
  std::string petsc_prefix = "statics_";  ///< PETSc options prefix of the linear solver
  /// Called after each Newton iteration (0: the initial residual) with its residuals, for
  /// progress reports; empty: not called. It must not throw.
  std::function<void(int iteration, const StaticsIteration& residuals)> on_iteration;
};

struct StaticsResult {
  Status status;
  State state;  ///< the equilibrium (or the last iterate on failure): q and lambda
  std::vector<StaticsIteration> history;
  double force_scale = 1.0;   ///< N: largest applied generalized force at the start (reported)
  double length_scale = 1.0;  ///< m: size of the mechanism
  std::string linear_solver;  ///< factorization package used
  /// Linear-algebra cost (wall seconds): numeric factorizations of the saddle-point matrix (the
  /// first includes the symbolic analysis) and solves with them, the multiplier estimate included.
  int factorizations = 0, solves = 0;
  double factor_seconds = 0.0, solve_seconds = 0.0;
  /// The constraint rows with the largest residuals at the last iterate (Model::rowName).
  std::vector<std::string> worst_rows;
  /// On success: bodies whose equilibrium round-off cannot resolve (a very stiff element), so
  /// that their reactions are not meaningful to many digits. Empty when all is well.
  std::vector<std::string> warnings;
};

StaticsResult solveStatics(const Model& model, const AssemblyPlan& plan, State start,
                           const StaticsOptions& options = {});

}  // namespace catena
