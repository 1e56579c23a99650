#include "statics/statics.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "solvers/saddle_point.hpp"

namespace catena {
namespace {

/// Matrices and vectors of one statics evaluation, allocated once. Two nv x nv matrices: the
/// tangent K + K_c is summed into K (they share the body pattern), and K also holds the
/// identity of the multiplier estimate; statics has no use for D. Each body matrix costs
/// 1.3 kB per link of a chain, so the three that are not kept matter at 10^6 links.
struct Workspace {
  SparseMatrixCSR Cq, K, Kc;
  VecX C, f, f_mag, cforce;
  Workspace(const Model& m, const AssemblyPlan& plan, bool constraint_stiffness)
      : Cq(makeConstraintMatrix(plan)),
        K(makeBodyMatrix(plan)),
        Kc(constraint_stiffness ? makeBodyMatrix(plan) : SparseMatrixCSR()),
        C(m.nc),
        f(m.nv),
        f_mag(m.nv),
        cforce(m.nv) {}
};

/// The identity in the pattern of A (square, with its diagonal).
void setIdentity(SparseMatrixCSR& A) {
  for (int r = 0; r < A.outerSize(); ++r)
    for (SparseMatrixCSR::InnerIterator it(A, r); it; ++it) it.valueRef() = it.col() == r;
}

/// The residuals of an iterate, each body's and joint's against its own scale; both infinite
/// where a value is not finite.
struct Residual {
  double force, position;
};

/// What the convergence test needs besides the state: the scales of the mechanism.
struct Scales {
  double length = 1.0;              ///< m: of the mechanism (joints between points)
  std::vector<double> sizes;        ///< of each body, m (bodySizes)
  double position_tolerance = 0.0;  ///< for the round-off floor of the joints' length scales
};

/// Evaluates C, C_q, f and C_q^T lambda at s; returns the residuals, each body's and joint's
/// against its own scale (analysis/scales.hpp).
Residual evaluate(const Model& m, const AssemblyPlan& plan, const State& s, const Scales& sc,
                  Workspace& w) {
  assembleConstraints(m, plan, s.q, s.t, &w.C, &w.Cq);
  assembleForces(m, plan, s.q, s.v, s.t, w.f);
  assembleForceMagnitudes(m, plan, s.q, s.v, s.t, w.f_mag);
  w.cforce = w.Cq.transpose() * s.lambda;
  const VecX r = w.f - w.cforce;
  if (!r.allFinite() || !w.C.allFinite()) return {INFINITY, INFINITY};
  return {bodyForceResidual(m, r, w.f_mag, w.Cq, s.lambda, sc.sizes),
          jointPositionResidual(m, w.C, s.q, sc.sizes, sc.length, sc.position_tolerance)};
}

/// Bodies whose applied forces change, when their coordinates move by one unit of round-off,
/// by more than kResolvedForces of the forces on them: there the equilibrium and the reactions
/// are resolved no better than that (a 1e20 N/m spring makes a pendulum's hinge force 32768 N
/// instead of its 147 N weight). K = -df/dq at s; at most `count` warnings, the worst first.
constexpr double kResolvedForces = 1e-6;
std::vector<std::string> conditioningWarnings(const Model& m, const AssemblyPlan& plan,
                                              const State& s, const Scales& sc, Workspace& w,
                                              int count) {
  const int per = m.nv_body, lin = m.dimension == 3 ? 3 : 2;
  assembleForceStiffness(m, plan, s.q, s.v, s.t, w.K);
  const VecX terms = forceTermMagnitudes(w.f_mag, w.Cq, s.lambda);
  VecX roundoff = VecX::Zero(m.nv);
  constexpr double eps = 2.220446049250313e-16;
  for (int row = 0; row < w.K.outerSize(); ++row)
    for (SparseMatrixCSR::InnerIterator it(w.K, row); it; ++it) {
      const Index b = it.col() / per;
      const double unit =
          it.col() % per < lin ? eps * (s.q.segment(m.qOffset(b), lin).norm() + sc.sizes[b]) : eps;
      roundoff(row) += std::abs(it.value()) * unit;
    }
  std::vector<std::pair<double, Index>> bad;
  for (Index b = 0; b < static_cast<Index>(m.bodies.size()); ++b) {
    const double force = terms.segment(b * per, per).maxCoeff(),
                 error = roundoff.segment(b * per, per).maxCoeff();
    if (error > kResolvedForces * force)
      bad.emplace_back(force > 0.0 ? error / force : INFINITY, b);
  }
  std::sort(bad.begin(), bad.end(), std::greater<>());
  std::vector<std::string> out;
  for (std::size_t k = 0; k < bad.size() && static_cast<int>(k) < count; ++k) {
    std::ostringstream os;
    os << "body '" << m.bodies[bad[k].second].name << "': the applied forces change by "
       << bad[k].first
       << " of the forces on it when its coordinates move by one unit of round-off (a very "
          "stiff element); its equilibrium and the reactions of its joints are not resolved "
          "better than that";
    out.push_back(os.str());
  }
  if (bad.size() > out.size())
    out.push_back("... and " + std::to_string(bad.size() - out.size()) + " more bodies");
  return out;
}

void addCost(const SaddlePointSolver& kkt, StaticsResult& out) {
  const SaddlePointStats& c = kkt.stats();
  out.factorizations += c.factorizations;
  out.solves += c.solves;
  out.factor_seconds += c.factor_seconds;
  out.solve_seconds += c.solve_seconds;
}

}  // namespace

StaticsResult solveStatics(const Model& m, const AssemblyPlan& plan, State s,
                           const StaticsOptions& o) {
  StaticsResult out;
  Workspace w(m, plan, o.constraint_stiffness);
  SaddlePointSolver kkt(w.K, w.Cq, o.petsc_prefix, plan.body_nonzero);
  out.linear_solver = kkt.package();
  s.v.setZero();
  if (s.lambda.size() != m.nc) s.lambda = VecX::Zero(m.nc);

  // 1. Scales, and multipliers that balance the applied forces in the least-squares sense
  //    (without them K_c would be zero at the first iteration).
  assembleForces(m, plan, s.q, s.v, s.t, w.f);
  out.force_scale = std::max(maxAbs(w.f), 1e-300);
  out.length_scale = lengthScale(m);
  const double ls = out.length_scale;
  Scales sc;
  sc.length = ls;
  sc.sizes = bodySizes(m);
  sc.position_tolerance = o.position_tolerance;
  // Below round-off a test could never pass: it is taken at round-off (kRoundoffTolerance).
  const double force_tol = std::max(o.force_tolerance, kRoundoffTolerance),
               position_tol = std::max(o.position_tolerance, kRoundoffTolerance);
  auto converged = [&](const Residual& r) {
    return r.force <= force_tol && r.position <= position_tol;
  };
  assembleConstraints(m, plan, s.q, s.t, &w.C, &w.Cq);
  if (m.nc > 0) {
    // [I C_q^T; C_q 0] through the Newton solver, which then forgets its analysis: a package
    // may fix its ordering, pivots or scaling from the first matrix it analyses, and this one
    // is a poor model of the tangents. The same results as a solver of its own, without a
    // second factorization (and through PETSc a second matrix) alive at the peak.
    setIdentity(w.K);
    Status st = kkt.factor(w.K, w.Cq, 1.0);
    VecX x, lam;
    if (st.ok()) st = kkt.solve(w.f, VecX::Zero(m.nc), x, lam);
    kkt.forgetAnalysis();
    if (!st.ok()) {
      std::ostringstream os;
      os << "statics: the least-squares estimate of the multipliers failed (" << st.message << ")";
      if (st.code == Status::Code::kSingular)
        os << "; [I C_q^T; C_q 0] is singular only when rows of C_q are dependent: the mechanism "
              "has redundant constraints at its initial configuration";
      out.status = Status::failure(st.code, os.str());
      out.worst_rows = worstRows(m, w.C, 5);
      out.state = s;
      out.history.push_back(
          {INFINITY, jointPositionResidual(m, w.C, s.q, sc.sizes, ls, o.position_tolerance), 0.0});
      addCost(kkt, out);
      return out;
    }
    s.lambda = lam;
  }

  // 2. Damped Newton.
  Residual res = evaluate(m, plan, s, sc, w);
  out.history.push_back({res.force, res.position, 0.0});
  if (o.on_iteration) o.on_iteration(0, out.history.back());
  double alpha = 1.0, alpha_pred = 1.0, norm_prev = 0.0, norm_bar = 0.0;
  VecX dq_bar;
  for (int it = 0; it < o.max_iterations; ++it) {
    if (converged(res)) break;
    assembleForceStiffness(m, plan, s.q, s.v, s.t, w.K);
    // K and K_c share the body pattern, so the tangent is a sum of value arrays, made in K.
    if (o.constraint_stiffness) {
      assembleConstraintStiffness(m, plan, s.q, s.t, s.lambda, w.Kc);
      values(w.K) += values(w.Kc);
    }
    Status st = kkt.factor(w.K, w.Cq, constraintRowScale(w.K, w.Cq));
    VecX dq, lam;
    if (st.ok()) st = kkt.solve(VecX(w.f - w.cforce), VecX(-w.C), dq, lam);
    // The solve gives the new multipliers' change; lambda + dlambda is the Newton update.
    if (st.code == Status::Code::kResources) {
      out.status = Status::failure(
          st.code, "statics: at iteration " + std::to_string(it) + ", " + st.message);
      break;
    }
    if (!st.ok() || !dq.allFinite()) {
      std::ostringstream os;
      os << "statics: singular tangent at iteration " << it << " (" << st.message << ")";
      if (!o.constraint_stiffness)
        os << "; K_c is switched off, and without the tangent stiffness of constraints a "
              "mechanism whose only stiffness comes from its joint reactions (a pendulum) has "
              "no stiffness along its free motions";
      out.status = Status::failure(Status::Code::kSingular, os.str());
      break;
    }
    // Damping by the natural monotonicity test (Deuflhard, affine covariant): a step alpha is
    // accepted when the simplified Newton correction at the trial point, solved with the same
    // factorization, is smaller than the Newton correction: |dq_bar| <= (1 - alpha/4) |dq|. It
    // measures the distance to the solution in coordinates (m, rad), where a residual merit is
    // dominated by the joint forces of a tensioned chain, which exceed the link weight N times.
    const double norm_dq = naturalNorm(m, dq, ls);
    if (it > 0 && norm_prev > 0.0 && norm_dq > 0.0) {  // a priori prediction from the last step
      const double d = naturalNorm(m, VecX(dq_bar - dq), ls);
      alpha_pred = d > 0.0 ? std::min(1.0, alpha * norm_prev * norm_bar / (d * norm_dq)) : 1.0;
    }
    alpha =
        std::max(std::min(alpha_pred, o.max_rotation_step / largestRotation(m, dq)), o.min_step);
    State trial = s;
    Residual tres{};
    bool accepted = false;
    for (int trial_it = 0; trial_it < 40; ++trial_it) {
      trial.q = s.q;
      applyVariation(m, dq, alpha, trial.q);
      trial.lambda = s.lambda + alpha * lam;
      tres = evaluate(m, plan, trial, sc, w);
      if (!std::isfinite(tres.force)) {
        alpha *= 0.5;
        continue;
      }
      VecX bar_lam;
      Status sb = kkt.solve(VecX(w.f - w.cforce), VecX(-w.C), dq_bar, bar_lam);
      norm_bar = sb.ok() ? naturalNorm(m, dq_bar, ls) : INFINITY;
      if (norm_dq <= 1e-15 || norm_bar <= (1.0 - 0.25 * alpha) * norm_dq || converged(tres)) {
        accepted = true;
        break;
      }
      if (alpha <= o.min_step) break;
      // A posteriori estimate of the Kantorovich quantity h; the new step is 1/h, at most alpha/2.
      const double h =
          2.0 * naturalNorm(m, VecX(dq_bar - (1.0 - alpha) * dq), ls) / (alpha * alpha * norm_dq);
      alpha = std::max(o.min_step, std::min(0.5 * alpha, h > 0.0 ? 1.0 / h : 0.5 * alpha));
    }
    norm_prev = norm_dq;
    if (!accepted) {
      evaluate(m, plan, s, sc, w);  // restore the workspace to the current iterate
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
      out.warnings = conditioningWarnings(m, plan, s, sc, w, 5);
      addCost(kkt, out);
      return out;
    }
    std::ostringstream os;
    os << "statics did not converge in " << o.max_iterations << " iterations (force residual "
       << res.force << ", position residual " << res.position
       << ", each relative to its body's or joint's own scale)";
    out.status = Status::failure(Status::Code::kNotConverged, os.str());
  }
  evaluate(m, plan, s, sc, w);
  out.worst_rows = worstRows(m, w.C, 5);
  // A body whose forces round-off cannot resolve may be why Newton stalled: say so.
  out.warnings = conditioningWarnings(m, plan, s, sc, w, 5);
  if (!out.warnings.empty())
    out.status.message += "; round-off may be the cause: " + out.warnings.front();
  out.state = s;
  addCost(kkt, out);
  return out;
}

}  // namespace catena
