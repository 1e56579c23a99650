#pragma once
/// @file modal_system.hpp
/// (modal/ internal: sees MPI.) What the one modal analysis (computeModes) needs of the system,
/// with two realizations: one Model on PETSC_COMM_SELF (modal.cpp) and a DistributedAssembly on
/// PETSC_COMM_WORLD (distributed_modal.cpp). Everything else, the pencil, the eigensolver, the
/// rejection of eigenpairs, the classification and check values of the modes, is written once,
/// reductions going over `comm` (a sum over one process is the value itself).

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "modal/modal.hpp"

namespace catena {

/// Where the local unknowns go in one pencil: global indices of the entries of phi (local
/// velocity coordinates, ghosts included: columns), of s phi (damped only, owned coordinates)
/// and of the owned constraint rows; this process owns [first, first + size).
struct PencilLayout {
  Index first = 0, size = 0;
  std::vector<Index> phi, v, rows;
};

struct ModalSystem {
  MPI_Comm comm = MPI_COMM_SELF;
  const Model* model = nullptr;  ///< local: bodies [0, owned_bodies) owned, then ghosts
  Index owned_bodies = 0;
  Index first_velocity = 0;  ///< global index of the first owned velocity coordinate
  Index global_nv = 0;
  const VecX* q = nullptr;  ///< local positions at the equilibrium
  /// Local matrices at the equilibrium, local numbering. K = K + K_c: the rows of ghost bodies
  /// hold this process's contributions, which the pencil sums into their owners'. D, M: the
  /// owned rows count. C_q: the owned rows.
  const SparseMatrixCSR *K = nullptr, *D = nullptr, *M = nullptr, *Cq = nullptr;
  double max_k = 0.0, max_d = 0.0, max_m = 0.0, max_cq = 0.0;  ///< global max |entry|
  PencilLayout undamped, damped;  ///< damped.size == 0: no damped pencil on this system
  /// n_v - rank(C_q) of the global C_q, the same on every process. Collective.
  std::function<Index()> degrees_of_freedom;
};

/// The modes (modal.hpp) of `system`; assembly_seconds starts at `start` (MPI_Wtime).
/// Collective over system.comm; the Status is the same on every process.
ModalResult computeModes(const ModalSystem& system, const ModalOptions& options, double start);

using VecC = Eigen::VectorXcd;

/// The largest |entry| in the first `rows` rows of the compressed matrix A; 0 if none.
inline double maxAbsEntry(const SparseMatrixCSR& A, Index rows) {
  const Index n = A.outerIndexPtr()[rows];
  double a = 0.0;
  for (Index k = 0; k < n; ++k) a = std::max(a, std::abs(A.valuePtr()[k]));
  return a;
}

/// x[0..n) summed over the processes of `comm`, in place. Collective.
inline void sumAll(MPI_Comm comm, double* x, int n) {
  MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_SUM, comm);
}

/// Normal of the best-fitting plane through the bodies' positions if they are (nearly)
/// planar, else zero; e_z in 2D. Collective.
Vec3 planeNormal(const ModalSystem& system);

/// Dominant direction of the mode's shape (mass-weighted translations of the body origins, real
/// and imaginary parts, against the plane's normal) and its sign changes along the bodies in
/// global order, at the phase where that component is largest. Collective.
void classify(const ModalSystem& system, const Vec3& normal, Mode& mode);

/// The check values of `mode` (eigenvalue set) from phi and M phi (owned coordinates) and the
/// local squared norms of the force rows and constraint rows of A x - value B x, of A (phi, 0)
/// and of B x. Collective.
void checkValues(const ModalSystem& system, const VecC& phi, const VecC& mphi,
                 const double norms[4], Mode& mode);

/// n_v - rank(C_q) by SuiteSparseQR with the threshold of analyzeConstraintRank (relative to
/// the longest row). C_q: all rows, global columns.
Index degreesOfFreedom(const SparseMatrixCSR& Cq);

}  // namespace catena
