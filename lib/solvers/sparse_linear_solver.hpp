#pragma once
/// @file sparse_linear_solver.hpp
/// A square sparse linear system A x = b over a fixed compressed-row (CSR) pattern, solved
/// through PETSc: KSP + PC, by default KSP preonly with LU and catena's default package
/// (solvers/factorization.hpp), and every PETSc option under the options prefix, e.g.
/// -ida_pc_factor_mat_solver_type mumps, or -ida_ksp_type gmres -ida_pc_type ilu.
///
/// The pattern is given once; factor() copies a value array in the pattern's order into the
/// PETSc matrix and sets the preconditioner up (the factorization), solve() applies it. No
/// caller type (SUNDIALS, Eigen) appears in the interface, only index and value arrays, so an
/// MPI version takes each rank's owned rows the same way (MatMPIAIJ from local CSR arrays).
/// Serial today: PETSC_COMM_SELF.

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/status.hpp"

namespace catena {

/// Cost of the linear algebra of one solver object (wall seconds, steady clock).
struct SparseSolverStats {
  int factorizations = 0;       ///< calls of factor() (the first also runs the analysis)
  long solves = 0;              ///< calls of solve()
  long iterations = 0;          ///< Krylov iterations over all solves (0 with KSP preonly)
  double factor_seconds = 0.0;  ///< in factor(): value copy, analysis (once), factorization
  double solve_seconds = 0.0;   ///< in solve()
};

/// True once PETSc is initialized (parallel/petsc_session.hpp); every solver here needs it.
bool petscInitialized();

class SparseLinearSolver {
 public:
  /// The n x n pattern in CSR form: row_start has n + 1 entries (row_start[0] = 0,
  /// nondecreasing), columns row_start[n] entries in [0, n), strictly increasing within a row
  /// (values then keep this order in PETSc's storage). 64-bit (SUNDIALS' sunindextype) and
  /// 32-bit indices are converted to PetscInt, 32-bit in Debian's PETSc (TOOLCHAIN.md pitfall
  /// 8): a pattern that does not fit throws. prefix: PETSc options prefix ("" or "ida_").
  /// Throws catena::Error on an invalid pattern or when PETSc is not initialized.
  SparseLinearSolver(std::span<const std::int64_t> row_start, std::span<const std::int64_t> columns,
                     const std::string& prefix);
  SparseLinearSolver(std::span<const std::int32_t> row_start, std::span<const std::int32_t> columns,
                     const std::string& prefix);
  ~SparseLinearSolver();
  SparseLinearSolver(const SparseLinearSolver&) = delete;
  SparseLinearSolver& operator=(const SparseLinearSolver&) = delete;

  /// Copies values (nonZeros() entries, in the pattern's order) into the matrix and sets the
  /// preconditioner up: the numeric factorization with LU (the symbolic one on the first
  /// call). A singular matrix returns kSingular, exhausted memory kResources, each with the
  /// package's diagnosis (factorizationStatus); the solver stays usable for new values.
  /// Throws catena::Error if values has the wrong size.
  Status factor(std::span<const double> values);
  /// x = A^-1 b with the last factor() (b and x: size() entries; they may alias). A KSP that
  /// diverges (iterative options) returns kNotConverged naming PETSc's reason; a failed
  /// preconditioner or a non-finite solution kSingular.
  Status solve(std::span<const double> b, std::span<double> x);

  long size() const { return n_; }
  long nonZeros() const { return nnz_; }
  /// The factorization package with KSP preonly ("klu", "mumps", ...), else "KSP + PC" types
  /// ("gmres + ilu"), as the options left them.
  std::string description() const;
  /// Counts and times of factor() and solve() since construction.
  const SparseSolverStats& stats() const { return stats_; }

 private:
  struct Petsc;  // PETSc objects stay out of this header (STYLE.md: only solvers/ sees PETSc)
  std::unique_ptr<Petsc> petsc_;
  long n_ = 0, nnz_ = 0;
  SparseSolverStats stats_;
};

}  // namespace catena
