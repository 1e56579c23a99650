#include "kernels/forces.hpp"

namespace catena {

// ---- marker loads -------------------------------------------------------------------------

Vec6 computeMarkerLoad3(const MarkerLoad& l, const MarkerFrame& f, const Pose3& b, double t) {
  const double s = l.scale.evaluate(t).value;
  const Mat3 RF = b.R * f.A;
  const Vec3 F = s * (l.in_marker_basis ? Vec3(RF * l.force) : l.force);
  const Vec3 T = s * (l.in_marker_basis ? Vec3(RF * l.torque) : l.torque);
  Vec6 q;
  q.head<3>() = F;
  q.tail<3>() = f.p.cross(b.R.transpose() * F) + b.R.transpose() * T;
  return q;
}

Mat6 computeMarkerLoadStiffness3(const MarkerLoad& l, const MarkerFrame& f, const Pose3& b,
                                 double t) {
  const double s = l.scale.evaluate(t).value;
  Mat6 K = Mat6::Zero();
  if (l.in_marker_basis) {
    // World force R A F turns with the body; its local image A F does not.
    K.block<3, 3>(0, 3) = b.R * skew(f.A * (s * l.force));
  } else {
    const Vec3 Fl = b.R.transpose() * (s * l.force), Tl = b.R.transpose() * (s * l.torque);
    K.block<3, 3>(3, 3) = -(skew(f.p) * skew(Fl) + skew(Tl));
  }
  return K;
}

Vec3 computeMarkerLoad2(const MarkerLoad& l, const MarkerFrame& f, const Pose2& b, double t) {
  const double s = l.scale.evaluate(t).value;
  const Vec2 F0 = l.force.head<2>();
  const Vec2 F = s * (l.in_marker_basis ? Vec2(rot2(b.theta + f.angle) * F0) : F0);
  const Vec2 arm = b.R * f.p.head<2>();
  return Vec3(F.x(), F.y(), cross2(arm, F) + s * l.torque.z());
}

Mat3 computeMarkerLoadStiffness2(const MarkerLoad& l, const MarkerFrame& f, const Pose2& b,
                                 double t) {
  const double s = l.scale.evaluate(t).value;
  const Mat2 E = perp2();
  const Vec2 arm = b.R * f.p.head<2>();
  Mat3 K = Mat3::Zero();
  if (l.in_marker_basis) {
    const Vec2 F = s * (rot2(b.theta + f.angle) * l.force.head<2>());
    K.block<2, 1>(0, 2) = -(E * F);
    // moment arm x F with both turning: d/dtheta cross2(E-rotated) = cross2(E a, F) + cross2(a, E
    // F)
    K(2, 2) = -(cross2(E * arm, F) + cross2(arm, E * F));
  } else {
    const Vec2 F = s * l.force.head<2>();
    K(2, 2) = -cross2(E * arm, F);
  }
  return K;
}

// ---- translational spring-damper ----------------------------------------------------------

namespace {

struct SpringGeometry3 {
  Vec3 s1, s2, d, n, d_dot;
  double L, L_dot;
  Eigen::Matrix<double, 3, 12> Jd;  // delta d = Jd delta q
};

SpringGeometry3 springGeometry3(const MarkerFrame& f1, const MarkerFrame& f2, const Pose3& b1,
                                const Twist3& t1, const Pose3& b2, const Twist3& t2) {
  SpringGeometry3 g;
  g.s1 = b1.R * f1.p;
  g.s2 = b2.R * f2.p;
  g.d = b1.r + g.s1 - b2.r - g.s2;
  g.L = g.d.norm();
  g.n = g.L > 0.0 ? Vec3(g.d / g.L) : Vec3::Zero();
  g.d_dot = t1.v + b1.R * t1.w.cross(f1.p) - t2.v - b2.R * t2.w.cross(f2.p);
  g.L_dot = g.n.dot(g.d_dot);
  g.Jd << Mat3::Identity(), -b1.R * skew(f1.p), -Mat3::Identity(), b2.R * skew(f2.p);
  return g;
}

double tension(const SpringDamper& s, double L, double L_dot) {
  return s.stiffness * (L - s.rest_length) + s.damping * L_dot + s.preload;
}

}  // namespace

Vec12 computeSpring3(const SpringDamper& s, const MarkerFrame& f1, const MarkerFrame& f2,
                     const Pose3& b1, const Twist3& t1, const Pose3& b2, const Twist3& t2) {
  const SpringGeometry3 g = springGeometry3(f1, f2, b1, t1, b2, t2);
  return -tension(s, g.L, g.L_dot) * (g.Jd.transpose() * g.n);
}

void computeSpringJacobians3(const SpringDamper& s, const MarkerFrame& f1, const MarkerFrame& f2,
                             const Pose3& b1, const Twist3& t1, const Pose3& b2, const Twist3& t2,
                             ForceJacobians3& out) {
  out.K.setZero();
  out.D.setZero();
  const SpringGeometry3 g = springGeometry3(f1, f2, b1, t1, b2, t2);
  if (g.L <= 0.0) return;  // no direction: the force and its derivative are taken as zero
  const double T = tension(s, g.L, g.L_dot);
  const Mat3 proj = (Mat3::Identity() - g.n * g.n.transpose()) / g.L;
  const Eigen::Matrix<double, 1, 12> nJ = g.n.transpose() * g.Jd;
  // dL/dt = n . d_dot depends on q through n and through the arms turning with the bodies.
  Eigen::Matrix<double, 3, 12> dd_dot_dq = Eigen::Matrix<double, 3, 12>::Zero();
  dd_dot_dq.block<3, 3>(0, 3) = -b1.R * skew(t1.w.cross(f1.p));
  dd_dot_dq.block<3, 3>(0, 9) = b2.R * skew(t2.w.cross(f2.p));
  const Eigen::Matrix<double, 1, 12> dLdot_dq =
      g.d_dot.transpose() * proj * g.Jd + g.n.transpose() * dd_dot_dq;
  const Eigen::Matrix<double, 1, 12> dT_dq = s.stiffness * nJ + s.damping * dLdot_dq;
  // f = -T Jd^T n, so -df/dq = Jd^T n dT/dq + T d(Jd^T n)/dq.
  out.K = nJ.transpose() * dT_dq + T * (g.Jd.transpose() * proj * g.Jd);
  out.K.block<3, 3>(3, 3) += T * skew(f1.p) * skew(b1.R.transpose() * g.n);
  out.K.block<3, 3>(9, 9) -= T * skew(f2.p) * skew(b2.R.transpose() * g.n);
  out.D = s.damping * nJ.transpose() * nJ;
}

Vec6 computeSpring2(const SpringDamper& s, const MarkerFrame& f1, const MarkerFrame& f2,
                    const Pose2& b1, const Twist2& t1, const Pose2& b2, const Twist2& t2) {
  const Mat2 E = perp2();
  const Vec2 s1 = b1.R * f1.p.head<2>(), s2 = b2.R * f2.p.head<2>();
  const Vec2 d = b1.r + s1 - b2.r - s2;
  const double L = d.norm();
  const Vec2 n = L > 0.0 ? Vec2(d / L) : Vec2::Zero();
  const Vec2 d_dot = t1.v + t1.w * (E * s1) - t2.v - t2.w * (E * s2);
  const double T = tension(s, L, n.dot(d_dot));
  Vec6 f;
  f << -T * n, -T * n.dot(E * s1), T * n, T * n.dot(E * s2);
  return f;
}

void computeSpringJacobians2(const SpringDamper& s, const MarkerFrame& f1, const MarkerFrame& f2,
                             const Pose2& b1, const Twist2& t1, const Pose2& b2, const Twist2& t2,
                             ForceJacobians2& out) {
  out.K.setZero();
  out.D.setZero();
  const Mat2 E = perp2();
  const Vec2 s1 = b1.R * f1.p.head<2>(), s2 = b2.R * f2.p.head<2>();
  const Vec2 d = b1.r + s1 - b2.r - s2;
  const double L = d.norm();
  if (L <= 0.0) return;
  const Vec2 n = d / L;
  const Vec2 d_dot = t1.v + t1.w * (E * s1) - t2.v - t2.w * (E * s2);
  const double T = tension(s, L, n.dot(d_dot));
  Eigen::Matrix<double, 2, 6> Jd;
  Jd << Mat2::Identity(), E * s1, -Mat2::Identity(), -(E * s2);
  const Mat2 proj = (Mat2::Identity() - n * n.transpose()) / L;
  const Eigen::Matrix<double, 1, 6> nJ = n.transpose() * Jd;
  Eigen::Matrix<double, 2, 6> dd_dot_dq = Eigen::Matrix<double, 2, 6>::Zero();
  dd_dot_dq.col(2) = -t1.w * s1;
  dd_dot_dq.col(5) = t2.w * s2;
  const Eigen::Matrix<double, 1, 6> dT_dq =
      s.stiffness * nJ + s.damping * (d_dot.transpose() * proj * Jd + n.transpose() * dd_dot_dq);
  out.K = nJ.transpose() * dT_dq + T * (Jd.transpose() * proj * Jd);
  out.K(2, 2) -= T * n.dot(s1);
  out.K(5, 5) += T * n.dot(s2);
  out.D = s.damping * nJ.transpose() * nJ;
}

// ---- rotational spring-damper -------------------------------------------------------------

namespace {

struct RotSpringState3 {
  Mat3 RF2, Rrel;
  Vec3 phi, w_rel, tau;  // tau on B1 in F2's basis
};

RotSpringState3 rotSpringState3(const RotationalSpringDamper& s, const MarkerFrame& f1,
                                const MarkerFrame& f2, const Pose3& b1, const Twist3& t1,
                                const Pose3& b2, const Twist3& t2) {
  RotSpringState3 r;
  r.RF2 = b2.R * f2.A;
  const Quat rel = (b2.rho * f2.alpha).conjugate() * (b1.rho * f1.alpha);
  r.phi = quatLog(rel);
  r.w_rel = r.RF2.transpose() * (b1.R * t1.w - b2.R * t2.w);
  r.tau = -s.stiffness * r.phi - s.damping * r.w_rel;
  return r;
}

}  // namespace

Vec12 computeRotationalSpring3(const RotationalSpringDamper& s, const MarkerFrame& f1,
                               const MarkerFrame& f2, const Pose3& b1, const Twist3& t1,
                               const Pose3& b2, const Twist3& t2) {
  const RotSpringState3 r = rotSpringState3(s, f1, f2, b1, t1, b2, t2);
  const Vec3 tau_w = r.RF2 * r.tau;
  Vec12 f = Vec12::Zero();
  f.segment<3>(3) = b1.R.transpose() * tau_w;
  f.segment<3>(9) = -b2.R.transpose() * tau_w;
  return f;
}

void computeRotationalSpringJacobians3(const RotationalSpringDamper& s, const MarkerFrame& f1,
                                       const MarkerFrame& f2, const Pose3& b1, const Twist3& t1,
                                       const Pose3& b2, const Twist3& t2, ForceJacobians3& out) {
  out.K.setZero();
  out.D.setZero();
  const RotSpringState3 r = rotSpringState3(s, f1, f2, b1, t1, b2, t2);
  const Vec3 tau_w = r.RF2 * r.tau;
  // d phi = Jr^-1(phi) A1^T th1 - Jr^-1(-phi) A2^T th2 (right and left perturbations of Log).
  const Mat3 dphi1 = inverseRightJacobian(r.phi) * f1.A.transpose();
  const Mat3 dphi2 = -inverseRightJacobian(-r.phi) * f2.A.transpose();
  // w_rel = A2^T (R2^T R1 w1 - w2)
  const Mat3 R21 = b2.R.transpose() * b1.R;
  const Mat3 dw1 = -f2.A.transpose() * R21 * skew(t1.w);
  const Mat3 dw2 = f2.A.transpose() * skew(R21 * t1.w);
  const Mat3 dtau1 = -s.stiffness * dphi1 - s.damping * dw1;  // d tau / d theta1
  const Mat3 dtau2 = -s.stiffness * dphi2 - s.damping * dw2;
  // f1 = R1^T tau_w, tau_w = R2 A2 tau; f2 = -R2^T tau_w = -A2 tau.
  const Mat3 B1 = b1.R.transpose() * r.RF2;
  const Mat3 df1_dth1 = skew(b1.R.transpose() * tau_w) + B1 * dtau1;
  const Mat3 df1_dth2 = -b1.R.transpose() * skew(tau_w) * b2.R + B1 * dtau2;
  out.K.block<3, 3>(3, 3) = -df1_dth1;
  out.K.block<3, 3>(3, 9) = -df1_dth2;
  out.K.block<3, 3>(9, 3) = f2.A * dtau1;
  out.K.block<3, 3>(9, 9) = f2.A * dtau2;
  // d tau / d w: -c A2^T R2^T R1 (w1) and +c A2^T (w2).
  const Mat3 dtau_dw1 = -s.damping * f2.A.transpose() * R21;
  const Mat3 dtau_dw2 = s.damping * f2.A.transpose();
  out.D.block<3, 3>(3, 3) = -B1 * dtau_dw1;
  out.D.block<3, 3>(3, 9) = -B1 * dtau_dw2;
  out.D.block<3, 3>(9, 3) = f2.A * dtau_dw1;
  out.D.block<3, 3>(9, 9) = f2.A * dtau_dw2;
}

Vec6 computeRotationalSpring2(const RotationalSpringDamper& s, const MarkerFrame& f1,
                              const MarkerFrame& f2, const Pose2& b1, const Twist2& t1,
                              const Pose2& b2, const Twist2& t2) {
  const double rel = b1.theta + f1.angle - b2.theta - f2.angle - s.rest_angle;
  const double tau = -s.stiffness * rel - s.damping * (t1.w - t2.w);
  Vec6 f = Vec6::Zero();
  f(2) = tau;
  f(5) = -tau;
  return f;
}

void computeRotationalSpringJacobians2(const RotationalSpringDamper& s, ForceJacobians2& out) {
  out.K.setZero();
  out.D.setZero();
  out.K(2, 2) = out.K(5, 5) = s.stiffness;
  out.K(2, 5) = out.K(5, 2) = -s.stiffness;
  out.D(2, 2) = out.D(5, 5) = s.damping;
  out.D(2, 5) = out.D(5, 2) = -s.damping;
}

}  // namespace catena
