#pragma once
/// @file sparse_qr.hpp
/// Rank-revealing sparse QR (SuiteSparseQR): the minimum-norm solution of an underdetermined or
/// rank-deficient system and the numerical rank. Used by the assembly of consistent initial
/// states (minimum-norm corrections) and to report redundant constraints.

#include <vector>

#include "assembly/plan.hpp"

namespace catena {

struct MinimumNormSolution {
  VecX x;                  ///< minimizes |x| among the least-squares solutions of A x = b
  long rank = 0;           ///< numerical rank of A (rows kept)
  double tolerance = 0.0;  ///< the rank threshold used (on |R_ii|)
};

/// A: m x n (any shape or rank), b: m entries. The rows of A that depend on the others (pivots
/// |R_ii| of a QR of A^T below kMinimumNormRankTolerance of A's largest row norm) are left out,
/// then x is the minimum-norm solution on the rest. Cost: two sparse QRs of A^T (one where A
/// has full row rank).
MinimumNormSolution solveMinimumNorm(const SparseMatrixCSR& A, const VecX& b);

/// The rank threshold of solveMinimumNorm, relative: the QRCP rank decision of
/// mobility/constraint_rank.hpp. With SuiteSparseQR's default (20 (m + n) eps of the largest
/// column norm) and its basic solution on rank-deficient matrices, a Newton step of the
/// initial-state assembly from |C| = 2e-11 m landed at 0.18 m, and a velocity projection from a
/// residual of 5e-8 m/s moved v by 0.37 (a merged four-bar lattice near its crossing;
/// docs/dynamics-redundant.md).
inline constexpr double kMinimumNormRankTolerance = 1e-10;

/// X = A \ B for A (m x n, m >= n) of full column rank and a sparse B (m x k): the least-squares
/// (here: exact, for consistent B) solution of every column, sparse (SuiteSparseQR_min2norm with
/// a sparse right-hand side). Throws if SuiteSparseQR fails.
SparseMatrixCSR solveLeastSquares(const SparseMatrixCSR& A, const SparseMatrixCSR& B);

/// Numerical rank of A (as solveMinimumNorm decides it).
long numericalRank(const SparseMatrixCSR& A);

/// The rows of A (ascending) that a rank-revealing QR of A^T keeps at the absolute threshold
/// `tolerance` (as sparseQrRank(A, tolerance, true) counts them): a basis of A's row space.
/// Empty for an A without rows or columns. Throws if SuiteSparseQR fails.
std::vector<Index> independentRows(const SparseMatrixCSR& A, double tolerance);

struct SparseQrRank {
  long rank = 0;
  double tolerance = 0.0;      ///< the absolute threshold used
  std::size_t peak_bytes = 0;  ///< CHOLMOD's peak memory during the factorization
};

/// Numerical rank of A (transpose = false) or of A^T (transpose = true, the QRCP paper's
/// orientation: its dead columns are rows of A) by SuiteSparseQR with the absolute threshold
/// `tolerance`: a column whose norm, when its turn comes, is at most `tolerance` is dead
/// (SuiteSparseQR's tol argument). Q is discarded. Throws if SuiteSparseQR fails (out of
/// memory). For the semantics of analyzeConstraintRank pass tol * max_i |A(i, :)|.
SparseQrRank sparseQrRank(const SparseMatrixCSR& A, double tolerance, bool transpose = false);

}  // namespace catena
