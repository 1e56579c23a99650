#pragma once
/// @file sparse_qr.hpp
/// Rank-revealing sparse QR (SuiteSparseQR): the minimum-norm solution of an underdetermined or
/// rank-deficient system and the numerical rank. Used by the assembly of consistent initial
/// states (minimum-norm corrections) and to report redundant constraints.

#include "assembly/plan.hpp"

namespace catena {

struct MinimumNormSolution {
  VecX x;                  ///< minimizes |x| among the least-squares solutions of A x = b
  long rank = 0;           ///< SuiteSparseQR's rank estimate of A
  double tolerance = 0.0;  ///< the rank threshold it used (on |R_ii|)
};

/// A: m x n (any shape or rank), b: m entries. Cost: one sparse QR of A^T.
MinimumNormSolution solveMinimumNorm(const SparseMatrixCSR& A, const VecX& b);

/// X = A \ B for A (m x n, m >= n) of full column rank and a sparse B (m x k): the least-squares
/// (here: exact, for consistent B) solution of every column, sparse (SuiteSparseQR_min2norm with
/// a sparse right-hand side). Throws if SuiteSparseQR fails.
SparseMatrixCSR solveLeastSquares(const SparseMatrixCSR& A, const SparseMatrixCSR& B);

/// Numerical rank of A (SuiteSparseQR's default tolerance).
long numericalRank(const SparseMatrixCSR& A);

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
