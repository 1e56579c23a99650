#define BOOST_TEST_MODULE rotation
#include "math/rotation.hpp"

#include "test_support.hpp"

namespace catena::test {

constexpr int kSamples = 50;

// Appendix C identities of the tangent-stiffness paper, at random unit quaternions.
BOOST_AUTO_TEST_CASE(projection_matrix_identities) {
  Random rnd(11);
  for (int k = 0; k < kSamples; ++k) {
    const Quat rho = rnd.quat();
    const Mat3 R = rho.toRotationMatrix();
    const Mat3 P = projectionP(rho);
    checkClose(P.transpose(), projectionP(rho.conjugate()), 1e-15, "C.3a P^T = P(rho*)");
    checkClose(P, P.transpose() * R, 1e-15, "C.3b P = P^T R");
    checkClose(P, R.transpose() * P * R, 1e-15, "C.3c P = R^T P R");
    checkClose(P.inverse(), (R.transpose() + Mat3::Identity()) / rho.w(), 1e-12,
               "C.3d P^-1 = (R^T + I)/s");
  }
}

BOOST_AUTO_TEST_CASE(identity_quaternion_special_values) {
  checkClose(projectionP(Quat::Identity()), 0.5 * Mat3::Identity(), 0.0, "P(1) = I/2");
  const Vec3 g(0.3, -1.2, 2.0);
  checkClose(projectionG(Quat::Identity(), g), -0.25 * skew(g), 0.0, "G(1, g) = -g~/4");
}

// C.2: Im(delta rho) = P(rho) theta_l, and C.12: delta(P) g = G(rho, g) theta_l, by central
// differences along rho exp(h theta).
BOOST_AUTO_TEST_CASE(projection_variations_match_finite_differences) {
  Random rnd(12);
  for (int k = 0; k < kSamples; ++k) {
    const Quat rho = rnd.quat();
    const Vec3 g = rnd.vec3(3.0);
    Mat3 dIm, dPg;
    for (int c = 0; c < 3; ++c) {
      const Vec3 e = Vec3::Unit(c);
      const Quat qp = boxPlus(rho, kFdStep * e), qm = boxPlus(rho, -kFdStep * e);
      dIm.col(c) = (qp.vec() - qm.vec()) / (2 * kFdStep);
      dPg.col(c) = (projectionP(qp) * g - projectionP(qm) * g) / (2 * kFdStep);
    }
    checkClose(projectionP(rho), dIm, 1e-8, "C.2 Im(delta rho) = P theta");
    checkClose(projectionG(rho, g), dPg, 1e-8, "C.12 delta(P) g = G theta");
  }
}

BOOST_AUTO_TEST_CASE(exp_log_round_trip_and_small_angles) {
  Random rnd(13);
  for (int k = 0; k < kSamples; ++k) {
    const Vec3 phi = rnd.vec3(1.7);
    checkClose(quatLog(quatExp(phi)), phi, 1e-13, "log(exp(phi)) = phi");
    const Quat q = rnd.quat();
    checkClose(quatExp(quatLog(q)).coeffs(), q.coeffs(), 1e-13, "exp(log(q)) = q");
  }
  // Near zero the series branches must be continuous with the closed forms.
  for (double a : {1e-3, 1.01e-4, 0.99e-4, 1e-7, 0.0}) {
    const Vec3 phi = a * Vec3(0.6, -0.8, 0.0);
    const Quat ref(std::cos(a / 2), std::sin(a / 2) * 0.6, -std::sin(a / 2) * 0.8, 0.0);
    checkClose(quatExp(phi).coeffs(), ref.coeffs(), 1e-16, "exp near zero");
    checkClose(quatLog(ref), phi, 1e-16, "log near zero");
  }
  checkClose(quatExp(Vec3(0, 0, 1)).toRotationMatrix(),
             Eigen::AngleAxisd(1.0, Vec3::UnitZ()).toRotationMatrix(), 1e-15,
             "exp matches angle-axis");
}

BOOST_AUTO_TEST_CASE(inverse_right_jacobian_matches_finite_differences) {
  Random rnd(14);
  for (int k = 0; k < kSamples; ++k) {
    const Vec3 phi = k == 0 ? Vec3(1e-6, 0, 0) : rnd.vec3(1.5);
    const Quat q = quatExp(phi);
    Mat3 fd;
    for (int c = 0; c < 3; ++c) {
      const Vec3 e = Vec3::Unit(c);
      fd.col(c) =
          (quatLog(q * quatExp(kFdStep * e)) - quatLog(q * quatExp(-kFdStep * e))) / (2 * kFdStep);
    }
    checkClose(inverseRightJacobian(phi), fd, 1e-8, "Jr^-1");
  }
}

}  // namespace catena::test
