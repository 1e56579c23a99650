#pragma once
/// @file rm_joints.hpp
/// Kernels of the spherical joint between rotation-matrix bodies (rotation-matrix paper, eq.
/// 13) and of the ground pin (the same joint with the ground as body 2):
///   C = T1* + R1 p1 - (T2* + R2 p2)      (ground: C = T1* + R1 p1 - p2).
/// C is linear in the coordinates: its Jacobian blocks are constant, its Hessian is zero and
/// gamma (C_q q'' = gamma) is zero. Pure functions, fixed-size, no allocation.

#include <Eigen/Core>

#include "core/types.hpp"
#include "formulations/rotation_matrix/rm_model.hpp"

namespace catena::rm {

using Mat3x12 = Eigen::Matrix<double, 3, 12>;

/// C (3) from the body coordinates q1, q2 (12 each; q2 ignored for a ground pin, may be null).
Vec3 computeSphericalResidual(const RmSphericalJoint& joint, const double* q1, const double* q2);

/// dC/dq_b = sign [I, p_1 I, p_2 I, p_3 I] with p = point1, sign +1 for body 1; p = point2,
/// sign -1 for body 2.
Mat3x12 computeSphericalJacobianBlock(const Vec3& point, double sign);

/// Adds the joint's generalized force -C_q^T lambda to the bodies' (X, Y) (eq. 14 up to the
/// sign of lambda): body 1 X -= lambda, Y -= lambda p1^T; body 2 X += lambda, Y += lambda p2^T.
void addSphericalForces(const RmSphericalJoint& joint, const Vec3& lambda, Vec3& X1, Mat3& Y1,
                        Vec3& X2, Mat3& Y2);

}  // namespace catena::rm
