#pragma once
/// @file rm_dae_ida.hpp
/// The rotation-matrix DAE integrated by SUNDIALS IDA (variable-order BDF) in the stabilized
/// index-2 (Gear-Gupta-Leimkuhler) form, with an analytic dense Jacobian
/// (docs/rotation-matrix-bodies.md). Unknowns y = (q, v, lambda, mu), sizes (n, n, m, m):
///   F_q  = q' - v + C_q^T mu          = 0   (n)
///   F_v  = M v' + C_q^T lambda - f     = 0   (n; M constant, f the weights)
///   F_C  = C(q)                        = 0   (m: 6 orthogonality rows per body, joints)
///   F_Cv = C_q(q) v                    = 0   (m)
/// Newton matrix dF/dy + c_j dF/dy':
///   [c_j I + H(mu)   -I      0      C_q^T]
///   [H(lambda)       c_j M   C_q^T  0    ]
///   [C_q             0       0      0    ]
///   [C_q(v)          C_q     0      0    ]
/// with H(w) = d(C_q^T w)/dq = Lambda(w) (x) I3 on each body's R block (the joints are linear)
/// and d(C_q v)/dq = C_q evaluated at v (the orthogonality constraints are quadratic).
/// Dense: meant for the paper's mechanisms (2n + 2m = 84 for the double pendulum).

#include <Eigen/Core>

#include "formulations/rotation_matrix/rm_model.hpp"
#include "formulations/rotation_matrix/rm_run.hpp"

namespace catena::rm {

/// Size of the GGL unknown vector, 2 n + 2 m.
inline Index rmGglSize(const RmModel& model) {
  return 2 * model.n + 2 * model.m;
}

/// The constant M and f and the buffers of C, C_q, C_q(v), sized once for a model.
struct RmGglWorkspace {
  explicit RmGglWorkspace(const RmModel& model);
  MatX M, Cq, Cq_v;
  VecX f, C;
};

/// F(y, y') (2n + 2m) into F (sized 2n + 2m by the caller).
void computeRmGglResidual(const RmModel& model, RmGglWorkspace& ws, const Eigen::Ref<const VecX>& y,
                          const Eigen::Ref<const VecX>& yp, Eigen::Ref<VecX> F);

/// dF/dy + c_j dF/dy' (2n + 2m square) into J (sized by the caller; every entry written).
void computeRmGglJacobian(const RmModel& model, RmGglWorkspace& ws, const Eigen::Ref<const VecX>& y,
                          double c_j, Eigen::Ref<MatX> J);

struct RmIdaOptions {
  double t_end = 1.0;            ///< s
  double output_interval = 0.0;  ///< s; 0: the observer sees every accepted step
  double rtol = 1e-8;
  double atol = 1e-10;  ///< q and v (m, R entries, m/s, 1/s)
  /// lambda and mu (out of the error test; weighs only their Newton corrections,
  /// docs/dynamics-ida.md "The error test and the Newton weights").
  double multiplier_atol = 1e-2;
  int max_order = 5;
  long max_steps = 500'000;
};

/// Integrates from `initial` (consistent: C = 0, C_q v = 0) to t_end. y'(t0): q' = v, v' and
/// lambda from the KKT system, mu = 0. The observer gets (q, v, lambda, t). Never throws on
/// numerical failure (Status).
RmRunResult integrateRmIda(const RmModel& model, const RmState& initial,
                           const RmIdaOptions& options, const RmObserver& observer);

}  // namespace catena::rm
