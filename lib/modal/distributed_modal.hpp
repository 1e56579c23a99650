#pragma once
/// @file distributed_modal.hpp
/// The modes (modal.hpp) of a DistributedModel at a static equilibrium (solveDistributedStatics),
/// by the one modal analysis that solveModal runs too (modal/modal_analysis.cpp): the same
/// pencil, shift-and-invert, DOF cap and rejection of eigenpairs. Here the pencil is two
/// MatMPIAIJ matrices in the rank-count-independent saddle-point numbering
/// (parallel/saddle_numbering.hpp), factored by MUMPS on several ranks (options under
/// ModalOptions::petsc_prefix, e.g. -modal_st_mat_mumps_icntl_14, 100 % unless set) and by KLU
/// on one. dof = n_v - rank(C_q), with no rank holding C_q: each rank's rows reduced on its
/// private columns by SuiteSparseQR, rank 0 ranks what is left on the shared columns
/// (distributed_modal.cpp, distributedDegreesOfFreedom). Damped modes (ModalOptions::damped, or
/// forces with a velocity Jacobian D): the first-order pencil, s phi after each rank's block.
/// docs/parallel.md has the measured agreement with the serial solveModal.
///
/// Eigenvector entries are not comparable across rank counts (a mode's sign, and the basis of a
/// multiple eigenvalue, are arbitrary); every DistributedMode therefore carries check values
/// that are: the frequency, residuals, and the kinetic-energy split and effective masses of the
/// mode, all invariant under the scaling and sign of phi.

#include <complex>
#include <string>
#include <vector>

#include "modal/modal.hpp"
#include "parallel/distributed_assembly.hpp"

namespace catena {

struct DistributedMode {
  std::complex<double> mu;    ///< eigenvalue of the pencil (undamped: rad^2/s^2, -s^2; damped: s)
  std::complex<double> s;     ///< the root with Im s >= 0 (Re s >= 0 if real), rad/s
  double frequency_hz = 0.0;  ///< |Im s| / 2 pi
  double slepc_error = 0.0;   ///< SLEPc's relative error of the pair (EPS_ERROR_RELATIVE)
  /// ||(K_t - mu M) phi + C_q^T dlambda|| / (||K_t phi|| + |mu| ||M phi||): the force rows.
  double residual = 0.0;
  /// ||a C_q phi|| / (||K_t phi|| + |mu| ||M phi||): the constraint rows, on the same scale.
  double constraint_residual = 0.0;
  /// Share of the kinetic energy phi^T M phi in the translations along x, y, z (world) and in
  /// the rotations (x, y only and rotation in 2D, z entry zero); the four sum to 1.
  Eigen::Vector4d energy_fractions = Eigen::Vector4d::Zero();
  /// Effective modal masses (sum_b M phi along x, y, z)^2 / (phi^T M phi), kg.
  Vec3 effective_mass = Vec3::Zero();
  /// phi on the owned velocity coordinates, normalized to phi^T M phi = 1 with its largest
  /// entry (the lowest global index on ties) positive: deterministic for a given rank count.
  VecX shape;
  std::string direction;  ///< as Mode: dominant direction, e.g. "out-of-plane"
  int nodes = 0;          ///< as Mode: sign changes of that component along the bodies
};

/// ModalSummary, but for the timings: setup_seconds is the pencil's numbering and COO patterns,
/// assembly_seconds the rest of the assembly (MPI_Wtime, this rank's).
struct DistributedModalResult : ModalSummary {
  std::vector<DistributedMode> modes;  ///< by distance of mu to the shift, as solveModal
};

/// The min(options.modes, dof) modes nearest the shift at the equilibrium (q: local positions,
/// ghosts up to date, as DistributedStaticsResult::q; lambda: owned multipliers) at t = 0, zero
/// velocities. options.modes >= 1 (CATENA_CHECK); a failed factorization or eigensolve, or fewer
/// modes than min(modes, dof), is a failed Status, the same on every rank. Collective.
DistributedModalResult solveDistributedModal(DistributedAssembly& assembly, const VecX& q,
                                             const VecX& lambda, const ModalOptions& options = {});

}  // namespace catena
