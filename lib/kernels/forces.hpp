#pragma once
/// @file forces.hpp
/// Applied-force kernels: generalized forces f (right-hand side) and their derivatives
/// K_f = -df/dq and D_f = -df/dv, in the per-body variables of body.hpp. Two-body elements
/// return 12 (3D) or 6 (2D) entries ordered (body 1, body 2); a ground side is simply ignored by
/// assembly.

#include "kernels/pose.hpp"
#include "model/model.hpp"

namespace catena {

using Vec12 = Eigen::Matrix<double, 12, 1>;
using Mat12x12 = Eigen::Matrix<double, 12, 12>;

struct ForceJacobians3 {
  Mat12x12 K;  ///< -df/dq
  Mat12x12 D;  ///< -df/dv
};
struct ForceJacobians2 {
  Mat6 K;
  Mat6 D;
};

/// Marker load on one body (6 entries) and its -df/dq (6 x 6); -df/dv is zero.
Vec6 computeMarkerLoad3(const MarkerLoad& l, const MarkerFrame& f, const Pose3& b, double t);
Mat6 computeMarkerLoadStiffness3(const MarkerLoad& l, const MarkerFrame& f, const Pose3& b,
                                 double t);
Vec3 computeMarkerLoad2(const MarkerLoad& l, const MarkerFrame& f, const Pose2& b, double t);
Mat3 computeMarkerLoadStiffness2(const MarkerLoad& l, const MarkerFrame& f, const Pose2& b,
                                 double t);

/// Translational spring-damper between marker origins: force on B1 -T n at r_F1, +T n on B2 at
/// r_F2, n = (r_F1 - r_F2)/L, T = k (L - L0) + c dL/dt + preload.
Vec12 computeSpring3(const SpringDamper& s, const MarkerFrame& f1, const MarkerFrame& f2,
                     const Pose3& b1, const Twist3& t1, const Pose3& b2, const Twist3& t2);
void computeSpringJacobians3(const SpringDamper& s, const MarkerFrame& f1, const MarkerFrame& f2,
                             const Pose3& b1, const Twist3& t1, const Pose3& b2, const Twist3& t2,
                             ForceJacobians3& out);
Vec6 computeSpring2(const SpringDamper& s, const MarkerFrame& f1, const MarkerFrame& f2,
                    const Pose2& b1, const Twist2& t1, const Pose2& b2, const Twist2& t2);
void computeSpringJacobians2(const SpringDamper& s, const MarkerFrame& f1, const MarkerFrame& f2,
                             const Pose2& b1, const Twist2& t1, const Pose2& b2, const Twist2& t2,
                             ForceJacobians2& out);

/// Rotational spring-damper (model.hpp): torque on B1 R_F2 tau, the opposite on B2.
Vec12 computeRotationalSpring3(const RotationalSpringDamper& s, const MarkerFrame& f1,
                               const MarkerFrame& f2, const Pose3& b1, const Twist3& t1,
                               const Pose3& b2, const Twist3& t2);
void computeRotationalSpringJacobians3(const RotationalSpringDamper& s, const MarkerFrame& f1,
                                       const MarkerFrame& f2, const Pose3& b1, const Twist3& t1,
                                       const Pose3& b2, const Twist3& t2, ForceJacobians3& out);
Vec6 computeRotationalSpring2(const RotationalSpringDamper& s, const MarkerFrame& f1,
                              const MarkerFrame& f2, const Pose2& b1, const Twist2& t1,
                              const Pose2& b2, const Twist2& t2);
void computeRotationalSpringJacobians2(const RotationalSpringDamper& s, ForceJacobians2& out);

}  // namespace catena
