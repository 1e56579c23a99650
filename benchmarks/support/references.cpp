#include "support/references.hpp"

#include <cmath>

#include "math/rotation.hpp"
#include "reference_odes.hpp"

namespace catena::bench {

DiscreteChain solveDiscreteChain(int N, double span, double length) {
  const double l = length / N;
  auto reach = [&](double c) {
    double s = 0.0;
    for (int k = 0; k < N; ++k) s += l / std::hypot(1.0, c * (k + 0.5 - 0.5 * N));
    return s;
  };
  // reach(0) = length > span, reach decreases to 0 as c grows.
  double lo = 0.0, hi = 1.0;
  while (reach(hi) > span) hi *= 2.0;
  for (int it = 0; it < 200 && hi - lo > 1e-16 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (reach(mid) > span ? lo : hi) = mid;
  }
  const double c = 0.5 * (lo + hi);
  DiscreteChain d;
  d.x.assign(1, 0.0);
  d.z.assign(1, 0.0);
  for (int k = 0; k < N; ++k) {
    const double t = c * (k + 0.5 - 0.5 * N), n = std::hypot(1.0, t);
    d.x.push_back(d.x.back() + l / n);
    d.z.push_back(d.z.back() + l * t / n);
  }
  d.h_over_w = l / c;  // c = w l / H
  return d;
}

Eigen::MatrixXd freeRigidBody(const Eigen::Vector3d& inertia, const Eigen::Vector3d& omega0,
                              const std::vector<double>& times) {
  const reference::OdeRhs rhs = [inertia](double, const Eigen::VectorXd& y) {
    const Vec3 w = y.tail<3>();
    Eigen::VectorXd f(12);
    Eigen::Map<Mat3>(f.data()) = Eigen::Map<const Mat3>(y.data()) * skew(w);
    f.tail<3>() = inertia.cwiseProduct(w).cross(w).cwiseQuotient(inertia);
    return f;
  };
  Eigen::VectorXd y0(12);
  y0.head<9>() = Eigen::Map<const Eigen::VectorXd>(Mat3::Identity().eval().data(), 9);
  y0.tail<3>() = omega0;
  return reference::integrateOde(rhs, 0.0, y0, times);
}

}  // namespace catena::bench
