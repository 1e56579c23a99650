#pragma once
/// @file lagrangian_ad.hpp
/// The Lagrangian facility's algorithmic differentiation (docs/lagrangian-facility.md): a
/// mechanism is a type with compile-time sizes nq, nc and a templated call operator written
/// once for any scalar S, in the style of the natural-coordinates paper's listings:
///
///   struct Pendulum {
///     static constexpr int nq = 2, nc = 1;
///     double m, l, g;
///     template <class S>
///     void operator()(const LVec<S, 2>& q, const LVec<S, 2>& qd, S& L, LVec<S, 1>& C) const {
///       L = 0.5 * m * qd.squaredNorm() - m * g * q(1);
///       C(0) = q.squaredNorm() - l * l;
///     }
///   };
///
/// catena instantiates it with Eigen's forward-mode AutoDiffScalar over the 2 nq inputs
/// (q, v): once for the gradients (residual), and nested (forward over forward) for the
/// Hessians (Newton matrix). Derivative vectors have fixed size 2 nq, so nothing is allocated
/// on the heap; the cost of one second-order evaluation is about (2 nq)^2 times the cost of
/// the user function, meant for the paper's small mechanisms (nq <= kMaxLagrangianCoordinates).

// Eigen's AutoDiff module needs Eigen/Core first.
#include <Eigen/Core>

#include <unsupported/Eigen/AutoDiff>

#include <concepts>
#include <string>
#include <utility>

#include "formulations/lagrangian/lagrangian_system.hpp"

namespace catena::lagrangian {

template <class S, int n>
using LVec = Eigen::Matrix<S, n, 1>;

/// First-order forward scalar with N directions, and the nested one for second derivatives.
template <int N>
using Ad1 = Eigen::AutoDiffScalar<Eigen::Matrix<double, N, 1>>;
template <int N>
using Ad2 = Eigen::AutoDiffScalar<Eigen::Matrix<Ad1<N>, N, 1>>;

/// The nested scalar holds 2 nq x 2 nq fixed-size derivatives: from nq = 16 on its objects pass
/// Eigen's 128 KiB limit on fixed-size arrays and do not compile, so the concept stops at 15
/// with a readable error instead.
inline constexpr int kMaxLagrangianCoordinates = 15;

template <class M>
concept LagrangianMechanism = (M::nq >= 1) && (M::nq <= kMaxLagrangianCoordinates) &&
                              (M::nc >= 0) &&
                              requires(const M& mech, const LVec<double, M::nq>& q, double& L,
                                       LVec<double, M::nc>& C) {
  mech(q, q, L, C);
};

/// Evaluates the mechanism in plain doubles: L(q, v) and C(q).
template <LagrangianMechanism M>
void evaluateLagrangian(const M& mech, const Eigen::Ref<const VecX>& q,
                        const Eigen::Ref<const VecX>& v, double& L, VecX& C) {
  constexpr int n = M::nq, m = M::nc;
  const LVec<double, n> qf = q, vf = v;
  LVec<double, m> Cf = LVec<double, m>::Zero();
  L = 0.0;
  mech(qf, vf, L, Cf);
  C = Cf;
}

/// L, dL/dq, dL/dv, C, C_q at (q, v) by one forward sweep with 2 nq directions.
template <LagrangianMechanism M>
void evaluateLagrangianFirstOrder(const M& mech, const Eigen::Ref<const VecX>& q,
                                  const Eigen::Ref<const VecX>& v, LagrangianFirstOrder& out) {
  constexpr int n = M::nq, m = M::nc, N = 2 * n;
  using S = Ad1<N>;
  LVec<S, n> qa, va;
  for (int i = 0; i < n; ++i) {
    qa(i) = S(q(i), N, i);
    va(i) = S(v(i), N, n + i);
  }
  S L(0.0);
  LVec<S, m> C;
  for (int i = 0; i < m; ++i) C(i) = S(0.0);
  mech(qa, va, L, C);
  out.L = L.value();
  out.L_q = L.derivatives().template head<n>();
  out.L_v = L.derivatives().template tail<n>();
  for (int i = 0; i < m; ++i) {
    out.C(i) = C(i).value();
    out.C_q.row(i) = C(i).derivatives().template head<n>().transpose();
  }
}

/// Adds L_qq, L_qv, L_vv and the constraint Hessians by one nested (forward-over-forward)
/// sweep with 2 nq directions at both levels. Cost ~ (2 nq)^2 user-function evaluations.
template <LagrangianMechanism M>
void evaluateLagrangianSecondOrder(const M& mech, const Eigen::Ref<const VecX>& q,
                                   const Eigen::Ref<const VecX>& v, LagrangianSecondOrder& out) {
  constexpr int n = M::nq, m = M::nc, N = 2 * n;
  using S1 = Ad1<N>;
  using S2 = Ad2<N>;
  // Input k: value S1(x_k, e_k), outer derivative e_k (constants in S1).
  auto seed = [](double x, int k) {
    S2 s;
    s.value() = S1(x, N, k);
    for (int j = 0; j < N; ++j) s.derivatives()(j) = S1(j == k ? 1.0 : 0.0);
    return s;
  };
  auto zero = []() {
    S2 s;
    s.value() = S1(0.0);
    for (int j = 0; j < N; ++j) s.derivatives()(j) = S1(0.0);
    return s;
  };
  LVec<S2, n> qa, va;
  for (int i = 0; i < n; ++i) {
    qa(i) = seed(q(i), i);
    va(i) = seed(v(i), n + i);
  }
  S2 L = zero();
  LVec<S2, m> C;
  for (int i = 0; i < m; ++i) C(i) = zero();
  mech(qa, va, L, C);
  out.L = L.value().value();
  out.L_q = L.value().derivatives().template head<n>();
  out.L_v = L.value().derivatives().template tail<n>();
  // The outer derivative of the inner gradient is the Hessian (block rows r0, columns c0).
  auto hessian = [](const S2& s, int r0, int c0, Eigen::Ref<MatX> H) {
    for (int i = 0; i < n; ++i)
      H.row(i) = s.derivatives()(r0 + i).derivatives().template segment<n>(c0).transpose();
  };
  hessian(L, 0, 0, out.L_qq);
  hessian(L, 0, n, out.L_qv);
  hessian(L, n, n, out.L_vv);
  for (int i = 0; i < m; ++i) {
    out.C(i) = C(i).value().value();
    out.C_q.row(i) = C(i).value().derivatives().template head<n>().transpose();
    hessian(C(i), 0, 0, out.C_qq[static_cast<std::size_t>(i)]);
  }
}

/// Wraps a mechanism (copied) into the type-erased LagrangianSystem that the DAE and IDA use.
template <LagrangianMechanism M>
LagrangianSystem makeLagrangianSystem(M mech, std::string name) {
  LagrangianSystem sys;
  sys.name = std::move(name);
  sys.nq = M::nq;
  sys.nc = M::nc;
  sys.evaluateFirst = [mech](const LagrangianSystem::VecIn& q, const LagrangianSystem::VecIn& v,
                             LagrangianFirstOrder& out) {
    evaluateLagrangianFirstOrder(mech, q, v, out);
  };
  sys.evaluateSecond = [mech](const LagrangianSystem::VecIn& q, const LagrangianSystem::VecIn& v,
                              LagrangianSecondOrder& out) {
    evaluateLagrangianSecondOrder(mech, q, v, out);
  };
  return sys;
}

}  // namespace catena::lagrangian
