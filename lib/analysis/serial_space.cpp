#include "analysis/serial_space.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "model/state.hpp"
#include "solvers/saddle_point.hpp"

namespace catena {

SerialSpace::SerialSpace(const Model& m, const AssemblyPlan& plan)
    : m_(m),
      plan_(plan),
      cq_(makeConstraintMatrix(plan)),
      k_(makeBodyMatrix(plan)),
      c_(VecX::Zero(m.nc)),
      f_(VecX::Zero(m.nv)),
      f_mag_(VecX::Zero(m.nv)),
      v_zero_(VecX::Zero(m.nv)) {}

std::vector<RankedText> SerialSpace::largest(std::vector<RankedText> local, int count) const {
  std::stable_sort(local.begin(), local.end(),
                   [](const RankedText& a, const RankedText& b) { return a.value > b.value; });
  local.resize(std::min<std::size_t>(local.size(), static_cast<std::size_t>(std::max(count, 0))));
  return local;
}

double SerialSpace::lengthScale() const {
  return catena::lengthScale(m_);
}

void SerialSpace::assembleConstraints(const VecX& q, double t) {
  catena::assembleConstraints(m_, plan_, q, t, &c_, &cq_);
}

void SerialSpace::assembleForces(const VecX& q, double t) {
  catena::assembleForces(m_, plan_, q, v_zero_, t, f_);
  assembleForceMagnitudes(m_, plan_, q, v_zero_, t, f_mag_);
}

void SerialSpace::constraintForces(const VecX& lambda, VecX& cforce, VecX& terms) {
  cforce = cq_.transpose() * lambda;
  terms = forceTermMagnitudes(f_mag_, cq_, lambda);
}

double SerialSpace::assembleTangent(const VecX& q, double t, const VecX& lambda, bool with_kc) {
  assembleForceStiffness(m_, plan_, q, v_zero_, t, k_);
  if (with_kc) {
    addConstraintStiffness(m_, plan_, q, t, lambda, k_);
  }
  return maxAbsEntry(k_);
}

void SerialSpace::setTangentToIdentity() {
  for (int r = 0; r < k_.outerSize(); ++r)
    for (SparseMatrixCSR::InnerIterator it(k_, r); it; ++it) it.valueRef() = it.col() == r;
}

std::unique_ptr<KktSolver> SerialSpace::kktSolver(const std::string& prefix) const {
  return std::make_unique<SaddlePointSolver>(k_, cq_, prefix, plan_.body_nonzero);
}

void SerialSpace::applyVariation(const VecX& dq, double alpha, VecX& q) const {
  catena::applyVariation(m_, dq, alpha, q);
}

}  // namespace catena
