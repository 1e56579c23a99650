#pragma once
/// @file modal.hpp
/// Modes of the linearized constrained equations at an equilibrium (tangent-stiffness paper,
/// eq. 7): M dq'' + D dq' + (K + K_c) dq + C_q^T dlambda = 0, C_q dq = 0, with dq = phi e^(s t).
/// The constraints stay in an augmented pencil (docs/modal-analysis.md argues the choice):
///  - undamped (D = 0): [K_t, a C_q^T; a C_q, 0] x = mu [M, 0; 0, 0] x, mu = -s^2, shift mu near
///    (2 pi target)^2 — real arithmetic can aim at a frequency;
///  - damped: the first-order pencil in x = (phi, s phi, lambda), the modes of smallest |s|.
/// a scales the constraint rows so that the pencil's conditioning does not depend on units.

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
