#include "kernels/lock3.hpp"

namespace catena {

LockMotion3 evaluateLockMotion3(const JointMotion& motion, double t) {
  LockMotion3 m;
  if (!motion.active) return m;
  for (int i = 0; i < 3; ++i) {
    const TimeValue v = motion.translation[i].evaluate(t);
    m.rt(i) = v.value;
    m.rt_dot(i) = v.rate;
    m.rt_ddot(i) = v.accel;
  }
  const TimeValue a = motion.angle.evaluate(t);
  m.rho_t = quatExp(motion.axis * a.value);
  m.Rt = m.rho_t.toRotationMatrix();
  m.w_t = motion.axis * a.rate;
  m.a_t = motion.axis * a.accel;
  return m;
}

LockFrames3 computeLockFrames3(const Pose3& b1, const Pose3& b2, const MarkerFrame& f1,
                               const MarkerFrame& f2, const LockMotion3& motion) {
  LockFrames3 k;
  k.R1 = b1.R;
  k.R2 = b2.R;
  k.A1 = f1.A;
  k.A2 = f2.A;
  k.RF1 = b1.R * f1.A;
  k.RF2 = b2.R * f2.A;
  k.s1 = b1.R * f1.p;
  k.s2 = b2.R * f2.p;
  k.d = b1.r + k.s1 - b2.r - k.s2;
  k.u2 = k.s2 + k.d;
  const Quat rho_f1 = b1.rho * f1.alpha;
  const Quat rho_f2 = b2.rho * f2.alpha;
  k.rho = rho_f2.conjugate() * rho_f1 * motion.rho_t.conjugate();
  k.P = projectionP(k.rho);
  return k;
}

Vec6 computeLockResidual3(const LockFrames3& k, const LockMotion3& motion) {
  Vec6 c;
  c.head<3>() = k.RF2.transpose() * k.d - motion.rt;
  c.tail<3>() = k.rho.vec();
  return c;
}

void computeLockJacobian3(const LockFrames3& k, const LockMotion3& motion, Mat6x12& Cq) {
  const Mat3 RF2t = k.RF2.transpose();
  // Translation rows (eq. 15): [R_F2^T, -R_F2^T s1~ R1, -R_F2^T, R_F2^T u2~ R2].
  Cq.block<3, 3>(0, 0) = RF2t;
  Cq.block<3, 3>(0, 3) = -RF2t * skew(k.s1) * k.R1;
  Cq.block<3, 3>(0, 6) = -RF2t;
  Cq.block<3, 3>(0, 9) = RF2t * skew(k.u2) * k.R2;
  // Rotation rows (eq. 33 in the form P R_t A1^T, -P^T A2^T; equal to it by eq. C.3b).
  Cq.block<3, 3>(3, 0).setZero();
  Cq.block<3, 3>(3, 3) = k.P * motion.Rt * k.A1.transpose();
  Cq.block<3, 3>(3, 6).setZero();
  Cq.block<3, 3>(3, 9) = -k.P.transpose() * k.A2.transpose();
}

Vec6 computeLockTimeDerivative3(const LockFrames3& k, const LockMotion3& motion) {
  Vec6 ct;
  ct.head<3>() = -motion.rt_dot;
  ct.tail<3>() = -k.P * (motion.Rt * motion.w_t);
  return ct;
}

Vec6 computeLockGamma3(const LockFrames3& k, const LockMotion3& motion, const Twist3& t1,
                       const Twist3& t2) {
  Vec6 g;
  // Translation: C = R_F2^T d - r_t; with W_i = R_i w_i the world angular velocities,
  // d'' - 2 W2 x d' + W2 x (W2 x d) is the relative acceleration seen in the rotating F2.
  const Vec3 W1 = k.R1 * t1.w, W2 = k.R2 * t2.w;
  const Vec3 d_dot = t1.v + W1.cross(k.s1) - t2.v - W2.cross(k.s2);
  const Vec3 d_ddot = W1.cross(W1.cross(k.s1)) - W2.cross(W2.cross(k.s2));
  const Vec3 rel = d_ddot - 2.0 * W2.cross(d_dot) + W2.cross(W2.cross(k.d));
  g.head<3>() = -k.RF2.transpose() * rel + motion.rt_ddot;
  // Rotation: rho' = 1/2 rho (0, w) with w the local relative angular velocity of the shadow
  // frame; C' = P w, C'' = G(rho, w) w + P w'.
  const Mat3 Rrho = k.rho.toRotationMatrix();
  const Vec3 wf1 = k.A1.transpose() * t1.w, wf2 = k.A2.transpose() * t2.w;
  const Vec3 wf2_in_rho = Rrho.transpose() * wf2;
  const Vec3 w = motion.Rt * (wf1 - motion.w_t) - wf2_in_rho;
  const Vec3 w_dot = motion.Rt * (motion.w_t.cross(wf1) - motion.a_t) + w.cross(wf2_in_rho);
  g.tail<3>() = -(projectionG(k.rho, w) * w + k.P * w_dot);
  return g;
}

void computeLockStiffness3(const LockFrames3& k, const LockMotion3& motion, const Vec6& lambda,
                           Mat12& Kc) {
  // Reaction force f and torque tau in the world basis: B1 receives (f at r_F1, tau), B2 the
  // opposite at the same point. K_c is the derivative of those generalized forces.
  const Vec3 f = k.RF2 * lambda.head<3>();
  const Vec3 tau = k.RF2 * (k.P * lambda.tail<3>());
  const Mat3 F = skew(f);
  // Projection part: delta(P) lambda_m = G theta_rho, theta_rho = R_t R_F1^T (R1 th1 - R2 th2).
  const Mat3 H =
      k.RF2 * projectionG(k.rho, lambda.tail<3>()) * motion.Rt * k.RF1.transpose();
  const Mat3 S1 = skew(k.s1);
  const Mat3 B1 = S1 * F + skew(tau) + H;  // rows theta1, world basis
  const Mat3 R1t = k.R1.transpose(), R2t = k.R2.transpose();
  Kc.setZero();
  Kc.block<3, 3>(0, 9) = -F * k.R2;
  Kc.block<3, 3>(3, 3) = R1t * B1 * k.R1;
  Kc.block<3, 3>(3, 9) = -R1t * B1 * k.R2;
  Kc.block<3, 3>(6, 9) = F * k.R2;
  Kc.block<3, 3>(9, 0) = R2t * F;
  Kc.block<3, 3>(9, 3) = -R2t * (F * S1 + H) * k.R1;
  Kc.block<3, 3>(9, 6) = -R2t * F;
  Kc.block<3, 3>(9, 9) = R2t * (F * skew(k.u2) + H) * k.R2;
}

Eigen::Matrix<double, 12, 1> computeLockForces3(const LockFrames3& k, const LockMotion3& motion,
                                                const Vec6& lambda) {
  (void)motion;
  const Vec3 f = k.RF2 * lambda.head<3>();
  const Vec3 tau = k.RF2 * (k.P * lambda.tail<3>());
  Eigen::Matrix<double, 12, 1> q;
  q.segment<3>(0) = f;
  q.segment<3>(3) = k.R1.transpose() * (k.s1.cross(f) + tau);
  q.segment<3>(6) = -f;
  q.segment<3>(9) = -k.R2.transpose() * (k.u2.cross(f) + tau);
  return q;
}

}  // namespace catena
