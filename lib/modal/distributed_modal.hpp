#pragma once
/// @file distributed_modal.hpp
/// Undamped modes of a DistributedModel at a static equilibrium (solveDistributedStatics): the
/// pencil of modal/modal.hpp,
///   [K_t, a C_q^T; a C_q, 0] x = mu [M, 0; 0, 0] x,  x = (phi, dlambda / a),  mu = -s^2,
/// with K_t = K + K_c, a = max(|K_t|, sigma |M|) / |C_q| (largest entries, as in the serial
/// analysis), Krylov-Schur (EPS_GNHEP) with shift-and-invert about sigma = (2 pi target_hz)^2,
/// the eigenvalues nearest sigma, tolerance ModalOptions::tolerance. The pencil is two MatMPIAIJ
/// matrices in the rank-count-independent saddle-point numbering of distributed_statics.hpp
/// (body by body: the body's velocity coordinates, then the rows of the joints it holds as body
/// 1), filled through fixed COO slots from the local assembly; the shifted matrix is factored by
/// MUMPS (options under ModalOptions::petsc_prefix, e.g. -modal_eps_nev,
/// -modal_st_pc_factor_mat_solver_type, -modal_st_mat_mumps_icntl_14, which defaults to 100 here
/// as in statics). docs/parallel.md has the measured agreement with the serial solveModal.
/// Collective.
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
  std::complex<double> mu;    ///< eigenvalue of the pencil, rad^2/s^2 (omega^2 if stable)
  std::complex<double> s;     ///< sqrt(-mu), the root with Im s >= 0 (Re s >= 0 if real)
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
};

struct DistributedModalResult {
  Status status;                       ///< the same on every rank
  std::vector<DistributedMode> modes;  ///< by distance of mu to the shift, as solveModal
  double constraint_scale = 1.0;       ///< a
  int iterations = 0;                  ///< Krylov-Schur restarts
  int solves = 0;                      ///< applications of the factored shifted pencil
  std::string method;                  ///< e.g. "krylovschur + sinvert (mumps)"
  /// Wall seconds of this rank (MPI_Wtime): the pencil's numbering and COO patterns; the
  /// assembly of K_t, C_q, M and their copy into the pencil; the eigensolver's set-up (mostly
  /// the factorization of the shifted pencil); its iterations and the check values.
  double setup_seconds = 0.0, assembly_seconds = 0.0, factor_seconds = 0.0, solve_seconds = 0.0;
};

/// The options.modes modes nearest the shift at the equilibrium (q: local positions, ghosts up
/// to date, as DistributedStaticsResult::q; lambda: owned multipliers) at t = 0. Undamped only:
/// options.damped and a model whose force Jacobian D is nonzero are refused (CATENA_CHECK and a
/// failed Status). Collective.
DistributedModalResult solveDistributedModal(DistributedAssembly& assembly, const VecX& q,
                                             const VecX& lambda, const ModalOptions& options = {});

}  // namespace catena
