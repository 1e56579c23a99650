#pragma once
/// @file lagrangian_dae.hpp
/// The Euler-Lagrange DAE of a LagrangianSystem in the momentum form that the
/// natural-coordinates paper recommends (sec. 2, "Descriptor form"; sec. 4.1.2), with
/// p = dL/dq' so that no dM/dt term appears (docs/lagrangian-facility.md). Unknowns
/// y = (q, v, p, lambda[, mu]), sizes (n, n, n, m[, m]):
///   F_q = q' - v [+ C_q^T mu]               = 0   (n)
///   F_v = p - L_v(q, v)                     = 0   (n; defines v; L_vv = mass matrix)
///   F_p = p' - L_q(q, v) + C_q^T lambda     = 0   (n; catena's sign: M a + C_q^T lambda = f)
///   F_C = C(q)                              = 0   (m)
///   F_G = C_q(q) v                          = 0   (m; stabilized index-2 form only)
/// kIndex3 drops mu and F_G (index 3); kStabilizedIndex2 is Gear-Gupta-Leimkuhler (index 2).
/// Newton matrix dF/dy + c_j dF/dy' (W(w) = sum_i w_i C_qq[i], G_v = d(C_q v)/dq):
///   [c_j I + W(mu)        -I       0      0      C_q^T]
///   [-L_qv^T              -L_vv    I      0      0    ]
///   [-L_qq + W(lambda)    -L_qv    c_j I  C_q^T  0    ]
///   [C_q                  0        0      0      0    ]
///   [G_v                  C_q      0      0      0    ]
/// Every block comes from the AD evaluators of the system (lagrangian_ad.hpp). Dense.

#include <vector>

#include "core/status.hpp"
#include "formulations/lagrangian/lagrangian_system.hpp"

namespace catena::lagrangian {

enum class LagrangianForm { kIndex3, kStabilizedIndex2 };

/// Where each unknown sits in y.
struct LagrangianDaeLayout {
  LagrangianDaeLayout(const LagrangianSystem& sys, LagrangianForm f)
      : n(sys.nq), m(sys.nc), form(f) {}
  Index n, m;
  LagrangianForm form;
  bool stabilized() const { return form == LagrangianForm::kStabilizedIndex2; }
  Index q() const { return 0; }
  Index v() const { return n; }
  Index p() const { return 2 * n; }
  Index lambda() const { return 3 * n; }
  Index mu() const { return 3 * n + m; }
  Index size() const { return 3 * n + (stabilized() ? 2 * m : m); }
};

/// Buffers for the evaluators, sized once for a system.
struct LagrangianDaeWorkspace {
  explicit LagrangianDaeWorkspace(const LagrangianSystem& sys);
  LagrangianFirstOrder first;
  LagrangianSecondOrder second;
};

/// F(y, y') into F (layout.size(), sized by the caller).
void computeLagrangianDaeResidual(const LagrangianSystem& sys, const LagrangianDaeLayout& layout,
                                  LagrangianDaeWorkspace& ws, const Eigen::Ref<const VecX>& y,
                                  const Eigen::Ref<const VecX>& yp, Eigen::Ref<VecX> F);

/// dF/dy + c_j dF/dy' (layout.size() square, sized by the caller; every entry written).
void computeLagrangianDaeJacobian(const LagrangianSystem& sys, const LagrangianDaeLayout& layout,
                                  LagrangianDaeWorkspace& ws, const Eigen::Ref<const VecX>& y,
                                  double c_j, Eigen::Ref<MatX> J);

/// A consistent point of the DAE and its derivatives: C(q) = 0, C_q v = 0, p = L_v, and
/// (vdot, lambda) from the acceleration-level KKT system
///   [L_vv  C_q^T] [vdot  ]   [L_q - L_qv^T v]
///   [C_q   0    ] [lambda] = [-G_v v        ],   pdot = L_q - C_q^T lambda,  qdot = v.
struct LagrangianState {
  double t = 0.0;
  VecX q, v, p, lambda;  ///< n, n, n, m
  VecX vdot, pdot;       ///< n, n (qdot = v)
};

struct ConsistencyOptions {
  double tolerance = 1e-13;  ///< on max |C| (units of C)
  int max_iterations = 30;   ///< Gauss-Newton steps of the position projection
  std::vector<bool> fixed;   ///< empty, or nq flags: coordinates the projections keep
};

/// Projects (q, v) onto C = 0 and C_q v = 0 by minimum-norm Gauss-Newton steps in the free
/// coordinates (the paper's "fixed" initial values stay), then completes the state above.
/// Fails (Status) if the projection does not converge or the KKT matrix is singular.
Status computeConsistentLagrangianState(const LagrangianSystem& sys, const VecX& q_guess,
                                        const VecX& v_guess, const ConsistencyOptions& options,
                                        LagrangianState& out);

/// The Jacobi integral (energy) v . dL/dv - L [J], conserved when L does not depend on t.
double computeLagrangianEnergy(const LagrangianSystem& sys, const VecX& q, const VecX& v);

}  // namespace catena::lagrangian
