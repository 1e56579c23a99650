#include "formulations/natural/natural_mechanism.hpp"

#include <utility>

#include "core/check.hpp"
#include "formulations/lagrangian/lagrangian_ad.hpp"

namespace catena::natural {

namespace {

using lagrangian::LagrangianFirstOrder;
using lagrangian::LagrangianSecondOrder;
using lagrangian::LagrangianSystem;
using lagrangian::LVec;

/// The model padded to NQ coordinates and NQ constraints for the facility's fixed-size AD; the
/// padding coordinates enter nothing and the padding constraints are 0, so the leading
/// (nq, nc) blocks of every derivative are the model's.
template <int NQ>
struct PaddedNaturalMechanism {
  static constexpr int nq = NQ, nc = NQ;
  std::shared_ptr<const NaturalModel> model;

  template <class S>
  void operator()(const LVec<S, NQ>& q, const LVec<S, NQ>& qd, S& L, LVec<S, NQ>& C) const {
    evaluateNaturalMechanism(*model, q, qd, L, C);
  }
};

VecX pad(const LagrangianSystem::VecIn& x, int n) {
  VecX y = VecX::Zero(n);
  y.head(x.size()) = x;
  return y;
}

void copyFirst(const LagrangianFirstOrder& big, Index nq, Index nc, LagrangianFirstOrder& out) {
  out.L = big.L;
  out.L_q = big.L_q.head(nq);
  out.L_v = big.L_v.head(nq);
  out.C = big.C.head(nc);
  out.C_q = big.C_q.topLeftCorner(nc, nq);
}

template <int NQ>
LagrangianSystem makePadded(std::shared_ptr<const NaturalModel> model) {
  const PaddedNaturalMechanism<NQ> mech{model};
  const Index nq = model->nq, nc = model->nc;
  LagrangianSystem sys;
  sys.name = model->title.empty() ? "natural-coordinates mechanism" : model->title;
  sys.nq = nq;
  sys.nc = nc;
  sys.evaluateFirst = [mech, nq, nc](const LagrangianSystem::VecIn& q,
                                     const LagrangianSystem::VecIn& v, LagrangianFirstOrder& out) {
    LagrangianFirstOrder big;
    big.resize(NQ, NQ);
    lagrangian::evaluateLagrangianFirstOrder(mech, pad(q, NQ), pad(v, NQ), big);
    copyFirst(big, nq, nc, out);
  };
  sys.evaluateSecond = [mech, nq, nc](const LagrangianSystem::VecIn& q,
                                      const LagrangianSystem::VecIn& v,
                                      LagrangianSecondOrder& out) {
    LagrangianSecondOrder big;
    big.resize(NQ, NQ);
    lagrangian::evaluateLagrangianSecondOrder(mech, pad(q, NQ), pad(v, NQ), big);
    copyFirst(big, nq, nc, out);
    out.L_qq = big.L_qq.topLeftCorner(nq, nq);
    out.L_qv = big.L_qv.topLeftCorner(nq, nq);
    out.L_vv = big.L_vv.topLeftCorner(nq, nq);
    for (Index i = 0; i < nc; ++i)
      out.C_qq[static_cast<std::size_t>(i)] =
          big.C_qq[static_cast<std::size_t>(i)].topLeftCorner(nq, nq);
  };
  return sys;
}

/// Dynamic-size AD (any nq). Every scalar carries a heap-allocated derivative vector, so these
/// evaluators allocate on every operation (unlike the padded fixed-size path above).
template <class S>
using DynVec = Eigen::Matrix<S, Eigen::Dynamic, 1>;
using AdX = Eigen::AutoDiffScalar<VecX>;                          // value and gradient
using Dual = Eigen::AutoDiffScalar<Eigen::Matrix<double, 1, 1>>;  // value and one direction
using AdDual = Eigen::AutoDiffScalar<DynVec<Dual>>;               // gradient of duals

/// Derivative j of s; Eigen leaves the derivative vector of a constant empty (make_coherent
/// resizes it only when it meets a non-empty one), so an empty vector reads as zeros.
template <class D>
auto derivative(const Eigen::AutoDiffScalar<D>& s, Index j) {
  using T = typename Eigen::AutoDiffScalar<D>::Scalar;
  return s.derivatives().size() == 0 ? T(0.0) : T(s.derivatives()(j));
}

/// L, L_q, L_v, C, C_q by one forward sweep with 2 nq directions (q, then v).
void evaluateDynamicFirst(const NaturalModel& m, const LagrangianSystem::VecIn& q,
                          const LagrangianSystem::VecIn& v, LagrangianFirstOrder& out) {
  const Index n = m.nq, N = 2 * n;
  DynVec<AdX> qa(n), va(n), C(m.nc);
  for (Index i = 0; i < n; ++i) {
    qa(i) = AdX(q(i), N, i);
    va(i) = AdX(v(i), N, n + i);
  }
  AdX L;
  evaluateNaturalMechanism(m, qa, va, L, C);
  out.L = L.value();
  for (Index j = 0; j < n; ++j) {
    out.L_q(j) = derivative(L, j);
    out.L_v(j) = derivative(L, n + j);
  }
  for (Index i = 0; i < m.nc; ++i) {
    out.C(i) = C(i).value();
    for (Index j = 0; j < n; ++j) out.C_q(i, j) = derivative(C(i), j);
  }
}

/// Adds the Hessians by forward over forward, one sweep per Hessian column: in sweep k the
/// inputs x = (q, v) carry an inner dual direction e_k and an outer gradient over the inputs
/// d0.. 2 nq - 1, so outer derivative j of a result r is dr/dx_{d0+j} + eps d2r/dx_{d0+j} dx_k
/// (H e_k = d/d eps grad r(x + eps e_k)). The q columns (k < nq, d0 = 0) give L_qq, the rows
/// of L_qv and C_qq; the v columns only need L_vv (d0 = nq). Cost: nq sweeps with 2 nq
/// directions and nq with nq, about 3 nq^2 dual-number evaluations of the mechanism.
void evaluateDynamicSecond(const NaturalModel& m, const LagrangianSystem::VecIn& q,
                           const LagrangianSystem::VecIn& v, LagrangianSecondOrder& out) {
  const Index n = m.nq, nc = m.nc;
  DynVec<AdDual> qa(n), va(n), C(nc);
  AdDual L;
  for (Index k = 0; k < 2 * n; ++k) {
    const Index d0 = k < n ? 0 : n, nd = 2 * n - d0;
    const auto seed = [k, d0, nd](double x, Index i, AdDual& s) {
      s.value() = i == k ? Dual(x, 1, 0) : Dual(x);
      s.derivatives().setZero(nd);
      if (i >= d0) s.derivatives()(i - d0) = Dual(1.0);
    };
    for (Index i = 0; i < n; ++i) {
      seed(q(i), i, qa(i));
      seed(v(i), n + i, va(i));
    }
    evaluateNaturalMechanism(m, qa, va, L, C);
    const auto second = [](const AdDual& s, Index j) { return derivative(derivative(s, j), 0); };
    if (k == 0) {  // values and gradients: any sweep with the full gradient
      out.L = L.value().value();
      for (Index j = 0; j < n; ++j) {
        out.L_q(j) = derivative(L, j).value();
        out.L_v(j) = derivative(L, n + j).value();
      }
      for (Index i = 0; i < nc; ++i) {
        out.C(i) = C(i).value().value();
        for (Index j = 0; j < n; ++j) out.C_q(i, j) = derivative(C(i), j).value();
      }
    }
    if (k < n) {
      for (Index j = 0; j < n; ++j) {
        out.L_qq(j, k) = second(L, j);
        out.L_qv(k, j) = second(L, n + j);  // d2L/dq_k dv_j
      }
      for (Index i = 0; i < nc; ++i)
        for (Index j = 0; j < n; ++j) out.C_qq[static_cast<std::size_t>(i)](j, k) = second(C(i), j);
    } else {
      for (Index j = 0; j < n; ++j) out.L_vv(j, k - n) = second(L, j);
    }
  }
}

}  // namespace

lagrangian::LagrangianSystem makeNaturalLagrangianSystem(
    std::shared_ptr<const NaturalModel> model) {
  CATENA_CHECK(model != nullptr, "makeNaturalLagrangianSystem: null model");
  const Index nq = model->nq;
  CATENA_CHECK(nq >= 1, "natural-coordinates model '" << model->title << "' has no coordinates");
  if (nq <= 4) return makePadded<4>(std::move(model));
  if (nq <= 8) return makePadded<8>(std::move(model));
  if (nq <= kMaxPaddedNaturalCoordinates) return makePadded<12>(std::move(model));
  return makeNaturalLagrangianSystemDynamic(std::move(model));
}

lagrangian::LagrangianSystem makeNaturalLagrangianSystemDynamic(
    std::shared_ptr<const NaturalModel> model) {
  CATENA_CHECK(model != nullptr, "makeNaturalLagrangianSystemDynamic: null model");
  CATENA_CHECK(model->nq >= 1,
               "natural-coordinates model '" << model->title << "' has no coordinates");
  LagrangianSystem sys;
  sys.name = model->title.empty() ? "natural-coordinates mechanism" : model->title;
  sys.nq = model->nq;
  sys.nc = model->nc;
  sys.evaluateFirst = [model](const LagrangianSystem::VecIn& q, const LagrangianSystem::VecIn& v,
                              LagrangianFirstOrder& out) {
    evaluateDynamicFirst(*model, q, v, out);
  };
  sys.evaluateSecond = [model](const LagrangianSystem::VecIn& q, const LagrangianSystem::VecIn& v,
                               LagrangianSecondOrder& out) {
    evaluateDynamicSecond(*model, q, v, out);
  };
  return sys;
}

void computeNaturalConstraints(const NaturalModel& model, const VecX& q, VecX& C, MatX& C_q) {
  CATENA_CHECK(q.size() == model.nq, "computeNaturalConstraints: q has "
                                         << q.size() << " entries, expected " << model.nq);
  using Ad = Eigen::AutoDiffScalar<VecX>;
  const Index n = model.nq;
  Eigen::Matrix<Ad, Eigen::Dynamic, 1> qa(n), va(n), Ca(model.nc);
  for (Index i = 0; i < n; ++i) {
    qa(i) = Ad(q(i), n, i);
    va(i) = Ad(0.0, VecX::Zero(n));
  }
  for (Index i = 0; i < model.nc; ++i) Ca(i) = Ad(0.0, VecX::Zero(n));
  Ad L(0.0, VecX::Zero(n));
  evaluateNaturalMechanism(model, qa, va, L, Ca);
  C.resize(model.nc);
  C_q.resize(model.nc, n);
  for (Index i = 0; i < model.nc; ++i) {
    C(i) = Ca(i).value();
    C_q.row(i) = Ca(i).derivatives().transpose();
  }
}

std::vector<Vec3> computeNaturalPositions(const NaturalModel& model, const VecX& q) {
  CATENA_CHECK(q.size() == model.nq,
               "computeNaturalPositions: q has " << q.size() << " entries, expected " << model.nq);
  NaturalKinematics<double> k;
  const VecX v = VecX::Zero(model.nq);
  computeNaturalKinematics<double>(model, q, v, k);
  return k.x;
}

}  // namespace catena::natural
