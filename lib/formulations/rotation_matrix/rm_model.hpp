#pragma once
/// @file rm_model.hpp
/// Rigid bodies described by a pseudo-translation T* and the 9 elements of their rotation
/// matrix R (rotation-matrix paper, eqs. 1-3; docs/rotation-matrix-bodies.md): a material point
/// whose position in the reference configuration is X (world basis) is at x = T* + R X. The
/// model is plain data (bodies, spherical joints, gravity), finalized once; the state (q, v,
/// multipliers, t) lives in RmState, owned by the analyses.
///
/// Coordinates, per body b at offset 12 b: q = (T* (3), vec(R) (9, column-major: r1, r2, r3)).
/// Constraint rows: first 6 orthogonality rows per body at 6 b, in the order (11, 22, 33, 12,
/// 13, 23) of the symmetric R^T R - I (rm_body.hpp), then 3 rows per spherical joint.

#include <string>
#include <vector>

#include "core/types.hpp"

namespace catena {
struct Model;
}

namespace catena::rm {

inline constexpr Index kBodyCoordinates = 12;
inline constexpr Index kOrthogonalityRows = 6;
inline constexpr Index kSphericalRows = 3;

struct RmBody {
  std::string name;
  double mass = 0.0;            ///< kg, > 0
  Vec3 com = Vec3::Zero();      ///< X_G = OG_0: centre of mass in the reference configuration, m
  Mat3 inertia = Mat3::Zero();  ///< J_G0 about the centre of mass, world basis, reference, kg m^2
  // Initial state (x = T* + R X): where the run starts.
  Vec3 T = Vec3::Zero();      ///< T*(0), m
  Mat3 R = Mat3::Identity();  ///< R(0), orthogonal
  Vec3 T_dot = Vec3::Zero();  ///< T*'(0), m/s
  Mat3 R_dot = Mat3::Zero();  ///< R'(0) = j(Omega) R(0) (eq. 7)
  // Fixed by finalizeRmModel().
  Mat3 poinsot = Mat3::Zero();            ///< K_G0 = tr(J_G0)/2 I - J_G0 (eq. 11), kg m^2, SPD
  Mat3 poinsot_O = Mat3::Zero();          ///< K_O = K_G0 + m X_G X_G^T (eq. 10), kg m^2
  Mat3 poinsot_axes = Mat3::Identity();   ///< V: K_G0 = V diag(k) V^T, V orthogonal
  Vec3 poinsot_principal = Vec3::Zero();  ///< k, all > 0
};

/// Spherical joint (eq. 13): the point x1 = T1 + R1 p1 of body1 coincides with
/// x2 = T2 + R2 p2 of body2, or with the fixed world point p2 when body2 is the ground (a ground
/// pin). p1, p2 are reference-configuration positions (world basis) of the same material point.
struct RmSphericalJoint {
  std::string name;
  Index body1 = 0;
  Vec3 point1 = Vec3::Zero();  ///< m
  Index body2 = kGround;
  Vec3 point2 = Vec3::Zero();  ///< m
};

struct RmModel {
  std::string name;
  Vec3 gravity = Vec3::Zero();  ///< m/s^2
  std::vector<RmBody> bodies;
  std::vector<RmSphericalJoint> joints;
  // Fixed by finalizeRmModel().
  Index n = 0;                ///< coordinates, 12 per body
  Index m = 0;                ///< constraint rows, 6 per body + 3 per joint
  Index m_orthogonality = 0;  ///< 6 per body (the first rows)
  Index m_joints = 0;         ///< 3 per joint (the last rows)
  double length_scale = 1.0;  ///< m, the largest |X| of centres and joint points (>= 1e-3)
  bool finalized = false;

  Index qOffset(Index body) const { return kBodyCoordinates * body; }
  Index orthogonalityRow(Index body) const { return kOrthogonalityRows * body; }
  Index jointRow(Index joint) const { return m_orthogonality + kSphericalRows * joint; }
};

/// Validates (masses > 0, K_G0 positive definite, joint bodies in range, initial R orthogonal
/// to 1e-10) and fills the Poinsot matrices, their eigen-decompositions and the sizes.
/// @throws catena::Error naming the body or joint at fault.
void finalizeRmModel(RmModel& model);

/// State: q, v = q' (n each), multipliers (m: orthogonality then joints, sign M q'' + C_q^T
/// lambda = f), t.
struct RmState {
  VecX q, v, lambda;
  double t = 0.0;
};

/// The initial state described by the bodies (lambda zero).
RmState initialRmState(const RmModel& model);

/// The mixed-basis (quaternion) model of catena in rotation-matrix form: reference
/// configuration = the model's initial configuration, so R(0) = I and T*(0) = 0 (eq. 4),
/// X_G = the body positions, J_G0 = R_WB I_B R_WB^T, K_G0 by eq. (11); initial velocities by
/// eq. (8). Only spherical joints between marker origins, no loads or springs.
/// @throws catena::Error for anything else (joint type, loads, 2D, rheonomic).
RmModel rmModelFromCatenaModel(const Model& model);

/// The paper's double pendulum (sec. 4 and 6) written from its equations: K_G0 of eq. (15),
/// OG_10, OH_10, OG_20 of eq. (18), spherical joints at O and H1 (eq. 20), weights m g x0
/// (x0 down, so gravity (g, 0, 0)). m [kg], l, a, b [m], phi0, psi0 [rad] absolute angles.
RmModel buildRmDoublePendulum(double m, double l, double a, double b, double phi0, double psi0,
                              double g);

}  // namespace catena::rm
