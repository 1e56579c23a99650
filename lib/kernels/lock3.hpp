#pragma once
/// @file lock3.hpp
/// The 3D lock constraint of marker F1 (on B1) relative to marker F2 (on B2), written in F2's
/// basis (tangent-stiffness paper, sections 2-3):
///   C = [ R_F2^T (r_F1 - r_F2) - r_t(t) ;  Im(rho_F2^* rho_F1 rho_t(t)^*) ]   (eqs. 12, 27, 31)
/// rho_F1<> = rho_F1 rho_t^* is the paper's shadow frame; for a scleronomic joint rho_t = 1.
/// Variables per body in the mixed basis: (delta r_WB_W, theta_B) with delta R = R theta~.
/// All functions are pure, fixed-size and allocation-free; they compute all 6 rows, the joint's
/// mask selects rows in assembly (inactive multipliers are passed as zero).

#include "kernels/pose.hpp"
#include "model/model.hpp"

namespace catena {

using Mat6x12 = Eigen::Matrix<double, 6, 12>;
using Mat6x12RowMajor = Eigen::Matrix<double, 6, 12, Eigen::RowMajor>;
using Mat12 = Eigen::Matrix<double, 12, 12>;

/// Prescribed relative motion at time t: r_t and derivatives (F2 basis); rho_t = exp(axis angle)
/// with its local angular velocity and acceleration (axis fixed, so local = parent).
struct LockMotion3 {
  Vec3 rt = Vec3::Zero(), rt_dot = Vec3::Zero(), rt_ddot = Vec3::Zero();
  Quat rho_t = Quat::Identity();
  Mat3 Rt = Mat3::Identity();
  Vec3 w_t = Vec3::Zero(), a_t = Vec3::Zero();
};

/// The prescribed motion at t (s); identity and zeros for a scleronomic joint.
LockMotion3 evaluateLockMotion3(const JointMotion& motion, double t);

/// Quantities shared by every lock kernel, evaluated once per joint and configuration.
struct LockFrames3 {
  Mat3 R1, R2;  ///< body rotations R_WB1, R_WB2
  Mat3 RF2;     ///< marker rotation R_WF2 = R2 A2
  Mat3 A1, A2;  ///< marker rotations in their bodies R_B1F1, R_B2F2
  Vec3 p1;      ///< F1's origin in B1, p_B1F1_B1
  Vec3 s1, s2;  ///< arms R1 p1, R2 p2 (world)
  Vec3 d;       ///< r_F1 - r_F2 (world)
  Vec3 u2;      ///< r_F1 - r_B2 = s2 + d (world)
  Quat rho;     ///< rho_F1<>(F2) = rho_F2^* rho_F1 rho_t^*
  Mat3 P;       ///< P(rho), eq. C.1
  // Body-basis forms that let C_q and K_c skip world-basis 3x3 products (R^T a~ R = (R^T a)~):
  Mat3 R12;    ///< R_B1B2 = R1^T R2
  Vec3 u2_B2;  ///< u2 in B2's basis, R2^T u2
  Mat3 RtA1t;  ///< R_t A1^T
  /// A2 and R_t A1^T exactly the identity (markers aligned with their bodies, no prescribed
  /// rotation: the common case): the kernels skip products with them, same values.
  bool A2_identity = false, RtA1t_identity = false;
};

/// The shared quantities above from the two body poses, the marker frames and the motion.
LockFrames3 computeLockFrames3(const Pose3& b1, const Pose3& b2, const MarkerFrame& f1,
                               const MarkerFrame& f2, const LockMotion3& motion);

/// Residual C (6), eqs. 12 and 31.
Vec6 computeLockResidual3(const LockFrames3& k, const LockMotion3& motion);

/// Jacobian C_q (6 x 12) with columns (delta r1, theta1, delta r2, theta2), eqs. 25 and 33.
void computeLockJacobian3(const LockFrames3& k, const LockMotion3& motion, Mat6x12& Cq);

/// Partial time derivative C_t (6): (-dr_t/dt ; -P R_t w_t).
Vec6 computeLockTimeDerivative3(const LockFrames3& k, const LockMotion3& motion);

/// Acceleration right-hand side gamma (6) with C_q dv/dt = gamma: minus the second time
/// derivative of C along the motion with zero accelerations (velocity-squared terms and the
/// prescribed accelerations).
Vec6 computeLockGamma3(const LockFrames3& k, const LockMotion3& motion, const Twist3& t1,
                       const Twist3& t2);

/// Tangent stiffness of constraints K_c = d(C_q^T lambda)/dq (12 x 12) at fixed lambda,
/// K_c^(M) + K_c^(P) of eqs. 44-50 with the rheonomic replacement of section 3.2. lambda holds
/// the 6 multipliers (reaction force and torque components in F2), zero on inactive rows.
void computeLockStiffness3(const LockFrames3& k, const LockMotion3& motion, const Vec6& lambda,
                           Mat12& Kc);

/// The nonzero 3x3 blocks of the same K_c (rows and columns dr1, th1, dr2, th2); the other 8 of
/// its 16 blocks are zero. With X = f~ R2 (f = R_F2 lambda_f, the reaction force on B1):
///   K(dr1, th2) = -X,    K(dr2, th2) = X,     K(th2, dr1) = -X^T,  K(th2, dr2) = X^T,
///   K(th1, th1) = T11,   K(th1, th2) = T12,   K(th2, th1) = T21,   K(th2, th2) = T22.
/// Assembly writes these straight into the matrix slots (no 12 x 12 intermediate).
struct LockStiffnessBlocks3 {
  Mat3 X, T11, T12, T21, T22;
};
void computeLockStiffnessBlocks3(const LockFrames3& k, const LockMotion3& motion,
                                 const Vec6& lambda, LockStiffnessBlocks3& K);

/// C_q (row-major, the order assembly copies it in) and the K_c blocks together, from the poses:
/// the assembly hot path. Same formulas as computeLockFrames3, computeLockJacobian3 and
/// computeLockStiffnessBlocks3, in one call so that the shared frames stay local to it.
void computeLockJacobianAndStiffness3(const Pose3& b1, const Pose3& b2, const MarkerFrame& f1,
                                      const MarkerFrame& f2, const LockMotion3& motion,
                                      const Vec6& lambda, Mat6x12RowMajor& Cq,
                                      LockStiffnessBlocks3& K);

/// Generalized joint force C_q^T lambda (12): what the multipliers apply to the two bodies
/// (world force and local torque on B1, then on B2).
Eigen::Matrix<double, 12, 1> computeLockForces3(const LockFrames3& k, const LockMotion3& motion,
                                                const Vec6& lambda);

}  // namespace catena
