#pragma once
/// @file scales.hpp
/// Scales and norms that the nonlinear solvers of the analyses share, so that "converged" and
/// "worst residual" mean the same thing in statics, assembly and dynamics.

#include <string>
#include <vector>

#include "assembly/plan.hpp"

namespace catena {

/// A value and what it is about, for reports that pick the largest (over all ranks: Space).
struct RankedText {
  double value = 0.0;
  std::string text;
};

/// Size of the mechanism, m: the largest distance of a body or ground marker from their
/// centroid (1 if the mechanism is a point).
double lengthScale(const Model& m);

/// Norm of a velocity-space correction (a variation) in the unit of length: translations over
/// the length scale, rotations in radians, so a step is judged by how far it moves the mechanism.
double naturalNorm(const Model& m, const VecX& dq, double length_scale);

/// The largest rotation of a body in a variation dq (nv entries), rad.
double largestRotation(const Model& m, const VecX& dq);

/// Weights (nv) that turn a variation into displacements of the mechanism's points relative to
/// its size: 1 / length_scale on translations, size_b / length_scale on the rotations of body b
/// (size_b: bodySizes), 1 / rad for a body of no size. Why not radians:
/// docs/dynamics-generalized-alpha.md (the step control).
VecX displacementWeights(const Model& m, double length_scale);

/// The size of each body, m: the largest distance of its markers and centre of mass from its
/// frame origin, or its radius of gyration if larger; 0 for a point without markers.
std::vector<double> bodySizes(const Model& m);

/// Tolerances below this are taken as this: what double precision resolves of a sum of a few
/// dozen terms (16 eps).
inline constexpr double kRoundoffTolerance = 16 * 2.220446049250313e-16;

/// The magnitudes of the terms of f - C_q^T lambda, entry by entry (nv):
/// f_mag_i + sum_r |C_q(r, i) lambda_r| (f_mag: assembleForceMagnitudes).
VecX forceTermMagnitudes(const VecX& f_mag, const SparseMatrixCSR& Cq, const VecX& lambda);

/// The force residual of an equilibrium, r = f - C_q^T lambda (the first bodies' entries, nv_body
/// each), each body against its own scale (docs/reliability.md, "Answers"): its translational
/// entries against F_b, the largest of its entries of `terms` (forceTermMagnitudes); its
/// rotational entries against max(the largest rotational term, F_b size_b). Returns max_b max_i
/// |r_i| / scale_i (0 where a body has no force at all, infinite where a body with none has a
/// residual); `worst` gets the body.
double bodyForceResidual(const Model& m, const VecX& r, const VecX& terms,
                         const std::vector<double>& sizes, Index* worst = nullptr);

/// The constraint residual C (nc entries) at q, each row against its joint's own scale: rotation
/// rows in rad; length rows against the joint's size (the larger of its bodies' sizes, or the
/// mechanism's length_scale if both are points), floored at what the coordinates resolve there,
/// |p| kRoundoffTolerance / tolerance with |p| the distance of the joint's bodies from the
/// origin. Returns max_r |C_r| / scale_r; `worst` gets the row.
double jointPositionResidual(const Model& m, const VecX& C, const VecX& q,
                             const std::vector<double>& sizes, double length_scale,
                             double tolerance, Index* worst = nullptr);

/// max_i |weights_i dq_i|.
double weightedMaxNorm(const VecX& weights, const VecX& dq);

/// Factor on the constraint rows and columns of a saddle-point matrix [A C_q^T; C_q 0] that puts
/// them on the scale of A (largest entries equal), so its pivots do not depend on units or h:
/// max|A| / max|C_q|, 1 if either is zero. The second form takes the two maxima.
double constraintRowScale(const SparseMatrixCSR& A, const SparseMatrixCSR& Cq);
double constraintRowScale(double a_max, double cq_max);

/// max |a_ij| over the stored entries of A (0 if none).
double maxAbsEntry(const SparseMatrixCSR& A);

/// The `count` constraint rows with the largest |C|, as "joint 'name' row x: value".
std::vector<std::string> worstRows(const Model& m, const VecX& C, int count);
/// worstRows of C(q, t) (assembled here; for failure reports, not loops).
std::vector<std::string> worstRowsAt(const Model& m, const AssemblyPlan& plan, const VecX& q,
                                     double t, int count);
/// The same with |C_r| as the value of each text, largest first.
std::vector<RankedText> rankedWorstRows(const Model& m, const VecX& C, int count);

}  // namespace catena
