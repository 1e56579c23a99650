#define BOOST_TEST_MODULE lock2
// Finite-difference proofs of the planar joint kernels (2D lock and distance) at random
// configurations, velocities and multipliers, scleronomic and rheonomic.
#include "kernels/lock2.hpp"

#include "kernel_test_support.hpp"

namespace catena::test {

constexpr int kSamples = 25;

using Case = JointCase<Pose2, Twist2, Vec3>;

Case randomCase(Random& rnd, bool rheonomic) {
  Case c;
  c.b1 = makePose(rnd.vec2(2.0), rnd.uniform(-3, 3));
  c.b2 = makePose(rnd.vec2(2.0), rnd.uniform(-3, 3));
  c.t1 = {rnd.vec2(), rnd.uniform(-2, 2)};
  c.t2 = {rnd.vec2(), rnd.uniform(-2, 2)};
  for (MarkerFrame* f : {&c.f1, &c.f2}) {
    f->p = Vec3(rnd.uniform(), rnd.uniform(), 0.0);
    f->angle = rnd.uniform(-3, 3);
  }
  c.length = TimeFunction::constant(1.0);
  if (rheonomic) {
    c.motion.active = true;
    for (int i = 0; i < 2; ++i)
      c.motion.translation[i] =
          TimeFunction::sine(rnd.uniform(), rnd.uniform(), 0.5, rnd.uniform());
    c.motion.angle = TimeFunction::sine(rnd.uniform(), 1.5, 0.3, rnd.uniform());
    c.length = TimeFunction::sine(1.0, 0.3, 0.4, rnd.uniform());
  }
  c.lambda = 10.0 * Vec3(rnd.uniform(), rnd.uniform(), rnd.uniform());
  c.t = rnd.uniform(0.0, 3.0);
  return c;
}

// -- 2D lock --
Vec3 lockC(const Case& c) {
  return computeLockResidual2(computeLockFrames2(c.b1, c.b2, c.f1, c.f2),
                              evaluateLockMotion2(c.motion, c.t));
}
Mat3x6 lockJ(const Case& c) {
  Mat3x6 J;
  computeLockJacobian2(computeLockFrames2(c.b1, c.b2, c.f1, c.f2), J);
  return J;
}
Vec3 lockVel(const Case& c) {
  return lockJ(c) * twistVector(c) + computeLockTimeDerivative2(evaluateLockMotion2(c.motion, c.t));
}

// -- distance --
double distC(const Case& c) {
  return computeDistanceResidual2(computeDistanceFrames2(c.b1, c.b2, c.f1, c.f2),
                                  c.length.evaluate(c.t));
}
Eigen::Matrix<double, 1, 6> distJ(const Case& c) {
  Eigen::Matrix<double, 1, 6> J;
  computeDistanceJacobian2(computeDistanceFrames2(c.b1, c.b2, c.f1, c.f2), J);
  return J;
}
double distVel(const Case& c) {
  return distJ(c).dot(twistVector(c)) - c.length.evaluate(c.t).rate;
}

void checkLock(const Case& c, const std::string& tag) {
  const LockFrames2 k = computeLockFrames2(c.b1, c.b2, c.f1, c.f2);
  const LockMotion2 mo = evaluateLockMotion2(c.motion, c.t);
  checkClose(lockJ(c), coordinateDerivative<Mat3x6>(c, lockC), kFdTol, tag + " lock C_q");
  checkClose(computeLockTimeDerivative2(mo), Vec3(timeDerivative(c, lockC)), kFdTol,
             tag + " lock C_t");
  checkClose(
      computeLockGamma2(k, mo, c.t1, c.t2),
      Vec3(-(lockVel(advanced(c, kFdStep)) - lockVel(advanced(c, -kFdStep))) / (2 * kFdStep)),
      kFdTol, tag + " lock gamma");
  Mat6_2 Kc, kfd;
  computeLockStiffness2(k, c.lambda, Kc);
  for (int i = 0; i < 6; ++i)
    kfd.col(i) = (lockJ(perturbed(c, i, kFdStep)).transpose() * c.lambda -
                  lockJ(perturbed(c, i, -kFdStep)).transpose() * c.lambda) /
                 (2 * kFdStep);
  checkClose(Kc, kfd, kFdTol, tag + " lock K_c");
}

void checkDistance(const Case& c, const std::string& tag) {
  const DistanceFrames2 k = computeDistanceFrames2(c.b1, c.b2, c.f1, c.f2);
  Eigen::Matrix<double, 1, 6> fd;
  for (int i = 0; i < 6; ++i)
    fd(i) = (distC(perturbed(c, i, kFdStep)) - distC(perturbed(c, i, -kFdStep))) / (2 * kFdStep);
  checkClose(distJ(c), fd, kFdTol, tag + " distance C_q");
  const double g = computeDistanceGamma2(k, c.length.evaluate(c.t), c.t1, c.t2);
  const double gfd =
      -(distVel(advanced(c, kFdStep)) - distVel(advanced(c, -kFdStep))) / (2 * kFdStep);
  BOOST_TEST(std::abs(g - gfd) <= kFdTol * std::max(1.0, std::abs(gfd)),
             tag << " distance gamma " << g << " vs " << gfd);
  Mat6_2 Kc, kfd;
  computeDistanceStiffness2(k, c.lambda(0), Kc);
  for (int i = 0; i < 6; ++i)
    kfd.col(i) = (distJ(perturbed(c, i, kFdStep)).transpose() * c.lambda(0) -
                  distJ(perturbed(c, i, -kFdStep)).transpose() * c.lambda(0)) /
                 (2 * kFdStep);
  checkClose(Kc, kfd, kFdTol, tag + " distance K_c");
}

BOOST_AUTO_TEST_CASE(planar_lock_derivatives) {
  Random rnd(201);
  for (int s = 0; s < kSamples; ++s) {
    checkLock(randomCase(rnd, false), "scleronomic");
    checkLock(randomCase(rnd, true), "rheonomic");
  }
}

BOOST_AUTO_TEST_CASE(planar_distance_derivatives) {
  Random rnd(202);
  for (int s = 0; s < kSamples; ++s) {
    checkDistance(randomCase(rnd, false), "scleronomic");
    checkDistance(randomCase(rnd, true), "rheonomic");
  }
}

}  // namespace catena::test
