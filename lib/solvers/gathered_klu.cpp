#include "solvers/gathered_klu.hpp"

#include <mpi.h>
#include <petscsys.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "core/check.hpp"
#include "core/wall_clock.hpp"
#include "parallel/agreed_status.hpp"

namespace catena {
namespace {

/// counts[r]: rank r's n; displs: their running sums.
void gatherCounts(MPI_Comm comm, int n, std::vector<int>& counts, std::vector<int>& displs) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  counts.assign(ranks, 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  displs.assign(ranks + 1, 0);
  std::partial_sum(counts.begin(), counts.end(), displs.begin() + 1);
}

std::vector<int> gatherInts(MPI_Comm comm, const std::vector<int>& mine,
                            const std::vector<int>& counts, const std::vector<int>& displs) {
  std::vector<int> all(displs.back());
  MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_INT, all.data(), counts.data(),
                 displs.data(), MPI_INT, comm);
  return all;
}

}  // namespace

GatheredKlu::GatheredKlu(Index local_rows, const std::vector<int>& rows,
                         const std::vector<int>& cols, const std::vector<int>& groups,
                         MPI_Comm comm)
    : comm_(comm == MPI_COMM_NULL ? PETSC_COMM_WORLD : comm), local_rows_(local_rows) {
  const bool general = groups.empty();
  CATENA_CHECK(rows.size() == cols.size() &&
                   (general || groups.size() == static_cast<std::size_t>(local_rows)),
               "gathered KLU: " << rows.size() << " rows, " << cols.size() << " columns, "
                                << groups.size() << " groups for " << local_rows << " rows");
  MPI_Comm_rank(comm_, &rank_);
  gatherCounts(comm_, static_cast<int>(local_rows), row_counts_, row_displs_);
  gatherCounts(comm_, static_cast<int>(rows.size()), entry_counts_, entry_displs_);
  first_ = row_displs_[rank_];
  size_ = row_displs_.back();
  const std::vector<int> all_rows = gatherInts(comm_, rows, entry_counts_, entry_displs_);
  const std::vector<int> all_cols = gatherInts(comm_, cols, entry_counts_, entry_displs_);
  // A general matrix: every row in one group of the first kind, so the factored order is the
  // global one (no pair order).
  const std::vector<int> all_groups =
      general ? std::vector<int>(size_, 0) : gatherInts(comm_, groups, row_counts_, row_displs_);

  // The factored order: the coordinates, then the multipliers, each in global order; the
  // coordinates' groups numbered densely in order of appearance.
  std::vector<int> position(size_, -1), coordinate_groups;
  for (int pass = 0; pass < 2; ++pass)
    for (int g = 0; g < static_cast<int>(size_); ++g)
      if ((all_groups[g] >= 0) == (pass == 0)) {
        position[g] = static_cast<int>(order_.size());
        order_.push_back(g);
      }
  std::vector<int> sorted_groups;
  for (int g : all_groups)
    if (g >= 0) sorted_groups.push_back(g);
  std::sort(sorted_groups.begin(), sorted_groups.end());
  sorted_groups.erase(std::unique(sorted_groups.begin(), sorted_groups.end()), sorted_groups.end());
  for (int i : order_) {
    if (all_groups[i] < 0) break;
    coordinate_groups.push_back(static_cast<int>(
        std::lower_bound(sorted_groups.begin(), sorted_groups.end(), all_groups[i]) -
        sorted_groups.begin()));
  }

  // The pattern in the factored order: entries sorted by (row, column), repeated pairs summed
  // in the order gathered (rank by rank, each rank's in its order).
  const std::size_t entries = all_rows.size();
  std::vector<std::pair<int, int>> places(entries);
  for (std::size_t k = 0; k < entries; ++k) {
    CATENA_CHECK(all_rows[k] >= 0 && all_rows[k] < size_ && all_cols[k] >= 0 && all_cols[k] < size_,
                 "gathered KLU: entry (" << all_rows[k] << ", " << all_cols[k] << ") outside "
                                         << size_ << " unknowns");
    places[k] = {position[all_rows[k]], position[all_cols[k]]};
  }
  std::vector<std::size_t> by_place(entries);
  std::iota(by_place.begin(), by_place.end(), std::size_t{0});
  std::stable_sort(by_place.begin(), by_place.end(),
                   [&](std::size_t a, std::size_t b) { return places[a] < places[b]; });
  std::vector<int> row_start(size_ + 1, 0), columns;
  slot_.assign(entries, -1);
  std::pair<int, int> last{-1, -1};
  for (std::size_t k : by_place) {
    const std::pair<int, int>& p = places[k];
    if (p != last) {
      columns.push_back(p.second);
      ++row_start[p.first + 1];
      last = p;
    }
    slot_[k] = static_cast<int>(columns.size()) - 1;
  }
  std::partial_sum(row_start.begin(), row_start.end(), row_start.begin());
  nonzeros_ = static_cast<Index>(columns.size());
  if (general)
    klu_.emplace(static_cast<int>(size_), std::move(row_start), std::move(columns));
  else
    klu_.emplace(static_cast<int>(size_), std::move(row_start), std::move(columns),
                 static_cast<int>(coordinate_groups.size()), coordinate_groups);
  // Unknowns of unrelated units (positions, velocities, multipliers): KLU scales them.
  klu_->scaleByLargestEntries();
  gathered_.resize(entries);
  whole_.resize(size_);
  factored_.resize(size_);
}

Status GatheredKlu::factor(const double* values) {
  MPI_Allgatherv(values, entry_counts_[rank_], MPI_DOUBLE, gathered_.data(), entry_counts_.data(),
                 entry_displs_.data(), MPI_DOUBLE, comm_);
  const double t0 = processCpuSeconds();
  double* v = klu_->values();
  std::fill(v, v + nonzeros_, 0.0);
  for (std::size_t k = 0; k < gathered_.size(); ++k) v[slot_[k]] += gathered_[k];
  const Status st = klu_->factor();
  factor_seconds_ = processCpuSeconds() - t0;
  return agreedStatus(st, comm_);
}

Status GatheredKlu::solve(const double* b, double* x) {
  MPI_Allgatherv(b, static_cast<int>(local_rows_), MPI_DOUBLE, whole_.data(), row_counts_.data(),
                 row_displs_.data(), MPI_DOUBLE, comm_);
  for (Index i = 0; i < size_; ++i) factored_[i] = whole_[order_[i]];
  Status st = klu_->solve(factored_.data());
  for (Index i = 0; i < size_; ++i) whole_[order_[i]] = factored_[i];
  bool finite = true;
  for (Index i = 0; i < local_rows_; ++i) {
    x[i] = whole_[first_ + i];
    finite = finite && std::isfinite(x[i]);
  }
  if (st.ok() && !finite)
    st = Status::failure(Status::Code::kSingular,
                         "the linear solve returned non-finite values (singular matrix)");
  return agreedStatus(st, comm_);
}

}  // namespace catena
