#pragma once
/// @file modal.hpp
/// Modes of the linearized constrained equations at an equilibrium (tangent-stiffness paper,
/// eq. 7): M dq'' + D dq' + (K + K_c) dq + C_q^T dlambda = 0, C_q dq = 0, with dq = phi e^(s t).
/// The constraints stay in an augmented pencil (docs/modal-analysis.md argues the choice):
///  - undamped (D = 0): [K_t, a C_q^T; a C_q, 0] x = mu [M, 0; 0, 0] x, mu = -s^2, shift mu near
///    (2 pi target)^2;
///  - damped: the first-order pencil in x = (phi, s phi, lambda), the modes of smallest |s|.
/// a = max(|K_t|, sigma |M|) / |C_q| scales the constraint rows.
///
/// The pencil has dof = n_v - rank(C_q) finite eigenvalues (2 dof damped). At most min(modes,
/// dof) modes are asked for (ModalResult::note says when fewer than requested exist); an
/// eigenpair whose coordinate part vanishes, whose Rayleigh quotient does not reproduce its
/// eigenvalue, or that moves no mass is rejected (an infinite eigenvalue made finite by
/// round-off); fewer modes than min(modes, dof) after the rejection is a failure.
/// One implementation (modal/modal_analysis.cpp) serves one Model here and a DistributedModel
/// (modal/distributed_modal.hpp).

#include <complex>
#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "core/status.hpp"
#include "model/state.hpp"

namespace catena {

struct ModalOptions {
  int modes = 4;
  double target_hz = 0.0;            ///< undamped: modes nearest this frequency
  bool constraint_stiffness = true;  ///< include K_c in the tangent
  bool damped = false;               ///< force the first-order (damped) formulation
  double tolerance = 1e-10;
  std::string petsc_prefix = "modal_";
  /// Distributed runs: shift-and-invert through the Schur-complement domain decomposition
  /// (solvers/schur_decomposition.hpp: KLU per rank and on the gathered interfaces) instead of
  /// MUMPS on the whole pencil.
  bool schur_decomposition = false;
  /// Ask the eigensolver for at most dof modes. false: for `modes` whatever the DOF, so that
  /// the rejection of eigenpairs that are not modes can be tested.
  bool limit_to_dof = true;
};

struct Mode {
  std::complex<double> s;             ///< eigenvalue, rad/s (the one with Im s >= 0)
  double frequency_hz = 0.0;          ///< |Im s| / 2 pi (zero for a real, non-oscillating s)
  double natural_frequency_hz = 0.0;  ///< |s| / 2 pi
  double damping_ratio = 0.0;         ///< -Re s / |s|
  double residual = 0.0;              ///< SLEPc's relative error of the eigenpair
  /// nv entries, (delta r, theta) per body (distributed: the owned bodies'); the eigenvector of
  /// the pencil has unit 2-norm and its largest entry real and positive.
  VecX shape_re, shape_im;
  std::string direction;  ///< dominant direction, e.g. "out-of-plane", "y"
  int nodes = 0;          ///< sign changes of the dominant component along the bodies
  /// Check values, invariant under the scale and sign of phi (comparable across rank counts):
  std::complex<double> eigenvalue;  ///< of the pencil: mu = -s^2 (rad^2/s^2) undamped, s damped
  /// ||force rows of A x - eigenvalue B x|| / (||A (phi, 0)|| + |eigenvalue| ||B x||)
  double force_residual = 0.0;
  double constraint_residual = 0.0;  ///< ||a C_q phi||, on the same scale
  /// Share of the kinetic energy phi^H M phi in the translations along x, y, z (world) and in
  /// the rotations (2D: x, y and rotation, z zero); the four sum to 1.
  Eigen::Vector4d energy_fractions = Eigen::Vector4d::Zero();
  Vec3 effective_mass = Vec3::Zero();  ///< |sum_b M phi along x, y, z|^2 / (phi^H M phi), kg
  /// Re phi with phi^H M phi = 1, its largest entry (lowest global index on ties) positive.
  VecX mass_normalized;
};

/// What a modal analysis reports besides its modes (ModalResult, DistributedModalResult).
struct ModalSummary {
  Status status;
  Index dof = 0;      ///< n_v - rank(C_q) at the equilibrium: the most modes there are
  int requested = 0;  ///< modes asked for (ModalOptions::modes)
  int rejected = 0;   ///< eigenpairs rejected as not modes (multiplier-space, spurious)
  std::string note;   ///< why fewer modes than requested were returned (empty if not)
  bool damped = false;
  double constraint_scale = 1.0;
  int iterations = 0;  ///< Krylov-Schur restarts
  std::string method;  ///< e.g. "krylovschur + sinvert (klu)"
  /// Wall seconds: assembly of the matrices and the pencil; the eigensolver's set-up (mostly
  /// the factorization of the shifted pencil); its iterations and the checks of the pairs.
  double assembly_seconds = 0.0, factor_seconds = 0.0, solve_seconds = 0.0;
  double setup_seconds = 0.0;        ///< of assembly_seconds: the pencil's numbering and pattern
  int solves = 0;                    ///< solves with the factorization of the shifted pencil
  Vec3 plane_normal = Vec3::Zero();  ///< normal of the mechanism's plane, zero if not planar
};

struct ModalResult : ModalSummary {
  std::vector<Mode> modes;  ///< by increasing distance of the eigenvalue to the target
};

/// The modes of `model` at `equilibrium` (q, v, lambda, t; lambda enters K_c), with the
/// matrices of `plan`. Works on one process (PETSC_COMM_SELF): callable on any rank of an MPI
/// run. A failed factorization or eigensolve is a failed Status, never an exception.
ModalResult solveModal(const Model& model, const AssemblyPlan& plan, const State& equilibrium,
                       const ModalOptions& options = {});

}  // namespace catena
