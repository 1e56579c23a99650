#include "formulations/mixed_basis/multibody_dae.hpp"

#include <algorithm>
#include <cmath>

#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "formulations/mixed_basis/constraint_derivatives.hpp"
#include "math/rotation.hpp"

namespace catena {

std::string idaFormulationName(IdaFormulation f) {
  switch (f) {
    case IdaFormulation::kIndex3:
      return "index-3";
    case IdaFormulation::kIndex2:
      return "index-2 GGL";
    case IdaFormulation::kIndex1:
      return "index-1 with projection";
  }
  return "unknown";
}

namespace {

using Mat4 = Eigen::Matrix4d;
using Mat43 = Eigen::Matrix<double, 4, 3>;

/// Collects the columns of each row: the symbolic pass that fixes the pattern.
struct PatternAdder {
  std::vector<std::vector<int>> cols;
  int row = -1;
  void begin(Index r) { row = static_cast<int>(r); }
  void add(Index c, double) { cols[row].push_back(static_cast<int>(c)); }
  void end() {}
};

/// Adds values into the fixed pattern, one row at a time through a scatter map.
struct ValueAdder {
  const int* outer;
  const int* inner;
  double* values;
  std::vector<int>& pos;
  int row = -1;
  void begin(Index r) {
    row = static_cast<int>(r);
    for (int k = outer[row]; k < outer[row + 1]; ++k) {
      pos[inner[k]] = k;
      values[k] = 0.0;
    }
  }
  void add(Index c, double x) {
    CATENA_ASSERT(pos[c] >= 0);
    values[pos[c]] += x;
  }
  void end() {
    for (int k = outer[row]; k < outer[row + 1]; ++k) pos[inner[k]] = -1;
  }
};

/// 1/2 rho (x) (0, u) for rho = (s, x): the quaternion rate of a local angular velocity u.
Vec4 quaternionRate(const Vec4& rho, const Vec3& u) {
  const Vec3 x = rho.tail<3>();
  Vec4 r;
  r(0) = -0.5 * x.dot(u);
  r.tail<3>() = 0.5 * (rho(0) * u + x.cross(u));
  return r;
}

/// G(rho) = d(1/2 rho (x) (0, u))/du = 1/2 [-x^T; s I + x~] (4 x 3).
Mat43 rateMap(const Vec4& rho) {
  Mat43 G;
  G.row(0) = -0.5 * rho.tail<3>().transpose();
  G.bottomRows<3>() = 0.5 * (rho(0) * Mat3::Identity() + skew(rho.tail<3>()));
  return G;
}

/// d(1/2 rho (x) (0, u))/d rho = 1/2 [0, -u^T; u, -u~].
Mat4 rateDerivative(const Vec3& u) {
  Mat4 W;
  W(0, 0) = 0.0;
  W.block<1, 3>(0, 1) = -0.5 * u.transpose();
  W.block<3, 1>(1, 0) = 0.5 * u;
  W.block<3, 3>(1, 1) = -0.5 * skew(u);
  return W;
}

}  // namespace

MultibodyDae::MultibodyDae(const Model& model, const AssemblyPlan& plan, IdaFormulation formulation,
                           Index own_bodies)
    : m_(model), plan_(plan), formulation_(formulation), d3_(model.dimension == 3) {
  const Index bodies = static_cast<Index>(model.bodies.size());
  CATENA_CHECK(own_bodies >= -1 && own_bodies <= bodies,
               "MultibodyDae: own_bodies must be -1 or 0.." << bodies << ", got " << own_bodies);
  CATENA_CHECK(own_bodies < 0 || own_bodies == bodies || formulation != IdaFormulation::kIndex1,
               "MultibodyDae: a model part (own_bodies < bodies) needs the index-3 or the GGL "
               "formulation: index 1's C_q v' would need the ghost bodies' v'");
  own_bodies_ = own_bodies < 0 ? bodies : own_bodies;
  own_nv_ = model.vOffset(own_bodies_);
  DaeLayout& L = layout_;
  L.nq = model.nq;
  L.nv = model.nv;
  L.nc = model.nc;
  L.nmu = formulation == IdaFormulation::kIndex2 ? model.nc : 0;
  L.nnu = d3_ ? static_cast<Index>(model.bodies.size()) : 0;
  L.q = 0;
  L.v = L.q + L.nq;
  L.lambda = L.v + L.nv;
  L.mu = L.lambda + L.nc;
  L.nu = L.mu + L.nmu;
  L.size = L.nu + L.nnu;

  qh_ = VecX::Zero(L.nq);
  v_ = VecX::Zero(L.nv);
  vd_ = VecX::Zero(L.nv);
  lambda_ = VecX::Zero(L.nc);
  mu_ = VecX::Zero(L.nc);
  nu_ = VecX::Zero(L.nnu);
  rho_.assign(L.nnu, Vec4(1.0, 0.0, 0.0, 0.0));
  H_.assign(L.nnu, Mat34::Zero());
  C_ = VecX::Zero(L.nc);
  Ct_ = VecX::Zero(L.nc);
  f_ = VecX::Zero(L.nv);
  gamma_ = VecX::Zero(L.nc);
  u_ = VecX::Zero(L.nv);
  Cq_ = makeConstraintMatrix(plan);
  Aq_ = makeConstraintMatrix(plan);
  Gq_ = makeConstraintMatrix(plan);
  Gv_ = makeConstraintMatrix(plan);
  Kc_ = makeBodyMatrix(plan);
  Kmu_ = makeBodyMatrix(plan);
  K_ = makeBodyMatrix(plan);
  D_ = makeBodyMatrix(plan);
  M_ = makeBodyMatrix(plan);

  // C_q^T's pattern and, for each of its entries, where the value sits in C_q.
  SparseMatrixCSR index = Cq_;
  for (int k = 0; k < index.nonZeros(); ++k) index.valuePtr()[k] = k;
  CqT_ = SparseMatrixCSR(index.transpose());
  cqt_src_.resize(CqT_.nonZeros());
  for (int k = 0; k < CqT_.nonZeros(); ++k) cqt_src_[k] = static_cast<int>(CqT_.valuePtr()[k]);

  // Symbolic pass over every block that can be nonzero.
  PatternAdder pa;
  pa.cols.resize(L.size);
  fill(pa, 1.0);
  std::vector<Eigen::Triplet<double, int>> entries;
  for (Index r = 0; r < L.size; ++r) {
    std::vector<int>& c = pa.cols[r];
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    for (int col : c) entries.emplace_back(static_cast<int>(r), col, 0.0);
  }
  J_ = SparseMatrixCSR(L.size, L.size);
  J_.setFromTriplets(entries.begin(), entries.end());
  J_.makeCompressed();
  colpos_.assign(L.size, -1);
}

void MultibodyDae::load(const double* y, const double* yp) {
  const DaeLayout& L = layout_;
  qh_ = Eigen::Map<const VecX>(y + L.q, L.nq);
  v_ = Eigen::Map<const VecX>(y + L.v, L.nv);
  lambda_ = Eigen::Map<const VecX>(y + L.lambda, L.nc);
  if (L.nmu) mu_ = Eigen::Map<const VecX>(y + L.mu, L.nmu);
  if (L.nnu) nu_ = Eigen::Map<const VecX>(y + L.nu, L.nnu);
  vd_ = Eigen::Map<const VecX>(yp + L.v, L.nv);
  // Ghost bodies' own unknowns are not read (constructor): their terms belong to their owners.
  vd_.tail(L.nv - own_nv_).setZero();
  if (L.nnu) nu_.tail(L.nnu - own_bodies_).setZero();
  if (!d3_) return;
  for (Index b = 0; b < L.nnu; ++b) {
    const Index o = m_.qOffset(b) + 3;
    const Vec4 rho(y[L.q + o], y[L.q + o + 1], y[L.q + o + 2], y[L.q + o + 3]);
    const double n2 = rho.squaredNorm();
    rho_[b] = rho;
    qh_.segment<4>(o) = rho / std::sqrt(n2);
    // theta = 2 vec(conj(rho) (x) d rho) / |rho|^2
    Mat34& H = H_[b];
    H.col(0) = -rho.tail<3>();
    H.rightCols<3>() = rho(0) * Mat3::Identity() - skew(rho.tail<3>());
    H *= 2.0 / n2;
  }
}

void MultibodyDae::residual(double t, const double* y, const double* yp, double* F) {
  const DaeLayout& L = layout_;
  load(y, yp);
  const bool ggl = formulation_ == IdaFormulation::kIndex2;
  const bool index1 = formulation_ == IdaFormulation::kIndex1;
  assembleConstraints(m_, plan_, qh_, t, index1 ? nullptr : &C_, &Cq_);
  assembleMass(m_, plan_, qh_, M_);
  assembleForces(m_, plan_, qh_, v_, t, f_);
  f_.tail(L.nv - own_nv_).setZero();

  // Kinematics (a ghost body's rows: - N(q) u with u = - C_q^T mu).
  u_ = v_;
  u_.tail(L.nv - own_nv_).setZero();
  if (ggl) u_.noalias() -= Cq_.transpose() * mu_;
  const Index nb = static_cast<Index>(m_.bodies.size());
  for (Index b = 0; b < nb; ++b) {
    const Index qo = m_.qOffset(b), vo = m_.vOffset(b);
    const double* qd = yp + L.q + qo;
    const bool own = b < own_bodies_;
    if (d3_) {
      for (int k = 0; k < 3; ++k) F[L.q + qo + k] = (own ? qd[k] : 0.0) - u_(vo + k);
      const Vec4 rho(y[L.q + qo + 3], y[L.q + qo + 4], y[L.q + qo + 5], y[L.q + qo + 6]);
      const Vec4 rate = quaternionRate(rho, u_.segment<3>(vo + 3)) + nu_(b) * rho;
      for (int a = 0; a < 4; ++a) F[L.q + qo + 3 + a] = (own ? qd[3 + a] : 0.0) - rate(a);
    } else {
      for (int k = 0; k < 3; ++k) F[L.q + qo + k] = (own ? qd[k] : 0.0) - u_(vo + k);
    }
  }
  // Dynamics.
  Eigen::Map<VecX> Fv(F + L.v, L.nv);
  Fv.noalias() = M_ * vd_;
  Fv.noalias() += Cq_.transpose() * lambda_;
  Fv -= f_;
  // Constraints.
  Eigen::Map<VecX> Fc(F + L.lambda, L.nc);
  if (index1) {
    assembleGamma(m_, plan_, qh_, v_, t, gamma_);
    Fc.noalias() = Cq_ * vd_;
    Fc -= gamma_;
  } else {
    Fc = C_;
  }
  if (ggl) {
    assembleConstraintTimeDerivative(m_, plan_, qh_, t, Ct_);
    velocityConstraints(m_, Cq_, v_, Ct_, F + L.mu);  // body 1's terms first: any rank count
  }
  for (Index b = 0; b < L.nnu; ++b) {
    const Index o = L.q + m_.qOffset(b) + 3;
    F[L.nu + b] = b < own_bodies_ ? y[o] * y[o] + y[o + 1] * y[o + 1] + y[o + 2] * y[o + 2] +
                                        y[o + 3] * y[o + 3] - 1.0
                                  : 0.0;
  }
}

template <class Adder>
void MultibodyDae::addThroughH(Adder& a, const SparseMatrixCSR& X, Index row, double scale) const {
  const int nvb = m_.nv_body;
  for (SparseMatrixCSR::InnerIterator it(X, row); it; ++it) {
    const Index b = static_cast<Index>(it.col()) / nvb;
    const int k = static_cast<int>(it.col()) % nvb;
    const Index qo = layout_.q + m_.qOffset(b);
    const double x = scale * it.value();
    if (d3_ && k >= 3) {
      const Mat34& H = H_[b];
      for (int c = 0; c < 4; ++c) a.add(qo + 3 + c, x * H(k - 3, c));
    } else {
      a.add(qo + k, x);
    }
  }
}

template <class Adder>
void MultibodyDae::addTransposedCq(Adder& a, Index row, Index col0, double scale) const {
  const double* cq = Cq_.valuePtr();
  const int* outer = CqT_.outerIndexPtr();
  const int* inner = CqT_.innerIndexPtr();
  for (int k = outer[row]; k < outer[row + 1]; ++k) a.add(col0 + inner[k], scale * cq[cqt_src_[k]]);
}

template <class Adder>
void MultibodyDae::fill(Adder& a, double cj) {
  const DaeLayout& L = layout_;
  const bool ggl = formulation_ == IdaFormulation::kIndex2;
  const bool index1 = formulation_ == IdaFormulation::kIndex1;
  const Index nb = static_cast<Index>(m_.bodies.size());

  // F_q = q' - N(q) u - nu rho; GGL: u = v - C_q^T mu, du/dq = -K_c(mu) H, du/dmu = -C_q^T.
  for (Index b = 0; b < nb; ++b) {
    const Index qo = L.q + m_.qOffset(b), vo = m_.vOffset(b);
    const bool own = b < own_bodies_;  // a ghost body's rows: the joint terms only
    for (int k = 0; k < 3; ++k) {      // positions (2D: x, y, theta), mapped by the identity
      a.begin(qo + k);
      if (own) {
        a.add(qo + k, cj);
        a.add(L.v + vo + k, -1.0);
      }
      if (ggl) {
        addThroughH(a, Kmu_, vo + k, 1.0);
        addTransposedCq(a, vo + k, L.mu, 1.0);
      }
      a.end();
    }
    if (!d3_) continue;
    const Vec4& rho = rho_[b];
    const Mat43 G = rateMap(rho);
    const Mat4 W = rateDerivative(u_.segment<3>(vo + 3));
    for (int r = 0; r < 4; ++r) {
      a.begin(qo + 3 + r);
      for (int c = 0; c < 4; ++c) a.add(qo + 3 + c, (r == c && own ? cj - nu_(b) : 0.0) - W(r, c));
      if (own) {
        for (int k = 0; k < 3; ++k) a.add(L.v + vo + 3 + k, -G(r, k));
        a.add(L.nu + b, -rho(r));
      }
      if (ggl)
        for (int k = 0; k < 3; ++k) {
          addThroughH(a, Kmu_, vo + 3 + k, G(r, k));
          addTransposedCq(a, vo + 3 + k, L.mu, G(r, k));
        }
      a.end();
    }
  }

  // F_v = M v' + C_q^T lambda - f: d/dq = (K(a = v') + K_c(lambda)) H, d/dv = D, d/dv' = M.
  const double* mv = M_.valuePtr();
  const double* dv = D_.valuePtr();
  for (Index i = 0; i < L.nv; ++i) {
    const bool own = i < own_nv_;
    a.begin(L.v + i);
    if (own) addThroughH(a, K_, i, 1.0);
    addThroughH(a, Kc_, i, 1.0);
    if (own)
      for (int k = M_.outerIndexPtr()[i]; k < M_.outerIndexPtr()[i + 1]; ++k)
        a.add(L.v + M_.innerIndexPtr()[k], cj * mv[k] + dv[k]);
    addTransposedCq(a, i, L.lambda, 1.0);
    a.end();
  }

  // F_c: C (d/dq = C_q H) or, index 1, C_q v' - gamma.
  const double* cq = Cq_.valuePtr();
  const double* gv = Gv_.valuePtr();
  for (Index i = 0; i < L.nc; ++i) {
    a.begin(L.lambda + i);
    if (index1) {
      addThroughH(a, Aq_, i, 1.0);
      addThroughH(a, Gq_, i, -1.0);
      for (int k = Cq_.outerIndexPtr()[i]; k < Cq_.outerIndexPtr()[i + 1]; ++k)
        a.add(L.v + Cq_.innerIndexPtr()[k], cj * cq[k] - gv[k]);
    } else {
      addThroughH(a, Cq_, i, 1.0);
    }
    a.end();
  }

  // F_g = C_q v + C_t (GGL): d/dq = d(C_q v + C_t)/dq H, d/dv = C_q.
  for (Index i = 0; i < L.nmu; ++i) {
    a.begin(L.mu + i);
    addThroughH(a, Aq_, i, 1.0);
    for (int k = Cq_.outerIndexPtr()[i]; k < Cq_.outerIndexPtr()[i + 1]; ++k)
      a.add(L.v + Cq_.innerIndexPtr()[k], cq[k]);
    a.end();
  }

  // F_n = |rho|^2 - 1 (own bodies).
  for (Index b = 0; b < own_bodies_ && b < L.nnu; ++b) {
    const Index qo = L.q + m_.qOffset(b) + 3;
    a.begin(L.nu + b);
    for (int c = 0; c < 4; ++c) a.add(qo + c, 2.0 * rho_[b](c));
    a.end();
  }
}

const SparseMatrixCSR& MultibodyDae::newtonMatrix(double t, const double* y, const double* yp,
                                                  double cj) {
  load(y, yp);
  assembleConstraintJacobianAndStiffness(m_, plan_, qh_, t, lambda_, Cq_, Kc_);
  assembleMass(m_, plan_, qh_, M_);
  mass_scale_ = 0.0;
  for (Index i = 0; i < M_.rows(); ++i)
    mass_scale_ = std::max(mass_scale_, std::abs(M_.coeff(i, i)));
  if (!(mass_scale_ > 0.0)) mass_scale_ = 1.0;
  assembleForceJacobians(m_, plan_, qh_, v_, t, &vd_, K_, D_);
  u_ = v_;
  u_.tail(layout_.nv - own_nv_).setZero();
  switch (formulation_) {
    case IdaFormulation::kIndex2:
      assembleConstraintStiffness(m_, plan_, qh_, t, mu_, Kmu_);
      u_.noalias() -= Cq_.transpose() * mu_;
      assembleJacobianProductDerivative(m_, plan_, qh_, t, v_, true, Aq_);
      break;
    case IdaFormulation::kIndex1:
      assembleJacobianProductDerivative(m_, plan_, qh_, t, vd_, false, Aq_);
      assembleGammaDerivatives(m_, plan_, qh_, v_, t, Gq_, Gv_);
      break;
    case IdaFormulation::kIndex3:
      break;
  }
  ValueAdder va{J_.outerIndexPtr(), J_.innerIndexPtr(), J_.valuePtr(), colpos_};
  fill(va, cj);
  return J_;
}

VecX MultibodyDae::errorTestIds() const {
  const DaeLayout& L = layout_;
  VecX id = VecX::Zero(L.size);
  id.segment(L.q, L.nq).setOnes();
  if (formulation_ != IdaFormulation::kIndex3) id.segment(L.v, L.nv).setOnes();
  return id;
}

void MultibodyDae::pack(const State& s, const VecX& vdot, VecX& y, VecX& yp) const {
  const DaeLayout& L = layout_;
  y = VecX::Zero(L.size);
  yp = VecX::Zero(L.size);
  y.segment(L.q, L.nq) = s.q;
  y.segment(L.v, L.nv) = s.v;
  y.segment(L.lambda, L.nc) = s.lambda;
  yp.segment(L.v, L.nv) = vdot;
  const Index nb = static_cast<Index>(m_.bodies.size());
  for (Index b = 0; b < nb; ++b) {
    const Index qo = L.q + m_.qOffset(b), vo = m_.vOffset(b);
    for (int k = 0; k < 3; ++k) yp(qo + k) = s.v(vo + k);
    if (d3_)
      yp.segment<4>(qo + 3) =
          quaternionRate(s.q.segment<4>(m_.qOffset(b) + 3), s.v.segment<3>(vo + 3));
  }
}

void MultibodyDae::unpack(double t, const double* y, State& s) const {
  const DaeLayout& L = layout_;
  s.t = t;
  s.q = Eigen::Map<const VecX>(y + L.q, L.nq);
  s.v = Eigen::Map<const VecX>(y + L.v, L.nv);
  s.lambda = Eigen::Map<const VecX>(y + L.lambda, L.nc);
  for (Index b = 0; b < L.nnu; ++b) {
    const Index o = m_.qOffset(b) + 3;
    s.q.segment<4>(o).normalize();
  }
}

}  // namespace catena
