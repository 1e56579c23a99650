#pragma once
/// @file saddle_point_matrix.hpp
/// (parallel/ internal: sees PETSc.) The saddle-point matrix [A, s B^T; s B, 0] of a
/// DistributedModel in the numbering of saddle_numbering.hpp, from the local A (body pattern,
/// ghost rows included) and the local B = C_q: a CooMatrix whose pattern is fixed once, refilled
/// by set(). The distributed statics factors it; the modal analysis uses it as its pencil's A.
/// An augmented matrix (distributed_saddle_point.hpp) adds gamma (s B)^T (s B) to A: the local
/// B^T B of the owned rows, whose ghost rows their owners sum. A_nonzero (empty, or one flag per
/// entry of A's pattern, AssemblyPlan::body_nonzero): the entries flagged 0 are zero in every A
/// and left out of the matrix (a 3D chain: a third of A's entries; less fill in the factors).

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "assembly/plan.hpp"
#include "parallel/petsc_coo_matrix.hpp"
#include "parallel/saddle_numbering.hpp"

namespace catena {

class SaddlePointMatrix {
 public:
  SaddlePointMatrix(const SaddleNumbering& n, const SparseMatrixCSR& A, const SparseMatrixCSR& B,
                    bool augmented = false, std::vector<std::uint8_t> A_nonzero = {})
      : a_nonzero_(std::move(A_nonzero)) {
    CATENA_CHECK(a_nonzero_.empty() || static_cast<long>(a_nonzero_.size()) == A.nonZeros(),
                 "SaddlePointMatrix: " << a_nonzero_.size() << " flags for " << A.nonZeros()
                                       << " entries of A");
    std::vector<PetscInt> i, j;
    const std::size_t entries = static_cast<std::size_t>(A.nonZeros() + 2 * B.nonZeros());
    i.reserve(entries);
    j.reserve(entries);
    auto add = [&](const SparseMatrixCSR& X, const std::vector<Index>& rm,
                   const std::vector<Index>& cm, bool transpose, const std::uint8_t* keep) {
      for (int r = 0; r < X.outerSize(); ++r)
        for (int k = X.outerIndexPtr()[r]; k < X.outerIndexPtr()[r + 1]; ++k) {
          if (keep && !keep[k]) continue;
          const Index row = rm[r], col = cm[X.innerIndexPtr()[k]];
          i.push_back(transpose ? col : row);
          j.push_back(transpose ? row : col);
        }
    };
    add(A, n.kv, n.kv, false, a_nonzero_.empty() ? nullptr : a_nonzero_.data());
    a_entries_ = static_cast<long>(i.size());
    add(B, n.kr, n.kv, false, nullptr);
    add(B, n.kr, n.kv, true, nullptr);
    if (augmented) {
      augmented_ = true;
      gram_ = gram(B);
      add(gram_, n.kv, n.kv, false, nullptr);
    }
    values_.resize(i.size());
    coo_ = std::make_unique<CooMatrix>(n.local_size, n.local_size, std::move(i), std::move(j));
  }

  /// Refills the values from A and B (the patterns given at construction) with scale s on B;
  /// an augmented matrix adds gamma (s B)^T (s B) to A. Collective.
  void set(const SparseMatrixCSR& A, const SparseMatrixCSR& B, double s, double gamma = 0.0) {
    const long na = a_entries_, nb = B.nonZeros();
    if (a_nonzero_.empty()) {
      std::copy_n(A.valuePtr(), na, values_.data());
    } else {
      CATENA_CHECK(A.nonZeros() == static_cast<long>(a_nonzero_.size()), "A changed its pattern");
      long j = 0;
      for (long k = 0; k < A.nonZeros(); ++k)
        if (a_nonzero_[k]) values_[j++] = A.valuePtr()[k];
    }
    for (long k = 0; k < nb; ++k) values_[na + k] = values_[na + nb + k] = s * B.valuePtr()[k];
    if (augmented_) {
      gram_ = gram(B);  // the product's pattern follows B's, which is fixed
      const long ng = gram_.nonZeros();
      CATENA_CHECK(na + 2 * nb + ng == static_cast<long>(values_.size()),
                   "B^T B changed its pattern");
      for (long k = 0; k < ng; ++k) values_[na + 2 * nb + k] = gamma * s * s * gram_.valuePtr()[k];
    }
    coo_->set(values_.data());
  }

  Mat mat() const { return coo_->mat(); }

 private:
  static SparseMatrixCSR gram(const SparseMatrixCSR& B) {
    const SparseMatrixCSR Bt = B.transpose();
    return Bt * B;
  }

  std::unique_ptr<CooMatrix> coo_;
  std::vector<std::uint8_t> a_nonzero_;  ///< the constructor's A_nonzero (empty: all of A)
  long a_entries_ = 0;                   ///< entries of A in the matrix
  bool augmented_ = false;
  SparseMatrixCSR gram_;  ///< B^T B (augmented matrices)
  std::vector<double> values_;
};

}  // namespace catena
