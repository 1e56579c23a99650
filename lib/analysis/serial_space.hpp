#pragma once
/// @file serial_space.hpp
/// Space (analysis/space.hpp) of a whole Model in one process: the serial assembly
/// (assembly/assemble.hpp), SaddlePointSolver (KLU or any PETSc LU), reductions that return
/// their argument. Matrices are allocated once at construction.

#include "analysis/space.hpp"

namespace catena {

class SerialSpace : public Space {
 public:
  /// Keeps references to model and plan.
  SerialSpace(const Model& model, const AssemblyPlan& plan);

  const Model& model() const override { return m_; }
  const AssemblyPlan& plan() const override { return plan_; }
  Index ownedBodies() const override { return static_cast<Index>(m_.bodies.size()); }
  double sum(double x) const override { return x; }
  double max(double x) const override { return x; }
  std::vector<RankedText> largest(std::vector<RankedText> local, int count) const override;
  void updateGhosts(VecX&) const override {}
  double lengthScale() const override;

  void assembleConstraints(const VecX& q, double t) override;
  void assembleForces(const VecX& q, double t) override;
  void constraintForces(const VecX& lambda, VecX& cforce, VecX& terms) override;
  double assembleTangent(const VecX& q, double t, const VecX& lambda, bool with_kc) override;
  void setTangentToIdentity() override;

  const VecX& C() const override { return c_; }
  const VecX& f() const override { return f_; }
  const SparseMatrixCSR& Cq() const override { return cq_; }
  const SparseMatrixCSR& tangent() const override { return k_; }

  std::unique_ptr<KktSolver> kktSolver(const std::string& prefix) const override;
  void applyVariation(const VecX& dq, double alpha, VecX& q) const override;

 private:
  const Model& m_;
  const AssemblyPlan& plan_;
  // The tangent K + K_c is summed into K (they share the body pattern; the joints add K_c's
  // terms in place); statics has no use for D. Each body matrix costs 1.3 kB per link of a
  // chain.
  SparseMatrixCSR cq_, k_;
  VecX c_, f_, f_mag_, v_zero_;
};

}  // namespace catena
