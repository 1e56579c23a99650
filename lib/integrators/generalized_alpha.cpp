#include "integrators/generalized_alpha.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/energy.hpp"
#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "core/termination.hpp"
#include "integrators/branch_watch.hpp"
#include "integrators/kkt_solves.hpp"
#include "integrators/redundant_rows.hpp"
#include "integrators/singular_passage.hpp"
#include "mobility/constraint_rank.hpp"
#include "solvers/saddle_point.hpp"

namespace catena {
namespace {

/// The four parameters of the method from rho_inf (Chung & Hulbert; Arnold & Brüls).
struct Parameters {
  double alpha_m, alpha_f, gamma, beta;
  explicit Parameters(double rho) {
    alpha_m = (2.0 * rho - 1.0) / (rho + 1.0);
    alpha_f = rho / (rho + 1.0);
    gamma = 0.5 + alpha_f - alpha_m;
    beta = 0.25 * (gamma + 0.5) * (gamma + 0.5);
  }
};

/// Everything a step needs, allocated once.
struct AlphaWorkspace {
  SparseMatrixCSR Cq, M, K, D, Kc, S;
  VecX C, f, r, minus_c, dx, dl, dq;
  VecX inertial, reaction;  ///< M vdot and C_q^T lambda
  VecX a_start;             ///< the start's a, rescaled to the step being taken
  VecX change;              ///< a_{n+1} - a_start of the step being tested
  VecX previous_change;     ///< the same of the last accepted step (of length x.h)
  VecX weights;             ///< displacementWeights: the norm of corrections and local errors
  AlphaWorkspace(const Model& m, const AssemblyPlan& plan)
      : Cq(makeConstraintMatrix(plan)),
        M(makeBodyMatrix(plan)),
        K(makeBodyMatrix(plan)),
        D(makeBodyMatrix(plan)),
        Kc(makeBodyMatrix(plan)),
        S(makeBodyMatrix(plan)),
        C(m.nc),
        f(m.nv),
        r(m.nv),
        minus_c(m.nc),
        dx(m.nv),
        dl(m.nc),
        dq(m.nv),
        inertial(m.nv),
        reaction(m.nv),
        a_start(m.nv),
        change(m.nv),
        previous_change(m.nv),
        weights(displacementWeights(m, lengthScale(m))) {}
};

/// The integrator's state at a step: the State plus the accelerations of the method.
struct StepState {
  State s;
  VecX vdot;       ///< dv/dt
  VecX a;          ///< the method's acceleration-like variable
  double h = 0.0;  ///< s, the step that reached this state (0: the initial state)
};

/// The factored iteration matrix and the step it was built for. Modified Newton keeps it over
/// iterations and steps (DynamicsStats counts the factorizations).
struct IterationMatrix {
  bool valid = false;
  double h = 0.0;  ///< s
  /// The last step rebuilt within two corrections the matrix it kept from an earlier step: on
  /// a whipping chain tension waves move K_c within a step and a kept matrix contracts by only
  /// ~0.7. The next step then rebuilds after its first correction, which has moved the
  /// multipliers (and with them K_c) most of the way: a matrix built there contracts by ~0.03,
  /// one built at the predictor by ~0.15. Cleared by any step that starts on a fresh matrix.
  bool stale = false;
};

/// The energy of a conservative model along the run (GeneralizedAlphaOptions::
/// energy_growth_limit): generalized-alpha with rho_inf < 1 only dissipates, so a gain beyond a
/// fraction of the energy exchanged so far is an instability.
class EnergyWatch {
 public:
  EnergyWatch(const Model& m, const AssemblyPlan& plan, const State& s0, double limit)
      : m_(m), plan_(plan), on_(limit > 0.0 && isConservative(m)), limit_(limit), t0_(s0.t) {
    if (!on_) return;
    const Energy e = computeEnergy(m, plan, s0);
    e0_ = e.total();
    potential0_ = e.gravity + e.springs;
    // Round-off of the total: below it no exchange is measurable.
    exchanged_ = std::max(e.kinetic, 1e-10 * (std::abs(e.gravity) + std::abs(e.springs)));
  }
  /// Not ok when the energy at s exceeds the limit: what grew, by how much, since when.
  Status check(const State& s) {
    if (!on_) return Status::success();
    const Energy e = computeEnergy(m_, plan_, s);
    exchanged_ = std::max({exchanged_, e.kinetic, std::abs(e.gravity + e.springs - potential0_)});
    const double gain = e.total() - e0_;
    if (gain <= limit_ * exchanged_) return Status::success();
    std::ostringstream os;
    os << "generalized-alpha is unstable: the energy of this conservative model grew from " << e0_
       << " J at t = " << t0_ << " s to " << e.total() << " J at t = " << s.t << " s, ";
    if (exchanged_ > 0.0)
      os << 100.0 * gain / exchanged_ << " % of the largest energy exchanged (" << exchanged_
         << " J)";
    else
      os << "by " << gain << " J while no energy was exchanged";
    os << "; the method only dissipates, so the step, rho_inf or the Newton tolerance is too "
          "large for this motion (energy_growth_limit "
       << limit_ << ")";
    return Status::failure(Status::Code::kNotConverged, os.str());
  }

 private:
  const Model& m_;
  const AssemblyPlan& plan_;
  bool on_;
  double limit_, t0_;
  double e0_ = 0.0, potential0_ = 0.0;
  double exchanged_ = 0.0;  ///< J, the largest kinetic energy or change of the potential so far
};

/// Largest contraction of the Newton corrections accepted from a kept matrix; above it the
/// matrix is rebuilt at the current iterate. 0.25 keeps a converging step within ~6 iterations
/// from a 1e-4 predictor error to 1e-10.
constexpr double kMaxContraction = 0.25;
/// ... or when, at the observed rate, more than this many further iterations would be needed
/// (a fresh matrix converges quadratically, in two or three).
constexpr double kMaxIterationsAtRate = 4.0;
/// ... or after this many corrections with it in one step.
constexpr int kMaxIterationsOnMatrix = 6;
/// A kept matrix is rebuilt when the step changed by more than this factor: its mass term
/// scales with 1/h^2, so a 20 % change of h already costs a contraction of about 0.3.
constexpr double kMaxStepRatio = 1.2;
/// How far the unaveraged local error estimate (this step's change of the algorithmic
/// acceleration alone) may exceed the tolerance when the step grows (its accepted steps judge by
/// the average over two steps). On the 1000-link chain at rho_inf = 0.5 the two estimates agree
/// within 1.4x, so this never binds there; at rho_inf = 0.9 the unaveraged one is 4-31x the
/// average where the oscillation rings, and growth from the average alone had 315 of 441 steps
/// rejected over 0.3 s at --tolerance 1e-6 (9 of 406 with this bound, the error against an
/// RK reference 9.0e-5 -> 7.7e-5 m; hand runs).
constexpr double kRawErrorHeadroom = 4.0;

/// Consistent accelerations and multipliers at a consistent (q, v, t):
/// [M C_q^T; C_q 0] [vdot; lambda] = [f; gamma].
Status initialAccelerations(const Model& m, const AssemblyPlan& plan, KktSolves& kkt,
                            StepState& x) {
  Status st = kkt.accelerations(x.s, x.vdot, x.s.lambda);
  // A singular matrix is diagnosed by withIndependentRows, and only if no rows can be left out
  // (the diagnosis is a dense QRCP: minutes for a few thousand coordinates).
  if (!st.ok())
    st.message = "generalized-alpha: the initial accelerations could not be computed (" +
                 st.message + ")" +
                 (st.code == Status::Code::kSingular
                      ? ""
                      : ": " + diagnoseSingularSaddlePoint(m, plan, x.s.q, x.s.t));
  x.a = x.vdot;
  return st;
}

/// Predictor of the step of length h from x (Brüls, Cardona & Arnold 2012, algorithm 1, with
/// the constant-acceleration guess vdot_{n+1} = vdot_n in place of 0: the Newton corrections
/// then start from the change of the acceleration over the step, not from the acceleration).
/// Not a linear extrapolation of vdot and lambda from the last two steps: 8-17 % fewer
/// iterations on the 1000-link chain, but it amplifies the step-to-step oscillation that the
/// index-3 multipliers carry (damped only by rho_inf per step): at rho_inf = 0.99 the pendulum's
/// Newton iteration diverged after 3.5 s.
/// a approximates vdot at t + (alpha_m - alpha_f) h: a - vdot = (alpha_m - alpha_f) h v'' +
/// O(h^2). When the step changes, a is rescaled to the new h (w.a_start); used as it is, the
/// shift error of every change is O(h) and an adaptive run falls to first order (the
/// slider-crank's distance to IDA stalled at 5e-6 m while its steps quadrupled).
void predict(const Model& m, const Parameters& p, const StepState& x, double h, AlphaWorkspace& w,
             StepState& y) {
  const double ratio = x.h > 0.0 ? h / x.h : 1.0;
  w.a_start = x.vdot + ratio * (x.a - x.vdot);
  const VecX& a = w.a_start;
  y.s.q = x.s.q;
  y.s.t = x.s.t + h;
  y.h = h;
  y.vdot = x.vdot;  // constant acceleration: 30 % fewer Newton iterations than vdot = 0
  y.s.lambda = x.s.lambda;
  y.a = ((1.0 - p.alpha_f) * y.vdot + p.alpha_f * x.vdot - p.alpha_m * a) / (1.0 - p.alpha_m);
  y.s.v = x.s.v + h * (1.0 - p.gamma) * a + h * p.gamma * y.a;
  w.dq = x.s.v + h * (0.5 - p.beta) * a + h * p.beta * y.a;
  applyVariation(m, w.dq, h, y.s.q);
}

/// The Newton tolerance of the corrections and the force residual: o.newton_tolerance, or by
/// default a hundredth of the local error tolerance (never below 1e-10, the fixed-step value).
/// Newton's error then stays out of the error estimate (it reaches it unamplified: an error d in
/// q is d / (beta h^2) in a, times h^2 |beta - 1/6| in the estimate) and costs no iterations
/// beyond it: 13-17 % fewer on the 1000-link chain at 1e-4 and 1e-5, the same steps and error.
double newtonTolerance(const GeneralizedAlphaOptions& o) {
  if (o.newton_tolerance > 0.0) return o.newton_tolerance;
  return std::max(1e-10, 1e-2 * o.error_tolerance);
}

/// The multipliers' Newton tolerance, relative to the largest multiplier: 10 (1 - rho_inf)
/// times the configuration's. Looser, because lambda_n enters no later step (the equations at
/// t_{n+1} hold lambda_{n+1}; lambda_n is only its first guess): on the 1000-link chain Newton
/// takes 3.9 iterations a step where the force residual at the Newton tolerance held it to 5.2
/// (benchmarks/results/chain_vs_simbody_large.md). Scaled by (1 - rho_inf), because an error
/// left in lambda excites the index-3 scheme's parasitic multiplier mode, damped by only rho_inf
/// per step: with a flat 10 the pendulum's period at rho_inf = 0.99 lost its second order
/// (pendulum_period_converges_with_order_two).
double multiplierTolerance(const GeneralizedAlphaOptions& o) {
  return 10.0 * (1.0 - o.rho_inf) * newtonTolerance(o);
}

/// |C| / length scale at convergence: o.constraint_tolerance, or by default the Newton
/// tolerance, at most 1e-8. Tighter costs an iteration a step and does not move the trajectory.
double constraintTolerance(const GeneralizedAlphaOptions& o) {
  if (o.constraint_tolerance > 0.0) return o.constraint_tolerance;
  return std::min(1e-8, newtonTolerance(o));
}

/// The estimated distance to the solution after a correction of size `last` that contracted at
/// `rate`: rate / (1 - rate) last for rate < 1 (Hairer & Wanner II, IV.8), else `last`.
double remainingError(double last, double rate) {
  return rate < 1.0 ? std::min(last, rate / (1.0 - rate) * last) : last;
}

/// Corrections still needed at `rate` to bring `last` down to `tol`.
double iterationsNeeded(double last, double rate, double tol) {
  return rate < 1.0 ? std::log(tol / last) / std::log(rate) : INFINITY;
}

/// What the Newton corrector of one step reports.
struct Correction {
  bool converged = false;
  bool kept_matrix = false;  ///< an iteration ran on a matrix factored before this step
  Status linear = Status::success();
  double correction = INFINITY;  ///< weighted max norm of the last correction
  double position = INFINITY;    ///< |C|_inf / length scale
  double force = INFINITY;       ///< |residual of the force balance|_inf / force scale
  double multiplier = INFINITY;  ///< |last multiplier correction|_inf / |lambda|_inf
};

/// Newton on the configuration of the step of length h from the predicted y, with the
/// iteration matrix [beta' M + gamma' D + K (+ K_c), C_q^T; C_q, 0]. Modified Newton
/// (o.reuse_iteration_matrix): the factored matrix is kept from earlier iterations and steps
/// and rebuilt at the current iterate when the step changed by more than kMaxStepRatio, the
/// corrections contract by less than kMaxContraction, they or the multipliers' corrections
/// contract too slowly for the distance left, kMaxIterationsOnMatrix corrections were made with
/// it in this step, or (IterationMatrix::stale) after the first correction.
/// Converged when |C| is below the constraint tolerance and the estimated distance to the
/// solution, rate / (1 - rate) times the last correction for a contraction rate < 1 (Hairer &
/// Wanner II, IV.8), is below the Newton tolerance for the configuration and below
/// multiplierTolerance for the multipliers, or, where round-off stops their corrections first,
/// the force residual (relative to its largest term) is below the Newton tolerance. The
/// multipliers need their own test with a kept matrix: a residual along the constraint normals
/// moves them, not the configuration, so a small configuration correction alone does not show
/// that they converged.
Correction correctStep(const Model& m, const AssemblyPlan& plan, const GeneralizedAlphaOptions& o,
                       double h, double beta_p, double gamma_p, double ls, AlphaWorkspace& w,
                       SaddlePointSolver& kkt, IterationMatrix& matrix, StepState& y,
                       DynamicsStats& stats) {
  Correction c;
  const double tol = newtonTolerance(o);
  const double multiplier_tol = multiplierTolerance(o);
  const double constraint_tol = constraintTolerance(o);
  double rate = 1.0;  // contraction of the last correction; unknown before the second one
  double multiplier_rate = 1.0;  // the same of the multipliers' corrections
  int since_rebuild = 0;         // corrections made with the current matrix in this step
  bool rebuild = !o.reuse_iteration_matrix || !matrix.valid || h > kMaxStepRatio * matrix.h ||
                 h * kMaxStepRatio < matrix.h;
  const bool kept_from_earlier = !rebuild;
  const bool rebuild_after_first = kept_from_earlier && matrix.stale;
  matrix.stale = false;
  for (int it = 0; it <= o.max_newton_iterations; ++it) {
    assembleMassTimes(m, y.s.q, y.vdot, w.inertial);
    assembleForces(m, plan, y.s.q, y.s.v, y.s.t, w.f);
    // C_q is written only where the matrix is rebuilt.
    assembleConstraintsAndForces(m, plan, y.s.q, y.s.t, y.s.lambda, w.C, w.reaction);
    w.r = w.f - w.inertial - w.reaction;  // minus the residual
    // The scale of the balance is its largest term; the reactions count: in a long chain they
    // exceed the weight of a link by the number of links.
    const double force_scale =
        std::max({maxAbs(w.f), maxAbs(w.inertial), maxAbs(w.reaction), 1e-300});
    c.position = maxAbs(w.C) / ls;
    c.force = maxAbs(w.r) / force_scale;
    if (it > 0 && c.position <= constraint_tol && remainingError(c.correction, rate) <= tol &&
        (remainingError(c.multiplier, multiplier_rate) <= multiplier_tol || c.force <= tol)) {
      c.converged = true;
      break;
    }
    if (it == o.max_newton_iterations) break;
    if (since_rebuild >= kMaxIterationsOnMatrix || (it == 1 && rebuild_after_first)) rebuild = true;
    const bool rebuilt = rebuild;
    if (rebuild) {
      // The matrix kept from an earlier step lasted at most two corrections: the next step
      // rebuilds it after its first (IterationMatrix::stale).
      if (kept_from_earlier && it <= 2) matrix.stale = true;
      assembleMass(m, plan, y.s.q, w.M);
      assembleForceJacobians(m, plan, y.s.q, y.s.v, y.s.t, &y.vdot, w.K, w.D);
      values(w.S) = beta_p * values(w.M) + gamma_p * values(w.D) + values(w.K);
      if (o.constraint_stiffness) {
        assembleConstraintJacobianAndStiffness(m, plan, y.s.q, y.s.t, y.s.lambda, w.Cq, w.Kc);
        values(w.S) += values(w.Kc);
      } else {
        assembleConstraints(m, plan, y.s.q, y.s.t, nullptr, &w.Cq);
      }
      // Constraint rows scaled to the iteration matrix (Bottasso et al.): the conditioning
      // does not grow like 1/h^2.
      c.linear = kkt.factor(w.S, w.Cq, constraintRowScale(w.S, w.Cq));
      ++stats.jacobian_evaluations;
      ++stats.factorizations;
      matrix.valid = c.linear.ok();
      matrix.h = h;
      rebuild = !o.reuse_iteration_matrix;
      since_rebuild = 0;
      if (!c.linear.ok()) break;
    } else if (it == 0) {
      c.kept_matrix = true;
    }
    w.minus_c = -w.C;
    c.linear = kkt.solve(w.r, w.minus_c, w.dx, w.dl);
    ++stats.linear_solves;
    ++stats.newton_iterations;
    ++since_rebuild;
    if (!c.linear.ok() || !w.dx.allFinite()) break;
    applyVariation(m, w.dx, 1.0, y.s.q);
    y.s.v += gamma_p * w.dx;
    y.vdot += beta_p * w.dx;
    y.s.lambda += w.dl;
    const double previous = c.correction, previous_multiplier = c.multiplier;
    c.correction = weightedMaxNorm(w.weights, w.dx);
    c.multiplier = maxAbs(w.dl) / std::max(maxAbs(y.s.lambda), 1e-300);
    // The contraction of a matrix shows between two corrections made with it.
    if (it > 0 && !rebuilt) {
      rate = c.correction / previous;
      multiplier_rate = c.multiplier / previous_multiplier;
      if (rate > kMaxContraction ||
          iterationsNeeded(c.correction, rate, tol) > kMaxIterationsAtRate ||
          iterationsNeeded(c.multiplier, multiplier_rate, multiplier_tol) > kMaxIterationsAtRate)
        rebuild = true;
    }
  }
  return c;
}

}  // namespace

namespace {

DynamicsResult integrate(const Model& m, const AssemblyPlan& plan, const State& initial,
                         const GeneralizedAlphaOptions& o, const TrajectoryObserver& observer) {
  DynamicsResult out;
  CATENA_CHECK(
      o.rho_inf >= 0.0 && o.rho_inf < 1.0,
      "generalized-alpha: rho_inf = "
          << o.rho_inf
          << " is outside [0, 1): at 1 the "
             "index-3 scheme does not damp the multipliers and diverges (Arnold & Brüls 2007)");
  CATENA_CHECK(o.step > 0.0 && o.min_step > 0.0 && o.t_end > initial.t,
               "generalized-alpha: the step, the smallest step and t_end - t0 must be positive");
  CATENA_CHECK(o.error_tolerance >= 0.0 && o.newton_tolerance >= 0.0 &&
                   o.constraint_tolerance >= 0.0 && o.energy_growth_limit >= 0.0,
               "generalized-alpha: the error, Newton and constraint tolerances and the energy "
               "growth limit must be >= 0");
  const Parameters p(o.rho_inf);
  {
    std::ostringstream os;
    os << "generalized-alpha (Lie group, index 3), rho_inf = " << o.rho_inf;
    if (o.error_tolerance > 0.0)
      os << ", local error " << o.error_tolerance;
    else
      os << ", fixed step";
    if (!o.constraint_stiffness) os << ", K_c off";
    if (!o.reuse_iteration_matrix) os << ", full Newton";
    out.method = os.str();
  }
  AlphaWorkspace w(m, plan);
  StepState x{initial, VecX::Zero(m.nv), VecX::Zero(m.nv), 0.0};
  if (x.s.lambda.size() != m.nc) x.s.lambda = VecX::Zero(m.nc);
  // The KKT solves of the start and of the outputs' multipliers.
  KktSolves consistent(m, plan, o.petsc_prefix);
  out.status = initialAccelerations(m, plan, consistent, x);
  out.state = x.s;
  if (!out.status.ok()) return out;
  // Every output state passes the branch watch before the observer sees it. Its multipliers
  // (consistent_multipliers) are those of [M C_q^T; C_q 0] at its (q, v, t), not the scheme's:
  // the index-3 scheme's lambda jolts where the step changes (pendulum at tolerance 1e-6..1e-7,
  // steps cut to land on outputs: hinge force 0.5 N from the rod tension, 0.35 %, against
  // 0.008 N with equal steps; with these multipliers 1.4e-4 N and 6e-5 N, falling with the
  // tolerance), and a tighter tolerance made the reported reactions worse.
  BranchWatch branch(m, plan);
  State shown;
  VecX shown_vdot;
  auto emit = [&](const State& s) {
    shown = s;
    if (o.consistent_multipliers && !consistent.accelerations(shown, shown_vdot, shown.lambda).ok())
      shown.lambda = s.lambda;  // a singular matrix (a singular configuration): the scheme's
    return branch.add(shown) && (!observer || observer(shown));
  };
  if (!emit(x.s)) return out;

  const double ls = lengthScale(m);
  EnergyWatch energy(m, plan, x.s, o.energy_growth_limit);
  SaddlePointSolver kkt(w.S, w.Cq, o.petsc_prefix, plan.body_nonzero);
  IterationMatrix matrix;
  StepState y = x;
  DynamicsStats& stats = out.stats;
  double h_try = o.step;
  int successes_since_cut = 0;
  const double t_end = o.t_end;
  const double interval = o.output_interval > 0.0 ? o.output_interval : 0.0;
  double next_output = interval > 0.0 ? initial.t + interval : t_end;
  long output_count = 1;

  while (x.s.t < t_end - 1e-12 * std::max(1.0, std::abs(t_end))) {
    if (stats.steps >= o.max_steps) {
      std::ostringstream os;
      os << "generalized-alpha: " << o.max_steps << " steps taken and t = " << x.s.t
         << " s has not reached t_end = " << t_end << " s";
      out.status = Status::failure(Status::Code::kNotConverged, os.str());
      break;
    }
    if (stopRequested()) {  // a termination signal (core/termination.hpp): stop here
      out.status = stoppedOnRequest("generalized-alpha", x.s.t);
      break;
    }
    const double target = interval > 0.0 ? std::min(next_output, t_end) : t_end;
    // Land on the output time in equal steps no longer than h_try. A sliver of a step just
    // before it (the remainder) would jolt the algorithmic acceleration, which assumes slowly
    // varying steps, and with it the next error estimate: on a 3000-link chain with outputs
    // every 0.05 s such slivers cut the steps 15-fold
    // (benchmarks/results/chain_vs_simbody_large.md).
    const double remaining = target - x.s.t;
    const double h = remaining / std::max(1.0, std::ceil(remaining / h_try - 1e-9));
    const double beta_p = (1.0 - p.alpha_m) / (p.beta * h * h * (1.0 - p.alpha_f));
    const double gamma_p = p.gamma / (p.beta * h);

    predict(m, p, x, h, w, y);
    Correction c = correctStep(m, plan, o, h, beta_p, gamma_p, ls, w, kkt, matrix, y, stats);
    if (!c.converged && c.kept_matrix && c.linear.code != Status::Code::kResources) {
      // A matrix kept from earlier steps may be what failed: retry the step with a fresh one
      // before cutting it.
      ++stats.convergence_failures;
      matrix.valid = false;
      kkt.forgetPivots();
      predict(m, p, x, h, w, y);
      c = correctStep(m, plan, o, h, beta_p, gamma_p, ls, w, kkt, matrix, y, stats);
    }

    if (!c.converged) {
      ++stats.convergence_failures;
      ++stats.rejected_steps;
      successes_since_cut = 0;
      matrix.valid = false;
      kkt.forgetPivots();
      if (c.linear.code == Status::Code::kResources || 0.5 * h < o.min_step) {
        std::ostringstream os;
        os << "generalized-alpha: Newton did not converge at t = " << x.s.t << " s with the step "
           << h << " s";
        if (!c.linear.ok())
          os << " (linear solver: " << c.linear.message << ")";
        else
          os << " (correction " << c.correction << ", constraint residual " << c.position
             << " of the length scale " << ls << " m, force residual " << c.force << ")";
        os << "; the smallest step allowed is " << o.min_step << " s";
        out.status = Status::failure(Status::Code::kNotConverged, os.str());
        out.worst_rows = worstRows(m, w.C, 5);
        break;
      }
      h_try = 0.5 * h;
      continue;
    }

    // The method's acceleration from the converged vdot; with error control, the local error
    // decides.
    y.a = ((1.0 - p.alpha_f) * y.vdot + p.alpha_f * x.vdot - p.alpha_m * w.a_start) /
          (1.0 - p.alpha_m);
    double growth = 0.0;  // next step over this one; 0: the fixed-step rule below
    if (o.error_tolerance > 0.0) {
      // h a' from the change of a over this step and the last one, averaged: a step-to-step
      // oscillation of a (the index-3 scheme's, damped by rho_inf per step, or an unresolved
      // mode's) cancels in it; alone it reads as an error independent of h that no step meets.
      w.change = y.a - w.a_start;
      if (x.h > 0.0)
        w.dq = 0.5 * (w.change + (h / x.h) * w.previous_change);
      else
        w.dq = w.change;
      const double error = h * h * std::abs(p.beta - 1.0 / 6.0) * weightedMaxNorm(w.weights, w.dq);
      const double factor = 0.9 * std::cbrt(o.error_tolerance / std::max(error, 1e-300));
      // The step may grow only as far as this step's own change of a (not averaged) allows
      // within kRawErrorHeadroom: where the oscillation of a rings on (rho_inf near 1), the
      // average cancels it at a steady step but not after a change of step, so growth judged
      // from the average alone was rejected at once, again and again.
      const double raw_error =
          h * h * std::abs(p.beta - 1.0 / 6.0) * weightedMaxNorm(w.weights, w.change);
      const double growth_factor =
          0.9 *
          std::cbrt(o.error_tolerance / std::max({error, raw_error / kRawErrorHeadroom, 1e-300}));
      if (error > o.error_tolerance) {
        ++stats.error_test_failures;
        ++stats.rejected_steps;
        if (h * std::max(0.2, std::min(factor, 0.9)) < o.min_step) {
          std::ostringstream os;
          os << "generalized-alpha: the local error " << error << " exceeds the tolerance "
             << o.error_tolerance << " at t = " << x.s.t << " s even with the step " << h
             << " s; the smallest step allowed is " << o.min_step << " s";
          out.status = Status::failure(Status::Code::kNotConverged, os.str());
          break;
        }
        h_try = h * std::max(0.2, std::min(factor, 0.9));
        continue;
      }
      growth = std::clamp(growth_factor, 0.2, 2.0);
      // Small increases are not worth a new iteration matrix (as in CVODE and IDA).
      if (o.reuse_iteration_matrix && growth > 1.0 && growth < kMaxStepRatio) growth = 1.0;
      std::swap(w.previous_change, w.change);  // accepted: y (x from here) was reached with h
    }
    std::swap(x, y);
    ++stats.steps;
    stats.last_step = h;
    stats.smallest_step = stats.steps == 1 ? h : std::min(stats.smallest_step, h);
    stats.largest_step = std::max(stats.largest_step, h);
    out.status = energy.check(x.s);
    if (!out.status.ok()) break;
    if (growth > 0.0) {
      // A step shortened to land on an output time does not shrink the next one, nor stop
      // it from growing (every step that divides the way to an output is a little shorter).
      const double next = std::min(o.step, growth * h);
      h_try = growth >= 1.0 ? std::max(h_try, next) : next;
    } else if (h_try < o.step && ++successes_since_cut >= 4) {
      h_try = std::min(o.step, 2.0 * h_try);
      successes_since_cut = 0;
    }
    const bool at_output = interval > 0.0 ? x.s.t >= next_output - 1e-9 * h : true;
    if (at_output) {
      if (interval > 0.0) next_output = initial.t + interval * static_cast<double>(++output_count);
      if (!emit(x.s)) break;
    }
  }
  out.state = x.s;
  if (!branch.status().ok()) out.status = branch.status();
  return out;
}

}  // namespace

DynamicsResult integrateGeneralizedAlpha(const Model& m, const AssemblyPlan& plan,
                                         const State& initial, const GeneralizedAlphaOptions& o,
                                         const TrajectoryObserver& observer) {
  auto run = [&](const State& start, double t_end, const TrajectoryObserver& segment) {
    GeneralizedAlphaOptions part = o;
    part.t_end = t_end;
    return withIndependentRows<DynamicsResult>(
        m, plan, start, segment,
        [&](const Model& model, const AssemblyPlan& p, const State& s,
            const TrajectoryObserver& obs, bool) { return integrate(model, p, s, part, obs); });
  };
  if (o.error_tolerance > 0.0) return run(initial, o.t_end, observer);
  // Fixed steps: a step that ends next to a singular configuration can leave Newton without a
  // solution; error control, which passes them, takes over there (singular_passage.hpp) at a
  // tolerance of the order of the fixed step's local error.
  PassageOptions passage;
  passage.output_interval = o.output_interval;
  passage.bridge_tolerance = std::clamp(o.step * o.step, 1e-10, 1e-6);
  return withSingularPassages<DynamicsResult>(
      m, plan, initial, o.t_end, passage, observer,
      [&](const State& start, bool, double t_end, const TrajectoryObserver& segment) {
        return run(start, t_end, segment);
      });
}

}  // namespace catena
