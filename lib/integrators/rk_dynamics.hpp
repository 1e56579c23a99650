#pragma once
/// @file rk_dynamics.hpp
/// Explicit Runge-Kutta integration of the index-1 form with projection (issue 29, item 2;
/// docs/dynamics-rk.md): the ODE in y = (q, v)
///   q' = N(q) v            (r' = v_lin, rho' = 1/2 rho (x) (0, w); 2D: q' = v)
///   v' from [M C_q^T; C_q 0] [v'; lambda] = [f; gamma]
/// with one sparse KKT factorization per stage (KktSolves, KLU through SaddlePointSolver), is
/// advanced by SUNDIALS ARKODE's ERKStep with an embedded pair (adaptive steps, error control
/// on q and v). After every accepted step (ARKODE's post-processing hook) the quaternions are
/// normalized and, where |C|_inf > projection_tolerance * length scale or
/// |C_q v + C_t|_inf > projection_tolerance * max(1, |v|_inf), q and v are projected back
/// (mass-weighted, minimum-norm). Outputs are step ends (stop times), never interpolated.
///
/// Explicit: meant for non-stiff mechanisms (rigid bodies, gravity, soft springs); a stiff
/// force takes steps of its fastest period and ends at max_steps with a message saying so.
/// Redundant rows and singular configurations as in IDA (redundant_rows.hpp,
/// singular_passage.hpp). No SUNDIALS type appears in this header.

#include <string>

#include "assembly/plan.hpp"
#include "integrators/dynamics.hpp"

namespace catena {

/// ARKODE's embedded explicit pairs (ARKODE_DORMAND_PRINCE_7_4_5, ARKODE_VERNER_8_5_6,
/// ARKODE_FEHLBERG_13_7_8): stages, order of the solution carried on.
enum class RkTable {
  kDormandPrince54,  ///< 7 stages (FSAL), order 5
  kVerner65,         ///< 8 stages, order 6
  kFehlberg78,       ///< 13 stages, order 8 (ARKODE steps with the 8th-order solution)
};

/// "dp54", "verner65", "fehlberg78"; parseRkTable throws catena::Error on another name.
std::string rkTableName(RkTable t);
RkTable parseRkTable(const std::string& name);

struct RkOptions {
  RkTable table = RkTable::kVerner65;
  double t_end = 1.0;            ///< s
  double output_interval = 0.0;  ///< s; 0: the observer sees every accepted step
  double rtol = 1e-6;            ///< relative tolerance of ARKODE's local error test
  double atol = 1e-8;            ///< absolute: m, quaternion components, m/s, rad/s
  /// Relative drift that triggers a projection (see the file comment); 0: rtol. The projection
  /// converges to 1e-3 of it.
  double projection_tolerance = 0.0;
  long max_steps = 1'000'000;  ///< accepted steps over the run; reaching it is a failure
  double max_step = 0.0;       ///< s; 0: no limit
  /// Assemble the initial state (integrators/initial_state.hpp) first; false: `initial` must
  /// satisfy C = 0 and C_q v + C_t = 0.
  bool assemble_initial_state = true;
  std::string petsc_prefix = "rk_";  ///< PETSc options prefix of the KKT solves
};

/// DynamicsResult with what an explicit run adds. stats.factorizations counts the KKT
/// factorizations (one per right-hand side, two or more per projection).
struct RkResult : DynamicsResult {
  long rhs_evaluations = 0;  ///< ARKODE's, including the re-evaluation after a projection
};

/// Integrates from `initial` (t0 = initial.t) to options.t_end; the observer gets t0 and every
/// output time (lambda in the joint F2 bases, quaternions normalized). PETSc must be
/// initialized (parallel/petsc_session.hpp). Never throws on numerical failure: a singular KKT
/// matrix, a projection that does not converge, ARKODE's failures and max_steps end the run
/// with a Status naming the time reached and DynamicsResult::worst_rows. Throws catena::Error on
/// invalid options.
RkResult integrateRungeKutta(const Model& model, const AssemblyPlan& plan, const State& initial,
                             const RkOptions& options, const TrajectoryObserver& observer);

}  // namespace catena
