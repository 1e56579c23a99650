#pragma once
/// @file rotation.hpp
/// Quaternion and rotation helpers of the tangent-stiffness paper (appendices B and C).
/// Convention: a unit quaternion rho = (s, v) (Eigen: w() = s, vec() = v) rotates a vector from
/// the local basis to the parent basis, r_a = R(rho) r_l (eq. B.3). Variations are local:
/// delta rho = 1/2 rho (0, theta_l) (eq. B.12a), i.e. rho_new = rho * exp(theta_l).

#include <cmath>

#include "core/types.hpp"

namespace catena {

/// Skew-symmetric matrix a~ with a~ b = a x b.
inline Mat3 skew(const Vec3& a) {
  Mat3 m;
  m << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return m;
}

/// Projection matrix P(rho) = 1/2 (s I + v~) (eq. C.1): Im(delta rho) = P(rho) theta_l (C.2).
inline Mat3 projectionP(const Quat& rho) {
  return 0.5 * (rho.w() * Mat3::Identity() + skew(rho.vec()));
}

/// G(rho, g) = -1/4 g v^T - 1/4 g~ (s I + v~) (eq. C.11): delta(P(rho)) g = G(rho, g) theta_l.
inline Mat3 projectionG(const Quat& rho, const Vec3& g) {
  return -0.25 * g * rho.vec().transpose() -
         0.25 * skew(g) * (rho.w() * Mat3::Identity() + skew(rho.vec()));
}

/// exp: rotation vector theta (angle |theta| about theta/|theta|) -> unit quaternion.
inline Quat quatExp(const Vec3& theta) {
  const double a = theta.norm();
  const double half = 0.5 * a;
  // sin(a/2)/a by its Taylor series near zero keeps the map smooth to round-off.
  const double k = a < 1e-4 ? 0.5 - a * a / 48.0 : std::sin(half) / a;
  return Quat(std::cos(half), k * theta.x(), k * theta.y(), k * theta.z());
}

/// log: unit quaternion -> rotation vector of the shortest rotation (angle in [0, pi]).
inline Vec3 quatLog(const Quat& rho) {
  Quat q = rho.w() < 0.0 ? Quat(-rho.w(), -rho.x(), -rho.y(), -rho.z()) : rho;
  const double vn = q.vec().norm();
  const double angle = 2.0 * std::atan2(vn, q.w());
  // angle / sin(angle/2) -> 2 / s as vn -> 0
  const double k = vn < 1e-8 ? 2.0 / q.w() : angle / vn;
  return k * q.vec();
}

/// Local (right) increment on the manifold: rho * exp(theta_l).
inline Quat boxPlus(const Quat& rho, const Vec3& theta_l) {
  return rho * quatExp(theta_l);
}

/// Inverse of the right Jacobian of SO(3): Log(R exp(d)) = Log(R) + Jr^-1(phi) d + O(d^2).
Mat3 inverseRightJacobian(const Vec3& phi);

/// Planar rotation matrix.
inline Mat2 rot2(double theta) {
  const double c = std::cos(theta), s = std::sin(theta);
  Mat2 m;
  m << c, -s, s, c;
  return m;
}

/// Planar 90-degree rotation E = [0 -1; 1 0]: d/dtheta rot2(theta) = E rot2(theta).
inline Mat2 perp2() {
  Mat2 e;
  e << 0.0, -1.0, 1.0, 0.0;
  return e;
}

/// Planar cross product a x b (the z component).
inline double cross2(const Vec2& a, const Vec2& b) {
  return a.x() * b.y() - a.y() * b.x();
}

}  // namespace catena
