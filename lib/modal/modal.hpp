#pragma once
/// @file modal.hpp
/// Modes of the linearized constrained equations at an equilibrium (tangent-stiffness paper,
/// eq. 7): M dq'' + D dq' + (K + K_c) dq + C_q^T dlambda = 0, C_q dq = 0, with dq = phi e^(s t).
/// The constraints stay in an augmented pencil (docs/modal-analysis.md argues the choice):
///  - undamped (D = 0): [K_t, a C_q^T; a C_q, 0] x = mu [M, 0; 0, 0] x, mu = -s^2, shift mu near
///    (2 pi target)^2 — real arithmetic can aim at a frequency;
///  - damped: the first-order pencil in x = (phi, s phi, lambda), the modes of smallest |s|.
/// a scales the constraint rows so that the pencil's conditioning does not depend on units.
///
/// The pencil has exactly dof = n_v - rank(C_q) finite eigenvalues (2 dof damped); the others
/// are infinite and live in the multipliers. solveModal finds the rank (SuiteSparseQR, the
/// threshold of constraint_rank.hpp), asks the eigensolver for at most dof modes (ModalResult
/// says when fewer than requested exist) and rejects an eigenpair whose coordinate part
/// vanishes, whose eigenvalue its coordinate part does not reproduce (Rayleigh quotient), or
/// that moves no mass: those are infinite eigenvalues that round-off made finite. Fewer modes
/// than min(modes, dof) after the rejection is a failure.

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
  /// Ask the eigensolver for at most dof modes. false: for `modes` whatever the DOF, so that
  /// the rejection of eigenpairs that are not modes can be tested.
  bool limit_to_dof = true;
};

struct Mode {
  std::complex<double> s;             ///< eigenvalue, rad/s (the one with Im s >= 0)
  double frequency_hz = 0.0;          ///< |Im s| / 2 pi (zero for a real, non-oscillating s)
  double natural_frequency_hz = 0.0;  ///< |s| / 2 pi
  double damping_ratio = 0.0;         ///< -Re s / |s|
  double residual = 0.0;              ///< relative residual of the eigenpair
  VecX shape_re, shape_im;            ///< nv entries: (delta r, theta) per body
  std::string direction;              ///< dominant direction, e.g. "out-of-plane", "y"
  int nodes = 0;                      ///< sign changes of the dominant component along the bodies
};

struct ModalResult {
  Status status;
  std::vector<Mode> modes;  ///< by increasing |s| distance to the target
  Index dof = 0;            ///< n_v - rank(C_q) at the equilibrium: the most modes there are
  int requested = 0;        ///< modes asked for (ModalOptions::modes)
  int rejected = 0;         ///< eigenpairs rejected as not modes (multiplier-space, spurious)
  std::string note;         ///< why fewer modes than requested were returned (empty if not)
  bool damped = false;
  double constraint_scale = 1.0;
  int iterations = 0;
  std::string method;
  /// Wall seconds: assembly of the matrices and the pencil; the eigensolver's set-up (mostly
  /// the factorization of the shifted pencil); its iterations (solves, orthogonalization).
  double assembly_seconds = 0.0, factor_seconds = 0.0, solve_seconds = 0.0;
  int solves = 0;                    ///< solves with the factorization of the shifted pencil
  Vec3 plane_normal = Vec3::Zero();  ///< normal of the mechanism's plane, zero if not planar
};

ModalResult solveModal(const Model& model, const AssemblyPlan& plan, const State& equilibrium,
                       const ModalOptions& options = {});

}  // namespace catena
