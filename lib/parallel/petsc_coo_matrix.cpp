#include "parallel/petsc_coo_matrix.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <climits>
#include <numeric>
#include <string>
#include <utility>

#include "core/check.hpp"
#include "core/huge_pages.hpp"

namespace catena {

namespace {

/// Each rank's first index of a range split by local counts (its rows or its columns), then
/// the total (size + 1 entries). Collective.
std::vector<PetscInt> rankStarts(MPI_Comm comm, Index local) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<PetscInt> starts(size + 1, 0);
  const PetscInt m = static_cast<PetscInt>(local);
  MPI_Allgather(&m, 1, MPIU_INT, starts.data() + 1, 1, MPIU_INT, comm);
  std::partial_sum(starts.begin(), starts.end(), starts.begin());
  return starts;
}

/// Offsets of consecutive groups of the given sizes (size + 1 entries).
std::vector<int> offsetsOf(const std::vector<int>& counts) {
  std::vector<int> offsets(counts.size() + 1, 0);
  std::partial_sum(counts.begin(), counts.end(), offsets.begin() + 1);
  return offsets;
}

}  // namespace

CooMatrix::CooMatrix(Index local_rows, Index local_cols, std::vector<PetscInt> rows,
                     std::vector<PetscInt> cols, MatType type, MPI_Comm comm)
    : entries_(static_cast<Index>(rows.size())) {
  const std::string kind = type;
  CATENA_CHECK(kind == MATMPIAIJ || kind == MATAIJ,
               "CooMatrix: matrix type " << kind << ", expected mpiaij or aij");
  int size = 1, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  sequential_ = size == 1 && kind == MATAIJ;
  const std::vector<PetscInt> starts = rankStarts(comm, local_rows);
  const std::vector<PetscInt> col_starts = rankStarts(comm, local_cols);
  const PetscInt r0 = starts[rank], r1 = starts[rank + 1], M = starts[size];
  const PetscInt c0 = col_starts[rank], c1 = col_starts[rank + 1], N = col_starts[size];

  // 1. Entries of owned rows are counted by row, the others by owner rank, in the pass that
  //    checks them: every rank's list is sound, or every rank throws (none waits in a
  //    collective call).
  std::string problem;
  if (rows.size() != cols.size())
    problem = "unequal row and column counts";
  else if (rows.size() >= static_cast<std::size_t>(INT_MAX / 2))
    problem = std::to_string(rows.size()) + " entries on one rank, too many for int";
  const int n = problem.empty() ? static_cast<int>(rows.size()) : 0;
  const int m = static_cast<int>(r1 - r0);
  auto ownerOf = [&](PetscInt r) {
    return static_cast<int>(std::upper_bound(starts.begin(), starts.end(), r) - starts.begin()) - 1;
  };
  std::vector<PetscInt> row_start(m + 1, 0);
  std::vector<int> count(size, 0);
  for (int k = 0; k < n && problem.empty(); ++k) {
    if (rows[k] < 0 || rows[k] >= M || cols[k] < 0 || cols[k] >= N)
      problem = "entry " + std::to_string(k) + " at (" + std::to_string(rows[k]) + ", " +
                std::to_string(cols[k]) + ") outside the " + std::to_string(M) + " x " +
                std::to_string(N) + " matrix";
    else if (rows[k] >= r0 && rows[k] < r1)
      ++row_start[rows[k] - r0 + 1];
    else
      ++count[ownerOf(rows[k])];
  }
  int failed = problem.empty() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm);
  CATENA_CHECK(failed == 0, "CooMatrix: " << (problem.empty() ? "another rank's COO pattern is bad"
                                                              : "COO pattern: " + problem)
                                          << " (rank " << rank << ")");

  // 2. Other ranks' rows go to their owners: counts, then (row, column) pairs, by owner rank.
  std::vector<int> incoming(size, 0);
  MPI_Alltoall(count.data(), 1, MPI_INT, incoming.data(), 1, MPI_INT, comm);
  const std::vector<int> send_offset = offsetsOf(count), recv_offset = offsetsOf(incoming);
  send_entry_.resize(send_offset[size]);
  std::vector<PetscInt> send_pairs(2 * static_cast<std::size_t>(send_offset[size]));
  {
    std::vector<int> next(send_offset.begin(), send_offset.end() - 1);
    for (int k = 0; k < n; ++k) {
      if (rows[k] >= r0 && rows[k] < r1) continue;
      const int p = next[ownerOf(rows[k])]++;
      send_entry_[p] = k;
      send_pairs[2 * p] = rows[k];
      send_pairs[2 * p + 1] = cols[k];
    }
  }
  std::vector<PetscInt> recv_pairs(2 * static_cast<std::size_t>(recv_offset[size]));
  {
    std::vector<int> c2(size), s2(size), c2r(size), s2r(size);
    for (int o = 0; o < size; ++o) {
      c2[o] = 2 * count[o];
      s2[o] = 2 * send_offset[o];
      c2r[o] = 2 * incoming[o];
      s2r[o] = 2 * recv_offset[o];
    }
    MPI_Alltoallv(send_pairs.data(), c2.data(), s2.data(), MPIU_INT, recv_pairs.data(), c2r.data(),
                  s2r.data(), MPIU_INT, comm);
  }
  for (int o = 0; o < size; ++o) {
    if (count[o] > 0) send_rank_.push_back(o), send_count_.push_back(count[o]);
    if (incoming[o] > 0) recv_rank_.push_back(o), recv_count_.push_back(incoming[o]);
  }
  const int n_recv = recv_offset[size];
  int too_many = n + static_cast<long>(n_recv) >= INT_MAX ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &too_many, 1, MPI_INT, MPI_MAX, comm);
  CATENA_CHECK(too_many == 0, "CooMatrix: more than "
                                  << INT_MAX << " entries of owned rows on a rank (rank " << rank
                                  << ": " << n << " + " << n_recv << ")");
  recv_values_.resize(n_recv);
  send_values_.resize(send_entry_.size());
  requests_.assign(recv_rank_.size() + send_rank_.size(), MPI_REQUEST_NULL);

  // 3. The owned rows' pattern. An item is an owned entry: k for this rank's entry k, n + t for
  //    the t-th received one. Items by row (a counting sort), each row's by (column, item): the
  //    items of one (row, column) pair are then adjacent, in the order their sum takes.
  for (int t = 0; t < n_recv; ++t) ++row_start[recv_pairs[2 * t] - r0 + 1];
  std::partial_sum(row_start.begin(), row_start.end(), row_start.begin());
  std::vector<std::pair<PetscInt, int>> items;  // (column, item)
  resizeHuge(items, row_start[m]);
  {
    std::vector<PetscInt> next(row_start.begin(), row_start.end() - 1);
    for (int k = 0; k < n; ++k)
      if (rows[k] >= r0 && rows[k] < r1) items[next[rows[k] - r0]++] = {cols[k], k};
    for (int t = 0; t < n_recv; ++t)
      items[next[recv_pairs[2 * t] - r0]++] = {recv_pairs[2 * t + 1], n + t};
  }
  rows = {};
  cols = {};
  recv_pairs = {};
  for (int i = 0; i < m; ++i)
    std::sort(items.begin() + row_start[i], items.begin() + row_start[i + 1]);
  // Each row's columns in this rank's column range go to the "diagonal" part (local column
  // numbers), the others to the "off-diagonal" part (global ones), as MATMPIAIJ stores them.
  // Slots in the walk's order: by row, each row's distinct columns ascending; a row's
  // off-diagonal columns below its diagonal part come first (o_before_), the rest after it.
  d_start_.assign(m + 1, 0);
  o_start_.assign(m + 1, 0);
  o_before_.assign(m, 0);
  reserveHuge(d_cols_, items.size());  // one slot per item where no pair repeats
  std::size_t slots = 0;
  resizeHuge(slot_item_, items.size());
  for (int i = 0; i < m; ++i) {
    for (PetscInt t = row_start[i], u = t; t < row_start[i + 1]; t = u) {
      const PetscInt c = items[t].first;
      for (; u < row_start[i + 1] && items[u].first == c; ++u) slot_item_[u] = items[u].second;
      if (u - t > 1) {  // a repeated (row, column) pair
        repeat_slot_.push_back(slots);
        repeat_count_.push_back(static_cast<int>(u - t));
      }
      ++slots;
      if (sequential_ || (c >= c0 && c < c1)) {
        d_cols_.push_back(sequential_ ? c : c - c0);
      } else {
        o_cols_.push_back(c);
        if (c < c0) ++o_before_[i];
      }
    }
    d_start_[i + 1] = static_cast<PetscInt>(d_cols_.size());
    o_start_[i + 1] = static_cast<PetscInt>(o_cols_.size());
  }
  items = {};
  if (d_cols_.capacity() > d_cols_.size() + d_cols_.size() / 4) d_cols_.shrink_to_fit();

  // 4. The matrix on these arrays (not copied: they live as long as it), values zero until set().
  assignHuge(d_values_, d_cols_.size(), 0.0);
  o_values_.assign(o_cols_.size(), 0.0);
  if (sequential_) {
    CATENA_PETSC(MatCreateSeqAIJWithArrays(comm, m, static_cast<PetscInt>(local_cols),
                                           d_start_.data(), d_cols_.data(), d_values_.data(), &A_));
  } else {
    CATENA_PETSC(MatCreateMPIAIJWithSplitArrays(comm, m, c1 - c0, M, N, d_start_.data(),
                                                d_cols_.data(), d_values_.data(), o_start_.data(),
                                                o_cols_.data(), o_values_.data(), &A_));
  }
  CATENA_PETSC(PetscObjectGetNewTag(reinterpret_cast<PetscObject>(A_), &tag_));
}

CooMatrix::~CooMatrix() {
  MatDestroy(&A_);
}

void CooMatrix::postReceives() {
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(A_));
  for (std::size_t s = 0, at = 0; s < recv_rank_.size(); at += recv_count_[s], ++s)
    MPI_Irecv(recv_values_.data() + at, recv_count_[s], MPI_DOUBLE, recv_rank_[s], tag_, comm,
              &requests_[s]);
}

void CooMatrix::sendAndWait() {
  MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(A_));
  std::size_t q = recv_rank_.size();
  for (std::size_t k = 0, at = 0; k < send_rank_.size(); at += send_count_[k], ++k)
    MPI_Isend(send_values_.data() + at, send_count_[k], MPI_DOUBLE, send_rank_[k], tag_, comm,
              &requests_[q++]);
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

std::array<Mat, 2> CooMatrix::parts() const {
  std::array<Mat, 2> p = {A_, nullptr};
  if (!sequential_) CATENA_PETSC(MatMPIAIJGetSeqAIJ(A_, &p[0], &p[1], nullptr));
  return p;
}

void CooMatrix::beginWrite(PetscScalar*& d, PetscScalar*& o) {
  // The parts' value arrays are this object's (step 4 of the constructor), taken through
  // MatSeqAIJGetArrayWrite as PETSc's own interface to them.
  const std::array<Mat, 2> p = parts();
  CATENA_PETSC(MatSeqAIJGetArrayWrite(p[0], &d));
  if (p[1]) CATENA_PETSC(MatSeqAIJGetArrayWrite(p[1], &o));
  CATENA_CHECK(
      (d_values_.empty() || d == d_values_.data()) && (o_values_.empty() || o == o_values_.data()),
      "CooMatrix: PETSc moved the matrix's values");
}

void CooMatrix::endWrite(PetscScalar* d, PetscScalar* o) {
  const std::array<Mat, 2> p = parts();
  CATENA_PETSC(MatSeqAIJRestoreArrayWrite(p[0], &d));
  if (p[1]) CATENA_PETSC(MatSeqAIJRestoreArrayWrite(p[1], &o));
  // A new state for the whole matrix (solvers compare it with the one they factored).
  CATENA_PETSC(MatAssemblyBegin(A_, MAT_FINAL_ASSEMBLY));
  CATENA_PETSC(MatAssemblyEnd(A_, MAT_FINAL_ASSEMBLY));
}

}  // namespace catena
