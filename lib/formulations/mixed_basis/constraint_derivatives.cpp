#include "formulations/mixed_basis/constraint_derivatives.hpp"

#include <type_traits>

#include "kernels/lock2.hpp"
#include "kernels/lock3.hpp"

namespace catena {
namespace {

using Long = long;                    // OpenMP loop counter
constexpr Long kParallelItems = 512;  // joints; below, threads cost more than they save
using Pair3 = Eigen::Matrix<double, 12, 1>;
using Pair2 = Eigen::Matrix<double, 6, 1>;

/// Writes the active rows of a joint's full derivative (R x 2N, columns body 1 then body 2)
/// into a matrix of the C_q pattern, as assembly writes C_q.
template <int R, int N, typename Derived>
void writeJointRows(const JointSlots& js, const Eigen::MatrixBase<Derived>& full,
                    SparseMatrixCSR& A) {
  const int* outer = A.outerIndexPtr();
  double* values = A.valuePtr();
  Index row = js.row;
  for (int r = 0; r < R; ++r) {
    if (!(js.mask & (1u << r))) continue;
    double* dst = values + outer[row];
    for (int c = 0; c < N; ++c) {
      if (js.col_offset1 >= 0) dst[js.col_offset1 + c] = full(r, c);
      if (js.col_offset2 >= 0) dst[js.col_offset2 + c] = full(r, N + c);
    }
    ++row;
  }
}

/// The two bodies' slices of a global velocity-space vector (zero for the ground).
template <int N>
Eigen::Matrix<double, 2 * N, 1> pairVector(const Model& m, const JointSlots& js, const VecX& x) {
  Eigen::Matrix<double, 2 * N, 1> out = Eigen::Matrix<double, 2 * N, 1>::Zero();
  if (js.pair.body1 >= 0) out.template head<N>() = x.segment<N>(m.vOffset(js.pair.body1));
  if (js.pair.body2 >= 0) out.template tail<N>() = x.segment<N>(m.vOffset(js.pair.body2));
  return out;
}

// ---- 3D lock --------------------------------------------------------------------------------

/// d gamma / dq and d gamma / dv of computeLockGamma3, columns (dr1, th1, dr2, th2) and
/// (v1, w1, v2, w2). Translation rows: gamma = -R_F2^T B + r_t'' with
/// B = W1 x (W1 x s1) - W2 x (W2 x s2) - 2 W2 x d' + W2 x (W2 x d); under the world rotations
/// Theta_i = R_i th_i every body-fixed vector a moves by Theta_i x a, and
/// delta(R_F2^T B) = R_F2^T (delta B + B x Theta_2). Rotation rows: with the identity
/// G(rho, w) w = -|w|^2 vec(rho) / 4, gamma = |w|^2 vec(rho) / 4 - P w', whose only position
/// dependence is the shadow quaternion rho, varied by theta_s = R_t A1^T th1 - R(rho)^T A2^T th2.
void lockGammaDerivatives3(const LockFrames3& k, const LockMotion3& mo, const Twist3& t1,
                           const Twist3& t2, Mat6x12& Gq, Mat6x12& Gv) {
  const Vec3 W1 = k.R1 * t1.w, W2 = k.R2 * t2.w;
  const Vec3 &s1 = k.s1, &s2 = k.s2, &d = k.d;
  const Vec3 dd = t1.v + W1.cross(s1) - t2.v - W2.cross(s2);
  const Vec3 a1 = W1.cross(W1.cross(s1)), a2 = W2.cross(W2.cross(s2));
  const Vec3 B = a1 - a2 - 2.0 * W2.cross(dd) + W2.cross(W2.cross(d));
  const Mat3 RF2t = k.RF2.transpose();
  const Mat3 SW1 = skew(W1), SW2 = skew(W2), SW2SW2 = SW2 * SW2;
  const Mat3 Ss1 = skew(s1), Ss2 = skew(s2), Sd = skew(d), Sdd = skew(dd);

  // Translation rows, positions: dB = SW2SW2 (dr1 - dr2) + B_T1 Theta1 + B_T2 Theta2.
  const Mat3 BT1 = -skew(a1) + 2.0 * SW2 * skew(W1.cross(s1)) - SW2SW2 * Ss1;
  const Mat3 BT2 = skew(a2) - 2.0 * (Sdd * SW2 + SW2 * skew(W2.cross(s2))) +
                   skew(W2.cross(d)) * SW2 + SW2 * Sd * SW2 + SW2SW2 * Ss2;
  Gq.block<3, 3>(0, 0) = -RF2t * SW2SW2;
  Gq.block<3, 3>(0, 3) = -RF2t * BT1 * k.R1;
  Gq.block<3, 3>(0, 6) = RF2t * SW2SW2;
  Gq.block<3, 3>(0, 9) = -RF2t * (BT2 + skew(B)) * k.R2;
  // Translation rows, velocities (world dW_i = R_i dw_i).
  const Mat3 BW1 = -skew(W1.cross(s1)) - SW1 * Ss1 + 2.0 * SW2 * Ss1;
  const Mat3 BW2 =
      skew(W2.cross(s2)) + SW2 * Ss2 + 2.0 * Sdd - 2.0 * SW2 * Ss2 - skew(W2.cross(d)) - SW2 * Sd;
  Gv.block<3, 3>(0, 0) = 2.0 * RF2t * SW2;
  Gv.block<3, 3>(0, 3) = -RF2t * BW1 * k.R1;
  Gv.block<3, 3>(0, 6) = -2.0 * RF2t * SW2;
  Gv.block<3, 3>(0, 9) = -RF2t * BW2 * k.R2;

  // Rotation rows.
  const Mat3 Rrho = k.rho.toRotationMatrix();
  const Mat3 RtA1t = mo.Rt * k.A1.transpose();
  const Mat3 Q = Rrho.transpose() * k.A2.transpose();  // c = Q w2
  const Vec3 c = Q * t2.w;
  const Vec3 w = mo.Rt * (k.A1.transpose() * t1.w - mo.w_t) - c;
  const Vec3 w_dot = mo.Rt * (mo.w_t.cross(k.A1.transpose() * t1.w) - mo.a_t) + w.cross(c);
  const Vec3 vr = k.rho.vec();
  const Mat3 Sc = skew(c), Sw = skew(w);
  // d gamma_rot / d theta_s: delta c = c~ theta, delta w = -c~ theta,
  // delta w' = (c~ + w~) c~ theta, delta vec(rho) = P theta, delta(P g) = G(rho, g) theta.
  const Mat3 X = -0.5 * vr * (w.transpose() * Sc) + 0.25 * w.squaredNorm() * k.P -
                 projectionG(k.rho, w_dot) - k.P * (Sc + Sw) * Sc;
  Gq.block<3, 3>(3, 0).setZero();
  Gq.block<3, 3>(3, 3) = X * RtA1t;
  Gq.block<3, 3>(3, 6).setZero();
  Gq.block<3, 3>(3, 9) = -X * Q;
  Gv.block<3, 3>(3, 0).setZero();
  Gv.block<3, 3>(3, 3) = 0.5 * vr * (w.transpose() * RtA1t) -
                         k.P * (mo.Rt * skew(mo.w_t) * k.A1.transpose() - Sc * RtA1t);
  Gv.block<3, 3>(3, 6).setZero();
  Gv.block<3, 3>(3, 9) = -0.5 * vr * (w.transpose() * Q) - k.P * (Sc + Sw) * Q;
}

/// Rows of d(C_q x)/dq (+ dC_t/dq) of a 3D lock: row r is x_r^T K_c(e_r).
void lockProductDerivative3(const LockFrames3& k, const LockMotion3& mo, RowMask mask,
                            const Pair3& x, bool with_time, Mat6x12& out) {
  out.setZero();
  Mat12 Kc;
  for (int r = 0; r < 6; ++r) {
    if (!(mask & (1u << r))) continue;
    computeLockStiffness3(k, mo, Vec6::Unit(r), Kc);
    Pair3 xr = x;
    if (with_time && r >= 3) xr.segment<3>(3) -= k.A1 * mo.w_t;
    out.row(r) = (Kc.transpose() * xr).transpose();
  }
}

// ---- 2D lock and distance ----------------------------------------------------------------

/// d gamma / dq and d gamma / dv of computeLockGamma2 (the angle row's gamma is th_t'').
void gammaDerivatives2(const LockFrames2& k, const Twist2& t1, const Twist2& t2, Mat3x6& Gq,
                       Mat3x6& Gv) {
  const Mat2 E = perp2(), RF2t = k.RF2.transpose();
  const double w1 = t1.w, w2 = t2.w;
  const Vec2 dd = t1.v + w1 * (E * k.s1) - t2.v - w2 * (E * k.s2);
  const Vec2 ddd = -w1 * w1 * k.s1 + w2 * w2 * k.s2;
  const Vec2 rel = ddd - 2.0 * w2 * (E * dd) - w2 * w2 * k.d;
  Gq.setZero();
  Gv.setZero();
  Gq.block<2, 2>(0, 0) = w2 * w2 * RF2t;
  Gq.block<2, 1>(0, 2) = (w1 - w2) * (w1 - w2) * (RF2t * (E * k.s1));
  Gq.block<2, 2>(0, 3) = -w2 * w2 * RF2t;
  Gq.block<2, 1>(0, 5) = RF2t * (E * rel);
  Gv.block<2, 2>(0, 0) = 2.0 * w2 * RF2t * E;
  Gv.block<2, 1>(0, 2) = 2.0 * (w1 - w2) * (RF2t * k.s1);
  Gv.block<2, 2>(0, 3) = -2.0 * w2 * RF2t * E;
  Gv.block<2, 1>(0, 5) = RF2t * (2.0 * (E * dd) + 2.0 * w2 * k.d);
}

/// d gamma / dq and d gamma / dv of computeDistanceGamma2 (row 0 of the 3-row outputs):
/// gamma = -(phi / L + n . d'') + L_t'', phi = |d'|^2 - (n . d')^2.
void gammaDerivatives2(const DistanceFrames2& k, const Twist2& t1, const Twist2& t2, Mat3x6& Gq,
                       Mat3x6& Gv) {
  Gq.setZero();
  Gv.setZero();
  if (k.length <= 0.0) return;
  const Mat2 E = perp2();
  const double w1 = t1.w, w2 = t2.w, L = k.length;
  const Vec2 &n = k.n, &s1 = k.s1, &s2 = k.s2;
  const Vec2 dd = t1.v + w1 * (E * s1) - t2.v - w2 * (E * s2);
  const Vec2 ddd = -w1 * w1 * s1 + w2 * w2 * s2;
  const double along = n.dot(dd);
  const double phi = dd.squaredNorm() - along * along;
  Eigen::Matrix<double, 2, 6> Jd, Jdd_q, Jddd_q, Jddd_v;
  Jd << Mat2::Identity(), E * s1, -Mat2::Identity(), -(E * s2);
  Jdd_q.setZero();
  Jdd_q.col(2) = -w1 * s1;
  Jdd_q.col(5) = w2 * s2;
  Jddd_q.setZero();
  Jddd_q.col(2) = -w1 * w1 * (E * s1);
  Jddd_q.col(5) = w2 * w2 * (E * s2);
  Jddd_v.setZero();
  Jddd_v.col(2) = -2.0 * w1 * s1;
  Jddd_v.col(5) = 2.0 * w2 * s2;
  const Eigen::Matrix<double, 2, 6> Dn = (Mat2::Identity() - n * n.transpose()) * Jd / L;
  const Eigen::Matrix<double, 1, 6> DL = n.transpose() * Jd;
  const Vec2 perp = dd - along * n;
  const Eigen::Matrix<double, 1, 6> Dphi_q =
      2.0 * perp.transpose() * Jdd_q - 2.0 * along * dd.transpose() * Dn;
  Gq.row(0) = -(Dphi_q / L - phi / (L * L) * DL + ddd.transpose() * Dn + n.transpose() * Jddd_q);
  const Eigen::Matrix<double, 1, 6> Dphi_v = 2.0 * perp.transpose() * Jd;  // d'_v = Jd
  Gv.row(0) = -(Dphi_v / L + n.transpose() * Jddd_v);
}

/// Rows of d(C_q x)/dq of a 2D lock (mask: its active rows) or distance (row 0).
void productDerivative2(const LockFrames2& k, RowMask mask, const Pair2& x, Mat3x6& D) {
  Mat6_2 Kc;
  for (int r = 0; r < 3; ++r) {
    if (!(mask & (1u << r))) continue;
    computeLockStiffness2(k, Vec3::Unit(r), Kc);
    D.row(r) = (Kc.transpose() * x).transpose();
  }
}
void productDerivative2(const DistanceFrames2& k, RowMask, const Pair2& x, Mat3x6& D) {
  Mat6_2 Kc;
  computeDistanceStiffness2(k, 1.0, Kc);
  D.row(0) = (Kc.transpose() * x).transpose();
}

/// Rows of a planar joint kernel: 3 for the lock, 1 for the distance.
template <typename Frames>
constexpr int kPlanarRows = std::is_same_v<Frames, LockFrames2> ? 3 : 1;

/// For every joint (in parallel, disjoint rows): spatial(js, frames, motion) for a 3D lock,
/// planar(js, frames) for a 2D lock or distance, with the frames at (q, t).
template <typename Spatial, typename Planar>
void forEachJointFrames(const Model& model, const AssemblyPlan& plan, const VecX& q, double t,
                        Spatial&& spatial, Planar&& planar) {
  const Long nj = static_cast<Long>(model.joints.size());
#pragma omp parallel for schedule(static) if (nj >= kParallelItems)
  for (Long jl = 0; jl < nj; ++jl) {
    const Index j = static_cast<Index>(jl);
    const JointSlots& js = plan.joints[j];
    const MarkerFrame &f1 = plan.markers[js.marker1], &f2 = plan.markers[js.marker2];
    switch (model.jointKernel(j)) {
      case JointKernel::kLock3D: {
        LockMotion3 mo;
        if (js.rheonomic) mo = evaluateLockMotion3(model.joints[j].motion, t);
        spatial(js,
                computeLockFrames3(bodyPose3(model, q.data(), js.pair.body1),
                                   bodyPose3(model, q.data(), js.pair.body2), f1, f2, mo),
                mo);
        break;
      }
      case JointKernel::kLock2D:
        planar(js, computeLockFrames2(bodyPose2(model, q.data(), js.pair.body1),
                                      bodyPose2(model, q.data(), js.pair.body2), f1, f2));
        break;
      case JointKernel::kDistance2D:
        planar(js, computeDistanceFrames2(bodyPose2(model, q.data(), js.pair.body1),
                                          bodyPose2(model, q.data(), js.pair.body2), f1, f2));
        break;
    }
  }
}

}  // namespace

void assembleJacobianProductDerivative(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                       double t, const VecX& x, bool with_time_derivative,
                                       SparseMatrixCSR& out) {
  forEachJointFrames(
      model, plan, q, t,
      [&](const JointSlots& js, const LockFrames3& k, const LockMotion3& mo) {
        Mat6x12 D;
        lockProductDerivative3(k, mo, js.mask, pairVector<6>(model, js, x),
                               with_time_derivative && js.rheonomic, D);
        writeJointRows<6, 6>(js, D, out);
      },
      [&](const JointSlots& js, const auto& k) {
        Mat3x6 D = Mat3x6::Zero();
        productDerivative2(k, js.mask, pairVector<3>(model, js, x), D);
        writeJointRows<kPlanarRows<std::decay_t<decltype(k)>>, 3>(js, D, out);
      });
}

void assembleGammaDerivatives(const Model& model, const AssemblyPlan& plan, const VecX& q,
                              const VecX& v, double t, SparseMatrixCSR& gamma_q,
                              SparseMatrixCSR& gamma_v) {
  forEachJointFrames(
      model, plan, q, t,
      [&](const JointSlots& js, const LockFrames3& k, const LockMotion3& mo) {
        Mat6x12 Gq, Gv;
        lockGammaDerivatives3(k, mo, bodyTwist3(model, v.data(), js.pair.body1),
                              bodyTwist3(model, v.data(), js.pair.body2), Gq, Gv);
        writeJointRows<6, 6>(js, Gq, gamma_q);
        writeJointRows<6, 6>(js, Gv, gamma_v);
      },
      [&](const JointSlots& js, const auto& k) {
        Mat3x6 Gq, Gv;
        gammaDerivatives2(k, bodyTwist2(model, v.data(), js.pair.body1),
                          bodyTwist2(model, v.data(), js.pair.body2), Gq, Gv);
        constexpr int kRows = kPlanarRows<std::decay_t<decltype(k)>>;
        writeJointRows<kRows, 3>(js, Gq, gamma_q);
        writeJointRows<kRows, 3>(js, Gv, gamma_v);
      });
}

}  // namespace catena
