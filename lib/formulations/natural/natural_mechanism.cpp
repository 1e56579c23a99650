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

}  // namespace

lagrangian::LagrangianSystem makeNaturalLagrangianSystem(
    std::shared_ptr<const NaturalModel> model) {
  CATENA_CHECK(model != nullptr, "makeNaturalLagrangianSystem: null model");
  const Index nq = model->nq;
  CATENA_CHECK(nq >= 1 && nq <= kMaxNaturalCoordinates,
               "natural-coordinates model '" << model->title << "' has " << nq
                                             << " coordinates; the AD path supports at most "
                                             << kMaxNaturalCoordinates);
  if (nq <= 4) return makePadded<4>(std::move(model));
  if (nq <= 8) return makePadded<8>(std::move(model));
  return makePadded<12>(std::move(model));
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
