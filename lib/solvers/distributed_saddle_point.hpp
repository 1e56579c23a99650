#pragma once
/// @file distributed_saddle_point.hpp
/// The solver of the distributed statics' saddle-point systems
///   K [x; y] = [A, s B^T; s B, 0] [x; y] = [f; s g]
/// (A: the tangent, or I for the multipliers' least-squares estimate; B = C_q; s scales the
/// constraint rows), in the numbering of saddle_numbering.hpp, by either method of
/// SaddlePointSolverOptions (kkt_solver.hpp):
///
/// - direct: KSP preonly + LU, MUMPS unless the options say otherwise (direct_lu.hpp);
/// - augmented Lagrangian: FGMRES on K itself, preconditioned through the augmented matrix
///     K_gamma = T K = [A + gamma (s B)^T (s B), s B^T; s B, 0],  T = [I, gamma (s B)^T; 0, I],
///   so K^{-1} = K_gamma^{-1} T: the preconditioner applies T (one product with K) and then
///   PCFIELDSPLIT (Schur, upper factorization) on K_gamma. Where A is positive definite on the
///   null space of B (a stable equilibrium), K_gamma's velocity block is positive definite for
///   gamma large enough: CG with additive Schwarz (overlapping Cholesky factors, one per rank)
///   solves it. The Schur complement S = -(s B) (A + gamma (s B)^T (s B))^{-1} (s B)^T has the
///   inverse -gamma I - ((s B) A^{-1} (s B)^T)^{-1}, so -(1/gamma) I approximates it the better the
///   larger gamma (Benzi and Olshanskii, SIAM J. Sci. Comput. 28 (2006) 2095). FGMRES measures
///   K's own residual: gamma's large entries never enter it, so the Newton iteration reaches the
///   tolerances the direct solver reaches. gamma = augmentation / max|A|. No factor of the whole
///   system exists anywhere;
/// - Schur-complement domain decomposition: KLU on each rank's interior and on the gathered
///   interface (solvers/schur_decomposition.hpp).
///
/// Collective.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "parallel/distributed_model.hpp"
#include "parallel/saddle_numbering.hpp"
#include "solvers/kkt_solver.hpp"
#include "solvers/schur_decomposition.hpp"

namespace catena {

/// The MPI KktSolver (solvers/kkt_solver.hpp).
class DistributedSaddlePoint : public KktSolver {
 public:
  /// A, B: the local patterns (distributed_assembly.hpp); prefix: PETSc options prefix of the
  /// solver (the augmented Lagrangian's preconditioner: PREFIXal_). A_nonzero (empty, or one
  /// flag per entry of A's pattern, AssemblyPlan::body_nonzero): the entries flagged 0 are zero
  /// in every A this solver gets, and are left out of K.
  DistributedSaddlePoint(const DistributedModel& dm, const SparseMatrixCSR& A,
                         const SparseMatrixCSR& B, const std::string& prefix,
                         const SaddlePointSolverOptions& options,
                         const std::vector<std::uint8_t>& A_nonzero = {});
  ~DistributedSaddlePoint();
  DistributedSaddlePoint(const DistributedSaddlePoint&) = delete;
  DistributedSaddlePoint& operator=(const DistributedSaddlePoint&) = delete;

  /// Refills K from A, B with constraint scale s; direct: factors it; augmented Lagrangian:
  /// sets up the preconditioner with gamma = augmentation / a_max. Collective.
  Status factor(const SparseMatrixCSR& A, const SparseMatrixCSR& B, double s,
                double a_max = 0.0) override;
  /// Collective.
  Status solve(const VecX& f, const VecX& g, VecX& x, VecX& y) override;
  /// The augmented Lagrangian raises gamma 1000-fold, up to least_squares_augmentation, while
  /// FGMRES does not converge: B B^T is far worse conditioned than the Newton systems' Schur
  /// complements (docs/parallel.md). Collective.
  Status leastSquaresMultipliers(const SparseMatrixCSR& I, const SparseMatrixCSR& B, const VecX& f,
                                 VecX& y) override;
  /// KktSolver::forgetAnalysis: direct: the next factor() analyses anew (PCReset); Schur: new
  /// pivots in the interior blocks and a new analysis of the interface matrix, the interfaces
  /// kept; augmented Lagrangian: nothing to forget (its set-up is redone by every factor()).
  void forgetAnalysis() override;
  std::string package() const override;
  SaddlePointStats stats() const override;

 private:
  struct AugmentedLagrangian;  // the preconditioner's objects
  bool schur() const { return options_.method == SaddlePointSolverOptions::Method::kSchur; }
  Status factorNow(const SparseMatrixCSR& A, const SparseMatrixCSR& B, double s, double a_max);
  Status solveNow(const VecX& f, const VecX& g, VecX& x, VecX& y);

  const DistributedModel& dm_;
  SaddlePointSolverOptions options_;
  SaddleNumbering n_;
  double scale_ = 1.0;
  SaddlePointStats stats_;
  struct Petsc;  // PETSc objects stay out of this header
  std::unique_ptr<Petsc> p_;
  std::unique_ptr<AugmentedLagrangian> al_;
  std::unique_ptr<SchurDecomposition> dd_;
};

}  // namespace catena
