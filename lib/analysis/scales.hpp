#pragma once
/// @file scales.hpp
/// Scales and norms that the nonlinear solvers of the analyses share, so that "converged" and
/// "worst residual" mean the same thing in statics, assembly and dynamics.

#include <string>
#include <vector>

#include "assembly/plan.hpp"

namespace catena {

/// Size of the mechanism, m: the largest distance of a body or ground marker from their
/// centroid (1 if the mechanism is a point).
double lengthScale(const Model& m);

/// Norm of a velocity-space correction (a variation) in the unit of length: translations over
/// the length scale, rotations in radians, so a step is judged by how far it moves the mechanism.
double naturalNorm(const Model& m, const VecX& dq, double length_scale);

/// The same scaling in the max norm: the largest single move, so a local error bound does not
/// loosen or tighten with the number of bodies.
double naturalMaxNorm(const Model& m, const VecX& dq, double length_scale);

/// Factor on the constraint rows and columns of a saddle-point matrix [A C_q^T; C_q 0] that puts
/// them on the scale of A (largest entries equal), so its pivots do not depend on units or h.
double constraintRowScale(const SparseMatrixCSR& A, const SparseMatrixCSR& Cq);

/// The `count` constraint rows with the largest |C|, as "joint 'name' row x: value".
std::vector<std::string> worstRows(const Model& m, const VecX& C, int count);

}  // namespace catena
