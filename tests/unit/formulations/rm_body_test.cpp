#define BOOST_TEST_MODULE rm_body
// Kernels of one rotation-matrix body (formulations/rotation_matrix/rm_body.hpp) against
// independent oracles at seeded random states: the Poinsot matrix of a box against its
// integral; the constant mass matrix against the rigid-body kinetic energy
// 1/2 m |v_G|^2 + 1/2 w.J w; the orthogonality Jacobian, its Hessian contraction and gamma
// against central differences; the closed-form Lyapunov solve against a Kronecker 9 x 9 solve;
// and step 1 of the elimination against the KKT system of one free body.
#include <Eigen/Dense>
#include <cmath>

#include "formulations/rotation_matrix/rm_body.hpp"
#include "rm_random_model.hpp"
#include "test_support.hpp"

using namespace catena;
using namespace catena::rm;

namespace {

constexpr double kFdStep = 1e-6;

Eigen::Matrix<double, 9, 1> vec(const Mat3& A) {
  return Eigen::Map<const Eigen::Matrix<double, 9, 1>>(A.data());
}
Mat3 unvec(const Eigen::Matrix<double, 9, 1>& a) {
  return Eigen::Map<const Mat3>(a.data());
}

RmBody randomBody(test::Random& rnd) {
  test::Random r2(static_cast<unsigned>(rnd.uniform(0, 1e6)));
  RmModel m = test::randomRmChain(r2, 1);
  return m.bodies[0];
}

}  // namespace

BOOST_AUTO_TEST_CASE(poinsot_of_a_box_is_its_second_moment) {
  // Box l x a x b, mass m, turned by R: int r r^T dm = R m/12 diag(l^2, a^2, b^2) R^T, from the
  // inertia tensor through eq. (11); and eq. (11) inverted, J = tr(K) I - K.
  const double m = 0.108, l = 0.2, a = 0.02, b = 0.01;
  test::Random rnd(1);
  const Mat3 R = rnd.quat().toRotationMatrix();
  const Mat3 J = R *
                 Vec3(m * (a * a + b * b) / 12, m * (l * l + b * b) / 12, m * (l * l + a * a) / 12)
                     .asDiagonal() *
                 R.transpose();
  const Mat3 K = R * Vec3(l * l, a * a, b * b).asDiagonal() * R.transpose() * (m / 12);
  test::checkClose(poinsotFromInertia(J), K, 1e-15, "K = tr(J)/2 I - J");
  test::checkClose(Mat3(K.trace() * Mat3::Identity() - K), J, 1e-15, "J = tr(K) I - K");
}

BOOST_AUTO_TEST_CASE(mass_matrix_gives_the_rigid_body_kinetic_energy) {
  test::Random rnd(2);
  for (int trial = 0; trial < 20; ++trial) {
    const RmBody body = randomBody(rnd);
    const Mat3 R = rnd.quat().toRotationMatrix();
    const Vec3 w = rnd.vec3(3.0), T_dot = rnd.vec3(2.0);
    const Mat3 R_dot = test::skew(w) * R;
    // Centre of mass x_G = T* + R X_G moves with T*' + R' X_G; the inertia now is R J0 R^T.
    const Vec3 vG = T_dot + R_dot * body.com;
    const double expected =
        0.5 * body.mass * vG.squaredNorm() + 0.5 * w.dot(R * body.inertia * R.transpose() * w);
    Eigen::Matrix<double, 12, 1> v;
    v << T_dot, vec(R_dot);
    const double from_M = 0.5 * v.dot(computeBodyMassMatrix(body) * v);
    BOOST_TEST(std::abs(from_M - expected) <= 1e-12 * std::max(1.0, expected));
    BOOST_TEST(std::abs(computeBodyKineticEnergy(body, T_dot, R_dot) - expected) <=
               1e-12 * std::max(1.0, expected));
  }
}

BOOST_AUTO_TEST_CASE(orthogonality_residual_vanishes_on_rotations) {
  test::Random rnd(3);
  for (int trial = 0; trial < 10; ++trial)
    BOOST_TEST(computeOrthogonalityResidual(rnd.quat().toRotationMatrix()).cwiseAbs().maxCoeff() <=
               1e-15);
}

BOOST_AUTO_TEST_CASE(orthogonality_jacobian_matches_central_differences) {
  test::Random rnd(4);
  for (int trial = 0; trial < 10; ++trial) {
    const Mat3 R = rnd.mat3();  // any matrix: the Jacobian holds off the manifold too
    Mat6x9 fd;
    for (int k = 0; k < 9; ++k) {
      Mat3 Rp = R, Rm = R;
      Rp(k) += kFdStep;
      Rm(k) -= kFdStep;
      fd.col(k) =
          (computeOrthogonalityResidual(Rp) - computeOrthogonalityResidual(Rm)) / (2 * kFdStep);
    }
    test::checkClose(computeOrthogonalityJacobian(R), fd, 1e-8, "d phi / d vec(R)");
  }
}

BOOST_AUTO_TEST_CASE(orthogonality_hessian_times_matches_central_differences) {
  test::Random rnd(5);
  for (int trial = 0; trial < 10; ++trial) {
    const Mat3 R = rnd.mat3();
    Vec6 mu;
    for (int k = 0; k < 6; ++k) mu(k) = rnd.uniform();
    Mat9 fd;
    for (int k = 0; k < 9; ++k) {
      Mat3 Rp = R, Rm = R;
      Rp(k) += kFdStep;
      Rm(k) -= kFdStep;
      fd.col(k) = (computeOrthogonalityJacobian(Rp).transpose() * mu -
                   computeOrthogonalityJacobian(Rm).transpose() * mu) /
                  (2 * kFdStep);
    }
    test::checkClose(computeOrthogonalityHessianTimes(mu), fd, 1e-8, "d(phi_R^T mu)/d vec(R)");
    // phi_R^T mu = vec(R Lambda(mu)): the constraint force is R Lambda.
    test::checkClose(computeOrthogonalityJacobian(R).transpose() * mu,
                     vec(R * symmetricFromRows(mu)), 1e-14, "phi_R^T mu = vec(R Lambda)");
  }
}

BOOST_AUTO_TEST_CASE(orthogonality_gamma_is_the_second_derivative_along_a_curve) {
  // phi(R(t)) with R(t) = R + t A + t^2/2 B: d^2 phi/dt^2 at 0 = phi_R(R) vec(B) - gamma(A).
  test::Random rnd(6);
  const double h = 1e-4;
  for (int trial = 0; trial < 10; ++trial) {
    const Mat3 R = rnd.mat3(), A = rnd.mat3(), B = rnd.mat3();
    auto phi = [&](double t) { return computeOrthogonalityResidual(R + t * A + 0.5 * t * t * B); };
    const Vec6 second = (phi(h) - 2 * phi(0) + phi(-h)) / (h * h);
    test::checkClose(second,
                     computeOrthogonalityJacobian(R) * vec(B) - computeOrthogonalityGamma(A), 1e-7,
                     "phi'' = phi_R R'' - gamma");
  }
}

BOOST_AUTO_TEST_CASE(lyapunov_closed_form_matches_a_kronecker_solve) {
  test::Random rnd(7);
  for (int trial = 0; trial < 10; ++trial) {
    const RmBody body = randomBody(rnd);
    Mat3 B = rnd.mat3();
    B = (B + B.transpose()).eval();
    const Mat3 L = solvePoinsotLyapunov(body, B);
    const Mat3 Ki = body.poinsot.inverse();
    // vec(L Ki + Ki L) = (Ki (x) I + I (x) Ki) vec(L): an independent 9 x 9 Sylvester solve.
    Mat9 A;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        A.block<3, 3>(3 * i, 3 * j) = Ki(i, j) * Mat3::Identity() + (i == j ? Ki : Mat3::Zero());
    const Mat3 L_kron = unvec(A.fullPivLu().solve(vec(B)));
    test::checkClose(L, L_kron, 1e-10, "closed form vs Kronecker solve");
    test::checkClose(Mat3(L * Ki + Ki * L), B, 1e-10, "residual of Lambda K^-1 + K^-1 Lambda = B");
    test::checkClose(L, L.transpose(), 1e-14, "Lambda symmetric");
  }
}

BOOST_AUTO_TEST_CASE(step_one_matches_the_kkt_system_of_a_free_body) {
  // One free body: [M phi_q^T; phi_q 0] [q''; mu] = [(X, vec Y); gamma], 18 x 18.
  test::Random rnd(8);
  for (int trial = 0; trial < 20; ++trial) {
    const RmBody body = randomBody(rnd);
    const Mat3 R = rnd.quat().toRotationMatrix();
    const Mat3 R_dot = test::skew(rnd.vec3(3.0)) * R;
    const Vec3 X = rnd.vec3(5.0);
    const Mat3 Y = 5.0 * rnd.mat3();
    Eigen::Matrix<double, 18, 18> K = Eigen::Matrix<double, 18, 18>::Zero();
    K.topLeftCorner<12, 12>() = computeBodyMassMatrix(body);
    K.block<6, 9>(12, 3) = computeOrthogonalityJacobian(R);
    K.block<9, 6>(3, 12) = computeOrthogonalityJacobian(R).transpose();
    Eigen::Matrix<double, 18, 1> rhs;
    rhs << X, vec(Y), computeOrthogonalityGamma(R_dot);
    const Eigen::Matrix<double, 18, 1> x = K.fullPivLu().solve(rhs);
    Vec3 T_ddot;
    Mat3 R_ddot, Lambda;
    computeBodyAcceleration(body, R, R_dot, X, Y, true, T_ddot, R_ddot, Lambda);
    test::checkClose(T_ddot, x.head<3>(), 1e-9, "T*''");
    test::checkClose(vec(R_ddot), x.segment<9>(3), 1e-9, "R''");
    test::checkClose(rowsFromSymmetric(Lambda), x.tail<6>(), 1e-9, "Lambda");
  }
}
