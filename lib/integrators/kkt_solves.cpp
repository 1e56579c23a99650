#include "integrators/kkt_solves.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"

namespace catena {

KktSolves::KktSolves(const Model& m, const AssemblyPlan& plan, const std::string& prefix)
    : m_(m),
      plan_(plan),
      Cq_(makeConstraintMatrix(plan)),
      M_(makeBodyMatrix(plan)),
      prefix_(prefix),
      mass_nonzero_(massNonzero(m, plan)),
      range_(M_, Cq_, m.nv_body, mass_nonzero_) {
  for (VecX* x : {&C_, &Ct_, &rate_, &gamma_}) x->resize(m.nc);
  f_.resize(m.nv);
  use_range_ = range_.applicable() && !kktSolverOptionsGiven(prefix_);
  if (!use_range_) kkt_ = std::make_unique<SaddlePointSolver>(M_, Cq_, prefix_, mass_nonzero_);
}

std::string KktSolves::solver() const {
  if (use_range_) return "range-space KKT solves";
  return "KKT matrix, " + (kkt_ ? kkt_->package() : std::string("klu"));
}

Status KktSolves::accelerations(const State& s, VecX& vdot, VecX& lambda) {
  Status st = factorAt(s.q, s.t);
  if (!st.ok()) return st;
  return solveAccelerations(s, vdot, lambda);
}

Status KktSolves::project(State& s, double position_tolerance, VecX& vdot) {
  Status st = factorAt(s.q, s.t);
  if (!st.ok()) return st;
  const VecX zero_v = VecX::Zero(m_.nv);
  VecX dq, y;
  for (int it = 0;; ++it) {
    assembleConstraints(m_, plan_, s.q, s.t, &C_, nullptr);
    if (maxAbs(C_) <= position_tolerance) break;
    if (it == 20)
      return Status::failure(Status::Code::kNotConverged,
                             "the projection onto the position constraints did not converge "
                             "(|C| = " +
                                 std::to_string(maxAbs(C_)) + " m after 20 iterations)");
    st = solve(zero_v, VecX(-C_), dq, y);
    if (!st.ok()) return st;
    applyVariation(m_, dq, 1.0, s.q);
  }
  st = factorAt(s.q, s.t);
  if (!st.ok()) return st;
  assembleConstraintTimeDerivative(m_, plan_, s.q, s.t, Ct_);
  const VecX residual = Cq_ * s.v + Ct_;
  VecX dv;
  st = solve(zero_v, VecX(-residual), dv, y);
  if (!st.ok()) return st;
  s.v += dv;
  return solveAccelerations(s, vdot, s.lambda);
}

std::pair<double, double> KktSolves::drift(const State& s) {
  assembleConstraints(m_, plan_, s.q, s.t, &C_, &Cq_);
  assembleConstraintTimeDerivative(m_, plan_, s.q, s.t, Ct_);
  rate_.noalias() = Cq_ * s.v;
  rate_ += Ct_;
  return {maxAbs(C_), maxAbs(rate_)};
}

Status KktSolves::factorAt(const VecX& q, double t) {
  assembleConstraints(m_, plan_, q, t, nullptr, &Cq_);
  assembleMass(m_, plan_, q, M_);
  ++factorizations_;
  range_factored_ = use_range_ && range_.factor(M_, Cq_).ok();
  if (range_factored_) return Status::success();
  if (use_range_) ++fallbacks_;
  use_range_ = use_range_ && range_.applicable();  // a singular mass block: never regular
  return factorKkt();
}

Status KktSolves::factorKkt() {
  range_factored_ = false;
  if (!kkt_) kkt_ = std::make_unique<SaddlePointSolver>(M_, Cq_, prefix_, mass_nonzero_);
  return kkt_->factor(M_, Cq_, constraintRowScale(M_, Cq_));
}

Status KktSolves::solve(const VecX& f, const VecX& g, VecX& x, VecX& y) {
  if (range_factored_) {
    if (range_.solve(f, g, x, y).ok()) return Status::success();
    // The range-space answer is not accurate enough here: the KKT matrix decides.
    ++fallbacks_;
    const Status st = factorKkt();
    if (!st.ok()) return st;
  }
  return kkt_->solve(f, g, x, y);
}

Status KktSolves::solveAccelerations(const State& s, VecX& vdot, VecX& lambda) {
  assembleForces(m_, plan_, s.q, s.v, s.t, f_);
  assembleGamma(m_, plan_, s.q, s.v, s.t, gamma_);
  return solve(f_, gamma_, vdot, lambda);
}

}  // namespace catena
