#include "kernels/lock3.hpp"

#include "kernels/lock_motion.hpp"

namespace catena {
namespace {

/// M a~: row i is (row i of M) x a; 18 multiplications instead of a 27-multiplication product.
Mat3 timesSkew(const Mat3& M, const Vec3& a) {
  Mat3 out;
  for (int i = 0; i < 3; ++i) out.row(i) = M.row(i).cross(a.transpose());
  return out;
}

/// a~ b~ = b a^T - (a . b) I.
Mat3 skewSkew(const Vec3& a, const Vec3& b) {
  Mat3 out = b * a.transpose();
  out.diagonal().array() -= a.dot(b);
  return out;
}

/// projectionG (eq. C.11) expanded with g~ v~ = v g^T - (g . v) I, which needs no 3x3 product:
/// G = -1/4 (g v^T + v g^T + s g~ - (g . v) I).
Mat3 projectionGExpanded(const Quat& rho, const Vec3& g) {
  const Vec3 v = rho.vec();
  Mat3 G = g * v.transpose() + v * g.transpose() + rho.w() * skew(g);
  G.diagonal().array() -= g.dot(v);
  return -0.25 * G;
}

/// C_q into any 6 x 12 matrix (column-major for computeLockJacobian3, row-major for the
/// assembly, which copies rows).
template <typename Out>
void lockJacobian(const LockFrames3& k, Eigen::MatrixBase<Out>& Cq) {
  const Mat3 RF2t = k.RF2.transpose();
  // Translation rows (eq. 15): [R_F2^T, -R_F2^T s1~ R1, -R_F2^T, R_F2^T u2~ R2], the skew
  // products taken in the body bases: s1~ R1 = R1 p1~ and R_F2^T u2~ R2 = A2^T (R2^T u2)~.
  Cq.template block<3, 3>(0, 0) = RF2t;
  Cq.template block<3, 3>(0, 3) =
      -timesSkew(k.A2_identity ? Mat3(k.R12.transpose()) : Mat3(RF2t * k.R1), k.p1);
  Cq.template block<3, 3>(0, 6) = -RF2t;
  Cq.template block<3, 3>(0, 9) =
      k.A2_identity ? skew(k.u2_B2) : timesSkew(k.A2.transpose(), k.u2_B2);
  // Rotation rows (eq. 33 in the form P R_t A1^T, -P^T A2^T; equal to it by eq. C.3b).
  Cq.template block<3, 3>(3, 0).setZero();
  Cq.template block<3, 3>(3, 3) = k.RtA1t_identity ? k.P : Mat3(k.P * k.RtA1t);
  Cq.template block<3, 3>(3, 6).setZero();
  Cq.template block<3, 3>(3, 9) =
      k.A2_identity ? Mat3(-k.P.transpose()) : Mat3(-k.P.transpose() * k.A2.transpose());
}

}  // namespace

LockMotion3 evaluateLockMotion3(const JointMotion& motion, double t) {
  LockMotion3 m;
  if (!motion.active) return m;
  const TimeValue a = evaluateTranslationAndAngle<3>(motion, t, m);
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
  const bool A1_identity = f1.A == Mat3::Identity(), Rt_identity = motion.Rt == Mat3::Identity();
  k.A2_identity = f2.A == Mat3::Identity();
  k.RtA1t_identity = A1_identity && Rt_identity;
  k.RF2 = k.A2_identity ? b2.R : Mat3(b2.R * f2.A);
  k.p1 = f1.p;
  k.s1 = b1.R * f1.p;
  k.s2 = b2.R * f2.p;
  k.d = b1.r + k.s1 - b2.r - k.s2;
  k.u2 = k.s2 + k.d;
  k.R12 = b1.R.transpose() * b2.R;
  k.u2_B2 = b2.R.transpose() * k.u2;
  k.RtA1t = Rt_identity ? Mat3(f1.A.transpose()) : Mat3(motion.Rt * f1.A.transpose());
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
  (void)motion;  // R_t enters through k.RtA1t
  lockJacobian(k, Cq);
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

void computeLockStiffnessBlocks3(const LockFrames3& k, const LockMotion3& motion,
                                 const Vec6& lambda, LockStiffnessBlocks3& K) {
  (void)motion;  // R_t enters through k.RtA1t
  // Reaction force f = R_F2 lambda_f and torque tau = R_F2 P lambda_m (world): B1 receives them
  // at r_F1, B2 the opposite. K_c is the derivative of those generalized forces. In world form
  // (docs/kernels.md), with F = f~, H_W = R_F2 G(rho, lambda_m) R_t R_F1^T, B = s1~ F + tau~ + H_W:
  //   X = F R2, T11 = R1^T B R1, T12 = -R1^T B R2, T21 = -R2^T (F s1~ + H_W) R1,
  //   T22 = R2^T (F u2~ + H_W) R2.
  // Evaluated in the body bases (R^T a~ R = (R^T a)~), which needs 6 instead of 15 products
  // (4 when A2 = R_t A1^T = I):
  const Vec3 tau_F2 = k.P * lambda.tail<3>();
  const Vec3 f_B2 = k.A2_identity ? Vec3(lambda.head<3>()) : Vec3(k.A2 * lambda.head<3>());
  const Vec3 tau_B2 = k.A2_identity ? tau_F2 : Vec3(k.A2 * tau_F2);
  const Vec3 f_B1 = k.R12 * f_B2, tau_B1 = k.R12 * tau_B2;
  Mat3 H = projectionGExpanded(k.rho, lambda.tail<3>());  // becomes A2 G R_t A1^T = R2^T H_W R1
  if (!k.A2_identity) H = k.A2 * H;
  if (!k.RtA1t_identity) H = H * k.RtA1t;
  K.X = timesSkew(k.R2, f_B2);  // F R2 = R2 f_B2~
  K.T11 = skewSkew(k.p1, f_B1) + skew(tau_B1) + k.R12 * H;
  K.T12 = -K.T11 * k.R12;
  K.T21 = -(k.R12.transpose() * skewSkew(f_B1, k.p1) + H);
  K.T22 = skewSkew(f_B2, k.u2_B2) + H * k.R12;
}

void computeLockStiffness3(const LockFrames3& k, const LockMotion3& motion, const Vec6& lambda,
                           Mat12& Kc) {
  LockStiffnessBlocks3 K;
  computeLockStiffnessBlocks3(k, motion, lambda, K);
  Kc.setZero();
  Kc.block<3, 3>(0, 9) = -K.X;
  Kc.block<3, 3>(3, 3) = K.T11;
  Kc.block<3, 3>(3, 9) = K.T12;
  Kc.block<3, 3>(6, 9) = K.X;
  Kc.block<3, 3>(9, 0) = -K.X.transpose();
  Kc.block<3, 3>(9, 3) = K.T21;
  Kc.block<3, 3>(9, 6) = K.X.transpose();
  Kc.block<3, 3>(9, 9) = K.T22;
}

// flatten: inline the three kernels (and their helpers) into this one function, so the shared
// frames stay in registers and the compiler needs no aliasing checks between them and the outputs.
[[gnu::flatten]] void computeLockJacobianAndStiffness3(const Pose3& b1, const Pose3& b2,
                                                       const MarkerFrame& f1, const MarkerFrame& f2,
                                                       const LockMotion3& motion,
                                                       const Vec6& lambda, Mat6x12RowMajor& Cq,
                                                       LockStiffnessBlocks3& K) {
  const LockFrames3 k = computeLockFrames3(b1, b2, f1, f2, motion);
  lockJacobian(k, Cq);
  computeLockStiffnessBlocks3(k, motion, lambda, K);
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
