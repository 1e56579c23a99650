#pragma once
/// @file lock2.hpp
/// Planar joints. The 2D lock of marker F1 (on B1) in marker F2 (on B2), rows (x, y, theta):
///   C = [ R_F2^T (r_F1 - r_F2) - r_t(t) ;  theta_F1 - theta_F2 - theta_t(t) ]
/// and the planar distance joint C = |r_F1 - r_F2| - L(t). Variables per body (x, y, theta);
/// columns of the 3 x 6 Jacobians are (x1, y1, theta1, x2, y2, theta2).

#include "kernels/pose.hpp"
#include "model/model.hpp"

namespace catena {

using Mat3x6 = Eigen::Matrix<double, 3, 6>;
using Vec6_2 = Eigen::Matrix<double, 6, 1>;  ///< two planar bodies' generalized forces
using Mat6_2 = Eigen::Matrix<double, 6, 6>;

struct LockMotion2 {
  Vec2 rt = Vec2::Zero(), rt_dot = Vec2::Zero(), rt_ddot = Vec2::Zero();
  double th = 0.0, th_dot = 0.0, th_ddot = 0.0;
};

/// r_t, theta_t and their first two time derivatives at t (s); all zero for a scleronomic joint.
LockMotion2 evaluateLockMotion2(const JointMotion& motion, double t);

struct LockFrames2 {
  Mat2 RF2;       ///< marker F2 rotation in the world
  Vec2 s1, s2;    ///< arms R1 p1, R2 p2 (world)
  Vec2 d;         ///< r_F1 - r_F2
  Vec2 u2;        ///< r_F1 - r_B2 = s2 + d
  double dtheta;  ///< theta_F1 - theta_F2
};

/// The shared quantities above from the two body poses and the two marker frames.
LockFrames2 computeLockFrames2(const Pose2& b1, const Pose2& b2, const MarkerFrame& f1,
                               const MarkerFrame& f2);

/// Residual C (3: m, m, rad), all rows; the mask selects rows in assembly.
Vec3 computeLockResidual2(const LockFrames2& k, const LockMotion2& motion);
/// Jacobian C_q (3 x 6), columns as in the file comment.
void computeLockJacobian2(const LockFrames2& k, Mat3x6& Cq);
/// Partial time derivative C_t (3): (-dr_t/dt ; -dtheta_t/dt).
Vec3 computeLockTimeDerivative2(const LockMotion2& motion);
/// Acceleration right-hand side gamma (3) with C_q dv/dt = gamma (velocity-squared terms and
/// the prescribed accelerations).
Vec3 computeLockGamma2(const LockFrames2& k, const LockMotion2& motion, const Twist2& t1,
                       const Twist2& t2);
/// K_c = d(C_q^T lambda)/dq at fixed lambda (6 x 6).
void computeLockStiffness2(const LockFrames2& k, const Vec3& lambda, Mat6_2& Kc);

/// Planar distance joint; rows 1 (the other two rows of the 3-row outputs are zero).
struct DistanceFrames2 {
  Vec2 s1, s2, d, n;  ///< arms, r_F1 - r_F2 and its unit direction
  double length;      ///< |d|
};
/// The distance joint's residual |d| - L(t) (m), its Jacobian (1 x 6), gamma (C_q dv/dt = gamma)
/// and K_c (6 x 6) at fixed lambda. At |d| = 0 the direction is undefined: n, C_q and K_c are
/// zero there (the joint is singular).
DistanceFrames2 computeDistanceFrames2(const Pose2& b1, const Pose2& b2, const MarkerFrame& f1,
                                       const MarkerFrame& f2);
double computeDistanceResidual2(const DistanceFrames2& k, const TimeValue& L);
void computeDistanceJacobian2(const DistanceFrames2& k, Eigen::Matrix<double, 1, 6>& Cq);
double computeDistanceGamma2(const DistanceFrames2& k, const TimeValue& L, const Twist2& t1,
                             const Twist2& t2);
void computeDistanceStiffness2(const DistanceFrames2& k, double lambda, Mat6_2& Kc);

}  // namespace catena
