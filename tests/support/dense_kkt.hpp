#pragma once
/// @file dense_kkt.hpp
/// The saddle-point matrix [A, s B^T; s B, 0] as a dense matrix, for tests that check a sparse
/// KKT solve against Eigen's dense LU.
#include <Eigen/Dense>

#include "assembly/plan.hpp"
#include "core/types.hpp"

namespace catena::test {

inline MatX denseKkt(const SparseMatrixCSR& A, const SparseMatrixCSR& B, double s = 1.0) {
  const Index n = static_cast<Index>(A.rows()), m = static_cast<Index>(B.rows());
  MatX K = MatX::Zero(n + m, n + m);
  K.topLeftCorner(n, n) = MatX(A);
  K.bottomLeftCorner(m, n) = s * MatX(B);
  K.topRightCorner(n, m) = s * MatX(B).transpose();
  return K;
}

}  // namespace catena::test
