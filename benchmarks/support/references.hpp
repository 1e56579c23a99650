#pragma once
/// @file references.hpp
/// Exact and independent solutions the benchmark programs check catena's answers against.

#include <Eigen/Dense>

#include <vector>

namespace catena::bench {

/// Exact static equilibrium of N uniform rigid links of total `length` hung between two
/// supports `span` apart at the same height: a link is parallel to the force it transmits at
/// its mid-point, so tan(theta_k) = c (k + 1/2 - N/2) with c = w l / H, and c follows from
/// sum_k l cos(theta_k) = span (bisection to round-off).
struct DiscreteChain {
  std::vector<double> x, z;  ///< joint points from the first support, m (z up)
  double h_over_w = 0.0;     ///< horizontal tension over the weight per length, m
};

/// The equilibrium above; requires N >= 1 and 0 < span < length (m).
DiscreteChain solveDiscreteChain(int N, double span, double length);

/// Euler's equations of a free rigid body in (R, omega_B): R' = R [omega]x,
/// I omega' = (I omega) x omega, from R(0) = identity and omega(0) = omega0 (rad/s, body
/// basis); `inertia`: the principal moments (kg m^2). Integrated by ARKODE at tight tolerance
/// (tests/support/reference_odes.hpp); returns a 12 x times.size() matrix whose column k is
/// (vec(R), omega) at times[k] (s, non-decreasing, >= 0). Throws std::runtime_error if
/// ARKODE fails.
Eigen::MatrixXd freeRigidBody(const Eigen::Vector3d& inertia, const Eigen::Vector3d& omega0,
                              const std::vector<double>& times);

}  // namespace catena::bench
