#include "analysis/statics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "assembly/assemble.hpp"
#include "solvers/saddle_point.hpp"

namespace catena {
namespace {

/// Matrices and vectors of one statics evaluation, allocated once.
struct Workspace {
  SparseMatrixCSR Cq, Kc, K, D, A, I;
  VecX C, f, cforce;
  explicit Workspace(const Model& m, const AssemblyPlan& plan)
      : Cq(makeConstraintMatrix(plan)),
        Kc(makeBodyMatrix(plan)),
        K(makeBodyMatrix(plan)),
        D(makeBodyMatrix(plan)),
        A(makeBodyMatrix(plan)),
        I(makeBodyMatrix(plan)),
        C(m.nc),
        f(m.nv),
        cforce(m.nv) {
    for (int r = 0; r < I.outerSize(); ++r)
      for (SparseMatrixCSR::InnerIterator it(I, r); it; ++it) it.valueRef() = it.col() == r;
  }
};

double maxAbs(const VecX& x) {
  return x.size() ? x.cwiseAbs().maxCoeff() : 0.0;
}

/// Size of the mechanism: the largest distance of a body or ground marker from their centroid.
double lengthScale(const Model& m) {
  std::vector<Vec3> points;
  for (const Body& b : m.bodies) points.push_back(b.position);
  for (const Marker& k : m.markers)
    if (k.body == kGround) points.push_back(k.position);
  if (points.empty()) return 1.0;
  Vec3 c = Vec3::Zero();
  for (const Vec3& p : points) c += p;
  c /= static_cast<double>(points.size());
  double r = 0.0;
  for (const Vec3& p : points) r = std::max(r, (p - c).norm());
  return r > 0.0 ? r : 1.0;
}

struct Residual {
  double force, position, merit;
};

/// Evaluates C, C_q, f and C_q^T lambda at s; returns the scaled residual norms.
Residual evaluate(const Model& m, const AssemblyPlan& plan, const State& s, double fs, double ls,
                  Workspace& w) {
  assembleConstraints(m, plan, s.q, s.t, &w.C, &w.Cq);
  assembleForces(m, plan, s.q, s.v, s.t, w.f);
  w.cforce = w.Cq.transpose() * s.lambda;
  const VecX r = w.f - w.cforce;
  Residual res;
  res.force = maxAbs(r) / fs;
  res.position = maxAbs(w.C) / ls;
  res.merit = r.squaredNorm() / (fs * fs) + w.C.squaredNorm() / (ls * ls);
  return res;
}

std::vector<std::string> worstRows(const Model& m, const VecX& C, int count) {
  std::vector<Index> order(C.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](Index a, Index b) { return std::abs(C(a)) > std::abs(C(b)); });
  std::vector<std::string> out;
  for (int k = 0; k < count && k < static_cast<int>(order.size()); ++k) {
    std::ostringstream os;
    os << m.rowName(order[k]) << ": " << C(order[k]);
    out.push_back(os.str());
  }
  return out;
}

/// Ratio that puts the constraint block on the scale of the stiffness block.
double constraintScale(const SparseMatrixCSR& A, const SparseMatrixCSR& Cq) {
  double a = 0.0, c = 0.0;
  for (int k = 0; k < A.nonZeros(); ++k) a = std::max(a, std::abs(A.valuePtr()[k]));
  for (int k = 0; k < Cq.nonZeros(); ++k) c = std::max(c, std::abs(Cq.valuePtr()[k]));
  return (a > 0.0 && c > 0.0) ? a / c : 1.0;
}

}  // namespace

StaticsResult solveStatics(const Model& m, const AssemblyPlan& plan, State s,
                           const StaticsOptions& o) {
  StaticsResult out;
  Workspace w(m, plan);
  SaddlePointSolver kkt(w.A, w.Cq, o.petsc_prefix);
  out.linear_solver = kkt.package();
  s.v.setZero();
  if (s.lambda.size() != m.nc) s.lambda = VecX::Zero(m.nc);

  // 1. Scales, and multipliers that balance the applied forces in the least-squares sense
  //    (without them K_c would be zero at the first iteration).
  assembleForces(m, plan, s.q, s.v, s.t, w.f);
  out.force_scale = std::max(maxAbs(w.f), 1e-300);
  out.length_scale = lengthScale(m);
  const double fs = out.force_scale, ls = out.length_scale;
  assembleConstraints(m, plan, s.q, s.t, &w.C, &w.Cq);
  if (m.nc > 0) {
    Status st = kkt.factor(w.I, w.Cq, 1.0);
    VecX x, lam;
    if (st.ok()) st = kkt.solve(w.f, VecX::Zero(m.nc), x, lam);
    if (st.ok()) s.lambda = lam;
  }

  // 2. Newton with backtracking line search on the scaled residual.
  Residual res = evaluate(m, plan, s, fs, ls, w);
  out.history.push_back({res.force, res.position, 0.0, 1.0});
  for (int it = 0; it < o.max_iterations; ++it) {
    if (res.force <= o.force_tolerance && res.position <= o.position_tolerance) {
      out.status = Status::success();
      out.state = s;
      return out;
    }
    assembleForceJacobians(m, plan, s.q, s.v, s.t, nullptr, w.K, w.D);
    // K and K_c share the body pattern, so the tangent is a sum of value arrays.
    if (o.constraint_stiffness) {
      assembleConstraintStiffness(m, plan, s.q, s.t, s.lambda, w.Kc);
      values(w.A) = values(w.K) + values(w.Kc);
    } else {
      values(w.A) = values(w.K);
    }
    Status st = kkt.factor(w.A, w.Cq, constraintScale(w.A, w.Cq));
    VecX dq, lam;
    if (st.ok()) st = kkt.solve(VecX(w.f - w.cforce), VecX(-w.C), dq, lam);
    // The solve gives the new multipliers' change; lambda + dlambda is the Newton update.
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
    // Line search: halve the step until the merit decreases.
    double alpha = 1.0;
    State trial = s;
    Residual tres{};
    bool accepted = false;
    for (int ls_it = 0; ls_it < 30; ++ls_it, alpha *= 0.5) {
      trial.q = s.q;
      applyVariation(m, dq, alpha, trial.q);
      trial.lambda = s.lambda + alpha * lam;
      tres = evaluate(m, plan, trial, fs, ls, w);
      if (std::isfinite(tres.merit) && tres.merit < (1.0 - 1e-4 * alpha) * res.merit) {
        accepted = true;
        break;
      }
    }
    if (!accepted) {
      evaluate(m, plan, s, fs, ls, w);  // restore the workspace to the current iterate
      std::ostringstream os;
      os << "statics: the line search found no decrease of the residual at iteration " << it
         << " (force residual " << res.force << ", position residual " << res.position << ")";
      out.status = Status::failure(Status::Code::kNotConverged, os.str());
      break;
    }
    s = trial;
    res = tres;
    out.history.push_back({res.force, res.position, alpha, 1.0});
  }
  if (out.status.ok()) {
    if (res.force <= o.force_tolerance && res.position <= o.position_tolerance) {
      out.state = s;
      return out;
    }
    std::ostringstream os;
    os << "statics did not converge in " << o.max_iterations << " iterations (force residual "
       << res.force << " of " << fs << " N, position residual " << res.position << " of " << ls
       << " m)";
    out.status = Status::failure(Status::Code::kNotConverged, os.str());
  }
  evaluate(m, plan, s, fs, ls, w);
  out.worst_rows = worstRows(m, w.C, 5);
  out.state = s;
  return out;
}

}  // namespace catena
