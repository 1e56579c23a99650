#include "kernels/body.hpp"

namespace catena {
namespace {
Mat3 inertiaAboutOrigin(const Body& b) {
  const Mat3 C = skew(b.com);
  return b.inertia - b.mass * C * C;
}
/// J_O w without forming J_O (c~ c~ w = c x (c x w)): the inertial forces need it at every
/// Newton iteration.
Vec3 inertiaAboutOriginTimes(const Body& b, const Vec3& w) {
  return b.inertia * w - b.mass * b.com.cross(b.com.cross(w));
}
}  // namespace

Mat6 computeBodyMass3(const Body& b, const Mat3& R) {
  const Mat3 C = skew(b.com);
  Mat6 M;
  M.block<3, 3>(0, 0) = b.mass * Mat3::Identity();
  M.block<3, 3>(0, 3) = -b.mass * R * C;
  M.block<3, 3>(3, 0) = b.mass * C * R.transpose();
  M.block<3, 3>(3, 3) = inertiaAboutOrigin(b);
  return M;
}

Vec6 computeBodyMassTimes3(const Body& b, const Mat3& R, const Vec6& a) {
  const Vec3 alpha = a.tail<3>();
  const Vec3 u = R.transpose() * a.head<3>() - b.com.cross(alpha);
  Vec6 out;
  out.head<3>() = b.mass * (R * u);
  out.tail<3>() = b.inertia * alpha + b.mass * b.com.cross(u);
  return out;
}

Vec6 computeBodyInertialForces3(const Body& b, const Mat3& R, const Vec3& w) {
  Vec6 f;
  f.head<3>() = b.mass * (R * w.cross(w.cross(b.com)));
  f.tail<3>() = w.cross(inertiaAboutOriginTimes(b, w));
  return f;
}

Vec6 computeBodyGravity3(const Body& b, const Mat3& R, const Vec3& g) {
  Vec6 f;
  f.head<3>() = b.mass * g;
  f.tail<3>() = b.mass * b.com.cross(R.transpose() * g);
  return f;
}

Mat6 computeBodyInertialDamping3(const Body& b, const Mat3& R, const Vec3& w) {
  const Vec3& c = b.com;
  const Mat3 JO = inertiaAboutOrigin(b);
  Mat6 D = Mat6::Zero();
  // d/dw of w x (w x c) = w (w.c) - c |w|^2
  D.block<3, 3>(0, 3) =
      b.mass * R * (w.dot(c) * Mat3::Identity() + w * c.transpose() - 2.0 * c * w.transpose());
  D.block<3, 3>(3, 3) = skew(w) * JO - skew(JO * w);
  return D;
}

Mat6 computeBodyStiffness3(const Body& b, const Mat3& R, const Vec3& w, const Vec6& a,
                           const Vec3& g) {
  // Only terms through R: M_rw alpha, the centrifugal force R (w x (w x c)), and
  // m c~ R^T (a_r - g) from M_wr a_r and the weight's moment.
  const Vec3& c = b.com;
  const Vec3 alpha = a.tail<3>();
  Mat6 K = Mat6::Zero();
  K.block<3, 3>(0, 3) = b.mass * R * (skew(c.cross(alpha)) - skew(w.cross(w.cross(c))));
  K.block<3, 3>(3, 3) = b.mass * skew(c) * skew(R.transpose() * (a.head<3>() - g));
  return K;
}

Mat3 computeBodyMass2(const Body& b, const Mat2& R) {
  const Vec2 arm = R * b.com.head<2>();
  const Vec2 Ea = perp2() * arm;
  Mat3 M;
  M << b.mass, 0.0, b.mass * Ea.x(), 0.0, b.mass, b.mass * Ea.y(), b.mass * Ea.x(), b.mass * Ea.y(),
      b.inertia(2, 2) + b.mass * b.com.head<2>().squaredNorm();
  return M;
}

Vec3 computeBodyInertialForces2(const Body& b, const Mat2& R, double w) {
  const Vec2 arm = R * b.com.head<2>();
  return Vec3(-b.mass * w * w * arm.x(), -b.mass * w * w * arm.y(), 0.0);
}

Vec3 computeBodyGravity2(const Body& b, const Mat2& R, const Vec2& g) {
  const Vec2 arm = R * b.com.head<2>();
  return Vec3(b.mass * g.x(), b.mass * g.y(), b.mass * cross2(arm, g));
}

Mat3 computeBodyInertialDamping2(const Body& b, const Mat2& R, double w) {
  const Vec2 arm = R * b.com.head<2>();
  Mat3 D = Mat3::Zero();
  D(0, 2) = -2.0 * b.mass * w * arm.x();
  D(1, 2) = -2.0 * b.mass * w * arm.y();
  return D;
}

Mat3 computeBodyStiffness2(const Body& b, const Mat2& R, double w, const Vec3& a, const Vec2& g) {
  const Vec2 arm = R * b.com.head<2>();
  const Vec2 Ea = perp2() * arm;
  Mat3 K = Mat3::Zero();
  K.block<2, 1>(0, 2) = -b.mass * a(2) * arm - b.mass * w * w * Ea;
  K(2, 2) = -b.mass * arm.dot(a.head<2>() - g);
  return K;
}

}  // namespace catena
