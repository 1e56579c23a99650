#pragma once
/// @file lagrangian_system.hpp
/// A mechanism given by a Lagrangian L(q, q') and holonomic constraints C(q) = 0, seen through
/// its derivatives at a point (q, v = q'): what the Euler-Lagrange DAE (lagrangian_dae.hpp)
/// needs. The derivatives are formed by algorithmic differentiation of one templated user
/// function (lagrangian_ad.hpp, docs/lagrangian-facility.md); this header is AD-free so the DAE
/// and IDA code compile once, not once per mechanism.

#include <functional>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace catena::lagrangian {

/// Values and first derivatives at (q, v): L, dL/dq, dL/dv (nq), C (nc), C_q (nc x nq).
struct LagrangianFirstOrder {
  void resize(Index nq, Index nc);
  double L = 0.0;
  VecX L_q, L_v, C;
  MatX C_q;
};

/// Adds the second derivatives: L_qq, L_qv (L_qv(i, j) = d2L/dq_i dv_j), L_vv (the mass
/// matrix), each nq x nq, and the constraint Hessians C_qq[i] = d2C_i/dq2 (nc of nq x nq).
struct LagrangianSecondOrder : LagrangianFirstOrder {
  void resize(Index nq, Index nc);
  MatX L_qq, L_qv, L_vv;
  std::vector<MatX> C_qq;
};

/// A mechanism with its derivatives behind two type-erased evaluators (one call per DAE
/// evaluation, not per entry). Outputs must be sized by resize(nq, nc); they are overwritten.
struct LagrangianSystem {
  using VecIn = Eigen::Ref<const VecX>;
  std::string name;
  Index nq = 0, nc = 0;
  std::function<void(const VecIn& q, const VecIn& v, LagrangianFirstOrder& out)> evaluateFirst;
  std::function<void(const VecIn& q, const VecIn& v, LagrangianSecondOrder& out)> evaluateSecond;
};

}  // namespace catena::lagrangian
