#include "statics/statics.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <sstream>

#include "analysis/scales.hpp"
#include "analysis/serial_space.hpp"
#include "solvers/kkt_solver.hpp"

namespace catena {
namespace {

/// The residuals of an iterate, each body's and joint's against its own scale; both infinite
/// where a value is not finite.
struct Residual {
  double force, position;
};

/// What the convergence test needs besides the state: the scales of the mechanism.
struct Scales {
  double length = 1.0;              ///< m: of the mechanism (joints between points)
  std::vector<double> sizes;        ///< of each local body, m (bodySizes)
  double position_tolerance = 0.0;  ///< for the round-off floor of the joints' length scales
};

/// Adds the wall seconds of its scope to `total`.
class ScopedSeconds {
 public:
  explicit ScopedSeconds(double& total) : total_(total) {}
  ~ScopedSeconds() {
    total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }
  ScopedSeconds(const ScopedSeconds&) = delete;
  ScopedSeconds& operator=(const ScopedSeconds&) = delete;

 private:
  double& total_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

/// analysis/scales.hpp's naturalNorm of an owned variation, over the ranks.
double naturalNorm(const Space& sp, const VecX& dq, double ls) {
  const double local = catena::naturalNorm(sp.model(), dq, ls);
  return std::sqrt(sp.sum(local * local));
}

/// The vectors of the last evaluation (owned entries), kept for the Newton right-hand side and
/// the conditioning check (no second C_q^T lambda for the check).
struct Evaluation {
  VecX r;       ///< f - C_q^T lambda
  VecX cforce;  ///< C_q^T lambda
  VecX terms;   ///< the magnitudes of the terms of r (forceTermMagnitudes)
};

/// Evaluates C, C_q, f and C_q^T lambda at s into the space and e; returns the residuals, each
/// body's and joint's against its own scale (analysis/scales.hpp), maxima over the ranks.
Residual evaluate(Space& sp, const State& s, const Scales& sc, Evaluation& e) {
  sp.assembleConstraints(s.q, s.t);
  sp.assembleForces(s.q, s.t);
  sp.constraintForces(s.lambda, e.cforce, e.terms);
  VecX& r = e.r;
  const VecX& terms = e.terms;
  r = sp.f() - e.cforce;
  if (sp.max(r.allFinite() && sp.C().allFinite() ? 0.0 : 1.0) > 0.0) return {INFINITY, INFINITY};
  const Model& m = sp.model();
  return {
      sp.max(bodyForceResidual(m, r, terms, sc.sizes)),
      sp.max(jointPositionResidual(m, sp.C(), s.q, sc.sizes, sc.length, sc.position_tolerance))};
}

/// Bodies whose applied forces change, when their coordinates move by one unit of round-off,
/// by more than kResolvedForces of the forces on them: there the equilibrium and the reactions
/// are resolved no better than that (docs/statics.md). K = -df/dq at s; terms: of the last
/// evaluation, which must be at s; at most `count` warnings over all ranks, the worst first.
constexpr double kResolvedForces = 1e-6;
std::vector<std::string> conditioningWarnings(Space& sp, const State& s, const Scales& sc,
                                              const VecX& terms, int count) {
  const Model& m = sp.model();
  const int per = m.nv_body, lin = m.dimension == 3 ? 3 : 2;
  sp.assembleTangent(s.q, s.t, s.lambda, false);
  const SparseMatrixCSR& K = sp.tangent();
  const Index owned = sp.ownedVelocities();
  VecX roundoff = VecX::Zero(owned);
  constexpr double eps = 2.220446049250313e-16;
  for (int row = 0; row < owned; ++row)
    for (SparseMatrixCSR::InnerIterator it(K, row); it; ++it) {
      const Index b = it.col() / per;
      const double unit =
          it.col() % per < lin ? eps * (s.q.segment(m.qOffset(b), lin).norm() + sc.sizes[b]) : eps;
      roundoff(row) += std::abs(it.value()) * unit;
    }
  std::vector<RankedText> bad;
  for (Index b = 0; b < sp.ownedBodies(); ++b) {
    const double force = terms.segment(b * per, per).maxCoeff(),
                 error = roundoff.segment(b * per, per).maxCoeff();
    if (!(error > kResolvedForces * force)) continue;
    const double ratio = force > 0.0 ? error / force : INFINITY;
    std::ostringstream os;
    os << "body '" << m.bodies[b].name << "': the applied forces change by " << ratio
       << " of the forces on it when its coordinates move by one unit of round-off (a very "
          "stiff element); its equilibrium and the reactions of its joints are not resolved "
          "better than that";
    bad.push_back({ratio, os.str()});
  }
  const double total = sp.sum(static_cast<double>(bad.size()));
  std::vector<std::string> out;
  for (RankedText& r : sp.largest(std::move(bad), count)) out.push_back(std::move(r.text));
  if (total > static_cast<double>(out.size()))
    out.push_back("... and " + std::to_string(static_cast<long>(total) - out.size()) +
                  " more bodies");
  return out;
}

std::vector<std::string> worstRows(const Space& sp, int count) {
  std::vector<std::string> out;
  for (RankedText& r : sp.largest(rankedWorstRows(sp.model(), sp.C(), count), count))
    out.push_back(std::move(r.text));
  return out;
}

void addCost(const KktSolver& kkt, StaticsResult& out) {
  const SaddlePointStats c = kkt.stats();
  out.factorizations += c.factorizations;
  out.solves += c.solves;
  out.factor_seconds += c.factor_seconds;
  out.solve_seconds += c.solve_seconds;
  out.krylov_iterations += c.krylov_iterations;
  addSchurStats(out.schur, c.schur);
}

}  // namespace

StaticsResult solveStatics(const Model& m, const AssemblyPlan& plan, State start,
                           const StaticsOptions& o) {
  SerialSpace space(m, plan);
  return solveStatics(space, std::move(start), o);
}

StaticsResult solveStatics(Space& sp, State s, const StaticsOptions& o) {
  const Model& m = sp.model();
  StaticsResult out;
  s.v.setZero();
  if (s.lambda.size() != m.nc) s.lambda = VecX::Zero(m.nc);
  Evaluation e;  // at the last evaluation
  const VecX& r = e.r;

  // 1. Scales, and multipliers that balance the applied forces in the least-squares sense
  //    (without them K_c would be zero at the first iteration).
  {
    ScopedSeconds timer(out.assembly_seconds);
    sp.assembleForces(s.q, s.t);
  }
  out.force_scale = std::max(sp.max(maxAbs(sp.f())), 1e-300);
  out.length_scale = sp.lengthScale();
  const double ls = out.length_scale;
  Scales sc;
  sc.length = ls;
  sc.sizes = bodySizes(m);
  sc.position_tolerance = o.position_tolerance;
  // Below round-off a test could never pass: it is taken at round-off (kRoundoffTolerance).
  const double force_tol = std::max(o.force_tolerance, kRoundoffTolerance),
               position_tol = std::max(o.position_tolerance, kRoundoffTolerance);
  auto converged = [&](const Residual& res) {
    return res.force <= force_tol && res.position <= position_tol;
  };
  {
    ScopedSeconds timer(out.assembly_seconds);
    sp.assembleConstraints(s.q, s.t);
  }
  // One solver for the multipliers' estimate and Newton: its set-up and pattern analysis are
  // made once (a 2-rank Schur decomposition of 2·10^5 links spent 1.2 s per rank building a
  // second saddle-point matrix and 1.8 s analysing it again, hand run).
  std::unique_ptr<KktSolver> kkt;
  {
    ScopedSeconds timer(out.setup_seconds);
    kkt = sp.kktSolver(o.petsc_prefix);
  }
  out.linear_solver = kkt->package();
  if (sp.sum(static_cast<double>(m.nc)) > 0.0) {
    // [I C_q^T; C_q 0] is a poor model of the tangents, and a package may fix its ordering,
    // pivots or scaling from the first matrix it analyses: Newton's first factorization
    // starts afresh (forgetAnalysis), as a new solver's would.
    sp.setTangentToIdentity();
    VecX lam;
    const Status st = kkt->leastSquaresMultipliers(sp.tangent(), sp.Cq(), sp.f(), lam);
    kkt->forgetAnalysis();
    if (!st.ok()) {
      addCost(*kkt, out);
      std::ostringstream os;
      os << "statics: the least-squares estimate of the multipliers failed (" << st.message << ")";
      if (st.code == Status::Code::kSingular)
        os << "; [I C_q^T; C_q 0] is singular when rows of C_q are dependent (redundant "
              "constraints at the initial configuration)";
      out.status = Status::failure(st.code, os.str());
      out.worst_rows = worstRows(sp, 5);
      out.state = s;
      out.history.push_back(
          {INFINITY,
           sp.max(jointPositionResidual(m, sp.C(), s.q, sc.sizes, ls, o.position_tolerance)), 0.0});
      return out;
    }
    s.lambda = lam;
  }

  // 2. Damped Newton.
  Residual res{};
  {
    ScopedSeconds timer(out.assembly_seconds);
    res = evaluate(sp, s, sc, e);
  }
  out.history.push_back({res.force, res.position, 0.0});
  if (o.on_iteration) o.on_iteration(0, out.history.back());
  double alpha = 1.0, alpha_pred = 1.0, norm_prev = 0.0, norm_bar = 0.0;
  VecX dq, lam, dq_bar, bar_lam;
  for (int it = 0; it < o.max_iterations; ++it) {
    if (converged(res)) break;
    if (o.stop_requested && o.stop_requested(it)) {
      std::ostringstream os;
      os << "statics: stopped on request after " << it << " Newton iterations (force residual "
         << res.force << ", position residual " << res.position << ")";
      out.status = Status::failure(Status::Code::kInterrupted, os.str());
      break;
    }
    double a_max = 0.0, scale = 1.0;
    {
      ScopedSeconds timer(out.assembly_seconds);
      a_max = sp.assembleTangent(s.q, s.t, s.lambda, o.constraint_stiffness);
      scale = constraintRowScale(a_max, sp.max(maxAbsEntry(sp.Cq())));
    }
    Status st = kkt->factor(sp.tangent(), sp.Cq(), scale, a_max);
    // The solve gives the new multipliers' change; lambda + dlambda is the Newton update.
    if (st.ok()) st = kkt->solve(r, VecX(-sp.C()), dq, lam);
    if (st.code == Status::Code::kResources) {
      out.status = Status::failure(
          st.code, "statics: at iteration " + std::to_string(it) + ", " + st.message);
      break;
    }
    if (!st.ok() || sp.max(dq.allFinite() ? 0.0 : 1.0) > 0.0) {
      std::ostringstream os;
      os << "statics: "
         << (st.ok() || st.code == Status::Code::kSingular ? "singular tangent"
                                                           : "the Newton system's solve failed")
         << " at iteration " << it << " (" << st.message << ")";
      if (!o.constraint_stiffness)
        os << "; K_c is switched off, and without the tangent stiffness of constraints a "
              "mechanism whose only stiffness comes from its joint reactions (a pendulum) has "
              "no stiffness along its free motions";
      out.status = Status::failure(st.ok() ? Status::Code::kSingular : st.code, os.str());
      break;
    }
    // Damping by the natural monotonicity test (Deuflhard, affine covariant; docs/statics.md):
    // a step alpha is accepted when the simplified Newton correction at the trial point, solved
    // with the same factorization, is smaller than the Newton correction:
    // |dq_bar| <= (1 - alpha/4) |dq|, measured in coordinates (m, rad).
    const double norm_dq = naturalNorm(sp, dq, ls);
    if (it > 0 && norm_prev > 0.0 && norm_dq > 0.0) {  // a priori prediction from the last step
      const double d = naturalNorm(sp, VecX(dq_bar - dq), ls);
      alpha_pred = d > 0.0 ? std::min(1.0, alpha * norm_prev * norm_bar / (d * norm_dq)) : 1.0;
    }
    const double rotation = sp.max(largestRotation(m, dq));
    alpha = std::max(std::min(alpha_pred, o.max_rotation_step / rotation), o.min_step);
    State trial = s;
    Residual tres{};
    bool accepted = false;
    for (int trial_it = 0; trial_it < 40; ++trial_it) {
      trial.q = s.q;
      sp.applyVariation(dq, alpha, trial.q);
      trial.lambda = s.lambda + alpha * lam;
      {
        ScopedSeconds timer(out.assembly_seconds);
        tres = evaluate(sp, trial, sc, e);
      }
      if (!std::isfinite(tres.force)) {
        alpha *= 0.5;
        continue;
      }
      const Status sb = kkt->solve(r, VecX(-sp.C()), dq_bar, bar_lam);
      norm_bar = sb.ok() ? naturalNorm(sp, dq_bar, ls) : INFINITY;
      if (norm_dq <= 1e-15 || norm_bar <= (1.0 - 0.25 * alpha) * norm_dq || converged(tres)) {
        accepted = true;
        break;
      }
      if (alpha <= o.min_step) break;
      // A posteriori estimate of the Kantorovich quantity h; the new step is 1/h, at most alpha/2.
      const double h =
          2.0 * naturalNorm(sp, VecX(dq_bar - (1.0 - alpha) * dq), ls) / (alpha * alpha * norm_dq);
      alpha = std::max(o.min_step, std::min(0.5 * alpha, h > 0.0 ? 1.0 / h : 0.5 * alpha));
    }
    norm_prev = norm_dq;
    if (!accepted) {
      std::ostringstream os;
      os << "statics: no damped Newton step reduces the correction at iteration " << it
         << " (force residual " << res.force << ", position residual " << res.position
         << ", smallest step tried " << alpha << ")";
      out.status = Status::failure(Status::Code::kNotConverged, os.str());
      break;
    }
    s = trial;
    res = tres;
    out.history.push_back({res.force, res.position, alpha});
    if (o.on_iteration) o.on_iteration(it + 1, out.history.back());
  }
  if (out.status.ok()) {
    if (converged(res)) {
      out.state = s;
      out.warnings = conditioningWarnings(sp, s, sc, e.terms, 5);
      addCost(*kkt, out);
      return out;
    }
    std::ostringstream os;
    os << "statics did not converge in " << o.max_iterations << " iterations (force residual "
       << res.force << ", position residual " << res.position
       << ", each relative to its body's or joint's own scale)";
    out.status = Status::failure(Status::Code::kNotConverged, os.str());
  }
  evaluate(sp, s, sc, e);  // the workspace at the last iterate
  out.worst_rows = worstRows(sp, 5);
  // A body whose forces round-off cannot resolve may be why Newton stalled: say so.
  out.warnings = conditioningWarnings(sp, s, sc, e.terms, 5);
  if (!out.warnings.empty() && out.status.code != Status::Code::kInterrupted)
    out.status.message += "; round-off may be the cause: " + out.warnings.front();
  out.state = s;
  addCost(*kkt, out);
  return out;
}

}  // namespace catena
