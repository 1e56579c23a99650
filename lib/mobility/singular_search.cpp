#include "mobility/singular_search.hpp"

#include <cmath>

#include "math/rotation.hpp"
#include "model/state.hpp"

namespace catena {

VecX configurationDifference(const Model& m, const VecX& qa, const VecX& qb) {
  VecX d(m.nv);
  for (Index b = 0; b < static_cast<Index>(m.bodies.size()); ++b) {
    const Index iq = m.qOffset(b), iv = m.vOffset(b);
    d.segment<3>(iv) = qb.segment<3>(iq) - qa.segment<3>(iq);
    if (m.dimension == 3) {
      const Quat ra(qa(iq + 3), qa(iq + 4), qa(iq + 5), qa(iq + 6));
      const Quat rb(qb(iq + 3), qb(iq + 4), qb(iq + 5), qb(iq + 6));
      d.segment<3>(iv + 3) = quatLog(ra.conjugate() * rb);
    }
  }
  return d;
}

VecX interpolatePath(const Model& model, const PathSample& a, const PathSample& b, double tau) {
  const double h = b.t - a.t, x = (tau - a.t) / h;
  const double h10 = x * x * x - 2.0 * x * x + x, h01 = -2.0 * x * x * x + 3.0 * x * x,
               h11 = x * x * x - x * x;
  const VecX delta = h10 * h * a.v + h01 * configurationDifference(model, a.q, b.q) + h11 * h * b.v;
  VecX q = a.q;
  applyVariation(model, delta, 1.0, q);
  return q;
}

bool bracketsSingular(const PathSample& a, const PathSample& b, const PathSample& c,
                      double margin) {
  return b.smallest < a.smallest && b.smallest <= c.smallest && b.smallest < margin;
}

PathMinimum minimizeAlongPath(const Model& model, const PathSample& a, const PathSample& b,
                              const PathSample& c,
                              const std::function<double(double, const VecX&)>& pivot) {
  auto at = [&](double tau, VecX& q) {
    q = tau <= b.t ? interpolatePath(model, a, b, tau) : interpolatePath(model, b, c, tau);
    return pivot(tau, q);
  };
  const double g = 0.5 * (std::sqrt(5.0) - 1.0);
  double lo = a.t, hi = c.t;
  VecX q;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = at(x1, q), f2 = at(x2, q);
  for (int k = 0; k < 200 && hi - lo > 1e-14 * std::max(1.0, std::abs(hi)); ++k) {
    if (f1 < f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = at(x1, q);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = at(x2, q);
    }
  }
  PathMinimum m;
  m.t = 0.5 * (lo + hi);
  m.value = at(m.t, q);
  m.q = std::move(q);
  return m;
}

}  // namespace catena
