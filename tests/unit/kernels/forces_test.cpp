#define BOOST_TEST_MODULE forces
// Applied-force kernels: the conservative parts against minus the gradient of their potential,
// and K = -df/dq, D = -df/dv against finite differences at random states.
#include "kernels/forces.hpp"

#include "test_support.hpp"

using namespace catena;
using catena::test::checkClose;

namespace {

constexpr int kSamples = 20;
constexpr double kH = 1e-6;
constexpr double kTol = 1e-6;

Pose3 makePose3(const Vec3& r, const Quat& rho) {
  Pose3 p;
  p.r = r;
  p.rho = rho;
  p.R = rho.toRotationMatrix();
  return p;
}
Pose2 makePose2(const Vec2& r, double th) {
  Pose2 p;
  p.r = r;
  p.theta = th;
  p.R = rot2(th);
  return p;
}

struct State3 {
  Pose3 b1, b2;
  Twist3 t1, t2;
  // Perturbed along coordinate k of (dr1, th1, dr2, th2) or velocity k of (v1, w1, v2, w2).
  State3 moved(int k, double h, bool velocity) const {
    State3 s = *this;
    if (velocity) {
      Twist3& t = k < 6 ? s.t1 : s.t2;
      (k % 6 < 3 ? t.v : t.w)(k % 3) += h;
      return s;
    }
    Pose3& b = k < 6 ? s.b1 : s.b2;
    if (k % 6 < 3)
      b.r(k % 3) += h;
    else
      b = makePose3(b.r, boxPlus(b.rho, h * Vec3::Unit(k % 3)));
    return s;
  }
};

State3 randomState3(test::Random& rnd) {
  return {makePose3(rnd.vec3(2), rnd.quat()),
          makePose3(rnd.vec3(2), rnd.quat()),
          {rnd.vec3(), rnd.vec3(2)},
          {rnd.vec3(), rnd.vec3(2)}};
}

MarkerFrame randomFrame(test::Random& rnd, bool planar) {
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
    fd.col(k) = -(force(s.moved(k, kH, velocity)) - force(s.moved(k, -kH, velocity))) / (2 * kH);
  return fd;
}

}  // namespace

BOOST_AUTO_TEST_CASE(spatial_spring_damper) {
  test::Random rnd(401);
  for (int i = 0; i < kSamples; ++i) {
    SpringDamper sd{"s",
                    0,
                    1,
                    rnd.uniform(10, 100),
                    rnd.uniform(0, 5),
                    rnd.uniform(0.2, 1.5),
                    rnd.uniform(-3, 3)};
    const MarkerFrame f1 = randomFrame(rnd, false), f2 = randomFrame(rnd, false);
    const State3 s = randomState3(rnd);
    auto force = [&](const State3& x) {
      return computeSpring3(sd, f1, f2, x.b1, x.t1, x.b2, x.t2);
    };
    ForceJacobians3 J;
    computeSpringJacobians3(sd, f1, f2, s.b1, s.t1, s.b2, s.t2, J);
    checkClose(J.K, negativeDerivative3(s, false, force), kTol, "spring K");
    checkClose(J.D, negativeDerivative3(s, true, force), kTol, "spring D");
    // Without damping the force is -dV/dq, V = k/2 (L - L0)^2 + preload L.
    SpringDamper el = sd;
    el.damping = 0.0;
    auto potential = [&](const State3& x) {
      const double L = (x.b1.r + x.b1.R * f1.p - x.b2.r - x.b2.R * f2.p).norm();
      return 0.5 * el.stiffness * (L - el.rest_length) * (L - el.rest_length) + el.preload * L;
    };
    Vec12 grad;
    for (int k = 0; k < 12; ++k)
      grad(k) = -(potential(s.moved(k, kH, false)) - potential(s.moved(k, -kH, false))) / (2 * kH);
    checkClose(computeSpring3(el, f1, f2, s.b1, s.t1, s.b2, s.t2), grad, kTol, "spring = -dV/dq");
  }
}

BOOST_AUTO_TEST_CASE(spatial_rotational_spring_damper) {
  test::Random rnd(402);
  for (int i = 0; i < kSamples; ++i) {
    RotationalSpringDamper rs{"r", 0, 1, rnd.uniform(10, 100), rnd.uniform(0, 5), 0.0};
    const MarkerFrame f1 = randomFrame(rnd, false), f2 = randomFrame(rnd, false);
    State3 s = randomState3(rnd);
    // Keep the relative rotation below pi (Log is smooth there): F1 near F2.
    const Quat rel = quatExp(rnd.vec3(1.2));
    s.b1 = makePose3(s.b1.r, s.b2.rho * f2.alpha * rel * f1.alpha.conjugate());
    auto torque = [&](const State3& x) {
      return computeRotationalSpring3(rs, f1, f2, x.b1, x.t1, x.b2, x.t2);
    };
    ForceJacobians3 J;
    computeRotationalSpringJacobians3(rs, f1, f2, s.b1, s.t1, s.b2, s.t2, J);
    checkClose(J.K, negativeDerivative3(s, false, torque), kTol, "rotational spring K");
    checkClose(J.D, negativeDerivative3(s, true, torque), kTol, "rotational spring D");
    // Elastic part is -dV/dq with V = k/2 |Log(R_F2^T R_F1)|^2.
    RotationalSpringDamper el = rs;
    el.damping = 0.0;
    auto potential = [&](const State3& x) {
      const Vec3 phi = quatLog((x.b2.rho * f2.alpha).conjugate() * (x.b1.rho * f1.alpha));
      return 0.5 * el.stiffness * phi.squaredNorm();
    };
    Vec12 grad;
    for (int k = 0; k < 12; ++k)
      grad(k) = -(potential(s.moved(k, kH, false)) - potential(s.moved(k, -kH, false))) / (2 * kH);
    checkClose(computeRotationalSpring3(el, f1, f2, s.b1, s.t1, s.b2, s.t2), grad, kTol,
               "rotational spring = -dV/dq");
  }
}

BOOST_AUTO_TEST_CASE(spatial_marker_loads) {
  test::Random rnd(403);
  for (int i = 0; i < kSamples; ++i) {
    for (bool follower : {false, true}) {
      MarkerLoad l{"l",         0,        rnd.vec3(10),
                   rnd.vec3(5), follower, TimeFunction::sine(1.0, 0.5, 0.3, 0.1)};
      const MarkerFrame f = randomFrame(rnd, false);
      const Pose3 b = makePose3(rnd.vec3(), rnd.quat());
      const double t = rnd.uniform(0, 2);
      Mat6 fd;
      for (int k = 0; k < 6; ++k) {
        auto at = [&](double h) {
          Pose3 p = b;
          if (k < 3)
            p.r(k) += h;
          else
            p = makePose3(b.r, boxPlus(b.rho, h * Vec3::Unit(k - 3)));
          return computeMarkerLoad3(l, f, p, t);
        };
        fd.col(k) = -(at(kH) - at(-kH)) / (2 * kH);
      }
      checkClose(computeMarkerLoadStiffness3(l, f, b, t), fd, kTol,
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
  test::Random rnd(404);
  for (int i = 0; i < kSamples; ++i) {
    SpringDamper sd{"s",
                    0,
                    1,
                    rnd.uniform(10, 100),
                    rnd.uniform(0, 5),
                    rnd.uniform(0.2, 1.5),
                    rnd.uniform(-3, 3)};
    RotationalSpringDamper rs{
        "r", 0, 1, rnd.uniform(10, 100), rnd.uniform(0, 5), rnd.uniform(-1, 1)};
    const MarkerFrame f1 = randomFrame(rnd, true), f2 = randomFrame(rnd, true);
    const Vec6 q0 =
        (Vec6() << rnd.vec2(2), rnd.uniform(-3, 3), rnd.vec2(2), rnd.uniform(-3, 3)).finished();
    const Vec6 v0 =
        (Vec6() << rnd.vec2(), rnd.uniform(-2, 2), rnd.vec2(), rnd.uniform(-2, 2)).finished();
    auto eval = [&](const Vec6& q, const Vec6& v, bool spring) {
      const Pose2 b1 = makePose2(q.head<2>(), q(2)), b2 = makePose2(q.segment<2>(3), q(5));
      const Twist2 t1{v.head<2>(), v(2)}, t2{v.segment<2>(3), v(5)};
      return spring ? computeSpring2(sd, f1, f2, b1, t1, b2, t2)
                    : computeRotationalSpring2(rs, f1, f2, b1, t1, b2, t2);
    };
    for (bool spring : {true, false}) {
      Mat6 Kfd, Dfd;
      for (int k = 0; k < 6; ++k) {
        const Vec6 e = kH * Vec6::Unit(k);
        Kfd.col(k) = -(eval(q0 + e, v0, spring) - eval(q0 - e, v0, spring)) / (2 * kH);
        Dfd.col(k) = -(eval(q0, v0 + e, spring) - eval(q0, v0 - e, spring)) / (2 * kH);
      }
      ForceJacobians2 J;
      const Pose2 b1 = makePose2(q0.head<2>(), q0(2)), b2 = makePose2(q0.segment<2>(3), q0(5));
      const Twist2 t1{v0.head<2>(), v0(2)}, t2{v0.segment<2>(3), v0(5)};
      if (spring)
        computeSpringJacobians2(sd, f1, f2, b1, t1, b2, t2, J);
      else
        computeRotationalSpringJacobians2(rs, J);
      checkClose(J.K, Kfd, kTol, spring ? "planar spring K" : "planar rotational spring K");
      checkClose(J.D, Dfd, kTol, spring ? "planar spring D" : "planar rotational spring D");
    }
    for (bool follower : {false, true}) {
      MarkerLoad l{"l",
                   0,
                   Vec3(rnd.uniform(), rnd.uniform(), 0.0),
                   Vec3(0, 0, rnd.uniform()),
                   follower,
                   TimeFunction::constant(2.0)};
      const double th = rnd.uniform(-3, 3);
      const Pose2 b = makePose2(rnd.vec2(), th);
      Mat3 fd = Mat3::Zero();
      for (int k = 0; k < 3; ++k) {
        Pose2 p = b, m = b;
        if (k < 2) {
          p.r(k) += kH;
          m.r(k) -= kH;
        } else {
          p = makePose2(b.r, th + kH);
          m = makePose2(b.r, th - kH);
        }
        fd.col(k) =
            -(computeMarkerLoad2(l, f1, p, 0.0) - computeMarkerLoad2(l, f1, m, 0.0)) / (2 * kH);
      }
      checkClose(computeMarkerLoadStiffness2(l, f1, b, 0.0), fd, kTol, "planar load K");
    }
  }
}
