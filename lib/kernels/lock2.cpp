#include "kernels/lock2.hpp"

#include "kernels/lock_motion.hpp"

namespace catena {

LockMotion2 evaluateLockMotion2(const JointMotion& motion, double t) {
  LockMotion2 m;
  if (!motion.active) return m;
  const TimeValue a = evaluateTranslationAndAngle<2>(motion, t, m);
  m.th = a.value;
  m.th_dot = a.rate;
  m.th_ddot = a.accel;
  return m;
}

LockFrames2 computeLockFrames2(const Pose2& b1, const Pose2& b2, const MarkerFrame& f1,
                               const MarkerFrame& f2) {
  LockFrames2 k;
  k.RF2 = rot2(b2.theta + f2.angle);
  k.s1 = b1.R * f1.p.head<2>();
  k.s2 = b2.R * f2.p.head<2>();
  k.d = b1.r + k.s1 - b2.r - k.s2;
  k.u2 = k.s2 + k.d;
  k.dtheta = b1.theta + f1.angle - b2.theta - f2.angle;
  return k;
}

Vec3 computeLockResidual2(const LockFrames2& k, const LockMotion2& motion) {
  Vec3 c;
  c.head<2>() = k.RF2.transpose() * k.d - motion.rt;
  c(2) = k.dtheta - motion.th;
  return c;
}

void computeLockJacobian2(const LockFrames2& k, Mat3x6& Cq) {
  const Mat2 RF2t = k.RF2.transpose();
  const Mat2 E = perp2();
  Cq.setZero();
  Cq.block<2, 2>(0, 0) = RF2t;
  Cq.block<2, 1>(0, 2) = RF2t * (E * k.s1);
  Cq.block<2, 2>(0, 3) = -RF2t;
  Cq.block<2, 1>(0, 5) = -RF2t * (E * k.u2);
  Cq(2, 2) = 1.0;
  Cq(2, 5) = -1.0;
}

Vec3 computeLockTimeDerivative2(const LockMotion2& motion) {
  return Vec3(-motion.rt_dot.x(), -motion.rt_dot.y(), -motion.th_dot);
}

Vec3 computeLockGamma2(const LockFrames2& k, const LockMotion2& motion, const Twist2& t1,
                       const Twist2& t2) {
  const Mat2 E = perp2();
  const Vec2 d_dot = t1.v + t1.w * (E * k.s1) - t2.v - t2.w * (E * k.s2);
  const Vec2 d_ddot = -t1.w * t1.w * k.s1 + t2.w * t2.w * k.s2;
  const Vec2 rel = d_ddot - 2.0 * t2.w * (E * d_dot) - t2.w * t2.w * k.d;
  Vec3 g;
  g.head<2>() = -k.RF2.transpose() * rel + motion.rt_ddot;
  g(2) = motion.th_ddot;
  return g;
}

void computeLockStiffness2(const LockFrames2& k, const Vec3& lambda, Mat6_2& Kc) {
  // Generalized forces: f = R_F2 lambda_xy on B1 at r_F1 and -f on B2 at the same point.
  const Vec2 f = k.RF2 * lambda.head<2>();
  const Mat2 E = perp2();
  const Vec2 Ef = E * f;
  const Vec2 Etf = E.transpose() * f;  // gradient of cross2(u, f) with respect to u
  Kc.setZero();
  Kc.block<2, 1>(0, 5) = Ef;
  Kc(2, 2) = -k.s1.dot(f);
  Kc(2, 5) = k.s1.dot(f);
  Kc.block<2, 1>(3, 5) = -Ef;
  Kc.block<1, 2>(5, 0) = -Etf.transpose();
  Kc(5, 2) = k.s1.dot(f);
  Kc.block<1, 2>(5, 3) = Etf.transpose();
  Kc(5, 5) = -k.u2.dot(f);
}

DistanceFrames2 computeDistanceFrames2(const Pose2& b1, const Pose2& b2, const MarkerFrame& f1,
                                       const MarkerFrame& f2) {
  DistanceFrames2 k;
  k.s1 = b1.R * f1.p.head<2>();
  k.s2 = b2.R * f2.p.head<2>();
  k.d = b1.r + k.s1 - b2.r - k.s2;
  k.length = k.d.norm();
  // A coincident pair has no direction; the joint is singular there and rows are zero.
  k.n = k.length > 0.0 ? Vec2(k.d / k.length) : Vec2::Zero();
  return k;
}

double computeDistanceResidual2(const DistanceFrames2& k, const TimeValue& L) {
  return k.length - L.value;
}

void computeDistanceJacobian2(const DistanceFrames2& k, Eigen::Matrix<double, 1, 6>& Cq) {
  const Mat2 E = perp2();
  Cq << k.n.x(), k.n.y(), k.n.dot(E * k.s1), -k.n.x(), -k.n.y(), -k.n.dot(E * k.s2);
}

double computeDistanceGamma2(const DistanceFrames2& k, const TimeValue& L, const Twist2& t1,
                             const Twist2& t2) {
  if (k.length <= 0.0) return L.accel;
  const Mat2 E = perp2();
  const Vec2 d_dot = t1.v + t1.w * (E * k.s1) - t2.v - t2.w * (E * k.s2);
  const Vec2 d_ddot = -t1.w * t1.w * k.s1 + t2.w * t2.w * k.s2;
  const double along = k.n.dot(d_dot);
  return -((d_dot.squaredNorm() - along * along) / k.length + k.n.dot(d_ddot)) + L.accel;
}

void computeDistanceStiffness2(const DistanceFrames2& k, double lambda, Mat6_2& Kc) {
  Kc.setZero();
  if (k.length <= 0.0) return;
  const Mat2 E = perp2();
  Eigen::Matrix<double, 2, 6> Jd;
  Jd << Mat2::Identity(), E * k.s1, -Mat2::Identity(), -(E * k.s2);
  const Mat2 proj = (Mat2::Identity() - k.n * k.n.transpose()) / k.length;
  Kc = lambda * (Jd.transpose() * proj * Jd);
  Kc(2, 2) -= lambda * k.n.dot(k.s1);
  Kc(5, 5) += lambda * k.n.dot(k.s2);
}

}  // namespace catena
