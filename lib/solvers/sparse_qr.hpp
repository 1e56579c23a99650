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

/// Numerical rank of A (SuiteSparseQR's default tolerance).
long numericalRank(const SparseMatrixCSR& A);

}  // namespace catena
