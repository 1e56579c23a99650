#define BOOST_TEST_MODULE body
// Body kernels against an independent formulation (the body as a cloud of point masses, each
// with its own acceleration and weight) and their derivatives against finite differences.
#include "kernels/body.hpp"

#include "test_support.hpp"

namespace catena::test {

constexpr int kSamples = 20;

struct Cloud {
  std::vector<double> m;
  std::vector<Vec3> x;  // positions in the body frame
};

/// A random cloud and the Body (mass, com, inertia about the com) it defines.
Body cloudBody(Random& rnd, Cloud& cloud, bool planar) {
  Body b;
  b.name = "cloud";
  for (int i = 0; i < 7; ++i) {
    cloud.m.push_back(rnd.uniform(0.5, 2.0));
    Vec3 x = rnd.vec3(0.8) + Vec3(0.3, -0.2, planar ? 0.0 : 0.4);
    if (planar) x.z() = 0.0;
    cloud.x.push_back(x);
  }
  for (std::size_t i = 0; i < cloud.m.size(); ++i) {
    b.mass += cloud.m[i];
    b.com += cloud.m[i] * cloud.x[i];
  }
  b.com /= b.mass;
  for (std::size_t i = 0; i < cloud.m.size(); ++i) {
    const Vec3 y = cloud.x[i] - b.com;
    b.inertia += cloud.m[i] * (y.squaredNorm() * Mat3::Identity() - y * y.transpose());
  }
  return b;
}

/// Generalized inertial force of the cloud minus its weight, for body acceleration (a_r, alpha).
Vec6 cloudForces3(const Cloud& c, const Mat3& R, const Vec3& w, const Vec6& a, const Vec3& g) {
  Vec6 f = Vec6::Zero();
  for (std::size_t i = 0; i < c.m.size(); ++i) {
    const Vec3& x = c.x[i];
    const Vec3 acc = a.head<3>() + R * (a.tail<3>().cross(x) + w.cross(w.cross(x)));
    const Vec3 net = c.m[i] * (acc - g);
    f.head<3>() += net;
    f.tail<3>() += x.cross(R.transpose() * net);
  }
  return f;
}

BOOST_AUTO_TEST_CASE(spatial_body_matches_point_cloud) {
  Random rnd(301);
  for (int s = 0; s < kSamples; ++s) {
    Cloud cloud;
    const Body b = cloudBody(rnd, cloud, false);
    const Mat3 R = rnd.quat().toRotationMatrix();
    const Vec3 w = rnd.vec3(2.0), g = rnd.vec3(10.0);
    const Vec6 a = (Vec6() << rnd.vec3(), rnd.vec3()).finished();
    const Vec6 lhs = computeBodyMass3(b, R) * a + computeBodyInertialForces3(b, R, w) -
                     computeBodyGravity3(b, R, g);
    checkClose(lhs, cloudForces3(cloud, R, w, a, g), 1e-12, "M a + f_g - gravity");
    const Mat6 M = computeBodyMass3(b, R);
    checkClose(M, M.transpose(), 1e-14, "M symmetric");
    checkClose(computeBodyMassTimes3(b, R, a), Vec6(M * a), 1e-13, "M a without M");
  }
}

BOOST_AUTO_TEST_CASE(spatial_body_derivatives) {
  Random rnd(302);
  for (int s = 0; s < kSamples; ++s) {
    Cloud cloud;
    const Body b = cloudBody(rnd, cloud, false);
    const Quat rho = rnd.quat();
    const Vec3 w = rnd.vec3(2.0), g = rnd.vec3(10.0);
    const Vec6 a = (Vec6() << rnd.vec3(), rnd.vec3()).finished();
    auto residual = [&](const Quat& q, const Vec3& ww) {
      const Mat3 R = q.toRotationMatrix();
      return Vec6(computeBodyMass3(b, R) * a + computeBodyInertialForces3(b, R, ww) -
                  computeBodyGravity3(b, R, g));
    };
    Mat6 Kfd = Mat6::Zero(), Dfd = Mat6::Zero();
    for (int k = 0; k < 3; ++k) {
      const Vec3 e = Vec3::Unit(k);
      Kfd.col(3 + k) =
          (residual(boxPlus(rho, kFdStep * e), w) - residual(boxPlus(rho, -kFdStep * e), w)) /
          (2 * kFdStep);
      Dfd.col(3 + k) =
          (residual(rho, w + kFdStep * e) - residual(rho, w - kFdStep * e)) / (2 * kFdStep);
    }
    const Mat3 R = rho.toRotationMatrix();
    checkClose(computeBodyStiffness3(b, R, w, a, g), Kfd, 1e-6, "d(Ma + f_g - weight)/dq");
    checkClose(computeBodyInertialDamping3(b, R, w), Dfd, 1e-6, "d f_g / dv");
  }
}

BOOST_AUTO_TEST_CASE(planar_body_matches_point_cloud_and_differences) {
  Random rnd(303);
  for (int s = 0; s < kSamples; ++s) {
    Cloud cloud;
    const Body b = cloudBody(rnd, cloud, true);
    const double th = rnd.uniform(-3, 3), w = rnd.uniform(-2, 2);
    const Vec2 g = rnd.vec2(10.0);
    const Vec3 a(rnd.uniform(), rnd.uniform(), rnd.uniform());
    auto residual = [&](double t, double ww) {
      const Mat2 R = rot2(t);
      return Vec3(computeBodyMass2(b, R) * a + computeBodyInertialForces2(b, R, ww) -
                  computeBodyGravity2(b, R, g));
    };
    // Cloud: each point accelerates with a_r + alpha E R x - w^2 R x.
    Vec3 ref = Vec3::Zero();
    const Mat2 R = rot2(th);
    for (std::size_t i = 0; i < cloud.m.size(); ++i) {
      const Vec2 arm = R * cloud.x[i].head<2>();
      const Vec2 acc = a.head<2>() + a(2) * (perp2() * arm) - w * w * arm;
      const Vec2 net = cloud.m[i] * (acc - g);
      ref += Vec3(net.x(), net.y(), cross2(arm, net));
    }
    checkClose(residual(th, w), ref, 1e-12, "planar M a + f_g - gravity");
    Mat3 Kfd = Mat3::Zero(), Dfd = Mat3::Zero();
    Kfd.col(2) = (residual(th + kFdStep, w) - residual(th - kFdStep, w)) / (2 * kFdStep);
    Dfd.col(2) = (residual(th, w + kFdStep) - residual(th, w - kFdStep)) / (2 * kFdStep);
    checkClose(computeBodyStiffness2(b, R, w, a, g), Kfd, 1e-6, "planar stiffness");
    checkClose(computeBodyInertialDamping2(b, R, w), Dfd, 1e-6, "planar damping");
  }
}

}  // namespace catena::test
