#pragma once
/// @file rm_assembly.hpp
/// Global (dense) quantities of a rotation-matrix model from its body and joint kernels:
/// mass matrix, generalized gravity, constraints C (orthogonality rows, then joints), their
/// Jacobian C_q, gamma, the Hessian contraction d(C_q^T w)/dq, and the energy. Dense n x n and
/// m x n arrays: meant for the paper's mechanisms (n = 12 per body); the outputs are sized by
/// the caller (or resized once), then refilled without allocation.

#include <Eigen/Core>

#include "core/types.hpp"
#include "formulations/rotation_matrix/rm_model.hpp"

namespace catena::rm {

/// M (n x n), block diagonal and constant (rm_body.hpp computeBodyMassMatrix).
void assembleRmMassMatrix(const RmModel& model, MatX& M);

/// f (n): the generalized weights (X, vec Y) of every body.
void assembleRmForces(const RmModel& model, VecX& f);

/// C (m) and C_q (m x n) at q; either output may be null.
void assembleRmConstraints(const RmModel& model, const Eigen::Ref<const VecX>& q, VecX* C,
                           MatX* Cq);

/// gamma (m) with C_q q'' = gamma on motions that keep C = 0: orthogonality rows from v (the
/// joints are linear in q: zero rows).
void assembleRmGamma(const RmModel& model, const VecX& v, VecX& gamma);

/// H += scale * sum_k w_k d^2 C_k / dq^2 = scale * d(C_q^T w)/dq (n x n block; w has m entries).
/// Only the orthogonality rows contribute.
void addRmConstraintHessianTimes(const RmModel& model, const VecX& w, double scale,
                                 Eigen::Ref<MatX> H);

struct RmEnergy {
  double kinetic = 0.0, potential = 0.0;  ///< J
  double total() const { return kinetic + potential; }
};
/// Kinetic and gravitational energy at (q, v), summed body by body (rm_body.hpp).
RmEnergy computeRmEnergy(const RmModel& model, const VecX& q, const VecX& v);

/// Largest |C| over orthogonality rows and over joint rows (in m), and of C_q v over all rows.
struct RmDrift {
  double orthogonality = 0.0, joints = 0.0, velocity = 0.0;
};
RmDrift computeRmDrift(const RmModel& model, const VecX& q, const VecX& v);

}  // namespace catena::rm
