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
#include "core/huge_pages.hpp"
#include "parallel/petsc_coo_matrix.hpp"
#include "parallel/saddle_numbering.hpp"

namespace catena {

class SaddlePointMatrix {
 public:
  SaddlePointMatrix(const SaddleNumbering& n, const SparseMatrixCSR& A, const SparseMatrixCSR& B,
                    bool augmented = false, const std::vector<std::uint8_t>& A_nonzero = {})
      : a_pattern_entries_(A.nonZeros()), b_entries_(B.nonZeros()) {
    CATENA_CHECK(A_nonzero.empty() || static_cast<long>(A_nonzero.size()) == A.nonZeros(),
                 "SaddlePointMatrix: " << A_nonzero.size() << " flags for " << A.nonZeros()
                                       << " entries of A");
    if (!A_nonzero.empty())
      for (int k = 0; k < static_cast<int>(A_nonzero.size()); ++k)
        if (A_nonzero[k]) a_source_.push_back(k);
    std::vector<PetscInt> i, j;
    const std::size_t entries = static_cast<std::size_t>(A.nonZeros() + 2 * B.nonZeros());
    reserveHuge(i, entries);
    reserveHuge(j, entries);
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
    add(A, n.kv, n.kv, false, A_nonzero.empty() ? nullptr : A_nonzero.data());
    a_entries_ = static_cast<long>(i.size());
    add(B, n.kr, n.kv, false, nullptr);
    add(B, n.kr, n.kv, true, nullptr);
    if (augmented) {
      augmented_ = true;
      gram_ = gram(B);
      add(gram_, n.kv, n.kv, false, nullptr);
    }
    coo_ = std::make_unique<CooMatrix>(n.local_size, n.local_size, std::move(i), std::move(j));
  }

  /// Refills the values from A and B (the patterns given at construction) with scale s on B;
  /// an augmented matrix adds gamma (s B)^T (s B) to A. The values go from A's and B's arrays
  /// straight into the matrix (CooMatrix::setFrom), with no staged copy. Collective.
  void set(const SparseMatrixCSR& A, const SparseMatrixCSR& B, double s, double gamma = 0.0) {
    CATENA_CHECK(A.nonZeros() == a_pattern_entries_ && B.nonZeros() == b_entries_,
                 "SaddlePointMatrix: A or B changed its pattern");
    const long na = a_entries_, nb = b_entries_;
    const double* a = A.valuePtr();
    const double* b = B.valuePtr();
    const double* g = nullptr;
    if (augmented_) {
      gram_ = gram(B);  // the product's pattern follows B's, which is fixed
      CATENA_CHECK(na + 2 * nb + gram_.nonZeros() == coo_->entries(), "B^T B changed its pattern");
      g = gram_.valuePtr();
    }
    const double gs = gamma * s * s;
    const int* kept = a_source_.empty() ? nullptr : a_source_.data();
    // Entries: A's (those kept), s B, s B again (as B^T), then gamma (s B)^T (s B).
    coo_->setFrom([=](Index k) {
      if (k < na) return kept ? a[kept[k]] : a[k];
      k -= na;
      if (k < 2 * nb) return s * b[k < nb ? k : k - nb];
      return gs * g[k - 2 * nb];
    });
  }

  Mat mat() const { return coo_->mat(); }

 private:
  static SparseMatrixCSR gram(const SparseMatrixCSR& B) {
    const SparseMatrixCSR Bt = B.transpose();
    return Bt * B;
  }

  std::unique_ptr<CooMatrix> coo_;
  std::vector<int> a_source_;  ///< the entries of A in the matrix (empty: all of A), by position
  long a_pattern_entries_ = 0, b_entries_ = 0;  ///< A's and B's pattern sizes
  long a_entries_ = 0;                          ///< entries of A in the matrix
  bool augmented_ = false;
  SparseMatrixCSR gram_;  ///< B^T B (augmented matrices)
};

}  // namespace catena
