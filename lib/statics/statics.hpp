#pragma once
/// @file statics.hpp
/// Static equilibrium (tangent-stiffness paper, section 4): damped Newton on
///   R = [ f(q) - C_q^T lambda ; C(q, t) ] = 0,  tangent [ K + K_c, C_q^T ; C_q, 0 ],
/// written once for one process and many ranks (analysis/space.hpp). Converged: every body's
/// force residual against the forces on it and every joint's residual against its size below
/// the tolerances (analysis/scales.hpp). docs/statics.md explains the damping, the scales and
/// the diagnostics.

#include <functional>
#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "core/status.hpp"
#include "model/state.hpp"
#include "solvers/kkt_solver.hpp"

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
  /// rad: a Newton step is shortened so that no body turns by more than this in one iteration
  /// (docs/statics.md, Damping). INFINITY: no limit.
  double max_rotation_step = 0.5;
  std::string petsc_prefix = "statics_";  ///< PETSc options prefix of the linear solver
  /// Called after each Newton iteration (0: the initial residual) with its residuals, for
  /// progress reports; empty: not called. It must not throw.
  std::function<void(int iteration, const StaticsIteration& residuals)> on_iteration;
  /// Asked before each Newton iteration with the number done; true ends the iteration there
  /// with Status kInterrupted and the last iterate in state (a batch job told to stop). Where
  /// the space is distributed it must give every rank the same answer (collective). Empty: never.
  std::function<bool(int iterations_done)> stop_requested;
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
  long krylov_iterations = 0;  ///< iterative KKT solves: Krylov iterations; direct: the solves
  /// The Schur-complement decomposition, if it solved the systems (parts > 0): the Newton
  /// solver's sizes, both solvers' counts and seconds (addSchurStats).
  SchurStats schur;
  /// Wall seconds of this rank making KKT solvers (patterns, analysis set-up) and assembling
  /// residuals and tangents (collective phases: ranks differ by imbalance and waiting).
  double setup_seconds = 0.0, assembly_seconds = 0.0;
  /// The constraint rows with the largest residuals at the last iterate (Model::rowName).
  std::vector<std::string> worst_rows;
  /// The constraint rows left out as redundant (solveStaticsWithIndependentRows; Model::rowName):
  /// then lambda holds the minimum-norm multipliers of every row. Empty when none were.
  std::vector<std::string> redundant_rows;
  /// On success: bodies whose equilibrium round-off cannot resolve (a very stiff element), so
  /// that their reactions are not meaningful to many digits. Empty when all is well.
  std::vector<std::string> warnings;
};

class Space;

/// The equilibrium reached from `start` (a State of the space's model: q with ghosts current, t;
/// v and lambda are ignored: the multipliers start from their least-squares estimate) of a
/// mechanism on one process or many (analysis/space.hpp). Collective when the space is. Never
/// throws on numerical failure: the Status says why, with worst_rows and the last iterate in state.
StaticsResult solveStatics(Space& space, State start, const StaticsOptions& options = {});

/// The same for a whole model in one process (SerialSpace; the KKT systems by KLU unless the
/// PETSc options under options.petsc_prefix say otherwise).
StaticsResult solveStatics(const Model& model, const AssemblyPlan& plan, State start,
                           const StaticsOptions& options = {});

}  // namespace catena
