#pragma once
/// @file mechanism0.hpp
/// Mechanism0 of the natural-coordinates paper (sec. 4.1, Fig. 3; eqs. (30)-(32)), without the
/// optional torque (33): rod OA (mass M, length L) pivoting at the fixed origin O, a spring AB
/// (stiffness k, rest length ell, mass mu, a stretchable uniform thin rod) pinned at A, a
/// particle of mass m at B; gravity -g along y. q = (A, B) = (A_x, A_y, B_x, B_y):
///   T = M/6 |A'|^2 + mu/6 (|A'|^2 + A'.B' + |B'|^2) + m/2 |B'|^2,
///   V = M g A_y / 2 + mu g (A_y + B_y) / 2 + k (|B - A| - ell)^2 / 2 + m g B_y,
///   L = T - V,   C = |A|^2 - L^2.
/// The paper's parameters are the defaults.

#include <cmath>

#include "formulations/lagrangian/lagrangian_ad.hpp"

namespace catena::lagrangian::examples {

struct Mechanism0 {
  static constexpr int nq = 4, nc = 1;
  double L = 2.0, M = 1.0, k = 1000.0, ell = 1.0, mu = 0.5, m = 0.1, g = 9.81;

  template <class S>
  void operator()(const LVec<S, 4>& q, const LVec<S, 4>& qd, S& lagrangian, LVec<S, 1>& C) const {
    using std::sqrt;
    const LVec<S, 2> A = q.template head<2>(), B = q.template tail<2>();
    const LVec<S, 2> Ad = qd.template head<2>(), Bd = qd.template tail<2>();
    const S T = M / 6.0 * Ad.squaredNorm() +
                mu / 6.0 * (Ad.squaredNorm() + Ad.dot(Bd) + Bd.squaredNorm()) +
                0.5 * m * Bd.squaredNorm();
    const S stretch = sqrt((B - A).squaredNorm()) - ell;
    const S V = 0.5 * M * g * A(1) + 0.5 * mu * g * (A(1) + B(1)) + 0.5 * k * stretch * stretch +
                m * g * B(1);
    lagrangian = T - V;
    C(0) = A.squaredNorm() - L * L;
  }
};

}  // namespace catena::lagrangian::examples
