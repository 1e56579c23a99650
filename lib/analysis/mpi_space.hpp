#pragma once
/// @file mpi_space.hpp
/// Space (analysis/space.hpp) of one rank's part of a DistributedModel: the distributed assembly
/// (parallel/distributed_assembly.hpp), DistributedSaddlePoint (MUMPS or an augmented
/// Lagrangian), reductions over PETSC_COMM_WORLD. Every call is collective.

#include "analysis/space.hpp"
#include "parallel/distributed_assembly.hpp"

namespace catena {

/// The `count` entries of largest value over all ranks' `local` (Space::largest), on
/// PETSC_COMM_WORLD. Collective.
std::vector<RankedText> largestOverRanks(std::vector<RankedText> local, int count);

/// analysis/scales.hpp's lengthScale of the whole distributed model (m), the same on every rank.
/// Collective.
double distributedLengthScale(const DistributedModel& dm);

class MpiSpace : public Space {
 public:
  /// Keeps a reference to assembly; linear: how its KKT solvers solve.
  MpiSpace(DistributedAssembly& assembly, const SaddlePointSolverOptions& linear);

  const Model& model() const override { return dm_.local(); }
  const AssemblyPlan& plan() const override { return as_.plan(); }
  Index ownedBodies() const override { return dm_.part().owned_bodies; }
  double sum(double x) const override { return dm_.sum(x); }
  double max(double x) const override { return dm_.max(x); }
  std::vector<RankedText> largest(std::vector<RankedText> local, int count) const override;
  void updateGhosts(VecX& q) const override { dm_.updateGhosts(q); }
  double lengthScale() const override;

  void assembleConstraints(const VecX& q, double t) override { as_.assembleConstraints(q, t); }
  void assembleForces(const VecX& q, double t) override { as_.assembleForces(q, t); }
  void constraintForces(const VecX& lambda, VecX& cforce, VecX& terms) override;
  double assembleTangent(const VecX& q, double t, const VecX& lambda, bool with_kc) override;
  void setTangentToIdentity() override { as_.setTangentToIdentity(); }

  const VecX& C() const override { return as_.C(); }
  const VecX& f() const override { return as_.f(); }
  const SparseMatrixCSR& Cq() const override { return as_.localCq(); }
  const SparseMatrixCSR& tangent() const override { return as_.localTangent(); }

  std::unique_ptr<KktSolver> kktSolver(const std::string& prefix) const override;
  void applyVariation(const VecX& dq, double alpha, VecX& q) const override;

 private:
  DistributedAssembly& as_;
  const DistributedModel& dm_;
  SaddlePointSolverOptions linear_;
};

}  // namespace catena
