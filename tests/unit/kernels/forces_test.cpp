#define BOOST_TEST_MODULE forces
// Applied-force kernels: the conservative parts against minus the gradient of their potential,
// and K = -df/dq, D = -df/dv against finite differences at random states.
#include "kernels/forces.hpp"

#include "kernel_test_support.hpp"

namespace catena::test {

constexpr int kSamples = 20;

using State3 = TwoBodies<Pose3, Twist3>;

/// Perturbed along coordinate k of (dr1, th1, dr2, th2) or velocity k of (v1, w1, v2, w2).
State3 moved(const State3& s, int k, double h, bool velocity) {
  if (!velocity) return perturbed(s, k, h);
  State3 m = s;
  Twist3& t = k < 6 ? m.t1 : m.t2;
  (k % 6 < 3 ? t.v : t.w)(k % 3) += h;
  return m;
}

State3 randomState3(Random& rnd) {
  return {makePose(rnd.vec3(2), rnd.quat()),
          makePose(rnd.vec3(2), rnd.quat()),
          {rnd.vec3(), rnd.vec3(2)},
          {rnd.vec3(), rnd.vec3(2)}};
}

/// A spring-damper between markers 0 and 1 with random stiffness, damping, rest length, preload.
SpringDamper randomSpring(Random& rnd) {
  return {"s",
          0,
          1,
          rnd.uniform(10, 100),
          rnd.uniform(0, 5),
          rnd.uniform(0.2, 1.5),
          rnd.uniform(-3, 3)};
}

MarkerFrame randomFrame(Random& rnd, bool planar) {
  MarkerFrame f;
  if (planar) {
    f.p = Vec3(rnd.uniform(), rnd.uniform(), 0.0);
    f.angle = rnd.uniform(-3, 3);
    f.alpha = Quat(Eigen::AngleAxisd(f.angle, Vec3::UnitZ()));
  } else {
    f.p = rnd.vec3(0.7);
    f.alpha = rnd.quat();
  }
  f.A = f.alpha.toRotationMatrix();
  return f;
}

/// Finite-difference -df/dq or -df/dv of a 12-entry two-body force.
template <typename F>
Mat12x12 negativeDerivative3(const State3& s, bool velocity, F&& force) {
  Mat12x12 fd;
  for (int k = 0; k < 12; ++k)
    fd.col(k) = -(force(moved(s, k, kFdStep, velocity)) - force(moved(s, k, -kFdStep, velocity))) /
                (2 * kFdStep);
  return fd;
}

/// J.K and J.D of a two-body force against -df/dq and -df/dv by central differences.
template <typename F>
void checkJacobians3(const ForceJacobians3& J, const State3& s, F&& force,
                     const std::string& what) {
  checkClose(J.K, negativeDerivative3(s, false, force), kFdTol, what + " K");
  checkClose(J.D, negativeDerivative3(s, true, force), kFdTol, what + " D");
}

/// -dV/dq of a potential of the two bodies' poses by central differences.
template <typename F>
Vec12 negativeGradient3(const State3& s, F&& potential) {
  Vec12 grad;
  for (int k = 0; k < 12; ++k)
    grad(k) = -(potential(perturbed(s, k, kFdStep)) - potential(perturbed(s, k, -kFdStep))) /
              (2 * kFdStep);
  return grad;
}

BOOST_AUTO_TEST_CASE(spatial_spring_damper) {
  Random rnd(401);
  for (int i = 0; i < kSamples; ++i) {
    const SpringDamper sd = randomSpring(rnd);
    const MarkerFrame f1 = randomFrame(rnd, false), f2 = randomFrame(rnd, false);
    const State3 s = randomState3(rnd);
    auto force = [&](const State3& x) {
      return computeSpring3(sd, f1, f2, x.b1, x.t1, x.b2, x.t2);
    };
    ForceJacobians3 J;
    computeSpringJacobians3(sd, f1, f2, s.b1, s.t1, s.b2, s.t2, J);
    checkJacobians3(J, s, force, "spring");
    // Without damping the force is -dV/dq, V = k/2 (L - L0)^2 + preload L.
    SpringDamper el = sd;
    el.damping = 0.0;
    auto potential = [&](const State3& x) {
      const double L = (x.b1.r + x.b1.R * f1.p - x.b2.r - x.b2.R * f2.p).norm();
      return 0.5 * el.stiffness * (L - el.rest_length) * (L - el.rest_length) + el.preload * L;
    };
    const Vec12 grad = negativeGradient3(s, potential);
    checkClose(computeSpring3(el, f1, f2, s.b1, s.t1, s.b2, s.t2), grad, kFdTol, "spring = -dV/dq");
  }
}

BOOST_AUTO_TEST_CASE(spatial_rotational_spring_damper) {
  Random rnd(402);
  for (int i = 0; i < kSamples; ++i) {
    RotationalSpringDamper rs{"r", 0, 1, rnd.uniform(10, 100), rnd.uniform(0, 5), 0.0};
    const MarkerFrame f1 = randomFrame(rnd, false), f2 = randomFrame(rnd, false);
    State3 s = randomState3(rnd);
    // Keep the relative rotation below pi (Log is smooth there): F1 near F2.
    const Quat rel = quatExp(rnd.vec3(1.2));
    s.b1 = makePose(s.b1.r, s.b2.rho * f2.alpha * rel * f1.alpha.conjugate());
    auto torque = [&](const State3& x) {
      return computeRotationalSpring3(rs, f1, f2, x.b1, x.t1, x.b2, x.t2);
    };
    ForceJacobians3 J;
    computeRotationalSpringJacobians3(rs, f1, f2, s.b1, s.t1, s.b2, s.t2, J);
    checkJacobians3(J, s, torque, "rotational spring");
    // Elastic part is -dV/dq with V = k/2 |Log(R_F2^T R_F1)|^2.
    RotationalSpringDamper el = rs;
    el.damping = 0.0;
    auto potential = [&](const State3& x) {
      const Vec3 phi = quatLog((x.b2.rho * f2.alpha).conjugate() * (x.b1.rho * f1.alpha));
      return 0.5 * el.stiffness * phi.squaredNorm();
    };
    const Vec12 grad = negativeGradient3(s, potential);
    checkClose(computeRotationalSpring3(el, f1, f2, s.b1, s.t1, s.b2, s.t2), grad, kFdTol,
               "rotational spring = -dV/dq");
  }
}

BOOST_AUTO_TEST_CASE(spatial_marker_loads) {
  Random rnd(403);
  for (int i = 0; i < kSamples; ++i) {
    for (bool follower : {false, true}) {
      MarkerLoad l{"l",         0,        rnd.vec3(10),
                   rnd.vec3(5), follower, TimeFunction::sine(1.0, 0.5, 0.3, 0.1)};
      const MarkerFrame f = randomFrame(rnd, false);
      const Pose3 b = makePose(rnd.vec3(), rnd.quat());
      const double t = rnd.uniform(0, 2);
      Mat6 fd;
      for (int k = 0; k < 6; ++k) {
        auto at = [&](double h) { return computeMarkerLoad3(l, f, movedPose(b, k, h), t); };
        fd.col(k) = -(at(kFdStep) - at(-kFdStep)) / (2 * kFdStep);
      }
      checkClose(computeMarkerLoadStiffness3(l, f, b, t), fd, kFdTol,
                 follower ? "follower load K" : "world load K");
      // The generalized force does the same virtual work as the force at the marker point.
      const Vec3 F = l.scale.evaluate(t).value * (follower ? Vec3(b.R * f.A * l.force) : l.force);
      const Vec3 dr = rnd.vec3(), th = rnd.vec3();
      const Vec3 dpoint = dr + b.R * th.cross(f.p);
      const Vec6 q = computeMarkerLoad3(l, f, b, t);
      const Vec3 T = l.scale.evaluate(t).value * (follower ? Vec3(b.R * f.A * l.torque) : l.torque);
      BOOST_TEST(q.head<3>().dot(dr) + q.tail<3>().dot(th) == F.dot(dpoint) + T.dot(b.R * th),
                 boost::test_tools::tolerance(1e-12));
    }
  }
}

BOOST_AUTO_TEST_CASE(planar_forces) {
  Random rnd(404);
  for (int i = 0; i < kSamples; ++i) {
    const SpringDamper sd = randomSpring(rnd);
    RotationalSpringDamper rs{
        "r", 0, 1, rnd.uniform(10, 100), rnd.uniform(0, 5), rnd.uniform(-1, 1)};
    const MarkerFrame f1 = randomFrame(rnd, true), f2 = randomFrame(rnd, true);
    const Vec6 q0 =
        (Vec6() << rnd.vec2(2), rnd.uniform(-3, 3), rnd.vec2(2), rnd.uniform(-3, 3)).finished();
    const Vec6 v0 =
        (Vec6() << rnd.vec2(), rnd.uniform(-2, 2), rnd.vec2(), rnd.uniform(-2, 2)).finished();
    auto eval = [&](const Vec6& q, const Vec6& v, bool spring) {
      const Pose2 b1 = makePose(q.head<2>(), q(2)), b2 = makePose(q.segment<2>(3), q(5));
      const Twist2 t1{v.head<2>(), v(2)}, t2{v.segment<2>(3), v(5)};
      return spring ? computeSpring2(sd, f1, f2, b1, t1, b2, t2)
                    : computeRotationalSpring2(rs, f1, f2, b1, t1, b2, t2);
    };
    for (bool spring : {true, false}) {
      Mat6 Kfd, Dfd;
      for (int k = 0; k < 6; ++k) {
        const Vec6 e = kFdStep * Vec6::Unit(k);
        Kfd.col(k) = -(eval(q0 + e, v0, spring) - eval(q0 - e, v0, spring)) / (2 * kFdStep);
        Dfd.col(k) = -(eval(q0, v0 + e, spring) - eval(q0, v0 - e, spring)) / (2 * kFdStep);
      }
      ForceJacobians2 J;
      const Pose2 b1 = makePose(q0.head<2>(), q0(2)), b2 = makePose(q0.segment<2>(3), q0(5));
      const Twist2 t1{v0.head<2>(), v0(2)}, t2{v0.segment<2>(3), v0(5)};
      if (spring)
        computeSpringJacobians2(sd, f1, f2, b1, t1, b2, t2, J);
      else
        computeRotationalSpringJacobians2(rs, J);
      checkClose(J.K, Kfd, kFdTol, spring ? "planar spring K" : "planar rotational spring K");
      checkClose(J.D, Dfd, kFdTol, spring ? "planar spring D" : "planar rotational spring D");
    }
    for (bool follower : {false, true}) {
      MarkerLoad l{"l",
                   0,
                   Vec3(rnd.uniform(), rnd.uniform(), 0.0),
                   Vec3(0, 0, rnd.uniform()),
                   follower,
                   TimeFunction::constant(2.0)};
      const double th = rnd.uniform(-3, 3);
      const Pose2 b = makePose(rnd.vec2(), th);
      Mat3 fd = Mat3::Zero();
      for (int k = 0; k < 3; ++k) {
        const Pose2 p = movedPose(b, k, kFdStep), m = movedPose(b, k, -kFdStep);
        fd.col(k) = -(computeMarkerLoad2(l, f1, p, 0.0) - computeMarkerLoad2(l, f1, m, 0.0)) /
                    (2 * kFdStep);
      }
      checkClose(computeMarkerLoadStiffness2(l, f1, b, 0.0), fd, kFdTol, "planar load K");
    }
  }
}

}  // namespace catena::test
