#define BOOST_TEST_MODULE lock3
// Finite-difference proofs of the 3D lock kernels at random configurations, velocities and
// multipliers, scleronomic and rheonomic: C_q against central differences of C with rotations
// perturbed on the manifold (rho exp(h theta)), C_t against differences in time, gamma against
// the time derivative of the velocity constraint along the motion, K_c against differences of
// C_q^T lambda. The generalized joint force must equal C_q^T lambda.
#include "kernels/lock3.hpp"

#include "kernel_test_support.hpp"

namespace catena::test {

using Case = JointCase<Pose3, Twist3, Vec6>;

constexpr int kSamples = 25;

Case randomCase(Random& rnd, bool rheonomic) {
  Case c;
  c.b1 = makePose(rnd.vec3(2.0), rnd.quat());
  c.b2 = makePose(rnd.vec3(2.0), rnd.quat());
  c.t1 = {rnd.vec3(), rnd.vec3(2.0)};
  c.t2 = {rnd.vec3(), rnd.vec3(2.0)};
  for (MarkerFrame* f : {&c.f1, &c.f2}) {
    f->p = rnd.vec3(0.7);
    f->alpha = rnd.quat();
    f->A = f->alpha.toRotationMatrix();
  }
  if (rheonomic) {
    c.motion.active = true;
    for (int i = 0; i < 3; ++i)
      c.motion.translation[i] =
          TimeFunction::sine(rnd.uniform(), rnd.uniform(), rnd.uniform(0.1, 1.0), rnd.uniform());
    c.motion.axis = rnd.vec3().normalized();
    c.motion.angle = TimeFunction::sine(rnd.uniform(), rnd.uniform(0.5, 2.0), rnd.uniform(0.1, 1.0),
                                        rnd.uniform());
  }
  c.lambda = 10.0 * Vec6(rnd.vec3().x(), rnd.uniform(), rnd.uniform(), rnd.uniform(), rnd.uniform(),
                         rnd.uniform());
  c.t = rnd.uniform(0.0, 3.0);
  return c;
}

struct Eval {
  LockMotion3 motion;
  LockFrames3 frames;
};
Eval eval(const Case& c) {
  Eval e;
  e.motion = evaluateLockMotion3(c.motion, c.t);
  e.frames = computeLockFrames3(c.b1, c.b2, c.f1, c.f2, e.motion);
  return e;
}

Vec6 residual(const Case& c) {
  const Eval e = eval(c);
  return computeLockResidual3(e.frames, e.motion);
}

Mat6x12 jacobian(const Case& c) {
  const Eval e = eval(c);
  Mat6x12 J;
  computeLockJacobian3(e.frames, e.motion, J);
  return J;
}

/// Velocity-level constraint C_q v + C_t.
Vec6 velocityConstraint(const Case& c) {
  const Eval e = eval(c);
  return jacobian(c) * twistVector(c) + computeLockTimeDerivative3(e.frames, e.motion);
}

void checkCase(const Case& c, const std::string& tag) {
  const Eval e = eval(c);
  // C_q
  checkClose(jacobian(c), coordinateDerivative<Mat6x12>(c, residual), kFdTol, tag + " C_q");
  // C_t
  checkClose(computeLockTimeDerivative3(e.frames, e.motion), Vec6(timeDerivative(c, residual)),
             kFdTol, tag + " C_t");
  // gamma = -d/dt (C_q v + C_t) along the motion with zero accelerations
  const Vec6 gamma = computeLockGamma3(e.frames, e.motion, c.t1, c.t2);
  const Vec6 gfd =
      -(velocityConstraint(advanced(c, kFdStep)) - velocityConstraint(advanced(c, -kFdStep))) /
      (2 * kFdStep);
  checkClose(gamma, gfd, kFdTol, tag + " gamma");
  // generalized force = C_q^T lambda
  checkClose(computeLockForces3(e.frames, e.motion, c.lambda),
             Eigen::Matrix<double, 12, 1>(jacobian(c).transpose() * c.lambda), 1e-13,
             tag + " C_q^T lambda");
  // K_c = d(C_q^T lambda)/dq
  Mat12 Kc, kfd;
  computeLockStiffness3(e.frames, e.motion, c.lambda, Kc);
  for (int k = 0; k < 12; ++k)
    kfd.col(k) = (jacobian(perturbed(c, k, kFdStep)).transpose() * c.lambda -
                  jacobian(perturbed(c, k, -kFdStep)).transpose() * c.lambda) /
                 (2 * kFdStep);
  checkClose(Kc, kfd, kFdTol, tag + " K_c");
}

BOOST_AUTO_TEST_CASE(scleronomic_lock_derivatives) {
  Random rnd(101);
  for (int s = 0; s < kSamples; ++s) checkCase(randomCase(rnd, false), "scleronomic");
}

BOOST_AUTO_TEST_CASE(rheonomic_lock_derivatives) {
  Random rnd(102);
  for (int s = 0; s < kSamples; ++s) checkCase(randomCase(rnd, true), "rheonomic");
}

// Near the satisfied configuration, where joints actually operate: F1 almost on F2.
BOOST_AUTO_TEST_CASE(derivatives_near_assembled_configuration) {
  Random rnd(103);
  for (int s = 0; s < kSamples; ++s) {
    Case c = randomCase(rnd, s % 2 == 1);
    const Eval e = eval(c);
    // Place body 1 so that F1 coincides with F2 moved by the prescribed motion, then jitter.
    const Quat rho_f2 = c.b2.rho * c.f2.alpha;
    const Quat rho_f1 = rho_f2 * e.motion.rho_t;
    const Quat rho_b1 = boxPlus(rho_f1 * c.f1.alpha.conjugate(), rnd.vec3(1e-3));
    const Vec3 r_f1 = c.b2.r + c.b2.R * c.f2.p + rho_f2.toRotationMatrix() * e.motion.rt;
    c.b1 = makePose(r_f1 - rho_b1.toRotationMatrix() * c.f1.p + rnd.vec3(1e-3), rho_b1);
    BOOST_TEST(residual(c).norm() < 1e-2);
    checkCase(c, "near assembled");
  }
}

// Markers aligned with their bodies (A1 = A2 = I, as the chain generator makes them) take the
// kernel's shortcuts for identity rotations; they must give the same derivatives.
BOOST_AUTO_TEST_CASE(aligned_marker_derivatives) {
  Random rnd(105);
  for (int s = 0; s < kSamples; ++s) {
    for (bool rheonomic : {false, true}) {
      Case c = randomCase(rnd, rheonomic);
      for (MarkerFrame* f : {&c.f1, &c.f2}) {
        f->alpha = Quat::Identity();
        f->A = Mat3::Identity();
      }
      checkCase(c, rheonomic ? "aligned rheonomic" : "aligned");
    }
  }
}

// At F1 = F2 the paper's special values hold: P = I/2, G = -lambda_m~/4 (section 3.1).
BOOST_AUTO_TEST_CASE(coincident_frames_special_values) {
  Random rnd(104);
  Case c = randomCase(rnd, false);
  c.b1 = c.b2;
  c.f1 = c.f2;
  const Eval e = eval(c);
  checkClose(computeLockResidual3(e.frames, e.motion), Vec6::Zero(), 1e-15, "C at coincidence");
  checkClose(e.frames.P, 0.5 * Mat3::Identity(), 1e-15, "P at coincidence");
}

}  // namespace catena::test
