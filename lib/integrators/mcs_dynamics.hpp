#pragma once
/// @file mcs_dynamics.hpp
/// Minimal-coordinate-set (Maggi-Kane) dynamics by QR projection, integrated with SUNDIALS
/// ARKODE's explicit Dormand-Prince 5(4) (ERKStep, ARKODE_DORMAND_PRINCE_7_4_5: the papers'
/// ode45), with the tangent basis T either refactored at every step ("traditional") or
/// continued from step to step (projection-continuation paper eqs. 22-29, QRCP paper eqs.
/// 14-22; mobility/tangent_continuation.hpp). docs/dynamics-mcs.md has the equations and the
/// choices; in short:
///
/// - Every accepted step k starts a chart: the QRCP of A_k^T = C_q(q_k)^T gives Q1_k (n x r),
///   R1_k and the pivot rows A_p; T_k (n x f, f = n - r) is the factorization's own tangent
///   basis (traditional) or the continued one. Over the step, T_k and Q1_k are fixed and the
///   ODE unknowns are the positions q (the embedding: r and the quaternion per 3D body) and the
///   minimal velocities u = q' = T_k^T v (paper eq. 16: x = Q2k q + Q1k p):
///     v  = T_k u + Q1_k pi,  (A_p Q1_k) pi = -(A_p T_k u + C_t,p)        (eqs. 9-11, 15b)
///     q' = N(q) v                              (dr/dt = v_lin, drho/dt = 1/2 rho (x) (0, w))
///     J^T M J u' = J^T (f - M beta''),  J = T_k - Q1_k (A_p Q1_k)^{-1} A_p T_k,
///     beta'' = Q1_k (A_p Q1_k)^{-1} gamma_p                              (eqs. 12-15a)
///   J is the tangent basis at q with T_k^T J = I, so J = T_k at the chart's origin and u' is
///   exactly d(T_k^T v)/dt: no approximation inside the step.
/// - After the step (ARKODE's post-processing hook): the positions are corrected by Newton on
///   p along Q1_k until |C| <= position_tolerance (eqs. 16-19), v is recomputed there with the
///   same u, the QRCP at q_{k+1} gives the new chart, T_{k+1} is the factorization's or the
///   continued basis (Omega from (A_{k+1} - A_k) / h, exponential map or Cayley, Procrustes
///   against Q1_{k+1}), and u is re-expressed as T_{k+1}^T v, so v is continuous.
/// - Rheonomic joints enter through C_t (p', eq. 11) and gamma (p'', eq. 14).
/// - Singular configurations: a local minimum of the smallest retained relative pivot
///   |R_rr| / max |R_ii| below singular_margin is refined along the trajectory (cubic Hermite
///   between step ends, golden section); where pivots fall below singular_tolerance there, the
///   event reports the time, the vanished pivots and their constraint rows, the margin, and the
///   admissible motions split into the continuation of the motion before (Procrustes of the
///   basis onto the larger tangent space) and the new motions, orthogonal to it.
///
/// Dense Eigen linear algebra (QR O(n^3) per step): meant for the papers' mechanisms and models
/// up to max_coordinates velocity coordinates; larger models are refused. No SUNDIALS type
/// appears in this header (only mcs_dynamics.cpp sees ARKODE).

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/LU>

#include "assembly/plan.hpp"
#include "integrators/dynamics.hpp"
#include "integrators/initial_state.hpp"
#include "mobility/tangent_continuation.hpp"

namespace catena {

struct McsOptions {
  double t_end = 1.0;            ///< s
  double output_interval = 0.0;  ///< s; 0: the observer sees every accepted step
  double rtol = 1e-6;            ///< ARKODE relative tolerance (adaptive steps)
  double atol = 1e-8;            ///< ARKODE absolute tolerance (m, quaternion entries, m/s)
  /// s; > 0: fixed steps of this size (the papers' h), no error control; 0: adaptive.
  double fixed_step = 0.0;
  bool continuation = true;  ///< false: "traditional", T from a fresh QR at every step
  /// Turn the first basis (within the tangent space) so that its first column is the initial
  /// velocity: q'(0) = (|v(0)|, 0, ..., 0), the gauge the projection paper's spatial pendulum
  /// got from Matlab's QR (sec. 3.3). false: the factorization's own basis.
  bool align_initial_basis = false;
  ContinuationMap map = ContinuationMap::kExponential;
  double rank_tolerance = kDefaultRankTolerance;  ///< relative, on |R_ii| / max |R_ii|
  /// Position correction (eqs. 17-19) until |C|_inf <= position_tolerance * length scale; the
  /// start's assembly's tolerance, so that a bridge's end is not moved again when a run resumes
  /// (1e-10 left |C| ~ 2e-10 m, which the minimum-norm assembly next to a crossing turned into
  /// moves of 1e-4 m along the near-null motion).
  double position_tolerance = kAssembledPositionTolerance;
  int max_correction_iterations = 10;
  /// A local minimum of the smallest retained relative pivot below this at a step end is
  /// examined as a possible singular configuration.
  double singular_margin = 0.05;
  /// At the refined minimum, relative pivots below this count as vanished (the rank dropped).
  double singular_tolerance = 1e-6;
  long max_steps = 1'000'000;  ///< accepted steps over the run; reaching it is a failure
  /// Dense QR limit: a model with more velocity coordinates is refused (catena::Error).
  Index max_coordinates = 2000;
  /// Assemble the initial state (integrators/initial_state.hpp) first; false: `initial` must
  /// satisfy C = 0 and C_q v + C_t = 0.
  bool assemble_initial_state = true;
};

/// What the MCS integrator reports at t0 and at every output time, next to the State.
struct McsSample {
  double t = 0.0;
  VecX qdot;         ///< f: minimal velocities q' = T^T v
  VecX q;            ///< f: minimal coordinates, the integral of q' (trapezoidal per step)
  VecX r1_diagonal;  ///< min(n, m): |R_ii| of the QRCP of A^T, pivot order
  MatX T;            ///< n x f: the tangent basis
  Index rank = 0;    ///< numerical rank of A at the rank tolerance
  long flips = 0;    ///< column sign flips of T over the steps since the previous output

  /// The smallest retained relative pivot |R_rr| / |R_11| (r: rank), as smallestRetainedPivot
  /// (singular_passage.hpp) computes it from a QRCP of its own: 0 if rank is 0 or below
  /// `expected` (>= 0).
  double smallestRetainedPivot(Index expected = -1) const {
    if (rank == 0 || r1_diagonal.size() < rank || !(r1_diagonal(0) > 0.0) ||
        (expected >= 0 && rank < expected))
      return 0.0;
    return r1_diagonal(rank - 1) / r1_diagonal(0);
  }
};

/// A singular configuration met along the trajectory (QRCP paper sec. 2.5, N3).
struct SingularEvent {
  double t = 0.0;               ///< s, where the smallest retained pivot is smallest
  double margin = 0.0;          ///< smallest relative pivot there (how close the path came)
  double sampled_margin = 0.0;  ///< the smallest one at a step end
  std::vector<Index> vanished;  ///< positions in R (pivot order) below singular_tolerance
  std::vector<Index> rows;      ///< the constraint rows behind them (Model::rowName)
  /// n x f: the continuation of the motion before (continuation mode: the Procrustes basis
  /// closest to the continued T; traditional: the first f columns of the factorization's).
  MatX continued;
  MatX new_motions;               ///< n x d: the new admissible motions, orthogonal to `continued`
  VecX qdot_continued, qdot_new;  ///< v along each (linear interpolation of v to t)
  VecX cosines;                   ///< principal cosines of the continuation (1: continued)
};

/// Costs of one run (benchmarks/mcs_continuation.cpp).
struct McsStats {
  long rhs_evaluations = 0;            ///< ARKODE's, including the re-evaluation after each step
  long output_evaluations = 0;         ///< extra rate evaluations for lambda at outputs
  long factorizations = 0;             ///< QRCP of A^T (one per step plus refinements)
  long corrections = 0;                ///< steps whose positions needed the Newton correction
  long correction_iterations = 0;      ///< Newton iterations on p, all steps
  long flips = 0;                      ///< column sign flips of T between consecutive steps
  double seconds_rhs = 0.0;            ///< in the ODE right-hand side
  double seconds_factorization = 0.0;  ///< in the QRCP at step ends
  double seconds_continuation = 0.0;   ///< Omega, E(Omega h) and the Procrustes step
  double seconds_correction = 0.0;     ///< position correction and v at the corrected q
};

struct McsResult {
  DynamicsResult dynamics;  ///< status, last state, step statistics, method
  McsStats mcs;
  std::vector<SingularEvent> singular_events;
  Index rank = 0;  ///< r of the charts (the rank at t0)
  Index dof = 0;   ///< f = n - r
};

/// Observer of the MCS run: the State (lambda: the pivot-row solution of
/// A_p^T lambda_p = f - M v', redundant rows 0) and the sample. Return false to stop.
using McsObserver = std::function<bool(const State&, const McsSample&)>;

/// The chart of one step: the factorization at its start and the basis it uses.
struct McsChart {
  TangentFactors factors;  ///< Q1, R1, pivot rows at q_k
  MatX T;                  ///< n x f: T_k
};

/// Dense buffers of computeMcsRates (sized once per model; no allocation per call beyond
/// Eigen's temporaries of products).
struct McsWorkspace {
  McsWorkspace(const Model& model, const AssemblyPlan& plan);
  SparseMatrixCSR Cq, M;
  MatX A, Md, K, ApT, J, Mr;
  VecX qn, C, Ct, gamma, force, pi, beta, rhs, Mb;
  Eigen::PartialPivLU<MatX> lu;
  Eigen::LLT<MatX> llt;
};

/// The velocity v = T u + Q1 pi with (A_p Q1) pi = -(A_p T u + C_t,p) at (q, t) in `chart`
/// (paper 1 eqs. 9-11, 15b). q: nq (quaternions normalized here), u: f; writes v (nv).
/// Status not ok if A_p Q1 is singular (the chart does not cover q).
Status computeMcsVelocity(const Model& model, const AssemblyPlan& plan, const McsChart& chart,
                          const VecX& q, const VecX& u, double t, McsWorkspace& ws, VecX& v);

/// v (as computeMcsVelocity), v' and u' = T^T v' from the Maggi-Kane equations in the chart,
/// J^T M J u' = J^T (f - M beta''), v' = J u' + beta'' (eqs. 12-15a; J, beta'' in the file
/// comment). With lambda non-null also the multipliers of the pivot rows,
/// (A_p Q1)^T lambda_p = Q1^T (f - M v'), the redundant rows 0 (nc). Cost O(n^2 (r + f) + r^3).
/// Status not ok if A_p Q1 or J^T M J is singular.
Status computeMcsRates(const Model& model, const AssemblyPlan& plan, const McsChart& chart,
                       const VecX& q, const VecX& u, double t, McsWorkspace& ws, VecX& v,
                       VecX& vdot, VecX& udot, VecX* lambda = nullptr);

/// Integrates from `initial` (t0 = initial.t) to options.t_end (docs/dynamics-mcs.md). The
/// observer gets t0 and every output time. Never throws on numerical failure: a singular chart,
/// a failed position correction, a rank that rises along the path, an ARKODE error or max_steps
/// end the run with a Status naming the time and the reason (and DynamicsResult::worst_rows).
/// Throws catena::Error on invalid options or a model with more than max_coordinates velocity
/// coordinates.
McsResult integrateMcs(const Model& model, const AssemblyPlan& plan, const State& initial,
                       const McsOptions& options, const McsObserver& observer);

}  // namespace catena
