#include "formulations/rotation_matrix/rm_body.hpp"

namespace catena::rm {

Mat3 poinsotFromInertia(const Mat3& J) {
  return 0.5 * J.trace() * Mat3::Identity() - J;
}

Mat3 symmetricFromRows(const Vec6& mu) {
  Mat3 S;
  for (int k = 0; k < 6; ++k) {
    S(kOrthogonalityPair[k][0], kOrthogonalityPair[k][1]) = mu(k);
    S(kOrthogonalityPair[k][1], kOrthogonalityPair[k][0]) = mu(k);
  }
  return S;
}

Vec6 rowsFromSymmetric(const Mat3& S) {
  Vec6 mu;
  for (int k = 0; k < 6; ++k) mu(k) = S(kOrthogonalityPair[k][0], kOrthogonalityPair[k][1]);
  return mu;
}

Vec6 computeOrthogonalityResidual(const Mat3& R) {
  Vec6 phi;
  for (int k = 0; k < 6; ++k) {
    const int i = kOrthogonalityPair[k][0], j = kOrthogonalityPair[k][1];
    phi(k) = i == j ? 0.5 * (R.col(i).squaredNorm() - 1.0) : R.col(i).dot(R.col(j));
  }
  return phi;
}

Mat6x9 computeOrthogonalityJacobian(const Mat3& R) {
  Mat6x9 A = Mat6x9::Zero();
  for (int k = 0; k < 6; ++k) {
    const int i = kOrthogonalityPair[k][0], j = kOrthogonalityPair[k][1];
    if (i == j) {
      A.block<1, 3>(k, 3 * i) = R.col(i).transpose();
    } else {
      A.block<1, 3>(k, 3 * i) = R.col(j).transpose();
      A.block<1, 3>(k, 3 * j) = R.col(i).transpose();
    }
  }
  return A;
}

Vec6 computeOrthogonalityGamma(const Mat3& R_dot) {
  Vec6 gamma;
  for (int k = 0; k < 6; ++k) {
    const int i = kOrthogonalityPair[k][0], j = kOrthogonalityPair[k][1];
    gamma(k) = (i == j ? -1.0 : -2.0) * R_dot.col(i).dot(R_dot.col(j));
  }
  return gamma;
}

Mat9 computeOrthogonalityHessianTimes(const Vec6& mu) {
  const Mat3 L = symmetricFromRows(mu);
  Mat9 H;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) H.block<3, 3>(3 * a, 3 * b) = L(b, a) * Mat3::Identity();
  return H;
}

Mat12 computeBodyMassMatrix(const RmBody& body) {
  Mat12 M = Mat12::Zero();
  const double m = body.mass;
  M.block<3, 3>(0, 0) = m * Mat3::Identity();
  for (int k = 0; k < 3; ++k) {
    M.block<3, 3>(0, 3 + 3 * k) = m * body.com(k) * Mat3::Identity();
    M.block<3, 3>(3 + 3 * k, 0) = m * body.com(k) * Mat3::Identity();
    for (int j = 0; j < 3; ++j)
      M.block<3, 3>(3 + 3 * k, 3 + 3 * j) = body.poinsot_O(k, j) * Mat3::Identity();
  }
  return M;
}

double computeBodyKineticEnergy(const RmBody& body, const Vec3& T_dot, const Mat3& R_dot) {
  return 0.5 * body.mass * T_dot.squaredNorm() + body.mass * T_dot.dot(R_dot * body.com) +
         0.5 * (R_dot * body.poinsot_O * R_dot.transpose()).trace();
}

double computeBodyPotentialEnergy(const RmBody& body, const Vec3& gravity, const Vec3& T,
                                  const Mat3& R) {
  return -body.mass * gravity.dot(T + R * body.com);
}

void computeBodyGravity(const RmBody& body, const Vec3& gravity, Vec3& X, Mat3& Y) {
  X = body.mass * gravity;
  Y = X * body.com.transpose();
}

Mat3 solvePoinsotLyapunov(const RmBody& body, const Mat3& B) {
  const Mat3& V = body.poinsot_axes;
  const Vec3& k = body.poinsot_principal;
  Mat3 L = V.transpose() * B * V;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) L(a, b) *= k(a) * k(b) / (k(a) + k(b));
  return V * L * V.transpose();
}

void computeBodyAcceleration(const RmBody& body, const Mat3& R, const Mat3& R_dot, const Vec3& X,
                             const Mat3& Y, bool velocity_term, Vec3& T_ddot, Mat3& R_ddot,
                             Mat3& Lambda) {
  const Mat3& V = body.poinsot_axes;
  const Vec3& k = body.poinsot_principal;
  // K^-1 = V diag(1/k) V^T
  const Mat3 K_inv = V * k.cwiseInverse().asDiagonal() * V.transpose();
  const Mat3 B0 = Y - X * body.com.transpose();
  const Mat3 RtB0Kinv = R.transpose() * B0 * K_inv;
  Mat3 B = RtB0Kinv + RtB0Kinv.transpose();
  if (velocity_term) B.noalias() += 2.0 * R_dot.transpose() * R_dot;
  Lambda = solvePoinsotLyapunov(body, B);
  R_ddot = (B0 - R * Lambda) * K_inv;
  T_ddot = X / body.mass - R_ddot * body.com;
}

}  // namespace catena::rm
