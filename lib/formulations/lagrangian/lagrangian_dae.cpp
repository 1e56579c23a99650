#include "formulations/lagrangian/lagrangian_dae.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <sstream>

namespace catena::lagrangian {

void LagrangianFirstOrder::resize(Index nq, Index nc) {
  L_q.setZero(nq);
  L_v.setZero(nq);
  C.setZero(nc);
  C_q.setZero(nc, nq);
}

void LagrangianSecondOrder::resize(Index nq, Index nc) {
  LagrangianFirstOrder::resize(nq, nc);
  L_qq.setZero(nq, nq);
  L_qv.setZero(nq, nq);
  L_vv.setZero(nq, nq);
  C_qq.assign(static_cast<std::size_t>(nc), MatX::Zero(nq, nq));
}

LagrangianDaeWorkspace::LagrangianDaeWorkspace(const LagrangianSystem& sys) {
  first.resize(sys.nq, sys.nc);
  second.resize(sys.nq, sys.nc);
}

void computeLagrangianDaeResidual(const LagrangianSystem& sys, const LagrangianDaeLayout& ly,
                                  LagrangianDaeWorkspace& ws, const Eigen::Ref<const VecX>& y,
                                  const Eigen::Ref<const VecX>& yp, Eigen::Ref<VecX> F) {
  const Index n = ly.n, m = ly.m;
  LagrangianFirstOrder& d = ws.first;
  sys.evaluateFirst(y.segment(ly.q(), n), y.segment(ly.v(), n), d);
  const auto v = y.segment(ly.v(), n);
  F.segment(ly.q(), n) = yp.segment(ly.q(), n) - v;
  if (ly.stabilized()) F.segment(ly.q(), n).noalias() += d.C_q.transpose() * y.segment(ly.mu(), m);
  F.segment(ly.v(), n) = y.segment(ly.p(), n) - d.L_v;
  F.segment(ly.p(), n) = yp.segment(ly.p(), n) - d.L_q;
  F.segment(ly.p(), n).noalias() += d.C_q.transpose() * y.segment(ly.lambda(), m);
  F.segment(ly.lambda(), m) = d.C;
  if (ly.stabilized()) F.segment(ly.mu(), m).noalias() = d.C_q * v;
}

void computeLagrangianDaeJacobian(const LagrangianSystem& sys, const LagrangianDaeLayout& ly,
                                  LagrangianDaeWorkspace& ws, const Eigen::Ref<const VecX>& y,
                                  double c_j, Eigen::Ref<MatX> J) {
  const Index n = ly.n, m = ly.m;
  LagrangianSecondOrder& d = ws.second;
  const auto v = y.segment(ly.v(), n);
  sys.evaluateSecond(y.segment(ly.q(), n), v, d);
  J.setZero();
  const Index iq = ly.q(), iv = ly.v(), ip = ly.p(), il = ly.lambda(), imu = ly.mu();
  // F_q
  J.block(iq, iq, n, n).diagonal().array() += c_j;
  J.block(iq, iv, n, n).diagonal().array() -= 1.0;
  // F_v
  J.block(iv, iq, n, n) = -d.L_qv.transpose();
  J.block(iv, iv, n, n) = -d.L_vv;
  J.block(iv, ip, n, n).diagonal().array() += 1.0;
  // F_p
  J.block(ip, iq, n, n) = -d.L_qq;
  J.block(ip, iv, n, n) = -d.L_qv;
  J.block(ip, ip, n, n).diagonal().array() += c_j;
  J.block(ip, il, n, m) = d.C_q.transpose();
  // F_C
  J.block(il, iq, m, n) = d.C_q;
  for (Index i = 0; i < m; ++i) {
    const MatX& H = d.C_qq[static_cast<std::size_t>(i)];
    J.block(ip, iq, n, n) += y(il + i) * H;
    if (ly.stabilized()) {
      J.block(iq, iq, n, n) += y(imu + i) * H;
      J.row(imu + i).segment(iq, n).noalias() = (H * v).transpose();
    }
  }
  if (ly.stabilized()) {
    J.block(iq, imu, n, m) = d.C_q.transpose();
    J.block(imu, iv, m, n) = d.C_q;
  }
}

namespace {

/// Columns of A for the free coordinates only (fixed ones zeroed).
MatX freeColumns(const MatX& A, const std::vector<bool>& fixed) {
  MatX B = A;
  for (std::size_t j = 0; j < fixed.size(); ++j)
    if (fixed[j]) B.col(static_cast<Index>(j)).setZero();
  return B;
}

}  // namespace

Status computeConsistentLagrangianState(const LagrangianSystem& sys, const VecX& q_guess,
                                        const VecX& v_guess, const ConsistencyOptions& options,
                                        LagrangianState& out) {
  const Index n = sys.nq, m = sys.nc;
  if (q_guess.size() != n || v_guess.size() != n ||
      (!options.fixed.empty() && options.fixed.size() != static_cast<std::size_t>(n))) {
    std::ostringstream os;
    os << sys.name << ": initial q and v need " << n << " entries (and fixed, if given), got "
       << q_guess.size() << ", " << v_guess.size() << ", " << options.fixed.size();
    return Status::failure(Status::Code::kInvalidInput, os.str());
  }
  LagrangianSecondOrder d;
  d.resize(n, m);
  out.q = q_guess;
  out.v = v_guess;
  // Positions: minimum-norm Gauss-Newton on C(q) = 0 in the free coordinates.
  int it = 0;
  for (;; ++it) {
    sys.evaluateSecond(out.q, out.v, d);
    if (m == 0 || d.C.cwiseAbs().maxCoeff() <= options.tolerance) break;
    if (it == options.max_iterations) {
      std::ostringstream os;
      os << sys.name << ": the position projection did not reach |C| <= " << options.tolerance
         << " in " << it << " iterations (|C| = " << d.C.cwiseAbs().maxCoeff() << ")";
      return Status::failure(Status::Code::kNotConverged, os.str());
    }
    out.q -= freeColumns(d.C_q, options.fixed).completeOrthogonalDecomposition().solve(d.C);
  }
  // Velocities: the linear projection onto C_q v = 0 (one minimum-norm step is exact).
  if (m > 0) {
    out.v -=
        freeColumns(d.C_q, options.fixed).completeOrthogonalDecomposition().solve(d.C_q * out.v);
    sys.evaluateSecond(out.q, out.v, d);
  }
  out.p = d.L_v;
  // Acceleration-level KKT system for vdot and lambda.
  MatX K = MatX::Zero(n + m, n + m);
  VecX rhs(n + m);
  K.topLeftCorner(n, n) = d.L_vv;
  K.topRightCorner(n, m) = d.C_q.transpose();
  K.bottomLeftCorner(m, n) = d.C_q;
  rhs.head(n) = d.L_q - d.L_qv.transpose() * out.v;
  for (Index i = 0; i < m; ++i)
    rhs(n + i) = -out.v.dot(d.C_qq[static_cast<std::size_t>(i)] * out.v);
  const Eigen::FullPivLU<MatX> lu(K);
  if (!lu.isInvertible()) {
    std::ostringstream os;
    os << sys.name << ": the KKT matrix [L_vv C_q^T; C_q 0] is singular (rank " << lu.rank()
       << " of " << n + m << "): redundant constraints or a mass matrix singular on the tangent "
       << "space";
    return Status::failure(Status::Code::kSingular, os.str());
  }
  const VecX x = lu.solve(rhs);
  out.vdot = x.head(n);
  out.lambda = x.tail(m);
  out.pdot = d.L_q - d.C_q.transpose() * out.lambda;
  return Status::success();
}

double computeLagrangianEnergy(const LagrangianSystem& sys, const VecX& q, const VecX& v) {
  LagrangianFirstOrder d;
  d.resize(sys.nq, sys.nc);
  sys.evaluateFirst(q, v, d);
  return v.dot(d.L_v) - d.L;
}

}  // namespace catena::lagrangian
