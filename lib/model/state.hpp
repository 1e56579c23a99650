#pragma once
/// @file state.hpp
/// State values (q, v, lambda, t), separate from the Model (DESIGN.md). Analyses own States.

#include "model/model.hpp"

namespace catena {

struct State {
  VecX q;       ///< nq position coordinates
  VecX v;       ///< nv velocity coordinates
  VecX lambda;  ///< nc multipliers (reaction components in each joint's F2 basis)
  double t = 0.0;
};

/// The initial state described by the bodies of the model; lambda is zero.
State initialState(const Model& model);

/// Applies a variation dq (nv entries: delta r, theta per body; 2D: dx, dy, dtheta) on the
/// manifold: r += delta r, rho = rho exp(theta) (renormalized). Used by Newton and by tests.
void applyVariation(const Model& model, const VecX& dq, double scale, VecX& q);

/// Scales each 3D body's quaternion in q to unit norm (2D: nothing).
void normalizeQuaternions(const Model& m, VecX& q);

/// q' = N(q) v (nq entries into qdot): r' = v_lin, rho' = 1/2 rho (x) (0, w) on the
/// unnormalized rho (its norm is then invariant under the exact flow); 2D q' = v.
void positionRates(const Model& m, const double* q, const VecX& v, double* qdot);

}  // namespace catena
