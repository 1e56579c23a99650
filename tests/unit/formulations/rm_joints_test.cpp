#define BOOST_TEST_MODULE rm_joints
// The spherical joint and ground pin between rotation-matrix bodies
// (formulations/rotation_matrix/rm_joints.hpp): Jacobian blocks against central differences at
// seeded random (also non-orthogonal) coordinates, and the generalized forces against -C_q^T
// lambda.
#include "formulations/rotation_matrix/rm_joints.hpp"
#include "test_support.hpp"

using namespace catena;
using namespace catena::rm;

namespace {

using Vec12 = Eigen::Matrix<double, 12, 1>;

Vec12 randomCoordinates(test::Random& rnd) {
  Vec12 q;
  for (int k = 0; k < 12; ++k) q(k) = rnd.uniform();
  return q;
}

void checkJoint(const RmSphericalJoint& joint, unsigned seed) {
  test::Random rnd(seed);
  const Vec12 q1 = randomCoordinates(rnd), q2 = randomCoordinates(rnd);
  const bool ground = joint.body2 == kGround;
  const double h = 1e-6;
  Eigen::Matrix<double, 3, 12> fd1, fd2;
  for (int k = 0; k < 12; ++k) {
    Vec12 p = q1, m = q1;
    p(k) += h;
    m(k) -= h;
    fd1.col(k) = (computeSphericalResidual(joint, p.data(), q2.data()) -
                  computeSphericalResidual(joint, m.data(), q2.data())) /
                 (2 * h);
    p = q2;
    m = q2;
    p(k) += h;
    m(k) -= h;
    fd2.col(k) = (computeSphericalResidual(joint, q1.data(), p.data()) -
                  computeSphericalResidual(joint, q1.data(), m.data())) /
                 (2 * h);
  }
  const Mat3x12 J1 = computeSphericalJacobianBlock(joint.point1, 1.0);
  const Mat3x12 J2 = computeSphericalJacobianBlock(joint.point2, -1.0);
  test::checkClose(J1, fd1, 1e-8, "dC/dq1");
  if (ground)
    test::checkClose(fd2, Mat3x12::Zero(), 1e-12, "ground pin: no body 2");
  else
    test::checkClose(J2, fd2, 1e-8, "dC/dq2");
  // Generalized forces: (X, vec Y) = -C_q^T lambda.
  const Vec3 lambda = rnd.vec3(10.0);
  Vec3 X1 = Vec3::Zero(), X2 = Vec3::Zero();
  Mat3 Y1 = Mat3::Zero(), Y2 = Mat3::Zero();
  addSphericalForces(joint, lambda, X1, Y1, X2, Y2);
  Vec12 f1, f2;
  f1 << X1, Eigen::Map<const Eigen::Matrix<double, 9, 1>>(Y1.data());
  f2 << X2, Eigen::Map<const Eigen::Matrix<double, 9, 1>>(Y2.data());
  test::checkClose(f1, Vec12(-J1.transpose() * lambda), 1e-14, "body 1 force");
  if (ground)
    test::checkClose(f2, Vec12::Zero(), 0.0, "ground: untouched");
  else
    test::checkClose(f2, Vec12(-J2.transpose() * lambda), 1e-14, "body 2 force");
}

}  // namespace

BOOST_AUTO_TEST_CASE(spherical_joint_between_bodies) {
  test::Random rnd(11);
  for (unsigned s = 0; s < 10; ++s) checkJoint({"s", 0, rnd.vec3(2.0), 1, rnd.vec3(2.0)}, 100 + s);
}

BOOST_AUTO_TEST_CASE(ground_pin) {
  test::Random rnd(12);
  for (unsigned s = 0; s < 10; ++s)
    checkJoint({"pin", 0, rnd.vec3(2.0), kGround, rnd.vec3(2.0)}, 200 + s);
}

BOOST_AUTO_TEST_CASE(residual_is_zero_where_the_points_meet) {
  // Same material point A on both bodies (reference position X_A), both bodies moved rigidly
  // together: x = T* + R X_A is the same point.
  test::Random rnd(13);
  const Vec3 XA = rnd.vec3(1.0);
  const Mat3 R = rnd.quat().toRotationMatrix();
  const Vec3 T = rnd.vec3();
  Vec12 q;
  q << T, Eigen::Map<const Eigen::Matrix<double, 9, 1>>(R.data());
  const RmSphericalJoint joint{"s", 0, XA, 1, XA};
  BOOST_TEST(computeSphericalResidual(joint, q.data(), q.data()).norm() <= 1e-15);
}
