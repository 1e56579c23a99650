#pragma once
/// @file generalized_alpha.hpp
/// Lie-group generalized-alpha integration of the index-3 multibody DAE (Arnold & Brüls 2007;
/// Brüls, Cardona & Arnold 2012), the integrator Chrono and MBDyn users know:
///   q_{n+1} = q_n exp(h dq_n),  dq_n = v_n + h (1/2 - beta) a_n + h beta a_{n+1}
///   v_{n+1} = v_n + h (1 - gamma) a_n + h gamma a_{n+1}
///   (1 - alpha_m) a_{n+1} + alpha_m a_n = (1 - alpha_f) vdot_{n+1} + alpha_f vdot_n
///   M(q) vdot + C_q^T lambda = f(q, v, t),  C(q, t) = 0          at t_{n+1}
/// with the exponential quaternion update of the mixed basis. Newton on the correction of the
/// configuration (a variation, as in statics) with the iteration matrix
///   [ beta' M + gamma' D + K + K_c   C_q^T ]      beta' = (1 - alpha_m) / (beta h^2 (1 - alpha_f))
///   [ C_q                            0     ]      gamma' = gamma / (beta h)
/// (the tangent operator of the exponential map is taken as the identity, the usual choice;
/// it only slows Newton down, the converged step is exact). By default Newton is modified: the
/// factored matrix is kept over iterations and steps while the corrections contract fast (a
/// factorization costs about as much as five residuals and solves on a chain). Parameters from the
/// spectral radius at infinity rho_inf in [0, 1). A step whose Newton iteration did not converge is
/// never accepted: the step is halved (down to min_step) and regrows after successes; below
/// min_step the run stops with a report.
///
/// With error_tolerance > 0 (the default) the step adapts to the local error estimate of the
/// configuration, e = h^2 |beta - 1/6| (a_{n+1} - a_n) (Zienkiewicz & Xie's estimate for
/// Newmark-type methods; its leading term is the local truncation error), with a_{n+1} - a_n
/// averaged with the last step's change (scaled to h): a step-to-step oscillation of a, which
/// the index-3 scheme damps by rho_inf per step, then cancels instead of posing as an error that
/// no step size meets (the kink of a fine chain's 'V' trapped the controller in steps 8x too
/// small; tests/verification/generalized_alpha_test.cpp), in the max norm of
/// the displacements it causes relative to the mechanism's size (analysis/scales.hpp,
/// displacementWeights: translations over the length scale, rotations times the body's size
/// over it): steps with |e| > tol are rejected and retried shorter, and the next step is
/// h (tol / |e|)^(1/3) within [0.2 h, 2 h], at most `step`. With error_tolerance = 0 the step
/// is fixed and nothing watches the accuracy: a violent motion can then be integrated wrongly
/// without any failure (benchmarks/results/chain_dynamics.md), which is why error control is
/// the default.

#include "assembly/plan.hpp"
#include "integrators/dynamics.hpp"

namespace catena {

struct GeneralizedAlphaOptions {
  double t_end = 1.0;  ///< s, absolute end time
  /// s: the largest step with error control; the step taken when Newton converges without it.
  double step = 1e-2;
  double min_step = 1e-9;        ///< s, smallest step tried after Newton failures
  double output_interval = 0.0;  ///< s; 0: every step
  /// Spectral radius at infinity, in [0, 1): near 1 little dissipation, 0 the most. Exactly 1
  /// is refused: the index-3 scheme then leaves the multipliers undamped and diverges (the
  /// spin top blows up within seconds).
  /// Default 0.5 (Adams' HHT default alpha = -0.3 is 0.54, MBDyn's 0.6): a whipping chain
  /// excites high frequencies that the error test must otherwise resolve; at 0.8 the 300-link
  /// chain released from the V took 1467 steps at the default tolerance and ended 430x farther
  /// from the reference than with 259 steps at 0.5 (benchmarks/results/chain_dynamics.md). From
  /// 0.65 up, the 1000-link release gained tens of percent of energy at every tolerance and
  /// step tried (docs/dynamics-generalized-alpha.md, rho_inf): not a setting for violent motions.
  double rho_inf = 0.5;
  bool constraint_stiffness = true;  ///< K_c in the iteration matrix
  /// Modified Newton: the factored iteration matrix is kept over iterations and steps and
  /// rebuilt when the corrections contract slowly or the step changed by more than 20 %; a
  /// step that fails on a kept matrix is retried with a fresh one. false: full Newton, a new
  /// matrix at every iteration (benchmarks/results/chain_dynamics.md compares the two).
  bool reuse_iteration_matrix = true;
  int max_newton_iterations = 12;
  /// Newton converges when the estimated error of the configuration (the displacement it
  /// causes relative to the length scale, as the error test) is below this, the estimated
  /// error of the multipliers (relative to the largest) below 10 (1 - rho_inf) times this, and
  /// |C| / length scale below constraint_tolerance. 0 (default): a hundredth of
  /// error_tolerance, at least 1e-10 (1e-10 with a fixed step): Newton's error then stays well
  /// inside the local error.
  double newton_tolerance = 0.0;
  /// |C| / length scale at every accepted step; 0 (default): the Newton tolerance, at most 1e-8.
  double constraint_tolerance = 0.0;
  /// Local error per step, as a displacement relative to the length scale; 0: fixed step.
  double error_tolerance = 1e-5;
  long max_steps = 100'000'000;
  /// Stops the run, as unstable, when the energy of a conservative model (isConservative,
  /// analysis/energy.hpp) exceeds its initial value by more than this fraction of the energy
  /// exchanged so far (the largest kinetic energy or change of the potential energy).
  /// Generalized-alpha with rho_inf < 1 only dissipates, so such a gain is an instability, not
  /// an inaccuracy: the 1000-link chain released from the V at rho_inf 0.6 and fixed 10 ms
  /// steps gained 8e12 J over 13743 steps and 5 minutes before Newton gave up (hand run). 0: no
  /// check.
  double energy_growth_limit = 0.5;
  /// true: an output's lambda solves [M C_q^T; C_q 0] [v'; lambda] = [f; gamma] at its (q, v, t)
  /// (one factorization per output); false: the scheme's lambda, which jolts where the step
  /// changes (0.35 % of a pendulum's rod force at tolerance 1e-6), for runs that use the
  /// positions only (a benchmark whose observer sees every step: 1.75x the cost there).
  bool consistent_multipliers = true;
  std::string petsc_prefix = "dynamics_";  ///< PETSc options prefix of the linear solver
};

/// Integrates from `initial` (consistent: positions and velocities satisfy the constraints;
/// integrators/initial_state.hpp assembles one) to options.t_end. The observer gets t0 and every
/// output time (the steps are divided evenly to land on output times).
DynamicsResult integrateGeneralizedAlpha(const Model& model, const AssemblyPlan& plan,
                                         const State& initial,
                                         const GeneralizedAlphaOptions& options,
                                         const TrajectoryObserver& observer);

}  // namespace catena
