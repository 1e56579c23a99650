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

/// The largest rotation of a body in a variation dq (nv entries), rad.
double largestRotation(const Model& m, const VecX& dq);

/// Weights that turn a variation (nv entries) into displacements of the mechanism's points
/// relative to its size: 1 / length_scale on translations, size_b / length_scale on the
/// rotations of body b, where size_b is the body's own size (the largest distance of its
/// markers and centre of mass from its frame origin, or its radius of gyration if larger).
/// A rotation error of a short link then counts as the displacement of its ends, not as if
/// the whole mechanism turned, so an error or convergence test does not tighten as a chain is
/// refined. A body of no size (a point mass without markers) keeps the weight 1 / rad.
VecX displacementWeights(const Model& m, double length_scale);

/// max_i |weights_i dq_i|.
double weightedMaxNorm(const VecX& weights, const VecX& dq);

/// Factor on the constraint rows and columns of a saddle-point matrix [A C_q^T; C_q 0] that puts
/// them on the scale of A (largest entries equal), so its pivots do not depend on units or h.
double constraintRowScale(const SparseMatrixCSR& A, const SparseMatrixCSR& Cq);

/// The `count` constraint rows with the largest |C|, as "joint 'name' row x: value".
std::vector<std::string> worstRows(const Model& m, const VecX& C, int count);

}  // namespace catena
