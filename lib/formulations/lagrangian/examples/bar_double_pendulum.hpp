#pragma once
/// @file bar_double_pendulum.hpp
/// The rotation-matrix paper's double pendulum (tests/support/reference_odes.hpp,
/// doublePendulumTwoAngle) in natural coordinates of the bar end points: bar 1 from the fixed
/// hinge O to H1, bar 2 from H1 to the tip P2, q = (H1, P2) in the paper frame (x0 down, y0
/// horizontal), two rigid-length constraints. Each bar (mass m, length l, section a in the
/// plane) has the thin-rod kinetic energy of its end points plus the section's share of the
/// moment of inertia, m a^2 / 12, about its centre:
///   T_bar(A, B) = m/6 (|A'|^2 + A'.B' + |B'|^2) + (m a^2 / 24) omega^2,
///   omega = (B - A) x (B' - A') / l^2  (planar cross product; |B - A| = l on the constraint),
///   V = -m g (x_G1 + x_G2)  (gravity along +x0),   C = (|H1|^2 - l^2, |P2 - H1|^2 - l^2).

#include "formulations/lagrangian/lagrangian_ad.hpp"

namespace catena::lagrangian::examples {

struct BarDoublePendulum {
  static constexpr int nq = 4, nc = 2;
  double m = 0.108, l = 0.20, a = 0.02, g = 9.81;

  template <class S>
  S barKineticEnergy(const LVec<S, 2>& A, const LVec<S, 2>& B, const LVec<S, 2>& Ad,
                     const LVec<S, 2>& Bd) const {
    const LVec<S, 2> d = B - A, dd = Bd - Ad;
    const S omega = (d(0) * dd(1) - d(1) * dd(0)) / (l * l);
    return m / 6.0 * (Ad.squaredNorm() + Ad.dot(Bd) + Bd.squaredNorm()) +
           m * a * a / 24.0 * omega * omega;
  }

  template <class S>
  void operator()(const LVec<S, 4>& q, const LVec<S, 4>& qd, S& L, LVec<S, 2>& C) const {
    const LVec<S, 2> H = q.template head<2>(), P = q.template tail<2>();
    const LVec<S, 2> Hd = qd.template head<2>(), Pd = qd.template tail<2>();
    const LVec<S, 2> O = LVec<S, 2>::Zero();
    const S T = barKineticEnergy<S>(O, H, O, Hd) + barKineticEnergy<S>(H, P, Hd, Pd);
    const S V = -m * g * (0.5 * H(0) + 0.5 * (H(0) + P(0)));
    L = T - V;
    C(0) = H.squaredNorm() - l * l;
    C(1) = (P - H).squaredNorm() - l * l;
  }
};

}  // namespace catena::lagrangian::examples
