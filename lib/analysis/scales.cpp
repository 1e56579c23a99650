#include "analysis/scales.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

namespace catena {

double lengthScale(const Model& m) {
  std::vector<Vec3> points;
  for (const Body& b : m.bodies) points.push_back(b.position);
  for (const Marker& k : m.markers)
    if (k.body == kGround) points.push_back(k.position);
  if (points.empty()) return 1.0;
  Vec3 c = Vec3::Zero();
  for (const Vec3& p : points) c += p;
  c /= static_cast<double>(points.size());
  double r = 0.0;
  for (const Vec3& p : points) r = std::max(r, (p - c).norm());
  return r > 0.0 ? r : 1.0;
}

double naturalNorm(const Model& m, const VecX& dq, double length_scale) {
  const int per = m.nv_body, lin = m.dimension == 3 ? 3 : 2;
  double s = 0.0;
  for (Index i = 0; i < dq.size(); ++i) {
    const double x = (i % per) < lin ? dq(i) / length_scale : dq(i);
    s += x * x;
  }
  return std::sqrt(s);
}

double largestRotation(const Model& m, const VecX& dq) {
  const int per = m.nv_body, lin = m.dimension == 3 ? 3 : 2;
  double r = 0.0;
  for (Index b = 0; b < dq.size() / per; ++b)
    r = std::max(r, dq.segment(b * per + lin, per - lin).norm());
  return r;
}

VecX displacementWeights(const Model& m, double length_scale) {
  const int per = m.nv_body, lin = m.dimension == 3 ? 3 : 2;
  std::vector<double> size(m.bodies.size(), 0.0);
  for (std::size_t b = 0; b < m.bodies.size(); ++b) {
    const Body& body = m.bodies[b];
    const double gyration =
        body.mass > 0.0 ? std::sqrt(body.inertia.diagonal().maxCoeff() / body.mass) : 0.0;
    size[b] = std::max(body.com.norm(), gyration);
  }
  for (const Marker& k : m.markers)
    if (k.body != kGround) size[k.body] = std::max(size[k.body], k.position.norm());
  VecX w(m.nv);
  for (Index i = 0; i < m.nv; ++i) {
    const double s = size[i / per];
    w(i) = (i % per) < lin ? 1.0 / length_scale : (s > 0.0 ? s / length_scale : 1.0);
  }
  return w;
}

double weightedMaxNorm(const VecX& weights, const VecX& dq) {
  return dq.size() ? weights.cwiseProduct(dq).cwiseAbs().maxCoeff() : 0.0;
}

double constraintRowScale(const SparseMatrixCSR& A, const SparseMatrixCSR& Cq) {
  double a = 0.0, c = 0.0;
  for (int k = 0; k < A.nonZeros(); ++k) a = std::max(a, std::abs(A.valuePtr()[k]));
  for (int k = 0; k < Cq.nonZeros(); ++k) c = std::max(c, std::abs(Cq.valuePtr()[k]));
  return (a > 0.0 && c > 0.0) ? a / c : 1.0;
}

std::vector<std::string> worstRows(const Model& m, const VecX& C, int count) {
  std::vector<Index> order(C.size());
  std::iota(order.begin(), order.end(), 0);
  const auto n = std::min<std::size_t>(static_cast<std::size_t>(std::max(count, 0)), order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<long>(n), order.end(),
                    [&](Index a, Index b) { return std::abs(C(a)) > std::abs(C(b)); });
  std::vector<std::string> out;
  for (std::size_t k = 0; k < n; ++k) {
    std::ostringstream os;
    os << m.rowName(order[k]) << ": " << C(order[k]);
    out.push_back(os.str());
  }
  return out;
}

}  // namespace catena
