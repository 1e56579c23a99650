#pragma once
/// @file sparse_support.hpp
/// Sparse test matrices built from triplets: the compressed row-major type the solvers take, and
/// symmetric entries added in pairs.

#include <Eigen/Sparse>
#include <vector>

namespace catena::test {

using Csr = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;
using Triplets = std::vector<Eigen::Triplet<double>>;

/// a_ij = a_ji = v: two triplets (i, j) then (j, i); duplicates add up in compressedCsr.
inline void addSymmetric(Triplets& t, int i, int j, double v) {
  t.emplace_back(i, j, v);
  t.emplace_back(j, i, v);
}

/// The compressed rows x cols matrix of the triplets, duplicates summed in their order.
inline Csr compressedCsr(int rows, int cols, const Triplets& t) {
  Csr A(rows, cols);
  A.setFromTriplets(t.begin(), t.end());
  A.makeCompressed();
  return A;
}

}  // namespace catena::test
