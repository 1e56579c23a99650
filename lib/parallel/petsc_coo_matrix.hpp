#pragma once
/// @file petsc_coo_matrix.hpp
/// (parallel/ internal: sees PETSc.) A MatMPIAIJ whose pattern is fixed once from COO entries in
/// global indices, refilled in place: the distributed form of the assembly plan's slots
/// (STYLE.md rule 5). Every rank lists the entries its local pattern writes, rows it does not own
/// included; repeated entries are summed and off-process entries are sent to their owners by
/// MatSetValuesCOO, whose communication pattern and preallocation MatSetPreallocationCOO fixes.

#include <petscmat.h>

#include <vector>

#include <Eigen/Sparse>

#include "core/types.hpp"
#include "solvers/petsc_check.hpp"

namespace catena {

class CooMatrix {
 public:
  /// local_rows x local_cols owned; rows, cols: one global index pair per entry. type: MATAIJ
  /// is MATSEQAIJ on one rank, which the sequential factorizations (KLU) take.
  CooMatrix(Index local_rows, Index local_cols, std::vector<PetscInt> rows,
            std::vector<PetscInt> cols, MatType type = MATMPIAIJ)
      : entries_(static_cast<Index>(rows.size())) {
    CATENA_CHECK(rows.size() == cols.size(), "COO pattern with unequal row and column counts");
    CATENA_PETSC(MatCreate(PETSC_COMM_WORLD, &A_));
    CATENA_PETSC(MatSetSizes(A_, local_rows, local_cols, PETSC_DETERMINE, PETSC_DETERMINE));
    CATENA_PETSC(MatSetType(A_, type));
    CATENA_PETSC(
        MatSetPreallocationCOO(A_, static_cast<PetscCount>(rows.size()), rows.data(), cols.data()));
  }
  ~CooMatrix() { MatDestroy(&A_); }
  CooMatrix(const CooMatrix&) = delete;
  CooMatrix& operator=(const CooMatrix&) = delete;

  /// values: one per entry, in the order of construction; the matrix becomes their sums.
  /// Collective.
  void set(const double* values) { CATENA_PETSC(MatSetValuesCOO(A_, values, INSERT_VALUES)); }
  Mat mat() const { return A_; }
  Index entries() const { return entries_; }

 private:
  Mat A_ = nullptr;
  Index entries_ = 0;
};

/// The owned rows of A, with global column indices (owned rows x global columns).
inline Eigen::SparseMatrix<double, Eigen::RowMajor, int> ownedRows(Mat A) {
  PetscInt r0 = 0, r1 = 0, M = 0, N = 0;
  CATENA_PETSC(MatGetOwnershipRange(A, &r0, &r1));
  CATENA_PETSC(MatGetSize(A, &M, &N));
  std::vector<Eigen::Triplet<double, int>> t;
  for (PetscInt r = r0; r < r1; ++r) {
    PetscInt n = 0;
    const PetscInt* c = nullptr;
    const PetscScalar* v = nullptr;
    CATENA_PETSC(MatGetRow(A, r, &n, &c, &v));
    for (PetscInt k = 0; k < n; ++k) t.emplace_back(r - r0, c[k], v[k]);
    CATENA_PETSC(MatRestoreRow(A, r, &n, &c, &v));
  }
  Eigen::SparseMatrix<double, Eigen::RowMajor, int> out(r1 - r0, N);
  out.setFromTriplets(t.begin(), t.end());
  return out;
}

}  // namespace catena
