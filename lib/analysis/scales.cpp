#include "analysis/scales.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "assembly/assemble.hpp"

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

std::vector<double> bodySizes(const Model& m) {
  std::vector<double> size(m.bodies.size(), 0.0);
  for (std::size_t b = 0; b < m.bodies.size(); ++b) {
    const Body& body = m.bodies[b];
    const double gyration =
        body.mass > 0.0 ? std::sqrt(body.inertia.diagonal().maxCoeff() / body.mass) : 0.0;
    size[b] = std::max(body.com.norm(), gyration);
  }
  for (const Marker& k : m.markers)
    if (k.body != kGround) size[k.body] = std::max(size[k.body], k.position.norm());
  return size;
}

VecX forceTermMagnitudes(const VecX& f_mag, const SparseMatrixCSR& Cq, const VecX& lambda) {
  VecX terms = f_mag;
  for (int row = 0; row < Cq.outerSize(); ++row)
    for (SparseMatrixCSR::InnerIterator it(Cq, row); it; ++it)
      terms(it.col()) += std::abs(it.value() * lambda(row));
  return terms;
}

double bodyForceResidual(const Model& m, const VecX& r, const VecX& terms,
                         const std::vector<double>& sizes, Index* worst) {
  const int per = m.nv_body, lin = m.dimension == 3 ? 3 : 2;
  double largest = 0.0;
  if (worst) *worst = -1;
  for (Index b = 0; b * per < r.size(); ++b) {
    const Index o = b * per;
    const double force = terms.segment(o, lin).maxCoeff();
    const double moment = std::max(terms.segment(o + lin, per - lin).maxCoeff(), force * sizes[b]);
    const double rf = r.segment(o, lin).cwiseAbs().maxCoeff();
    const double rm = r.segment(o + lin, per - lin).cwiseAbs().maxCoeff();
    double e = 0.0;
    if (rf > 0.0) e = force > 0.0 ? rf / force : INFINITY;
    if (rm > 0.0) e = std::max(e, moment > 0.0 ? rm / moment : INFINITY);
    if (e > largest) {
      largest = e;
      if (worst) *worst = b;
    }
  }
  return largest;
}

double jointPositionResidual(const Model& m, const VecX& C, const VecX& q,
                             const std::vector<double>& sizes, double length_scale,
                             double tolerance, Index* worst) {
  const int lin = m.dimension == 3 ? 3 : 2;
  const double floor_factor = kRoundoffTolerance / std::max(tolerance, kRoundoffTolerance);
  double largest = 0.0;
  if (worst) *worst = -1;
  for (Index j = 0; j < static_cast<Index>(m.joints.size()); ++j) {
    const Joint& J = m.joints[j];
    double size = 0.0, distance = 0.0;
    for (const Index k : {J.marker1, J.marker2}) {
      const Index b = m.markers[k].body;
      if (b == kGround) {
        distance = std::max(distance, m.markers[k].position.norm());
      } else {
        size = std::max(size, sizes[b]);
        distance = std::max(distance, q.segment(m.qOffset(b), lin).norm() + sizes[b]);
      }
    }
    const double length = std::max(size > 0.0 ? size : length_scale, distance * floor_factor);
    int k = 0;
    for (int axis = 0; axis < m.rows_per_joint; ++axis) {
      if (!(J.mask & (1u << axis))) continue;
      const Index row = m.joint_row_offset[j] + k++;
      const bool rotation = J.type != JointType::kDistance && axis >= lin;
      const double e = std::abs(C(row)) / (rotation ? 1.0 : length);
      if (e > largest) {
        largest = e;
        if (worst) *worst = row;
      }
    }
  }
  return largest;
}

VecX displacementWeights(const Model& m, double length_scale) {
  const int per = m.nv_body, lin = m.dimension == 3 ? 3 : 2;
  const std::vector<double> size = bodySizes(m);
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

double maxAbsEntry(const SparseMatrixCSR& A) {
  double a = 0.0;
  for (int k = 0; k < A.nonZeros(); ++k) a = std::max(a, std::abs(A.valuePtr()[k]));
  return a;
}

double constraintRowScale(double a_max, double cq_max) {
  return (a_max > 0.0 && cq_max > 0.0) ? a_max / cq_max : 1.0;
}

double constraintRowScale(const SparseMatrixCSR& A, const SparseMatrixCSR& Cq) {
  return constraintRowScale(maxAbsEntry(A), maxAbsEntry(Cq));
}

std::vector<RankedText> rankedWorstRows(const Model& m, const VecX& C, int count) {
  std::vector<Index> order(C.size());
  std::iota(order.begin(), order.end(), 0);
  const auto n = std::min<std::size_t>(static_cast<std::size_t>(std::max(count, 0)), order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<long>(n), order.end(),
                    [&](Index a, Index b) { return std::abs(C(a)) > std::abs(C(b)); });
  std::vector<RankedText> out;
  for (std::size_t k = 0; k < n; ++k) {
    std::ostringstream os;
    os << m.rowName(order[k]) << ": " << C(order[k]);
    out.push_back({std::abs(C(order[k])), os.str()});
  }
  return out;
}

std::vector<std::string> worstRowsAt(const Model& m, const AssemblyPlan& plan, const VecX& q,
                                     double t, int count) {
  VecX C(m.nc);
  assembleConstraints(m, plan, q, t, &C, nullptr);
  return worstRows(m, C, count);
}

std::vector<std::string> worstRows(const Model& m, const VecX& C, int count) {
  std::vector<std::string> out;
  for (RankedText& r : rankedWorstRows(m, C, count)) out.push_back(std::move(r.text));
  return out;
}

}  // namespace catena
