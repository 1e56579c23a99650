#pragma once
/// @file singular_search.hpp
/// The search for singular configurations along a trajectory, shared by the MCS integrator
/// (dense QRCP at every step) and the rank watch of the saddle-point integrators (block-wise
/// QRCP at every output, integrators/mobility_history.hpp): three consecutive samples whose
/// middle one has the smallest retained pivot, below a margin, bracket a possible crossing; the
/// pivot along the cubic Hermite path through them is minimized by golden section.

#include <functional>

#include "model/model.hpp"

namespace catena {

/// A trajectory sample: time (s), positions, velocities, and the smallest retained relative
/// pivot |R_rr| / |R_11| of C_q^T's QRCP at (q, t) (rank r of the run).
struct PathSample {
  double t = 0.0;
  VecX q, v;
  double smallest = 0.0;
};

/// The variation (nv) that takes qa to qb: r_b - r_a and Log(rho_a^* rho_b) per body (3D), the
/// difference of (x, y, theta) in 2D.
VecX configurationDifference(const Model& model, const VecX& qa, const VecX& qb);

/// q at tau in [a.t, b.t] on the cubic Hermite path: delta(0) = 0, delta'(0) = v_a,
/// delta(h) = q_b - q_a, delta'(h) = v_b (exact in 2D; to O(h |w|^2) for rotations).
VecX interpolatePath(const Model& model, const PathSample& a, const PathSample& b, double tau);

/// True if b's pivot is a local minimum of (a, b, c) below `margin`.
bool bracketsSingular(const PathSample& a, const PathSample& b, const PathSample& c, double margin);

struct PathMinimum {
  double t = 0.0;      ///< s
  VecX q;              ///< the interpolated configuration there
  double value = 0.0;  ///< pivot(t, q)
};

/// Minimum of pivot(tau, q(tau)) over [a.t, c.t] on the path a-b-c (golden section to
/// 1e-14 relative in t: |R_rr| ~ |t - t*| near a crossing, V-shaped and unimodal).
PathMinimum minimizeAlongPath(const Model& model, const PathSample& a, const PathSample& b,
                              const PathSample& c,
                              const std::function<double(double, const VecX&)>& pivot);

}  // namespace catena
