#include "mobility/tangent_continuation.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <unsupported/Eigen/MatrixFunctions>

#include "core/check.hpp"

namespace catena {

const char* continuationMapName(ContinuationMap map) {
  switch (map) {
    case ContinuationMap::kExponential:
      return "exponential";
    case ContinuationMap::kCayley:
      return "cayley";
    case ContinuationMap::kProjection:
      return "projection";
  }
  return "unknown";
}

TangentFactors factorTangent(const MatX& A, double tolerance, Index forced_rank) {
  const ConstraintRank cr = analyzeConstraintRank(A, tolerance);
  TangentFactors f;
  f.n = cr.n;
  f.m = cr.m;
  f.tolerance = tolerance;
  f.pivot_rows = cr.pivot_rows;
  f.pivots = cr.pivots;
  f.r1_diagonal = cr.pivots * cr.largest_pivot;
  const Index k = std::min(cr.n, cr.m);
  CATENA_CHECK(forced_rank <= k,
               "factorTangent: a forced rank of " << forced_rank << " exceeds min(n, m) = " << k);
  const Index r = forced_rank >= 0 ? forced_rank : cr.rank;
  f.rank = r;
  // Q = [normal tangent] is the full orthogonal factor: split it at r instead of the rank.
  MatX Q(cr.n, cr.n);
  Q << cr.normal, cr.tangent;
  f.Q1 = Q.leftCols(r);
  f.T = Q.rightCols(cr.n - r);
  MatX Ap(r, cr.n);
  for (Index i = 0; i < r; ++i) Ap.row(i) = A.row(f.pivot_rows[i]);
  // Exactly upper triangular in exact arithmetic (A^T P = Q R); the round-off below goes.
  f.R1 = (f.Q1.transpose() * Ap.transpose()).triangularView<Eigen::Upper>();
  for (Index i = 0; i < r; ++i)
    if (f.R1(i, i) < 0.0) {
      f.R1.row(i) *= -1.0;
      f.Q1.col(i) *= -1.0;
    }
  return f;
}

QrRates computeQrRates(const TangentFactors& f, const MatX& T, const MatX& dA) {
  CATENA_CHECK(dA.rows() == f.m && dA.cols() == f.n, "computeQrRates: dA/dt is "
                                                         << dA.rows() << " x " << dA.cols()
                                                         << ", A is " << f.m << " x " << f.n);
  CATENA_CHECK(T.rows() == f.n && T.cols() == f.n - f.rank, "computeQrRates: the tangent basis is "
                                                                << T.rows() << " x " << T.cols()
                                                                << ", expected " << f.n << " x "
                                                                << f.n - f.rank);
  const Index r = f.rank;
  MatX G(f.n, r);  // A_p'^T
  for (Index i = 0; i < r; ++i) G.col(i) = dA.row(f.pivot_rows[i]).transpose();
  // X = G R1^{-1}, i.e. R1^T X^T = G^T: one triangular solve (eq. 24).
  const MatX X = f.R1.triangularView<Eigen::Upper>().transpose().solve(G.transpose()).transpose();
  QrRates out;
  // R1' R1^{-1} is upper triangular, so the strictly lower part of Q1^T X is Omega1's (eq. 25).
  const MatX W = f.Q1.transpose() * X;
  const MatX L = W.triangularView<Eigen::StrictlyLower>();
  out.omega1 = L - L.transpose();
  out.omega21 = T.transpose() * X;
  out.dR1 = f.Q1.transpose() * G - out.omega1 * f.R1;
  return out;
}

MatX assembleOmega(const QrRates& rates) {
  const Index r = rates.omega1.rows(), fd = rates.omega21.rows();
  MatX omega = MatX::Zero(r + fd, r + fd);
  omega.topLeftCorner(r, r) = rates.omega1;
  omega.topRightCorner(r, fd) = -rates.omega21.transpose();
  omega.bottomLeftCorner(fd, r) = rates.omega21;
  return omega;
}

MatX rotationFactor(const MatX& omega, double h, ContinuationMap map) {
  const Index n = omega.rows();
  if (map == ContinuationMap::kProjection) return MatX::Identity(n, n);
  if (map == ContinuationMap::kExponential) return MatX((h * omega).exp());
  const MatX S = 0.5 * h * omega;
  const MatX I = MatX::Identity(n, n);
  // I - S is invertible for any skew S (its eigenvalues are 1 - i s).
  return (I - S).partialPivLu().solve(I + S);
}

MatX evolveTangent(const TangentFactors& f, const MatX& T, const MatX& dA, double h,
                   ContinuationMap map) {
  if (map == ContinuationMap::kProjection) return T;
  const MatX omega = assembleOmega(computeQrRates(f, T, dA));
  MatX Q(f.n, f.n);
  Q << f.Q1, T;
  return Q * rotationFactor(omega, h, map).rightCols(T.cols());
}

ContinuedTangent continueTangent(const MatX& Q1, const MatX& B, const MatX& T_evolved,
                                 double min_cosine) {
  const Index n = B.rows(), f_new = B.cols(), f_old = T_evolved.cols();
  CATENA_CHECK(Q1.rows() == n && T_evolved.rows() == n && Q1.cols() + f_new == n,
               "continueTangent: [Q1 B] must be n x n (got Q1 "
                   << Q1.rows() << " x " << Q1.cols() << ", B " << B.rows() << " x " << f_new
                   << ")");
  ContinuedTangent out;
  const Index k = std::min(f_new, f_old);
  out.continued = k;
  if (k == 0) {  // nothing to continue (no motion before, or none now): the new basis as it is
    out.T = B;
    return out;
  }
  const MatX target = T_evolved.leftCols(k);
  const MatX Z = target - Q1 * (Q1.transpose() * target);
  const Eigen::SelfAdjointEigenSolver<MatX> es(Z.transpose() * Z);
  out.cosines = es.eigenvalues().reverse().cwiseMax(0.0).cwiseSqrt();
  MatX C;
  if (k > 0 && out.cosines(k - 1) >= min_cosine) {
    C = Z * es.operatorInverseSqrt();
  } else if (k > 0 && f_new < f_old) {
    // The motions that survive are not among the first columns: take the principal directions
    // of the new space with respect to the whole evolved basis instead.
    const Eigen::JacobiSVD<MatX> svd(B.transpose() * T_evolved, Eigen::ComputeThinU);
    C = B * svd.matrixU().leftCols(k);
    out.cosines = svd.singularValues().head(k);
  } else if (k > 0) {
    std::ostringstream os;
    os << "the evolved tangent basis has a direction normal to the new tangent space "
       << "(smallest principal cosine " << out.cosines(k - 1) << " < " << min_cosine
       << "): the step turned the tangent space by about 90 degrees";
    out.status = Status::failure(Status::Code::kSingular, os.str());
    C = B.leftCols(k);
  }
  out.T.resize(n, f_new);
  out.T.leftCols(k) = C;
  if (f_new > k) {
    // New motions: the part of span(B) orthogonal to C, from a complete QR of B^T C.
    const MatX W = B.transpose() * C;  // f_new x k, orthonormal columns
    const Eigen::HouseholderQR<MatX> qr(W);
    const MatX Qw = qr.householderQ() * MatX::Identity(f_new, f_new);
    out.T.rightCols(f_new - k) = B * Qw.rightCols(f_new - k);
  }
  return out;
}

long countSignFlips(const MatX& Ta, const MatX& Tb) {
  long flips = 0;
  const Index k = std::min(Ta.cols(), Tb.cols());
  for (Index j = 0; j < k; ++j)
    if (Ta.col(j).dot(Tb.col(j)) < 0.0) ++flips;
  return flips;
}

}  // namespace catena
