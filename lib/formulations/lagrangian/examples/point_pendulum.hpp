#pragma once
/// @file point_pendulum.hpp
/// Point mass m on a massless rod of length l pivoted at the origin, in Cartesian coordinates
/// q = r (dim = 2: planar, y up; dim = 3: spherical, z up), gravity -g along the last axis:
///   L = m |r'|^2 / 2 - m g r_last,   C = |r|^2 - l^2.

#include "formulations/lagrangian/lagrangian_ad.hpp"

namespace catena::lagrangian::examples {

template <int dim>
struct PointPendulum {
  static constexpr int nq = dim, nc = 1;
  double m = 1.0, l = 1.0, g = 9.81;

  template <class S>
  void operator()(const LVec<S, dim>& q, const LVec<S, dim>& qd, S& L, LVec<S, 1>& C) const {
    L = 0.5 * m * qd.squaredNorm() - m * g * q(dim - 1);
    C(0) = q.squaredNorm() - l * l;
  }
};

}  // namespace catena::lagrangian::examples
