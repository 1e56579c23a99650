#pragma once
/// @file ida_dynamics.hpp
/// Time integration of the multibody DAE with SUNDIALS IDA (variable-order, variable-step BDF),
/// in one of three formulations (docs/dynamics-ida.md has the equations and how to choose):
///
/// - kIndex3: q' = N(q) v, M v' + C_q^T lambda = f, C(q, t) = 0. Velocities and multipliers are
///   left out of IDA's error test (IDASetId + IDASetSuppressAlg: they are index-2 and index-3
///   variables), so only positions are error-controlled; the tangential velocity that carries
///   the dynamics is then controlled only through them, and at a given rtol the trajectory is
///   ~100-1000x less accurate than with the other two (a pendulum's period: 3e-6 and 3.5e-5
///   relative at rtol 1e-8 for 30 and 150 deg, against < 6e-7; 1e-6 needs rtol 1e-11).
/// - kIndex2 (stabilized index 2, Gear-Gupta-Leimkuhler): q' = N(q) (v - C_q^T mu),
///   M v' + C_q^T lambda = f, C = 0 and C_q v + C_t = 0; mu = 0 on the exact solution. Positions
///   and velocities are error-controlled and both constraint levels hold to the Newton
///   tolerance. The default.
/// - kIndex1: the acceleration constraint C_q v' = gamma in place of C = 0, with lambda an
///   index-1 algebraic variable; C and C_q v + C_t drift, so after every step whose drift
///   exceeds projection_tolerance the state is projected back onto both (mass-weighted,
///   minimum-norm) and IDA is restarted there (a restart costs a few steps at low order).
///   With an output_interval the steps land on the output times, so outputs are projected
///   step points.
///
/// In every formulation the quaternion of each 3D body is an IDA unknown held at unit norm by
/// its own constraint |rho|^2 - 1 = 0 with a multiplier nu in the kinematic equation
/// (rho' = 1/2 rho (0, w) + nu rho); the kernels see rho / |rho|. The Newton matrix
/// dF/dy + c_j dF/dy' is assembled analytically into a fixed sparse pattern and factored by KLU
/// (solvers/klu_lu.hpp) or solved through PETSc (IdaOptions::linear_solver).
/// No SUNDIALS type appears in this header (DESIGN.md: only the adapter sees SUNDIALS).

#include <functional>
#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "formulations/mixed_basis/dae_formulation.hpp"
#include "integrators/dynamics.hpp"

namespace catena {

/// Who solves the Newton systems (docs/dynamics-ida.md, "Linear solvers"). Both solve the same
/// column-scaled matrix; they differ by round-off only.
enum class IdaLinearSolver {
  kKlu,    ///< KLU called directly (solvers/klu_lu.hpp): serial, the least overhead per solve
  kPetsc,  ///< PETSc KSP + PC (solvers/sparse_linear_solver.hpp) under petsc_prefix: LU with
           ///< KLU by default; -ida_pc_factor_mat_solver_type mumps, or iterative KSP options
  /// Distributed runs only (integrateDistributedIda): the Schur-complement domain decomposition
  /// (solvers/schur_decomposition.hpp) instead of MUMPS; one process treats it as kKlu.
  kSchur,
  /// Distributed runs only: every rank gathers the whole Newton matrix and factors it with KLU
  /// (solvers/gathered_klu.hpp): with the part's halo, bitwise the same on any rank count
  /// (integrators/distributed_dynamics.hpp); for checks, not for speed. One process treats it
  /// as kKlu.
  kGatheredKlu,
};

struct IdaOptions {
  IdaFormulation formulation = IdaFormulation::kIndex2;
  double t_end = 1.0;            ///< s
  double output_interval = 0.0;  ///< s; 0: the observer sees every accepted step
  double rtol = 1e-6;            ///< relative tolerance of the error test
  /// Absolute tolerance of positions (m; quaternion components) and velocities (m/s, rad/s).
  double atol = 1e-8;
  /// Absolute tolerance of the multipliers lambda, mu and of the quaternion-norm multipliers
  /// nu (N, N m, m/s, 1/s). These are never in the error test (IDASetSuppressAlg); the value
  /// only weighs their Newton corrections, and a tight one makes Newton fail on the index-2
  /// variables (TOOLCHAIN.md, SUNDIALS notes). Index 3 further multiplies the Newton weights of
  /// v and nu by h and those of lambda by h^2, GGL those of mu by h (docs/dynamics-ida.md).
  double multiplier_atol = 1e-2;
  long max_steps = 500'000;  ///< accepted steps over the whole run; reaching it is a failure
  double max_step = 0.0;     ///< s; 0: no limit
  /// s; 0: 1e-12 (t_end - t0). A run that needs smaller steps (a singular configuration, an
  /// impossible drive) fails there instead of halving h towards 1e-40 s.
  double min_step = 0.0;
  /// s; 0: from the BDF1 error of the positions, h^2/2 |q''| at a tenth of the tolerance
  double initial_step = 0.0;
  /// Multiplies the first step (initial_step or the estimate): tests perturb it to show that a
  /// result does not hinge on one step sequence.
  double initial_step_factor = 1.0;
  int max_order = 5;  ///< BDF order limit, 1..5
  /// Index 1: after an accepted step whose drift exceeds the tolerance,
  /// |C|_inf > tol * length scale or |C_q v + C_t|_inf > tol * max(1, |v|_inf), the state is
  /// projected and IDA restarted. tol = projection_tolerance, or 10 rtol when it is 0. It must
  /// stay well above the local error of one step (~rtol): at tol = rtol IDA restarts almost
  /// every step, at order 1, and the run costs 20x more. The projection converges to 1e-3 tol.
  double projection_tolerance = 0.0;
  /// Assemble the initial state (integrators/initial_state.hpp) before computing v' and lambda;
  /// false: `initial` must already satisfy C = 0 and C_q v + C_t = 0.
  bool assemble_initial_state = true;
  /// Outputs pass the run's branch watch (integrators/branch_watch.hpp). false: the caller
  /// watches them itself; a distributed run inside withSingularPassages, whose watch sees the
  /// gathered whole states and can look for a singular configuration on their path (the
  /// distributed watch cannot, and took the spatial slider-crank's outputs 0.1 s apart for a
  /// jump).
  bool watch_branch = true;
  IdaLinearSolver linear_solver = IdaLinearSolver::kKlu;  ///< of the Newton systems
  /// PETSc options prefix of the KKT solves (initial, projection) and, with kPetsc, of the
  /// Newton solves: -ida_pc_factor_mat_solver_type mumps applies to both.
  std::string petsc_prefix = "ida_";
};

/// Wall seconds of the phases of an IDA run, this rank's (MPI_Wtime).
struct IdaTimings {
  double setup = 0.0;          ///< the DAE, its pattern, the Newton solver, the IDA objects
  double initial = 0.0;        ///< the consistent start and the KKT solve for v' and lambda
  double assembly = 0.0;       ///< residuals and Newton matrices (ghost updates included)
  double factorization = 0.0;  ///< numeric LU of the Newton matrices
  double solve = 0.0;          ///< triangular solves of the Newton systems
  double integration = 0.0;    ///< the whole step loop (contains the three above)
};

/// DynamicsResult with what an IDA run adds.
struct IdaResult : DynamicsResult {
  std::string linear_solver;  ///< the package of the Newton systems ("KLU", "mumps", ...)
  long unknowns = 0;          ///< global size of the DAE
  IdaTimings timings;
};

/// Integrates from `initial` (t0 = initial.t) to options.t_end. v' and lambda at t0 come from
/// [M C_q^T; C_q 0] [v'; lambda] = [f; gamma] (SaddlePointSolver: PETSc must be initialized,
/// parallel/petsc_session.hpp, for either linear_solver). The observer gets t0 and every output
/// time (lambda in the joint F2 bases, quaternions normalized). Never throws on numerical failure:
/// an IDA error, max_steps or a failed projection ends the run with a Status naming the time
/// reached, IDA's flag and message, and DynamicsResult::worst_rows (largest |C| rows). Throws
/// catena::Error on invalid options, or when PETSc is not initialized.
IdaResult integrateIda(const Model& model, const AssemblyPlan& plan, const State& initial,
                       const IdaOptions& options, const TrajectoryObserver& observer);

/// The first step of an IDA integration (serial and distributed), s: the BDF1 local error of
/// the positions, h^2/2 |q''|, at a tenth of the tolerance (q'' from vdot), at most 1e-3 of span
/// (s) and o.max_step. The weighted squares of the first `bodies` bodies' coordinates go to
/// `total`, which sums them (over the ranks too); coordinates: how many there are in all.
double initialIdaStep(const Model& m, Index bodies, const State& s, const VecX& vdot,
                      const IdaOptions& o, double span, double coordinates,
                      const std::function<double(const std::vector<double>&)>& total);

}  // namespace catena
