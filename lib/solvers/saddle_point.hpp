#pragma once
/// @file saddle_point.hpp
/// Sparse direct solution of the saddle-point (KKT) system of statics and assembly,
///   [ A   B^T ] [x]   [f]
///   [ B   0   ] [y] = [g],     A: n x n (body pattern), B: m x n (C_q pattern),
/// through PETSc (KSP preonly + LU, KLU by default: solvers/factorization.hpp; every PETSc
/// option applies under the options prefix, e.g. -statics_pc_factor_mat_solver_type mumps).
/// When the options leave that default, KLU is called directly (solvers/klu_lu.hpp) so that
/// a refactorization reuses the pivot order: twice as fast, same package and ordering; the
/// matrix is then stored once, in KLU's arrays, and PETSc keeps no copy. The pattern is built
/// once from the two assembly patterns; factor() refills values in place. The constraint rows and
/// columns are scaled by s (factor's argument) so that the pivots do not depend on units.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "core/status.hpp"
#include "solvers/kkt_solver.hpp"

namespace catena {

/// True when the PETSc options choose the KKT solver under `prefix` ("x_"): -PREFIXksp_type,
/// -PREFIXpc_type, -PREFIXpc_factor_mat_solver_type or a -mat_klu_* option (prefixed or not:
/// PETSc 3.18 reads those without the prefix) is set. A caller with
/// a faster path of its own (RangeSpaceKkt) then leaves the choice to SaddlePointSolver.
bool kktSolverOptionsGiven(const std::string& prefix);

/// The one-process KktSolver (solvers/kkt_solver.hpp).
class SaddlePointSolver : public KktSolver {
 public:
  /// A_pattern and B_pattern fix the sparsity; prefix is the PETSc options prefix ("" or "x_").
  /// A_nonzero (empty, or one flag per entry of A_pattern, AssemblyPlan::body_nonzero): the
  /// entries flagged 0 are zero in every A this solver gets, and are left out of the factored
  /// matrix.
  SaddlePointSolver(const SparseMatrixCSR& A_pattern, const SparseMatrixCSR& B_pattern,
                    const std::string& prefix, const std::vector<std::uint8_t>& A_nonzero = {});
  ~SaddlePointSolver();
  SaddlePointSolver(const SaddlePointSolver&) = delete;
  SaddlePointSolver& operator=(const SaddlePointSolver&) = delete;

  /// Copies the values of A and B (same patterns as at construction) and factors the scaled
  /// system. A singular matrix returns kSingular, exhausted memory kResources, each with the
  /// package's diagnosis (factorizationStatus).
  Status factor(const SparseMatrixCSR& A, const SparseMatrixCSR& B, double scale,
                double a_max = 0.0) override;
  /// The next factor() chooses new pivots instead of refactoring with the last ones (call it
  /// when an iteration that used this factorization failed). No effect through PETSc, which
  /// always chooses them anew.
  void forgetPivots();
  /// KktSolver::forgetAnalysis: new pivots and, through PETSc, a new analysis; KLU's analysis
  /// depends on the pattern only and is kept.
  void forgetAnalysis() override;
  /// Solves with the last factorization. x: n, y: m.
  Status solve(const VecX& f, const VecX& g, VecX& x, VecX& y) override;

  long size() const { return n_ + m_; }
  long nonZeros() const;
  /// "mumps", "umfpack", ...: the factorization package PETSc used.
  std::string package() const override;
  /// Counts and times of factor() and solve() since construction.
  SaddlePointStats stats() const override { return stats_; }

 private:
  struct Petsc;  // PETSc objects stay out of this header (STYLE.md: only solvers/ sees PETSc)
  std::unique_ptr<Petsc> petsc_;
  long n_ = 0, m_ = 0, nnz_ = 0, a_nonzeros_ = 0, b_nonzeros_ = 0;
  double scale_ = 1.0;
  SaddlePointStats stats_;
  // Start of each KKT row (n + m + 1), and the next free B^T position of rows < n while
  // factor() scatters the values (computed from the patterns, not stored per entry).
  std::vector<int> row_, next_;
  std::vector<std::uint8_t> a_nonzero_;  // the constructor's A_nonzero (empty: all of A)
  /// f(a) for the entries a of row i of A that the factored matrix holds, in order.
  template <class F>
  void forEachFactoredEntry(const SparseMatrixCSR& A, int i, F&& f) const {
    for (int a = A.outerIndexPtr()[i]; a < A.outerIndexPtr()[i + 1]; ++a)
      if (a_nonzero_.empty() || a_nonzero_[a]) f(a);
  }
};

}  // namespace catena
