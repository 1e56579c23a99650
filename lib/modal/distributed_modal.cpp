// solveDistributedModal: the one modal analysis (modal_analysis.cpp) on a DistributedAssembly,
// PETSC_COMM_WORLD, the pencil in the saddle-point numbering.
#include "modal/distributed_modal.hpp"

#include <petscsys.h>

#include <algorithm>
#include <numeric>

#include "core/check.hpp"
#include "modal/modal_system.hpp"
#include "parallel/ghost_exchange.hpp"
#include "parallel/saddle_numbering.hpp"

namespace catena {
namespace {

double maxAbs(const SparseMatrixCSR& A, long rows) {
  const long n = A.outerIndexPtr()[rows];
  double a = 0.0;
  for (long k = 0; k < n; ++k) a = std::max(a, std::abs(A.valuePtr()[k]));
  return a;
}

/// n_v - rank(C_q) of the global C_q, gathered on rank 0 (owned rows, global columns).
/// Collective.
Index distributedDegreesOfFreedom(const DistributedAssembly& as) {
  const DistributedModel& dm = as.distributedModel();
  const SparseMatrixCSR local = as.ownedRowsOfCq();
  const int rows = static_cast<int>(local.rows()), nnz = static_cast<int>(local.nonZeros());
  const int size = dm.size(), root = 0;
  std::vector<int> counts(2 * static_cast<std::size_t>(size));
  const int mine[2] = {rows, nnz};
  MPI_Gather(mine, 2, MPI_INT, counts.data(), 2, MPI_INT, root, PETSC_COMM_WORLD);
  std::vector<int> row_counts(size), nnz_counts(size), row_at(size), nnz_at(size);
  for (int r = 0; r < size; ++r) {
    row_counts[r] = counts[2 * r];
    nnz_counts[r] = counts[2 * r + 1];
  }
  std::exclusive_scan(row_counts.begin(), row_counts.end(), row_at.begin(), 0);
  std::exclusive_scan(nnz_counts.begin(), nnz_counts.end(), nnz_at.begin(), 0);
  const bool is_root = dm.rank() == root;
  const long total_rows = is_root ? row_at.back() + row_counts.back() : 0;
  const long total_nnz = is_root ? nnz_at.back() + nnz_counts.back() : 0;
  std::vector<int> lengths(rows), all_lengths(total_rows), cols(total_nnz);
  std::vector<double> vals(total_nnz);
  for (int r = 0; r < rows; ++r)
    lengths[r] = local.outerIndexPtr()[r + 1] - local.outerIndexPtr()[r];
  MPI_Gatherv(lengths.data(), rows, MPI_INT, all_lengths.data(), row_counts.data(), row_at.data(),
              MPI_INT, root, PETSC_COMM_WORLD);
  MPI_Gatherv(local.innerIndexPtr(), nnz, MPI_INT, cols.data(), nnz_counts.data(), nnz_at.data(),
              MPI_INT, root, PETSC_COMM_WORLD);
  MPI_Gatherv(local.valuePtr(), nnz, MPI_DOUBLE, vals.data(), nnz_counts.data(), nnz_at.data(),
              MPI_DOUBLE, root, PETSC_COMM_WORLD);
  long dof = 0;
  if (is_root) {
    std::vector<int> outer(total_rows + 1, 0);
    std::inclusive_scan(all_lengths.begin(), all_lengths.end(), outer.begin() + 1);
    const Eigen::Map<const SparseMatrixCSR> Cq(total_rows, dm.globalNv(), total_nnz, outer.data(),
                                               cols.data(), vals.data());
    dof = degreesOfFreedom(SparseMatrixCSR(Cq));
  }
  MPI_Bcast(&dof, 1, MPI_LONG, root, PETSC_COMM_WORLD);
  return static_cast<Index>(dof);
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
  sys.max_d = dm.max(maxAbs(D, nvo));
  sys.max_m = dm.max(maxAbs(M, nvo));
  sys.max_cq = dm.max(maxAbs(Cq, m.nc));
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
