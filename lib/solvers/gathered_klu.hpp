#pragma once
/// @file gathered_klu.hpp
/// A square system distributed by rows over a communicator, solved by gathering it whole on every
/// rank and factoring it there with KluLu (the saddle-point pivot order of kkt_ordering.hpp
/// where the rows' groups are given, KLU's own analysis otherwise): the factorization, and so
/// every solution, has the same bits on any rank count as long as the gathered matrix does, and
/// the same bits on every rank. Two uses: reproducibility of a whole KKT system across rank
/// counts (docs/parallel.md, "Bitwise across rank counts"), and the small interface matrix of the
/// Schur-complement decomposition (schur_decomposition.hpp), whose factorization then needs no
/// message but one gather. Every rank stores and factors the whole matrix.

#include <mpi.h>

#include <optional>
#include <vector>

#include "core/status.hpp"
#include "core/types.hpp"
#include "solvers/klu_lu.hpp"

namespace catena {

class GatheredKlu {
 public:
  /// local_rows: this rank's rows, the global range after those of the lower ranks. rows, cols:
  /// the global (row, column) of this rank's entries, every row among its own; repeated pairs are
  /// summed in the order given. groups: per owned row, a group >= 0 for a coordinate (its body:
  /// a body's coordinates are pivoted together) or -1 for a multiplier, whose equations hold
  /// coordinates only (an empty (2,2) block); empty: a general matrix (KLU's own order).
  /// Collective over comm (MPI_COMM_NULL: PETSC_COMM_WORLD); throws catena::Error if KLU cannot
  /// analyse the pattern.
  GatheredKlu(Index local_rows, const std::vector<int>& rows, const std::vector<int>& cols,
              const std::vector<int>& groups, MPI_Comm comm = MPI_COMM_NULL);

  /// Gathers the values (one per entry of the constructor, in its order) and factors the whole
  /// matrix (KluLu::factor: a refactorization with the last pivots while they stay well
  /// conditioned). The same status on every rank. Collective.
  Status factor(const double* values);
  /// x = A^-1 b on this rank's entries (they may alias), from the last successful factor().
  /// Collective.
  Status solve(const double* b, double* x);
  /// The next factor() chooses new pivots (KluLu::forgetPivots).
  void forgetPivots() { klu_->forgetPivots(); }
  /// A pivot below `ratio` of its column's largest entry makes factor() fail as singular
  /// (KluLu::setSingularPivot; 0: an exactly zero pivot only).
  void setSingularPivot(double ratio) { klu_->setSingularPivot(ratio); }
  /// CPU seconds of this rank's last factorization, the gather excluded.
  double lastFactorSeconds() const { return factor_seconds_; }

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  double factor_seconds_ = 0.0;
  Index local_rows_ = 0, first_ = 0, size_ = 0, nonzeros_ = 0;
  std::vector<int> row_counts_, row_displs_, entry_counts_, entry_displs_;
  std::vector<int> order_;  ///< order_[i]: the global index of unknown i of the factored order
  std::vector<int> slot_;   ///< per gathered entry, its place in KLU's value array
  std::vector<double> gathered_;          ///< the entries' values, gathered
  std::vector<double> whole_, factored_;  ///< a whole vector in global and in factored order
  std::optional<KluLu> klu_;
};

}  // namespace catena
