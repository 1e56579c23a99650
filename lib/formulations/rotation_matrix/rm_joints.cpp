#include "formulations/rotation_matrix/rm_joints.hpp"

namespace catena::rm {
namespace {

/// T* + R p for body coordinates q (column-major R after T*).
Vec3 pointOf(const double* q, const Vec3& p) {
  const Eigen::Map<const Vec3> T(q);
  const Eigen::Map<const Mat3> R(q + 3);
  return T + R * p;
}

}  // namespace

Vec3 computeSphericalResidual(const RmSphericalJoint& joint, const double* q1, const double* q2) {
  const Vec3 x1 = pointOf(q1, joint.point1);
  const Vec3 x2 = joint.body2 == kGround ? joint.point2 : pointOf(q2, joint.point2);
  return x1 - x2;
}

Mat3x12 computeSphericalJacobianBlock(const Vec3& point, double sign) {
  Mat3x12 J;
  J.block<3, 3>(0, 0) = sign * Mat3::Identity();
  for (int k = 0; k < 3; ++k) J.block<3, 3>(0, 3 + 3 * k) = sign * point(k) * Mat3::Identity();
  return J;
}

void addSphericalForces(const RmSphericalJoint& joint, const Vec3& lambda, Vec3& X1, Mat3& Y1,
                        Vec3& X2, Mat3& Y2) {
  X1 -= lambda;
  Y1.noalias() -= lambda * joint.point1.transpose();
  if (joint.body2 == kGround) return;
  X2 += lambda;
  Y2.noalias() += lambda * joint.point2.transpose();
}

}  // namespace catena::rm
