// solveDistributedModal: the one modal analysis (modal_analysis.cpp) on a DistributedAssembly,
// PETSC_COMM_WORLD, the pencil in the saddle-point numbering.
#include "modal/distributed_modal.hpp"

#include <petscsys.h>

#include <algorithm>
#include <iterator>
#include <numeric>

#include "core/check.hpp"
#include "mobility/constraint_rank.hpp"
#include "modal/modal_system.hpp"
#include "parallel/ghost_exchange.hpp"
#include "parallel/saddle_numbering.hpp"
#include "solvers/sparse_qr.hpp"

namespace catena {
namespace {

/// The rows of C (local columns) reduced to the shared columns (shared[j] != 0): a rank-revealing
/// QR keeps a basis I of the rows on the private columns, and every other row, less its
/// least-squares combination of those on the private columns, leaves a row of Y over the shared
/// columns (shared_column: their local indices), in the order of C's rows.
struct SharedRemainder {
  long kept = 0;
  MatX Y;
  std::vector<Index> shared_column;
};
SharedRemainder reduceToSharedColumns(const SparseMatrixCSR& C, const std::vector<char>& shared,
                                      double tolerance) {
  SharedRemainder out;
  std::vector<Index> index_of(C.cols(), -1);
  Index n_private = 0;
  for (Index j = 0; j < C.cols(); ++j) {
    if (!shared[j]) {
      index_of[j] = n_private++;
    } else {
      index_of[j] = static_cast<Index>(out.shared_column.size());
      out.shared_column.push_back(j);
    }
  }
  // The rows `which` of C on the private (or shared) columns.
  const auto part = [&](const std::vector<Index>& which, bool on_shared) {
    std::vector<Eigen::Triplet<double>> t;
    for (std::size_t i = 0; i < which.size(); ++i)
      for (SparseMatrixCSR::InnerIterator it(C, which[i]); it; ++it)
        if ((shared[it.col()] != 0) == on_shared)
          t.emplace_back(static_cast<Index>(i), index_of[it.col()], it.value());
    SparseMatrixCSR X(static_cast<Index>(which.size()),
                      on_shared ? static_cast<Index>(out.shared_column.size()) : n_private);
    X.setFromTriplets(t.begin(), t.end());
    return X;
  };
  std::vector<Index> all(C.rows());
  std::iota(all.begin(), all.end(), Index{0});
  const std::vector<Index> kept = independentRows(part(all, false), tolerance);
  std::vector<Index> dropped;
  std::set_difference(all.begin(), all.end(), kept.begin(), kept.end(),
                      std::back_inserter(dropped));
  out.kept = static_cast<long>(kept.size());
  // Y = S_D - X^T S_I with P_I^T X = P_D^T (least squares: exact where P_D depends on P_I).
  out.Y = MatX(part(dropped, true));
  if (!kept.empty() && !dropped.empty()) {
    const SparseMatrixCSR X = solveLeastSquares(SparseMatrixCSR(part(kept, false).transpose()),
                                                SparseMatrixCSR(part(dropped, false).transpose()));
    out.Y -= MatX(SparseMatrixCSR(X.transpose()) * part(kept, true));
  }
  return out;
}

/// rank([Y_1; ...; Y_P]) of every rank's Y (columns: global indices), taken on rank 0 and
/// returned on every rank. A row of norm <= tolerance is dead in that QR whatever the others
/// (column norms only fall as it proceeds), so it is not sent: a redundancy among a rank's own
/// rows that no shared column sees leaves such a row (zero but for round-off), and rank 0
/// receives the interfaces' rows only (catena-scale --family lattice --sizes 40 on 2 ranks: 40
/// of each rank's 4834 / 4846 rows, hand run). Collective.
long stackedRankOnRoot(const MatX& Y, const std::vector<Index>& global_column, double tolerance,
                       MPI_Comm comm) {
  std::vector<double> pairs;  // (global column, value) per entry, row by row
  std::vector<int> row_length;
  for (Index i = 0; i < Y.rows(); ++i) {
    if (Y.row(i).norm() <= tolerance) continue;
    int length = 0;
    for (Index j = 0; j < Y.cols(); ++j)
      if (Y(i, j) != 0.0) {
        pairs.push_back(static_cast<double>(global_column[j]));
        pairs.push_back(Y(i, j));
        ++length;
      }
    row_length.push_back(length);
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = 0;
  const int mine[2] = {static_cast<int>(row_length.size()), static_cast<int>(pairs.size())};
  std::vector<int> counts(2 * static_cast<std::size_t>(size));
  MPI_Gather(mine, 2, MPI_INT, counts.data(), 2, MPI_INT, root, comm);
  std::vector<int> row_counts(size), pair_counts(size), row_at(size), pair_at(size);
  for (int r = 0; r < size; ++r) {
    row_counts[r] = counts[2 * r];
    pair_counts[r] = counts[2 * r + 1];
  }
  std::exclusive_scan(row_counts.begin(), row_counts.end(), row_at.begin(), 0);
  std::exclusive_scan(pair_counts.begin(), pair_counts.end(), pair_at.begin(), 0);
  const bool is_root = rank == root;
  std::vector<int> all_lengths(is_root ? row_at.back() + row_counts.back() : 0);
  std::vector<double> all_pairs(is_root ? pair_at.back() + pair_counts.back() : 0);
  MPI_Gatherv(row_length.data(), mine[0], MPI_INT, all_lengths.data(), row_counts.data(),
              row_at.data(), MPI_INT, root, comm);
  MPI_Gatherv(pairs.data(), mine[1], MPI_DOUBLE, all_pairs.data(), pair_counts.data(),
              pair_at.data(), MPI_DOUBLE, root, comm);
  long stacked_rank = 0;
  if (is_root && !all_lengths.empty()) {
    std::vector<Index> columns;  // the global columns present, compressed
    for (std::size_t k = 0; k < all_pairs.size(); k += 2)
      columns.push_back(static_cast<Index>(all_pairs[k]));
    std::sort(columns.begin(), columns.end());
    columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
    std::vector<Eigen::Triplet<double>> t;
    std::size_t k = 0;
    for (std::size_t i = 0; i < all_lengths.size(); ++i)
      for (int e = 0; e < all_lengths[i]; ++e, k += 2) {
        const auto j =
            std::lower_bound(columns.begin(), columns.end(), static_cast<Index>(all_pairs[k])) -
            columns.begin();
        t.emplace_back(static_cast<Index>(i), j, all_pairs[k + 1]);
      }
    SparseMatrixCSR all(static_cast<Index>(all_lengths.size()), static_cast<Index>(columns.size()));
    all.setFromTriplets(t.begin(), t.end());
    stacked_rank = sparseQrRank(all, tolerance, true).rank;
  }
  MPI_Bcast(&stacked_rank, 1, MPI_LONG, root, comm);
  return stacked_rank;
}

/// n_v - rank(C_q) with no rank holding C_q. A velocity coordinate that only this rank's rows
/// touch is private (a coordinate is shared when it is a ghost here or another rank's ghost:
/// DistributedAssembly::sharedVelocities); the rows kept on the private columns have their
/// pivots where no other rank's rows reach, so rank(C_q) = sum_r |I_r| + rank([Y_1; ...; Y_P])
/// (reduceToSharedColumns, stackedRankOnRoot). The threshold is degreesOfFreedom's
/// (kDefaultRankTolerance of the longest row). Collective.
Index distributedDegreesOfFreedom(const DistributedAssembly& as) {
  const DistributedModel& dm = as.distributedModel();
  const SparseMatrixCSR& C = as.localCq();
  if (dm.size() == 1) return degreesOfFreedom(C);
  MPI_Comm comm = PETSC_COMM_WORLD;
  double longest = 0.0;
  for (Index r = 0; r < C.rows(); ++r) longest = std::max(longest, C.row(r).norm());
  MPI_Allreduce(MPI_IN_PLACE, &longest, 1, MPI_DOUBLE, MPI_MAX, comm);
  if (longest == 0.0) return dm.globalNv();
  const double tolerance = kDefaultRankTolerance * longest;
  const SharedRemainder reduced = reduceToSharedColumns(C, as.sharedVelocities(), tolerance);
  std::vector<Index> global_column;
  for (Index j : reduced.shared_column) global_column.push_back(dm.globalVelocity()[j]);
  long kept = reduced.kept;
  MPI_Allreduce(MPI_IN_PLACE, &kept, 1, MPI_LONG, MPI_SUM, comm);
  return dm.globalNv() -
         static_cast<Index>(kept + stackedRankOnRoot(reduced.Y, global_column, tolerance, comm));
}

/// The first-order pencil's layout from the undamped one u: each rank's block is its undamped
/// block, shifted by the s phi entries of the lower ranks, then the s phi entries of its owned
/// velocities; a ghost body's entries (phi and s phi, columns) come from its owner. On one rank:
/// u, then s phi appended. Collective.
PencilLayout dampedLayout(const DistributedModel& dm, const PencilLayout& u) {
  const Model& m = dm.local();
  const Index owned = dm.part().owned_bodies, bodies = static_cast<Index>(m.bodies.size());
  const int nvb = m.nv_body;
  long mine = static_cast<long>(dm.ownedVelocities()), below = 0;
  MPI_Exscan(&mine, &below, 1, MPI_LONG, MPI_SUM, PETSC_COMM_WORLD);
  if (dm.rank() == 0) below = 0;  // MPI_Exscan leaves rank 0's undefined
  const auto shift = static_cast<Index>(below);
  PencilLayout d;
  d.first = u.first + shift;
  d.size = u.size + dm.ownedVelocities();
  d.rows = u.rows;
  for (Index& r : d.rows) r += shift;
  // Per body: the shift of its owner's block and the first of its s phi entries.
  std::vector<double> starts(2 * static_cast<std::size_t>(bodies), 0.0);
  for (Index b = 0; b < owned; ++b) {
    starts[2 * b] = static_cast<double>(shift);
    starts[2 * b + 1] = static_cast<double>(d.first + u.size + b * nvb);
  }
  GhostExchange(2, owned, dm.part().ghost_bodies).update(starts.data());
  d.phi.resize(m.nv);
  d.v.resize(m.nv);
  for (Index b = 0; b < bodies; ++b)
    for (int c = 0; c < nvb; ++c) {
      const Index i = b * nvb + c;
      d.phi[i] = u.phi[i] + static_cast<Index>(starts[2 * b]);
      d.v[i] = static_cast<Index>(starts[2 * b + 1]) + c;
    }
  return d;
}

}  // namespace

DistributedModalResult solveDistributedModal(DistributedAssembly& as, const VecX& q,
                                             const VecX& lambda, const ModalOptions& o) {
  CATENA_CHECK(o.modes >= 1, "ModalOptions::modes: expected >= 1, got " << o.modes);
  const double start = MPI_Wtime();
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  // 1. K_t = K + K_c, D, C_q and M at the equilibrium (t = 0, zero velocities).
  as.assembleConstraints(q, 0.0);
  as.assembleTangent(q, 0.0, lambda, o.constraint_stiffness, /*with_damping=*/true);
  as.assembleMass(q);
  const SparseMatrixCSR &K = as.localTangent(), &Cq = as.localCq(), &M = as.localMass(),
                        &D = as.localDamping();
  ModalSystem sys;
  sys.comm = PETSC_COMM_WORLD;
  sys.model = &m;
  sys.owned_bodies = dm.part().owned_bodies;
  sys.first_velocity = dm.firstVelocity();
  sys.global_nv = dm.globalNv();
  sys.q = &q;
  sys.K = &K;
  sys.D = &D;
  sys.M = &M;
  sys.Cq = &Cq;
  const Index nvo = dm.ownedVelocities();
  sys.max_k = as.maxAbsTangent();
  sys.max_d = dm.max(maxAbsEntry(D, nvo));
  sys.max_m = dm.max(maxAbsEntry(M, nvo));
  sys.max_cq = dm.max(maxAbsEntry(Cq, m.nc));
  // 2. The pencils' layouts: the saddle-point numbering; damped, s phi after each rank's block.
  const double t0 = MPI_Wtime();
  const SaddleNumbering n = saddleNumbering(dm);
  PencilLayout& u = sys.undamped;
  u.first = n.first;
  u.size = n.local_size;
  u.phi = n.kv;
  u.rows = n.kr;
  sys.damped = dampedLayout(dm, u);
  const double numbering_seconds = MPI_Wtime() - t0;
  sys.degrees_of_freedom = [&as] { return distributedDegreesOfFreedom(as); };

  // 3. The one modal analysis; its modes as check values.
  ModalResult r = computeModes(sys, o, start);
  DistributedModalResult out;
  static_cast<ModalSummary&>(out) = r;
  out.setup_seconds = numbering_seconds + r.setup_seconds;
  out.assembly_seconds = r.assembly_seconds - out.setup_seconds;
  for (Mode& mode : r.modes) {
    DistributedMode d;
    d.mu = mode.eigenvalue;
    d.s = mode.s;
    d.frequency_hz = mode.frequency_hz;
    d.slepc_error = mode.residual;
    d.residual = mode.force_residual;
    d.constraint_residual = mode.constraint_residual;
    d.energy_fractions = mode.energy_fractions;
    d.effective_mass = mode.effective_mass;
    d.shape = std::move(mode.mass_normalized);
    d.direction = std::move(mode.direction);
    d.nodes = mode.nodes;
    out.modes.push_back(std::move(d));
  }
  return out;
}

}  // namespace catena
