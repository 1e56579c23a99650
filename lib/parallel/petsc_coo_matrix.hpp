#pragma once
/// @file petsc_coo_matrix.hpp
/// (parallel/ internal: sees PETSc.) A MatMPIAIJ whose pattern is fixed once from COO entries in
/// global indices, refilled in place: the distributed form of the assembly plan's slots
/// (STYLE.md rule 5). Every rank lists the entries its local pattern writes, rows it does not own
/// included; repeated entries are summed, and entries of rows another rank owns are sent to it.
/// The pattern is built in O(entries) (a counting sort by row, a sort of each row's few columns),
/// where PETSc's MatSetPreallocationCOO sorts all entries (docs/parallel-factorization.md). Sums
/// are taken in a fixed order (this rank's entries as listed, then other ranks' by rank), so a
/// refill gives the same bits every time.

#include <petscmat.h>

#include <array>
#include <vector>

#include <Eigen/Sparse>

#include "core/types.hpp"
#include "solvers/petsc_check.hpp"

namespace catena {

class CooMatrix {
 public:
  /// local_rows x local_cols owned; rows, cols: one global index pair per entry. An index out
  /// of range on any rank: catena::Error on every rank. type: MATMPIAIJ, or MATAIJ, which is
  /// MATSEQAIJ on one rank (the sequential factorizations, KLU, take it). comm: the ranks that
  /// share the matrix (PETSC_COMM_SELF: this process alone). Collective on comm.
  CooMatrix(Index local_rows, Index local_cols, std::vector<PetscInt> rows,
            std::vector<PetscInt> cols, MatType type = MATMPIAIJ, MPI_Comm comm = PETSC_COMM_WORLD);
  ~CooMatrix();
  CooMatrix(const CooMatrix&) = delete;
  CooMatrix& operator=(const CooMatrix&) = delete;

  /// values: one per entry, in the order of construction; the matrix becomes their sums.
  /// Collective.
  void set(const double* values) {
    setFrom([values](Index k) { return values[k]; });
  }
  /// As set(), with entry k's value value(k) (Index -> double, called once per entry in no
  /// given order): for callers whose values are spread over several arrays, without a copy.
  template <class Value>
  void setFrom(const Value& value);
  Mat mat() const { return A_; }
  Index entries() const { return entries_; }

 private:
  /// set()'s steps around the sums: receive other ranks' values while sending send_values_;
  /// the parts' value arrays, then a new state for the matrix.
  void postReceives();
  void sendAndWait();
  std::array<Mat, 2> parts() const;  ///< the diagonal and off-diagonal parts (null on one rank)
  void beginWrite(PetscScalar*& d, PetscScalar*& o);
  void endWrite(PetscScalar* d, PetscScalar* o);

  Mat A_ = nullptr;
  Index entries_ = 0;
  bool sequential_ = false;  ///< MATSEQAIJ: filled through its value array
  PetscMPIInt tag_ = 0;      ///< the refills' messages
  /// Entries of other ranks' rows, grouped by owner (ascending): entry index; per owner rank
  /// and count. Received entries: per source rank (ascending) and count.
  std::vector<int> send_entry_, send_rank_, send_count_, recv_rank_, recv_count_;
  /// Each slot (a value of the matrix, by row, each row's columns ascending) sums the next
  /// items of slot_item_: one, or repeat_count_[r] where the slot is repeat_slot_[r] (a
  /// repeated (row, column) pair). An item k < entries_ is this rank's entry k, entries_ + t the
  /// t-th received value.
  std::vector<int> slot_item_, repeat_count_;
  std::vector<std::size_t> repeat_slot_;
  std::vector<PetscInt> o_before_;  ///< per row: off-diagonal columns before the diagonal part
  std::vector<double> send_values_, recv_values_;
  std::vector<MPI_Request> requests_;  ///< a refill's receives, then its sends
  /// The owned rows in MATMPIAIJ's two parts, CSR with sorted columns: the "diagonal" part
  /// (this rank's columns, local numbers; all columns on one rank) and the "off-diagonal" part
  /// (global numbers until PETSc compacts them). PETSc works on these arrays in place.
  std::vector<PetscInt> d_start_, d_cols_, o_start_, o_cols_;
  std::vector<PetscScalar> d_values_, o_values_;
};

template <class Value>
void CooMatrix::setFrom(const Value& value) {
  postReceives();
  for (std::size_t p = 0; p < send_entry_.size(); ++p) send_values_[p] = value(send_entry_[p]);
  sendAndWait();
  // Each slot sums its items in order (this rank's entries as listed, then the received ones
  // by rank); slots come in the walk's order of the constructor's step 3.
  PetscScalar* d = nullptr;
  PetscScalar* o = nullptr;
  beginWrite(d, o);
  const int n = static_cast<int>(entries_);
  std::size_t slot = 0, item = 0, repeat = 0;
  auto sum = [&] {  // the next slot's value
    int count = 1;
    if (repeat < repeat_slot_.size() && repeat_slot_[repeat] == slot)
      count = repeat_count_[repeat++];
    double v = 0.0;
    for (int c = 0; c < count; ++c) {
      const int it = slot_item_[item++];
      v += it < n ? value(it) : recv_values_[it - n];
    }
    ++slot;
    return v;
  };
  const std::size_t m = o_before_.size();
  for (std::size_t i = 0; i < m; ++i) {
    PetscInt k = o_start_[i];
    for (const PetscInt before = k + o_before_[i]; k < before; ++k) o[k] = sum();
    for (PetscInt j = d_start_[i]; j < d_start_[i + 1]; ++j) d[j] = sum();
    for (; k < o_start_[i + 1]; ++k) o[k] = sum();
  }
  endWrite(d, o);
}

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
